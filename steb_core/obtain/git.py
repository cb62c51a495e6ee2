"""A git repository at a pinned commit, through the ``git`` binary: only the files the loader reads.

A release repository often holds far more than its loader reads (DetectRL's multi-GB training files,
cocoxu/Shakespeare's translation models), so a source names the paths it needs (``files=``) and only
those blobs are transferred (issue 39):

1. ``git fetch --depth 1 --filter=blob:none URL SHA`` into a bare scratch repository beside the target:
   the pinned commit and its trees, no file contents (GitHub and filter-enabled mirrors allow both a
   fetch by commit id and the blob filter);
2. ``git ls-tree -r`` of the commit, matched against the patterns;
3. one batch fetch of exactly the wanted blobs (``git fetch --stdin`` with their ids, as git's own lazy
   fetch of a partial clone does), so a file the loader does not read is never requested;
4. ``git cat-file --batch`` writes each wanted file (raw blob bytes, as GitHub's raw files serve them;
   executable bits kept; symbolic links checked to stay inside the folder before anything is written).

A server that cannot filter sends the whole commit instead (git says so and goes on); one that refuses
a fetch by commit id (a dumb HTTP server, protocol v0 without ``allowAnySHA1InWant``) gets a full clone
followed by the same steps 2 and 4. A local mirror (``file://``, through ``STEB_DATA_MIRROR``) is asked with
filters and fetches by id allowed, as GitHub answers. The bytes git received are counted (the scratch
repository's object store) and reported. ``GIT_TERMINAL_PROMPT=0`` so a wrong URL fails instead of asking
for a password.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import FetchError

__all__ = ["fetch_git", "GitFetch", "matches"]

#: how a ``file://`` mirror is asked: like GitHub, with blob filters and fetches of any object id allowed
_LOCAL_UPLOAD_PACK = "git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true upload-pack"


@dataclass(frozen=True)
class GitFetch:
    """What :func:`fetch_git` did: the commit, the files written, the bytes git received, and how
    (``sparse``: only the wanted blobs; ``full``: the server sent everything)."""

    commit: str
    files: int
    nbytes: int
    mode: str


def _git(
    args: list[str], cwd: Path | None, timeout: float, what: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "GIT_LFS_SKIP_SMUDGE": "1"}
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False, input=stdin
        )
    except FileNotFoundError as exc:
        raise FetchError(f"{what}: the `git` program is not installed (needed for git sources)") from exc
    except subprocess.TimeoutExpired as exc:
        raise FetchError(f"{what}: git took longer than {timeout:g} s", transient=True) from exc


def matches(rel: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``rel`` (a path with ``/``) is wanted: no patterns, an fnmatch of one, or inside a named folder."""
    return not patterns or any(fnmatch.fnmatchcase(rel, p) or rel.startswith(p.rstrip("/") + "/") for p in patterns)


def fetch_git(url: str, revision: str, dest: Path, *, paths: tuple[str, ...] = (), timeout: float = 1800.0) -> GitFetch:
    """Put the files of ``url`` at commit ``revision`` that match ``paths`` (all when empty) into ``dest``
    (emptied first), fetching only their contents where the server allows it.

    Errors name the URL and the commit: an unreachable repository, a commit it does not hold, a wanted
    file the server cannot send, a path or link that would leave ``dest``.
    """
    if len(revision) != 40:
        raise FetchError(f"{url}: a git source needs a full 40-hex commit to pin, got {revision!r}")
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    scratch = dest.with_name(dest.name + ".git")
    what = f"git {url}@{revision[:12]}"
    try:
        mode = _fetch_commit(url, revision, scratch, timeout, what)
        parsed = _git(["rev-parse", "--verify", "--end-of-options", f"{revision}^{{commit}}"], scratch, 60, what)
        commit = _check(parsed, what).stdout.strip()
        if commit != revision:
            raise FetchError(f"{what}: the fetched commit is {commit}, expected the pinned {revision}")
        entries = _wanted(scratch, revision, paths, what)
        if mode == "sparse":
            _fetch_blobs(scratch, entries, timeout, what)
        written = _write_tree(scratch, entries, dest, timeout, what)
        return GitFetch(commit, written, _store_size(scratch), mode)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _fetch_commit(url: str, revision: str, scratch: Path, timeout: float, what: str) -> str:
    """The pinned commit and its trees into the bare ``scratch``: ``sparse`` (no blobs yet) or ``full``."""
    if scratch.exists():
        shutil.rmtree(scratch)
    _check(_git(["init", "-q", "--bare", str(scratch)], None, 60, what), what)
    _check(_git(["remote", "add", "origin", url], scratch, 60, what), what)
    if url.startswith("file://"):
        _check(_git(["config", "remote.origin.uploadpack", _LOCAL_UPLOAD_PACK], scratch, 60, what), what)
    shallow = _git(
        ["fetch", "-q", "--no-tags", "--depth", "1", "--filter=blob:none", "origin", revision], scratch, timeout, what
    )
    if shallow.returncode == 0:
        return "full" if "filtering not recognized" in shallow.stderr else "sparse"
    # the server refuses a fetch by sha (or is a dumb server): the whole history, then the pin
    shutil.rmtree(scratch)
    clone = _git(["clone", "-q", "--bare", "--no-tags", url, str(scratch)], None, timeout, what)
    if clone.returncode != 0:
        why = _reason(clone.stderr) or _reason(shallow.stderr)
        raise FetchError(f"{what}: cannot fetch the repository: {why}", transient=True)
    have = _git(["cat-file", "-e", f"{revision}^{{commit}}"], scratch, 60, what)
    if have.returncode != 0:
        why = _reason(have.stderr) or _reason(shallow.stderr)
        raise FetchError(f"{what}: the repository has no commit {revision}: {why}")
    return "full"


