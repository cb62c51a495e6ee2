"""Archives are unpacked inside their target only: ``../`` members, absolute names, links out, hard links
to nowhere, special files and archives over the size cap are refused before anything is written."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from steb_core.obtain.errors import FetchError
from steb_core.obtain.unpack import refuse_links_out, safe_unpack


def _zip(path: Path, members: list[tuple[str, bytes]], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members:
            z.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)
    return path


def _tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as t:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                t.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size = len(m[1])
                t.addfile(info, io.BytesIO(m[1]))
    return path


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def _nothing_written(tmp_path: Path, dest: Path) -> None:
    assert not dest.exists() or not any(dest.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in tmp_path.iterdir() if p.suffix in (".zip", ".gz") or p == dest
    )


def test_good_archives_unpack(tmp_path):
    dest = tmp_path / "out"
    safe_unpack(_zip(tmp_path / "a.zip", [("d/x.txt", b"x"), ("y.txt", b"y")], links={"d/l": "x.txt"}), dest)
    assert (dest / "d" / "x.txt").read_bytes() == b"x" and (dest / "d" / "l").read_bytes() == b"x"
    safe_unpack(_tar(tmp_path / "b.tar.gz", [("t/z.txt", b"z"), _link("t/hard", "t/z.txt", tarfile.LNKTYPE)]), dest)
    assert (dest / "t" / "hard").read_bytes() == b"z"


@pytest.mark.parametrize("member", ["../evil.txt", "d/../../evil.txt", "/tmp/evil-abs.txt"])
def test_escaping_members_are_refused(tmp_path, member):
    dest = tmp_path / "out"
    with pytest.raises(FetchError, match="a.zip: member .*(outside|absolute).*nothing unpacked"):
        safe_unpack(_zip(tmp_path / "a.zip", [("ok.txt", b"fine"), (member, b"evil")]), dest)
    with pytest.raises(FetchError, match="b.tar.gz: member .*(outside|absolute)"):
        safe_unpack(_tar(tmp_path / "b.tar.gz", [("ok.txt", b"fine"), (member, b"evil")]), dest)
    assert not (tmp_path / "evil.txt").exists() and not Path("/tmp/evil-abs.txt").exists()
    _nothing_written(tmp_path, dest)


@pytest.mark.parametrize("target", ["/etc/passwd", "../../outside", "d/../../../x"])
def test_links_out_are_refused(tmp_path, target):
    dest = tmp_path / "out"
    with pytest.raises(FetchError, match="is a link to .* outside the target folder"):
        safe_unpack(_tar(tmp_path / "a.tar.gz", [("ok.txt", b"fine"), _link("d/link", target)]), dest)
    with pytest.raises(FetchError, match="is a link to .* outside the target folder"):
        safe_unpack(_zip(tmp_path / "b.zip", [("ok.txt", b"fine")], links={"d/link": target}), dest)
    _nothing_written(tmp_path, dest)


def test_writing_through_a_link_and_odd_members_are_refused(tmp_path):
    dest = tmp_path / "out"
    # the link itself stays inside, but a later member would be written through it
    with pytest.raises(FetchError, match="inside a link"):
        safe_unpack(_tar(tmp_path / "a.tar.gz", [_link("sub", "."), ("sub/x.txt", b"x")]), dest)
    with pytest.raises(FetchError, match="hard link to '/etc/passwd'|absolute"):
        safe_unpack(_tar(tmp_path / "b.tar.gz", [_link("h", "/etc/passwd", tarfile.LNKTYPE)]), dest)
    fifo = tarfile.TarInfo("pipe")
    fifo.type = tarfile.FIFOTYPE
    with pytest.raises(FetchError, match="device or FIFO"):
        safe_unpack(_tar(tmp_path / "c.tar.gz", [fifo]), dest)
    _nothing_written(tmp_path, dest)


def test_size_cap(tmp_path, monkeypatch):
    dest = tmp_path / "out"
    archive = _zip(tmp_path / "big.zip", [("a.txt", b"0" * 600), ("b.txt", b"0" * 600)])
    with pytest.raises(FetchError, match="1200 bytes, over the cap of 1000"):
        safe_unpack(archive, dest, limit=1000)
    monkeypatch.setenv("STEB_MAX_DECOMPRESSED_BYTES", "1K")
    with pytest.raises(FetchError, match="over the cap of 1024"):
        safe_unpack(archive, dest)
    _nothing_written(tmp_path, dest)


def test_fetched_tree_with_a_link_out_is_refused(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "fine").symlink_to("other")
    refuse_links_out(tmp_path / "tree")
    (tmp_path / "tree" / "bad").symlink_to("/etc")
    with pytest.raises(FetchError, match="bad is a link to /etc"):
        refuse_links_out(tmp_path / "tree")
