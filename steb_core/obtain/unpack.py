"""Safe unpacking of zip and tar archives: nothing lands outside the target folder.

Every member is checked before anything is written: no absolute names, no ``..`` escaping the target,
no links leading outside it (a symbolic link's target is resolved against its own folder; a hard link
must name an earlier member), no devices or FIFOs, no more members than :func:`member_limit`, and the
total declared size under the cap of :func:`steb_core._io.decompression_limit`. While writing, the bytes
actually produced are counted too (a header may lie), through :class:`steb_core._io.CappedReader`. One bad
member refuses the whole archive.

The folder an archive unpacks into may already hold symbolic links (a git release's own); a member is
never written through one (issue 41: a release holding ``d -> ../../../../victim`` and an archive member
``d/evil.txt`` overwrote a file outside the data root): every folder on a member's path must be a real
folder inside the target, checked before anything is written and again as each member is written.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .._io import CappedReader, decompression_limit
from .._limit_settings import count_setting
from .errors import FetchError

__all__ = ["is_archive", "safe_unpack", "refuse_links_out", "member_limit", "MAX_ARCHIVE_MEMBERS", "MEMBERS_ENV_VAR"]

#: default cap on the members of one archive: above every STEB release (the largest hold a few ten thousand files)
MAX_ARCHIVE_MEMBERS = 200_000
MEMBERS_ENV_VAR = "STEB_MAX_ARCHIVE_MEMBERS"


def member_limit() -> int:
    """The cap on members per archive: ``$STEB_MAX_ARCHIVE_MEMBERS`` or :data:`MAX_ARCHIVE_MEMBERS`."""
    return count_setting(MEMBERS_ENV_VAR, MAX_ARCHIVE_MEMBERS)


def _too_many(archive: Path, cap: int) -> FetchError:
    return FetchError(
        f"archive {archive.name}: more than {cap} members (set ${MEMBERS_ENV_VAR} to raise the cap); "
        "refused, nothing unpacked"
    )


_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def is_archive(name: str) -> bool:
    """Whether ``name`` ends like an archive steb unpacks (zip or tar, optionally compressed)."""
    lower = name.lower()
    return lower.endswith(".zip") or lower.endswith(_TAR_SUFFIXES)


@dataclass(frozen=True)
class _Member:
    name: str  # normalised, relative, with '/'
    kind: str  # "file", "dir", "symlink", "hardlink"
    size: int
    link: str = ""  # for links: the normalised target relative to the root
    source: zipfile.ZipInfo | tarfile.TarInfo | None = None


def _clean(archive: Path, raw: str) -> str:
    """The member name as a safe relative path, or an error naming the archive and the member."""
    name = raw.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or "\x00" in name:
        raise FetchError(f"archive {archive.name}: member {raw!r} has an absolute name; refused, nothing unpacked")
    norm = posixpath.normpath(name)
    if norm == ".." or norm.startswith("../"):
        raise FetchError(
            f"archive {archive.name}: member {raw!r} points outside the target folder; refused, nothing unpacked"
        )
    return "" if norm == "." else norm


def _link_target(archive: Path, member: str, target: str) -> str:
    """A symbolic link's target relative to the root, refused when it leaves the root."""
    if target.startswith("/") or not target:
        raise FetchError(
            f"archive {archive.name}: member {member!r} is a link to {target!r} outside the target folder; "
            "refused, nothing unpacked"
        )
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(member), target))
    if resolved == ".." or resolved.startswith("../"):
        raise FetchError(
            f"archive {archive.name}: member {member!r} is a link to {target!r} outside the target folder; "
            "refused, nothing unpacked"
        )
    return resolved


