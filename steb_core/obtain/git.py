"""A git repository at a pinned commit, through the ``git`` binary.

``git fetch --depth 1 URL SHA`` brings exactly the pinned tree (GitHub and local/``file://`` mirrors allow
fetching a commit by id); a server that refuses a fetch by sha gets a full clone followed by a checkout.
``HEAD`` is then checked against the pin, and ``.git`` is removed: the data folder is the release's
files, and the manifest keeps the commit. ``GIT_TERMINAL_PROMPT=0`` so a wrong URL fails instead of
asking for a password.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
from pathlib import Path

from .errors import FetchError

__all__ = ["fetch_git", "keep_matching"]


def _git(args: list[str], cwd: Path | None, timeout: float, what: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "GIT_LFS_SKIP_SMUDGE": "1"}
    try:
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError as exc:
        raise FetchError(f"{what}: the `git` program is not installed (needed for git sources)") from exc
    except subprocess.TimeoutExpired as exc:
        raise FetchError(f"{what}: git took longer than {timeout:g} s", transient=True) from exc


def fetch_git(url: str, revision: str, dest: Path, *, timeout: float = 1800.0) -> str:
    """Put the tree of ``url`` at commit ``revision`` into ``dest`` (emptied first); returns the commit.

    Errors name the URL and the commit: an unreachable repository, a commit it does not hold, or a
    checkout whose ``HEAD`` is not the pin.
    """
    if len(revision) != 40:
        raise FetchError(f"{url}: a git source needs a full 40-hex commit to pin, got {revision!r}")
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    what = f"git {url}@{revision[:12]}"
    _check(_git(["init", "-q"], dest, 60, what), what)
    shallow = _git(["fetch", "-q", "--depth", "1", url, revision], dest, timeout, what)
    if shallow.returncode == 0:
        _check(_git(["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", "FETCH_HEAD"], dest, timeout, what), what)
    else:  # the server refuses a fetch by sha (or is a dumb server): the whole history, then the pin
        shutil.rmtree(dest)
        clone = _git(["clone", "-q", "--no-checkout", url, str(dest)], None, timeout, what)
        if clone.returncode != 0:
            raise FetchError(f"{what}: cannot fetch the repository: {_reason(clone.stderr) or _reason(shallow.stderr)}",
                             transient=True)
        co = _git(["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", revision], dest, timeout, what)
        if co.returncode != 0:
            raise FetchError(f"{what}: the repository has no commit {revision}: {_reason(co.stderr)}")
    head = _check(_git(["rev-parse", "HEAD"], dest, 60, what), what).stdout.strip()
    if head != revision:
        raise FetchError(f"{what}: HEAD is {head} after checkout, expected the pinned {revision}")
    shutil.rmtree(dest / ".git")
    return head


def keep_matching(root: Path, patterns: tuple[str, ...]) -> None:
    """Remove the files under ``root`` that match none of ``patterns`` (fnmatch on the relative path with
    ``/``; a pattern naming a folder keeps everything in it), then the folders left empty."""
    if not patterns:
        return
    for path in sorted(root.rglob("*"), reverse=True):
        rel = path.relative_to(root).as_posix()
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
            continue
        if not any(fnmatch.fnmatchcase(rel, p) or rel.startswith(p.rstrip("/") + "/") for p in patterns):
            path.unlink()
    for path in sorted(root.rglob("*"), reverse=True):
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()


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
