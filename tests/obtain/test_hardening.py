"""Issue 41, downloads: nothing outside the data root is touched through a release's own link, archives have a
member cap, Zenodo files come only from the record itself and with a checksum, answers and bodies are bounded
(declared size, expected size, a cap), a trickling server meets a per-file deadline, a bad ``src-N.done`` marker
means "not done", and a write error names the file. Each test fails on the code before issue 41."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tarfile
import textwrap
import time
import zipfile

import pytest
from typer.testing import CliRunner

from steb_core import cli as cli_module
from steb_core.obtain import PARTIAL, DownloadPolicy, fetch_all, make_plan
from steb_core.obtain.errors import FetchError
from steb_core.obtain.http import download, fetch_json
from steb_core.obtain.unpack import safe_unpack

from .conftest import ROWS, jsonl, make_git_repo, write_plugin

FAST = DownloadPolicy(retries=1, timeout=5, backoff=0.01)
pytestmark = pytest.mark.usefixtures("wide_cli_console")


def _tar_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _url_dataset(name: str, path: str, data: bytes) -> dict:
    """A test dataset reading ``train.jsonl`` from a url source pinned by its sha256."""
    file = path.rsplit("/", 1)[-1]
    return {
        "name": name,
        "folder": name,
        "file": file,
        "sources": [
            {
                "kind": "url",
                "url": f"https://files.example.org/{path}",
                "sha256": {file: hashlib.sha256(data).hexdigest()},
            }
        ],
    }


def _one(steb_isolated, tmp_path, datasets):
    manager = steb_isolated.manager([str(write_plugin(tmp_path / "plug.py", datasets))])
    return [manager.datasets().get(d["name"]) for d in datasets]


def test_archive_in_a_git_release_cannot_write_through_the_releases_link(tmp_path, monkeypatch, steb_isolated):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "evil.txt").write_text("precious")
    mirror = tmp_path / "gh"
    # from ROOT/.steb-partial/<target>/src-0/ the link reaches tmp_path/victim
    (sha,) = make_git_repo(
        mirror,
        "o",
        "linky",
        [{"payload.tar": _tar_bytes({"d/evil.txt": b"overwritten", "train.jsonl": jsonl(ROWS)})}],
        links={"d": "../../../../victim"},
    )
    monkeypatch.setenv("STEB_DATA_MIRROR", f"github.com=file://{mirror}")
    (spec,) = _one(
        steb_isolated,
        tmp_path,
        [
            {
                "name": "linky",
                "folder": "linky",
                "file": "train.jsonl",
                "sources": [
                    {"kind": "git", "url": "https://github.com/o/linky", "revision": sha, "unpack": ["payload.tar"]}
                ],
            }
        ],
    )
    root = tmp_path / "data"
    (result,) = fetch_all(make_plan([spec]).jobs, root, policy=FAST)
    assert result.status == "failed" and "d is a link to ../../../../victim" in result.message, result.message
    assert (victim / "evil.txt").read_text() == "precious" and not (root / "linky").exists()


def test_unpacking_never_writes_through_a_link_already_in_the_target(tmp_path):
    dest, outside = tmp_path / "dest", tmp_path / "outside"
    dest.mkdir()
    outside.mkdir()
    (dest / "inner").symlink_to(outside)
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("ok.txt", b"fine")
        z.writestr("inner/x.txt", b"evil")
    with pytest.raises(
        FetchError,
        match=r"member 'inner/x.txt' would be written through 'inner', which is a link to .*nothing unpacked",
    ):
        safe_unpack(archive, dest)
    assert list(outside.iterdir()) == [] and not (dest / "ok.txt").exists()


def test_archive_member_count_is_capped(tmp_path, monkeypatch):
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for i in range(51):
            z.writestr(f"f{i}.txt", b"")
    tar = tmp_path / "many.tar"
    tar.write_bytes(_tar_bytes({f"f{i}.txt": b"" for i in range(51)}))
    monkeypatch.setenv("STEB_MAX_ARCHIVE_MEMBERS", "50")
    for path in (archive, tar):
        with pytest.raises(
            FetchError, match=rf"archive {path.name}: more than 50 members \(set \$STEB_MAX_ARCHIVE_MEMBERS"
        ):
            safe_unpack(path, tmp_path / "out")
        assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    monkeypatch.setenv("STEB_MAX_ARCHIVE_MEMBERS", "51")
    assert len(safe_unpack(archive, tmp_path / "out")) == 51


def test_zenodo_file_without_checksum_or_with_a_foreign_link_is_refused(tmp_path, server, monkeypatch, steb_isolated):
    secret = tmp_path / "secret.txt"
    secret.write_text("local file")
    server.add_zenodo_record("111", {"train.jsonl": jsonl(ROWS)}, entries={"train.jsonl": {"checksum": ""}})
    server.add_zenodo_record(
        "222", {"train.jsonl": jsonl(ROWS)}, entries={"train.jsonl": {"links": {"self": f"file://{secret}"}}}
    )
    server.add_zenodo_record(
        "333",
        {"train.jsonl": jsonl(ROWS)},
        entries={"train.jsonl": {"links": {"self": "https://files.example.org/train.jsonl"}}},
    )
    monkeypatch.setenv("STEB_DATA_MIRROR", f"zenodo.org={server.url}")
    specs = _one(
        steb_isolated,
        tmp_path,
        [
            {"name": f"z{r}", "folder": f"z{r}", "file": "train.jsonl", "sources": [{"kind": "zenodo", "url": r}]}
            for r in ("111", "222", "333")
        ],
    )
    root = tmp_path / "data"
    results = {r.target: r for r in fetch_all(make_plan(specs).jobs, root, policy=FAST, workers=1)}
    assert results["z111"].status == "failed" and "lists 'train.jsonl' without a checksum" in results["z111"].message
    assert (
        results["z222"].status == "failed"
        and f"download link of 'train.jsonl' is 'file://{secret}'" in results["z222"].message
    )
    assert results["z333"].status == "failed" and "not a file of record 333" in results["z333"].message
    assert not list(root.rglob("train.jsonl*")) and len(server.hits("api/records/111/files/train.jsonl/content")) == 0


def test_an_endless_api_answer_is_refused(tmp_path, server):
    server.endless("api/endless")
    started = time.monotonic()
    with pytest.raises(FetchError, match="longer than the 16777216 bytes an API answer may have"):
        fetch_json(f"{server.url}/api/endless", policy=FAST)
    server.endless("api/huge", announce=1 << 40)
    with pytest.raises(FetchError, match="announces 1099511627776 bytes"):
        fetch_json(f"{server.url}/api/huge", policy=FAST)
    assert time.monotonic() - started < 30


def test_bodies_past_their_declared_or_expected_size_are_refused_without_advice_to_resume(
    tmp_path, server, monkeypatch
):
    server.endless("huge.bin", announce=1 << 40)  # a 1 TB Content-Length
    with pytest.raises(FetchError) as info:
        download(f"{server.url}/huge.bin", tmp_path / "huge.bin", policy=FAST)
    assert "announces 1099511627776 bytes for huge.bin" in str(info.value) and "resume" not in str(info.value)
    monkeypatch.setenv("STEB_MAX_DOWNLOAD_BYTES", "1M")
    server.endless("endless.bin")  # no length, never ends
    with pytest.raises(FetchError) as info:
        download(f"{server.url}/endless.bin", tmp_path / "endless.bin", policy=FAST)
    assert "past the cap of 1048576 bytes" in str(info.value) and "resume" not in str(info.value)
    url = server.add_file("ten.bin", b"0123456789")  # the spec says 5 bytes: the body passes it
    with pytest.raises(FetchError, match=r"announces 10 bytes for ten.bin, past the expected 5 bytes"):
        download(url, tmp_path / "ten.bin", policy=FAST, expected_size=5)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no partial file left to fill the disk


def test_a_trickling_server_meets_the_per_file_deadline(tmp_path, server, monkeypatch):
    data = b"x" * 200
    server.trickle("slow/t.bin", data, 0.25)  # a byte every 0.25 s: never idle for --timeout, 50 s in all
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    plugin = write_plugin(tmp_path / "plug.py", [_url_dataset("slow", "slow/t.bin", data)])
    args = [
        "data",
        "get",
        "--dataset",
        "slow",
        "--data-dir",
        str(tmp_path / "data"),
        "--timeout",
        "3",
        "--deadline",
        "1.5",
        "--retries",
        "0",
        "-p",
        str(plugin),
    ]
    started = time.monotonic()
    result = CliRunner().invoke(cli_module.build_app(args), args)
    assert result.exit_code != 0 and "deadline of 1.5 s passed" in str(result.exception), result.output
    assert time.monotonic() - started < 20


def _served_dataset(tmp_path, server, monkeypatch, steb_isolated, name: str):
    """A url dataset ``name`` whose file the local server serves (mirrored): its spec, bytes and data root."""
    data = jsonl(ROWS)
    server.add_file(f"{name}/train.jsonl", data)
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    (spec,) = _one(steb_isolated, tmp_path, [_url_dataset(name, f"{name}/train.jsonl", data)])
    return spec, data, tmp_path / "data"


def test_an_empty_or_corrupt_marker_means_not_done(tmp_path, server, monkeypatch, steb_isolated):
    spec, data, root = _served_dataset(tmp_path, server, monkeypatch, steb_isolated, "mk")
    for content in ("", '{"source": "https://files.exa', "[]"):  # a marker cut short by a crash or a full disk
        staging = root / PARTIAL / "mk"
        staging.mkdir(parents=True, exist_ok=True)
        (staging / "src-0.done").write_text(content)
        (result,) = fetch_all(make_plan([spec]).jobs, root, policy=FAST, force=False)
        assert result.status == "fetched", (content, result.message)
        assert (root / "mk" / "train.jsonl").read_bytes() == data
        (root / "mk" / "train.jsonl").unlink()
        (root / "mk" / ".steb-source.json").unlink()
        (root / "mk").rmdir()


def test_a_write_error_names_the_file(tmp_path, server):
    url = server.add_file("big.bin", b"y" * 300_000)
    dest = tmp_path / "out" / "big.bin"
    script = textwrap.dedent(f"""
        import resource, signal
        from pathlib import Path
        from steb_core.obtain.http import DownloadPolicy, download
        # a write past the limit fails with EFBIG, as ENOSPC on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
        try:
            download({url!r}, Path({str(dest)!r}), policy=DownloadPolicy(retries=0, timeout=5))
        except Exception as exc:
            print("ERROR:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60).stdout
    assert f"ERROR: cannot write {dest}.part: File too large" in out, out


def test_manifest_and_markers_are_written_atomically(tmp_path, server, monkeypatch, steb_isolated):
    """A marker that cannot be written (a full disk) names the marker file, and leaves no half-written one."""
    import os

    spec, _, root = _served_dataset(tmp_path, server, monkeypatch, steb_isolated, "at")

    def no_space(fd):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", no_space)
        (result,) = fetch_all(make_plan([spec]).jobs, root, policy=FAST)
    assert (
        result.status == "failed"
        and result.message == f"No space left on device while writing: {root / PARTIAL / 'at' / 'src-0.done'}"
    )
    assert not (root / PARTIAL / "at" / "src-0.done").exists() and not (root / "at").exists()
    (result,) = fetch_all(make_plan([spec]).jobs, root, policy=FAST)
    assert result.status == "fetched" and json.loads((root / "at" / ".steb-source.json").read_text())["files"]


def test_a_body_the_disk_cannot_hold_is_refused_before_it_is_written(tmp_path, server, monkeypatch):
    import types

    from steb_core.obtain import http

    url = server.add_file("big.bin", b"z" * 5000)  # under every cap, but more than the (pretended) free space
    monkeypatch.setattr(http.shutil, "disk_usage", lambda path: types.SimpleNamespace(free=1000))
    with pytest.raises(FetchError, match=r"big.bin needs 5000 more bytes but .* has 1000 free; nothing more was"):
        download(url, tmp_path / "big.bin", policy=FAST)
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["big.bin.part"])
    assert not (tmp_path / "big.bin").exists() and (
        not (tmp_path / "big.bin.part").exists() or (tmp_path / "big.bin.part").stat().st_size == 0
    )