def _members(archive: Path, cap: int) -> tuple[list[_Member], zipfile.ZipFile | tarfile.TarFile]:
    if archive.name.lower().endswith(".zip"):
        handle = zipfile.ZipFile(archive)
        out = []
        if len(handle.infolist()) > cap:
            handle.close()
            raise _too_many(archive, cap)
        for info in handle.infolist():
            name = _clean(archive, info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                target = handle.read(info).decode("utf-8", "replace")
                out.append(_Member(name, "symlink", 0, _link_target(archive, name, target), info))
            elif info.is_dir():
                out.append(_Member(name, "dir", 0, source=info))
            else:
                out.append(_Member(name, "file", info.file_size, source=info))
        return out, handle
    try:
        tar = tarfile.open(archive)  # noqa: SIM115 - closed by the caller
    except tarfile.TarError as exc:
        raise FetchError(f"archive {archive.name}: not a readable tar or zip archive ({exc})") from exc
    out = []
    seen: set[str] = set()
    while True:  # one header at a time, so a tar of millions of members is refused without listing them all
        try:
            member = tar.next()
        except tarfile.TarError as exc:
            tar.close()
            raise FetchError(f"archive {archive.name}: not a readable tar archive ({exc})") from exc
        if member is None:
            break
        if len(out) >= cap:
            tar.close()
            raise _too_many(archive, cap)
        name = _clean(archive, member.name)
        if member.issym():
            out.append(_Member(name, "symlink", 0, _link_target(archive, name, member.linkname), member))
        elif member.islnk():
            target = _clean(archive, member.linkname)
            if target not in seen:
                raise FetchError(
                    f"archive {archive.name}: member {member.name!r} is a hard link to {member.linkname!r}, "
                    "which is not an earlier file of the archive; refused, nothing unpacked"
                )
            out.append(_Member(name, "hardlink", 0, target, member))
        elif member.isdir():
            out.append(_Member(name, "dir", 0, source=member))
        elif member.isfile():
            out.append(_Member(name, "file", member.size, source=member))
        else:
            raise FetchError(
                f"archive {archive.name}: member {member.name!r} is a device or FIFO; refused, nothing unpacked"
            )
        seen.add(name)
    return out, tar


def safe_unpack(archive: Path, dest: Path, *, limit: int | None = None, max_members: int | None = None) -> list[str]:
    """Unpack ``archive`` into ``dest`` after checking every member; returns the names written.

    Refuses (``FetchError`` naming the archive and member, nothing written) absolute names, ``..`` escapes,
    links out, special files, members that would be written through a link already in ``dest``, more than
    ``max_members`` members (default :func:`member_limit`), and archives whose members add up to more than
    ``limit`` bytes (default: :func:`steb_core._io.decompression_limit`, raised with ``$STEB_MAX_DECOMPRESSED_BYTES``).
    """
    archive, dest = Path(archive), Path(dest)
    cap = decompression_limit() if limit is None else limit
    count_cap = member_limit() if max_members is None else max_members
    try:
        members, handle = _members(archive, count_cap)
    except zipfile.BadZipFile as exc:
        raise FetchError(f"archive {archive.name}: not a readable zip archive ({exc})") from exc
    try:
        declared = sum(m.size for m in members)
        if declared > cap:
            raise FetchError(
                f"archive {archive.name}: members add up to {declared} bytes, over the cap of {cap} "
                "(set $STEB_MAX_DECOMPRESSED_BYTES to raise it); refused, nothing unpacked"
            )
        links = {m.name for m in members if m.kind == "symlink"}
        for m in members:  # a member written through a link would land wherever the link points
            parents = [posixpath.dirname(m.name)]
            while parents[-1]:
                parents.append(posixpath.dirname(parents[-1]))
            if any(p in links for p in parents if p):
                raise FetchError(
                    f"archive {archive.name}: member {m.name!r} lies inside a link of the archive; refused, nothing "
                    "unpacked"
                )
        dest.mkdir(parents=True, exist_ok=True)
        for m in members:  # ... or through a link the target folder already holds (a git release's own)
            _no_link_on_the_way(archive, dest, m.name, nothing_yet=True)
        written = 0
        for m in members:
            if not m.name:
                continue
            path = dest / m.name
            _no_link_on_the_way(archive, dest, m.name, nothing_yet=False)
            if m.kind == "dir":
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink() or path.exists():
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            if m.kind == "symlink":
                os.symlink(posixpath.relpath(m.link, posixpath.dirname(m.name) or "."), path)
            elif m.kind == "hardlink":
                shutil.copyfile(dest / m.link, path)
            else:
                if isinstance(handle, zipfile.ZipFile) and isinstance(m.source, zipfile.ZipInfo):
                    stream: IO[bytes] | None = handle.open(m.source)
                elif isinstance(handle, tarfile.TarFile) and isinstance(m.source, tarfile.TarInfo):
                    stream = handle.extractfile(m.source)
                else:
                    stream = None
                if stream is None:  # listed as a file by _members: cannot happen for a well-read archive
                    raise FetchError(f"archive {archive.name}: member {m.name} cannot be read as a file")
                with stream as raw, open(path, "wb") as out:
                    reader = CappedReader(
                        raw, path=archive, limit=cap - written, what=f"archive {archive.name} unpacks to"
                    )
                    shutil.copyfileobj(reader, out, 1 << 20)
                    written += reader.count
        return [m.name for m in members if m.name]
    finally:
        handle.close()


def _no_link_on_the_way(archive: Path, dest: Path, name: str, *, nothing_yet: bool) -> None:
    """Refuse a member whose folders, as they exist in ``dest`` now, include a symbolic link or a non-folder."""
    parts = name.split("/")[:-1] if name else []
    here = dest
    for part in parts:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            what = f"a link to {os.readlink(here)}" if here.is_symlink() else "not a folder"
            raise FetchError(
                f"archive {archive.name}: member {name!r} would be written through "
                f"{here.relative_to(dest).as_posix()!r}, which is {what} in the target folder; refused"
                + (", nothing unpacked" if nothing_yet else "")
            )
        if not here.exists():
            return


def refuse_links_out(root: Path) -> None:
    """Refuse a fetched tree holding a symbolic link that resolves outside ``root`` (a hostile repository)."""
    real_root = os.path.realpath(root)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                real = os.path.realpath(path)
                if real != real_root and not real.startswith(real_root + os.sep):
                    raise FetchError(
                        f"{os.path.relpath(path, root)} is a link to {os.readlink(path)}, outside the dataset folder; "
                        "refused"
                    )
