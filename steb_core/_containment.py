"""Which files a dataset loader may read: one containment check for every file of a release.

A release (an unpacked archive, a git clone, a hub download) may hold symbolic links, made by whoever
published it. A link that stays inside the release is followed like any file; one that leads outside it
(to ``/etc``, to the user's home, to another user's files) is refused with an error naming the link and
where it leads, so no loader reads, and no result carries, text that is not part of the release.

Three pieces:

- :func:`check_inside` / :func:`release_path`: the check itself, and the resolution of a file name taken
  from a release file (PAN18's ``ground-truth.json`` names the texts), refusing ``..`` and absolute names;
- :func:`release_scope`: entered by the core around every loader call (:class:`ScopedLoader`, which
  :class:`steb_core.DatasetSpec` wraps each loader in). Inside it, every file opened through steb_core's
  readers (:func:`steb_core._io.read_text`, ``read_bytes``, ``open_release``, ``iter_jsonl``, ``read_tsv``,
  ``open_gzip``, :func:`steb_core._tables.read_table`, :func:`steb_core._hub.load_hub_split`) passes
  :func:`release_file`, so a loader cannot forget the check for one file it opens;
- :func:`release_file`: the check for one path, for a loader that hands a path to another library
  (``zipfile``, ``sqlite3``, pyarrow).

Which release a file belongs to: the scope knows the *data root*, the folder that holds the releases side
by side (``--data-dir ROOT``; the parent of the dataset's folder). A file whose path, read lexically, lies
under ``ROOT/<entry>/`` must resolve (links followed) inside ``ROOT/<entry>`` resolved. So the user's own
arrangement of the data root is respected (``ROOT/pan18 -> /mnt/big/pan18`` is fine: the release is
wherever that entry leads), while a link *inside* a release leading out of it is refused. Files outside
the data root (an explicit path the user gave, the Hugging Face cache) are not judged by this rule; the
hub reader checks its own folder.

Which threads the scope reaches (issue 47): all of them. A loader may read its files from worker threads
(``concurrent.futures.ThreadPoolExecutor``), whose context does not inherit the loader's. So a scope is
recorded twice: in a context variable (what the loader's own thread sees, nesting innermost-first, an
explicit ``release_scope(None)`` judging nothing) and in a process-wide registry of the data roots whose
loads are in progress. A thread that never entered a scope of its own judges every file against every
registered root it lies under. That is sound because the rule is a property of the file, not of the
caller: a file lexically under ``ROOT/<entry>/`` that resolves outside ``ROOT/<entry>`` is a link leading
out of a release, whoever reads it. What the scope does not reach: other *processes* (a loader that
hands work to ``ProcessPoolExecutor`` must enter :func:`release_scope` in the worker), and plain
``open()`` / ``Path.read_text()`` calls, which never pass the check (CONTRIBUTING says so; a test scans
every dataset plugin of the repository for them).

Each path :func:`release_file` is asked about is also raised as the audit event :data:`RELEASE_FILE_EVENT`
(``sys.audit``), so that what a loader hands to a library reading in C (pyarrow's parquet reader, sqlite3), which
raises no ``open`` event of Python's, is still seen by :mod:`steb_core._release_reads` (issue 45).
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import DataValidationError
from ._replacements import REPLACED_BYTES_INFO, counting_replacements, replaced_bytes_info

if TYPE_CHECKING:
    from ._records import DatasetBundle
    from ._specs import LoadContext

__all__ = ["check_inside", "release_path", "release_scope", "release_file", "ScopedLoader"]

#: no scope entered in this context: the process-wide registry decides
_UNSET = "\0unset"
#: the data root of the loader running in this thread (None: a scope that judges nothing)
_DATA_ROOT: ContextVar[str | None] = ContextVar("steb_data_root", default=_UNSET)
#: the data roots of the loads in progress in this process (a count per root: scopes nest and overlap);
#: the one piece of process state here, because a context variable does not reach a loader's worker threads
_ACTIVE_ROOTS: Counter[str] = Counter()
_ACTIVE_LOCK = threading.Lock()
#: the audit event :func:`release_file` raises with the path (a str) it is asked about, before any check
RELEASE_FILE_EVENT = "steb.release_file"


def check_inside(
    target: str | Path,
    root: str | Path,
    *,
    path: str | Path | None = None,
    record: str | int | None = None,
    field: str | None = None,
    what: str = "folder",
) -> None:
    """Refuse ``target`` when following its symbolic links leads outside ``root`` (links within ``root`` are fine).

    Why: a release (or an output folder) holding a link to ``/etc`` or to another user's files would
    otherwise be read, or written through, like any file of it. Used for names taken from release files,
    for every file a loader opens (:func:`release_file`) and for every result file steb writes.
    """
    real_root = os.path.realpath(root)
    real = os.path.realpath(target)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise DataValidationError(
            f"{target} is a symbolic link (or inside one) leading to {real}, outside the {what} {root}",
            path=path if path is not None else target,
            record=record,
            field=field,
            expected=f"files inside the {what} (links that stay inside it are followed)",
        )


def release_path(
    root: str | Path,
    relative: str | Path,
    *,
    path: str | Path | None = None,
    record: str | int | None = None,
    field: str | None = None,
) -> Path:
    """``root / relative`` for a file name taken from a release, refusing anything outside ``root``.

    Release files name other files (PAN18's ``ground-truth.json`` and candidate folders, metadata CSVs
    with paths). A hostile or broken release could name ``../../secret`` or an absolute path; this
    helper is the one place that decides. The check is lexical (``..`` and absolute parts are resolved
    against ``root`` without following links), so a symlink the user made *inside* the release folder
    is still followed when it stays inside ``root``; a link (of the file or any folder on the way) that
    leads outside ``root`` is refused with both paths. ``path``/``record``/``field`` locate the offending value.
    """
    text = str(relative)
    if not text or "\x00" in text:
        raise DataValidationError(
            f"file name {text!r} is empty or contains NUL",
            path=path,
            record=record,
            field=field,
            expected="a file name inside the release folder",
        )
    base = os.path.normpath(os.path.abspath(root))
    candidate = os.path.normpath(os.path.join(base, text.replace("\\", "/")))
    if os.path.isabs(text) or not (candidate == base or candidate.startswith(base + os.sep)):
        raise DataValidationError(
            f"file name {text!r} points outside the release folder {base}",
            path=path,
            record=record,
            field=field,
            expected="a path relative to the release folder, without '..' or a leading '/'",
        )
    check_inside(candidate, base, path=path, record=record, field=field, what="release folder")
    return Path(candidate)


@contextmanager
def release_scope(data_root: str | Path | None) -> Iterator[None]:
    """Check every file opened through steb_core's readers in this block against the releases of ``data_root``.

    ``data_root`` is the folder holding the releases (None: nothing is judged in this thread). Scopes
    nest; in the thread that entered them the innermost applies. While the block runs, threads that
    entered no scope of their own (a loader's worker threads) judge files against ``data_root`` too. The
    core enters one around each loader call (:class:`ScopedLoader`); a loader whose releases live
    elsewhere may enter its own.
    """
    root = None if data_root is None else os.path.normpath(os.path.abspath(data_root))
    token = _DATA_ROOT.set(root)
    if root is not None:
        with _ACTIVE_LOCK:
            _ACTIVE_ROOTS[root] += 1
    try:
        yield
    finally:
        _DATA_ROOT.reset(token)
        if root is not None:
            with _ACTIVE_LOCK:
                _ACTIVE_ROOTS[root] -= 1
                if _ACTIVE_ROOTS[root] <= 0:
                    del _ACTIVE_ROOTS[root]


def release_file(target: str | Path, *, record: str | int | None = None, field: str | None = None) -> Path:
    """``target``, after checking that it stays inside its release (see the module docstring); the path as given.

    Called by every reader of steb_core before it opens a file, and by loaders before they hand a path
    to another library (``zipfile.ZipFile(release_file(path))``). The roots judged: this thread's
    innermost :func:`release_scope`, else those of every load in progress in the process (see the module
    docstring); for a file outside them, or when none applies, nothing is checked.
    """
    sys.audit(RELEASE_FILE_EVENT, os.fspath(target))
    root = _DATA_ROOT.get()
    if root is None:
        return Path(target)
    if root == _UNSET:
        with _ACTIVE_LOCK:
            roots = list(_ACTIVE_ROOTS)
    else:
        roots = [root]
    if not roots:
        return Path(target)
    given = os.fspath(target)
    given = given if os.path.isabs(given) else os.path.join(os.getcwd(), given)
    full = os.path.normpath(given)
    # a ".." is resolved after the links before it when the file is opened ("link/../x" is beside the link's target),
    # so a path that holds one is judged as given, by the full check, wherever it lexically points
    dotted = ".." in given.split(os.sep)
    for one in roots:
        prefix = one.rstrip(os.sep) + os.sep
        for path in (full, given) if dotted else (full,):
            if not path.startswith(prefix):
                continue
            entry = path[len(prefix) :].split(os.sep, 1)[0]
            release = one if entry in ("..", ".", "") else prefix + entry
            if dotted or not _no_link_below(release, full):
                check_inside(
                    given if dotted else full, release, path=target, record=record, field=field, what="release folder"
                )
    return Path(target)


def _no_link_below(release: str, full: str) -> bool:
    """Whether ``full`` (normalised and absolute: ``release`` or a path under it) is reached from ``release`` through
    no symbolic link. Then it resolves to ``release`` resolved plus the same names, inside it, which is what
    :func:`check_inside` would find; any link on the way, even one that stays inside, leaves the decision to it.

    Why: :func:`check_inside`'s two ``os.path.realpath`` ask the file system about every folder from ``/`` down, twice
    per file: a third of the time StyleTransferBibleData's 9,512 chapter files took to load. This asks once about
    each name below the release. A name that cannot be asked about (missing, not in a folder) is no link, as
    ``realpath`` counts it. POSIX only: on Windows a junction is not ``S_ISLNK``, so the full check decides there."""
    if os.name != "posix":
        return False
    path = release
    for name in full[len(release) :].split(os.sep)[1:]:
        path += os.sep + name
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return False
        except OSError:
            pass
    return True


@dataclass(frozen=True)
class ScopedLoader:
    """A dataset loader called inside :func:`release_scope` for its context's data root, with the bytes its
    reads replace as U+FFFD counted into its bundle's info (:mod:`steb_core._replacements`).

    :class:`steb_core.DatasetSpec` wraps every loader in one, so whoever calls ``spec.loader(ctx)`` (the
    runner, ``steb data check``, a test, a user's script) gets the containment check for every file the
    loader reads through steb_core. Two wrappers of one function compare equal.
    """

    inner: Callable[[LoadContext], DatasetBundle]

    def __call__(self, ctx: LoadContext) -> DatasetBundle:
        data_dir = getattr(ctx, "data_dir", None)
        with (
            release_scope(None if data_dir is None else Path(os.path.abspath(data_dir)).parent),
            counting_replacements() as replaced,
        ):
            bundle = self.inner(ctx)
        # bytes read as U+FFFD (steb_core._replacements) are said in the bundle's info, so in every record
        info = getattr(bundle, "info", None)
        if replaced and isinstance(info, dict) and REPLACED_BYTES_INFO not in info:
            info.update(replaced_bytes_info(replaced))
        return bundle

    def __getattr__(self, name: str) -> Any:  # e.g. __name__ of the loader, for messages
        if name == "inner":  # not set yet (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
