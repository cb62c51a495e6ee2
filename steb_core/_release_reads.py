"""Which paths under a folder a block of code opens or lists, from every thread (issue 45).

The contract "a loader reads only what its sources declare" (:func:`steb_core._contract.check_declared_reads`)
needs the files a loader opened while it ran. :func:`steb_core._file_reads.recording_reads` sees only the
calling thread's context, and a loader may read from worker threads (``steb_core._containment`` says so), so
this recorder is process-wide instead: a Python audit hook (installed once; hooks cannot be removed) appends
every ``open`` for reading and every ``os.listdir`` / ``os.scandir`` whose path lies under a recording's
folder, whichever thread raised it. The event is raised before the file system is asked, so a path that
does not exist is recorded too (the read that fails is the one that matters most). A path handed to a library
that reads in C (pyarrow's parquet reader, sqlite3) raises no ``open`` event; steb_core's readers and loaders pass
such a path through :func:`steb_core._containment.release_file`, whose own audit event
(:data:`~steb_core._containment.RELEASE_FILE_EVENT`) is recorded as a read too.

What it does not see: other processes, and questions that are no audit event (``os.stat``: ``Path.exists``,
``is_file``, ``is_dir``); a loader that stops at its first check of a missing path says so in its error,
which ``tests/obtain/test_declared_files.py`` reads. Files opened for writing are left out (not reads).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._containment import RELEASE_FILE_EVENT

__all__ = ["ReleaseReads", "recording_release_reads"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_LISTING = ("os.listdir", "os.scandir")
_READING = ("open", RELEASE_FILE_EVENT)


@dataclass
class ReleaseReads:
    """The files opened for reading and the folders listed under ``root`` (paths relative to it, with ``/``)."""

    root: Path
    opened: set[str] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)
    _prefixes: tuple[str, ...] = field(default=(), repr=False)

    def _relative(self, path: str) -> str | None:
        for prefix in self._prefixes:
            if path == prefix[:-1]:
                return ""
            if path.startswith(prefix):
                return path[len(prefix) :].replace(os.sep, "/")
        return None


_ACTIVE: list[ReleaseReads] = []
_LOCK = threading.Lock()
_installed: list[bool] = []


def _is_write(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _ACTIVE or (event not in _READING and event not in _LISTING):
        return
    path = args[0] if args else None
    if path is None or isinstance(path, int):  # a file descriptor, or the working folder of os.listdir()
        return
    if event == "open":
        mode, flags = (tuple(args[1:]) + (None, None))[:2]
        if _is_write(mode, flags):
            return
    try:
        full = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return
    with _LOCK:
        for reads in _ACTIVE:
            rel = reads._relative(full)
            if rel is not None:
                (reads.opened if event in _READING else reads.listed).add(rel)


@contextmanager
def recording_release_reads(root: str | Path) -> Iterator[ReleaseReads]:
    """Record, from every thread, the files opened for reading and the folders listed under ``root`` while the
    block runs (``root`` read lexically and with its links resolved, so a loader that resolves paths is seen)."""
    with _LOCK:
        if not _installed:
            sys.addaudithook(_hook)
            _installed.append(True)
    folder = Path(os.path.abspath(root))
    prefixes = {str(folder).rstrip(os.sep) + os.sep, os.path.realpath(folder).rstrip(os.sep) + os.sep}
    reads = ReleaseReads(folder, _prefixes=tuple(sorted(prefixes)))
    with _LOCK:
        _ACTIVE.append(reads)
    try:
        yield reads
    finally:
        with _LOCK:
            _ACTIVE.remove(reads)