def _wanted(scratch: Path, revision: str, patterns: tuple[str, ...], what: str) -> list[tuple[str, str, str]]:
    """``(mode, oid, path)`` of every file of the commit matching ``patterns``; unsafe paths refused."""
    listing = _check(_git(["ls-tree", "-r", "-z", "--full-tree", revision], scratch, 300, what), what).stdout
    out = []
    for record in filter(None, listing.split("\0")):
        meta, _, path = record.partition("\t")
        mode, kind, oid = meta.split()
        if kind != "blob":  # submodules (commit entries) are not part of a release's files
            continue
        parts = path.split("/")
        if any(p in ("", ".", "..") or p.lower() == ".git" for p in parts) or path.startswith("/"):
            raise FetchError(
                f"{what}: the commit holds a file named {path!r}, which would land outside the folder; refused"
            )
        if matches(path, patterns):
            out.append((mode, oid, path))
    if patterns and not out:
        raise FetchError(f"{what}: no file of the commit matches files={list(patterns)}")
    return out


def _fetch_blobs(scratch: Path, entries: list[tuple[str, str, str]], timeout: float, what: str) -> None:
    """Fetch exactly these blobs in one request (what git's lazy fetch of a partial clone does); an error
    names the file whose blob the server does not have (a mirror snapshot without its largest files)."""
    if not entries:
        return
    args = [
        "-c",
        "fetch.negotiationAlgorithm=noop",
        "fetch",
        "-q",
        "origin",
        "--no-tags",
        "--no-write-fetch-head",
        "--recurse-submodules=no",
        "--filter=blob:none",
        "--stdin",
    ]
    wanted = "".join(f"{oid}\n" for oid in dict.fromkeys(oid for _, oid, _ in entries))
    result = _git(args, scratch, timeout, what, stdin=wanted)
    if result.returncode != 0:
        reason = _reason(result.stderr)
        named = [f"{path} (blob {oid})" for _, oid, path in entries if oid in result.stderr]
        lacking = f": the server does not have {', '.join(named[:5])}" if named else ""
        raise FetchError(f"{what}: cannot fetch the wanted files{lacking}: {reason}", transient=not named)


def _write_tree(scratch: Path, entries: list[tuple[str, str, str]], dest: Path, timeout: float, what: str) -> int:
    """Write the wanted files from the object store: links checked first, then files, then links."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_NO_LAZY_FETCH": "1"}
    links = [(oid, path) for mode, oid, path in entries if mode == "120000"]
    files = [(mode, oid, path) for mode, oid, path in entries if mode != "120000"]
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"],
        cwd=scratch,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def blob(oid: str, path: str, sink: object | None) -> bytes:
        proc.stdin.write(f"{oid}\n".encode())  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        header = proc.stdout.readline().decode().split()  # type: ignore[union-attr]
        if len(header) != 3 or header[1] != "blob":
            raise FetchError(f"{what}: the server did not send {path} (blob {oid}); the mirror may lack that file")
        remaining, kept = int(header[2]), []
        while remaining:
            chunk = proc.stdout.read(min(remaining, 1 << 20))  # type: ignore[union-attr]
            if not chunk:
                raise FetchError(f"{what}: git stopped while writing {path}")
            remaining -= len(chunk)
            if sink is None:
                kept.append(chunk)
            else:
                try:
                    sink.write(chunk)  # type: ignore[attr-defined]
                except OSError as exc:
                    raise FetchError(f"cannot write {dest / path}: {exc.strerror or exc} (errno {exc.errno})") from exc
        proc.stdout.read(1)  # type: ignore[union-attr]  # the newline after each object
        return b"".join(kept)

    try:
        targets = {}
        for oid, path in links:  # a link leaving the folder refuses the release before any file is written
            target = blob(oid, path, None).decode("utf-8", "surrogateescape")
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            if not target or target.startswith("/") or resolved == ".." or resolved.startswith("../"):
                raise FetchError(
                    f"{what}: {path} is a link to {target}, outside the dataset folder; refused, nothing written"
                )
            targets[path] = target
        for mode, oid, path in files:
            out = dest / path
            out.parent.mkdir(parents=True, exist_ok=True)
            with open(out, "wb") as handle:
                blob(oid, path, handle)
            if mode == "100755":
                out.chmod(0o755)
        for path, target in targets.items():
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, dest / path)
    finally:
        proc.stdin.close()
        proc.stdout.close()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
    return len(entries)


def _store_size(scratch: Path) -> int:
    """Bytes in the scratch repository's object store: what git received (packs are kept as sent)."""
    objects = scratch / "objects"
    return sum(p.stat().st_size for p in objects.rglob("*") if p.is_file()) if objects.is_dir() else 0


def _check(result: subprocess.CompletedProcess[str], what: str) -> subprocess.CompletedProcess[str]:
    if result.returncode != 0:
        raise FetchError(f"{what}: git {result.args[1]} failed: {_reason(result.stderr)}")
    return result


def _reason(text: str) -> str:
    """The line of git's stderr that says why: the server's own ``fatal:``/``error:`` line when there is one
    (e.g. "unable to read <object>" from a mirror missing a blob), else git's first, else the last line."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    for wanted in (("remote: fatal:", "remote: error:"), ("fatal:", "error:")):
        for line in lines:
            if line.startswith(wanted):
                return line
    return lines[-1] if lines else ""
