"""Which files a local plugin reads, so that an edit of one of them is another model (issue 47).

A local plugin (``--plugin``) has no distribution version; its identity is the hash of its source and
a behavioural probe on fixed texts (:func:`steb_core._encoders.identify`). Neither sees a side file the
encoder reads (``weights.json``, a vocabulary table) when the edit changes vectors of words the probe
texts do not hold: the old results were reused. So the files it *opens* are evidence too: while its
module is imported, its encoder built and probed, every file opened for reading is recorded (through a
Python audit hook on the ``open`` event, which ``open()``, ``io.open_code``, ``os.open``, numpy and
json loaders all raise), and :func:`side_file_hashes` hashes their contents.

What is left out, and why: files of the Python installation (the standard library, site-packages:
versions of libraries are recorded elsewhere), Python source and bytecode (``.py``/``.pyc``: the
plugin's source is hashed on its own, and whether the import reads the source or the cached bytecode
differs from one run to the next), the cache folders (:func:`cache_folders`: steb's embedding cache,
``$XDG_CACHE_HOME`` or ``~/.cache``, where libraries keep state), files the same code also writes (a
memo is state, not input), and what is not a regular file (``/dev``, ``/proc``). Files opened from other
threads or processes are not seen (a context variable scopes the recording). A file over
:data:`HASH_BYTES` is identified by its size and modification time instead of its content, so a
multi-gigabyte file does not cost a full read on every run (an edit still changes its mtime).
"""

from __future__ import annotations

import hashlib
import os
import site
import stat
import sys
import sysconfig
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FileReads", "recording_reads", "side_file_hashes", "cache_folders", "HASH_BYTES"]

#: files up to this size are hashed by content; larger ones by (size, mtime_ns)
HASH_BYTES = 256 << 20
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


@dataclass
class FileReads:
    """The paths opened for reading and for writing while a :func:`recording_reads` block ran."""

    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)

    def inputs(self) -> list[str]:
        """The files read and never written, sorted."""
        return sorted(self.read - self.written)


_RECORDING: ContextVar[FileReads | None] = ContextVar("steb_file_reads", default=None)
_INSTALL_LOCK = threading.Lock()
_installed: list[bool] = []  # the audit hook cannot be removed: install it once per process


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event != "open":
        return
    reads = _RECORDING.get()
    if reads is None:
        return
    path, mode, flags = (tuple(args) + (None, None, None))[:3]
    if isinstance(path, int) or path is None:
        return
    try:
        full = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return
    if isinstance(mode, str):
        writes = any(c in mode for c in "wax+")
    else:
        writes = isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
    (reads.written if writes else reads.read).add(full)


@contextmanager
def recording_reads() -> Iterator[FileReads]:
    """Record the files opened in this block (this thread and context); nested blocks add to the outer one."""
    with _INSTALL_LOCK:
        if not _installed:
            sys.addaudithook(_hook)
            _installed.append(True)
    outer = _RECORDING.get()
    reads = FileReads()
    token = _RECORDING.set(reads)
    try:
        yield reads
    finally:
        _RECORDING.reset(token)
        if outer is not None:
            outer.read |= reads.read
            outer.written |= reads.written


def _library_roots() -> tuple[str, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            roots.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:  # a virtualenv's old site module
        pass
    return tuple(os.path.realpath(r).rstrip(os.sep) + os.sep for r in roots if r)


def cache_folders() -> list[str]:
    """Where libraries and steb keep state that changes from run to run: never a model's input."""
    from ._cache import default_cache_dir

    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [str(default_cache_dir()), home]


def side_file_hashes(paths: Iterable[str], exclude: Iterable[str | os.PathLike[str]] = ()) -> dict[str, str]:
    """``{path: "sha256:<hex>" | "stat:<size>:<mtime_ns>"}`` for the given files that are inputs of a plugin:
    regular files outside the Python installation and the ``exclude`` folders (steb's own caches; see the
    module docstring); unreadable ones are skipped."""
    libraries = _library_roots() + tuple(os.path.realpath(e).rstrip(os.sep) + os.sep for e in exclude)
    out: dict[str, str] = {}
    for path in sorted(set(paths)):
        real = os.path.realpath(path)
        if real.startswith(libraries) or real.endswith((".py", ".pyc")):
            continue
        try:
            info = os.stat(real)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        if info.st_size > HASH_BYTES:
            out[path] = f"stat:{info.st_size}:{info.st_mtime_ns}"
            continue
        digest = hashlib.sha256()
        try:
            with open(real, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        except OSError:
            continue
        out[path] = "sha256:" + digest.hexdigest()
    return out
