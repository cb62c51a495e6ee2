"""Bounded decompression: every compressed file steb opens expands to at most a cap, refused early.

A decompressing reader turns a few MB on disk into any amount of memory and time: a 1.5 MB zip bomb once
took 3.1 GB, a 3 MB ``char_3_5.json.gz`` of a TF-IDF vectoriser 3.2 GB, and a 7 MB ``.csv.gz`` 3.8 GB and
190 s of parsing before the cap refused it. So:

- the cap is :func:`decompression_limit` (1 GiB, ``$STEB_MAX_DECOMPRESSED_BYTES`` raises it);
- :func:`open_gzip` first streams the file through the decompressor holding nothing (a few seconds per
  GiB, no memory) and refuses it there, before any parser keeps a row; the stream it returns is capped
  too (:class:`CappedReader`), in case the file changes in between;
- zip members are judged by their declared size (:func:`read_zip_member`, :func:`check_zip_members`):
  Python's zip reader never returns more than a member declares, and counts what it does return.

Errors name the file (and member) and how to raise the cap.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from ._containment import release_file
from ._errors import DataValidationError
from ._limit_settings import size_setting

__all__ = [
    "MAX_DECOMPRESSED_BYTES",
    "DECOMPRESSED_ENV_VAR",
    "decompression_limit",
    "size_setting",
    "CappedReader",
    "open_gzip",
    "read_zip_member",
    "check_zip_members",
]

#: default cap on the bytes one compressed file or archive member may expand to (1 GiB); a zip bomb of 1.5 MB
#: once took 3.1 GB and a 3.4 MB ``.csv.gz`` 13.5 GB and 207 s. Raise it with $STEB_MAX_DECOMPRESSED_BYTES.
MAX_DECOMPRESSED_BYTES = 1 << 30
DECOMPRESSED_ENV_VAR = "STEB_MAX_DECOMPRESSED_BYTES"
_CHUNK = 1 << 20


def decompression_limit() -> int:
    """The cap on decompressed bytes: ``$STEB_MAX_DECOMPRESSED_BYTES`` (bytes, or with K/M/G) or the default."""
    return size_setting(DECOMPRESSED_ENV_VAR, MAX_DECOMPRESSED_BYTES)


def _too_large(what: str, size: str, limit: int, path: str | Path, field: str | None = None) -> DataValidationError:
    return DataValidationError(
        f"{what} {size} bytes",
        path=path,
        field=field,
        expected=f"at most {limit} bytes once decompressed (set ${DECOMPRESSED_ENV_VAR} to raise the cap)",
    )


class _ByteSource(Protocol):
    """What :class:`CappedReader` reads from: a gzip/bz2/lzma stream, an archive member, a file."""

    def read(self, size: int, /) -> bytes: ...

    def close(self) -> None: ...


class CappedReader(io.RawIOBase):
    """A binary stream that fails (naming the file) once more than ``limit`` bytes were read from ``inner``.

    Why: a decompressing reader turns a few MB on disk into any amount of memory and time; counting what
    comes out bounds both, wherever the caller reads it (csv rows, a whole-file read, a UTF-8 check).
    """

    def __init__(
        self, inner: _ByteSource, *, path: str | Path, limit: int | None = None, what: str = "decompresses to"
    ) -> None:
        self.inner, self.path, self.what = inner, path, what
        self.limit = decompression_limit() if limit is None else limit
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self.inner.read(min(len(view), self.limit + 1 - self.count))
        self.count += len(data)
        if self.count > self.limit:
            raise _too_large(self.what, f"more than {self.limit}", self.limit, self.path)
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            super().close()


def open_gzip(path: str | Path, *, limit: int | None = None) -> BinaryIO:
    """A ``.gz`` file opened for reading, refused up front when it expands past the cap (see the module docstring).

    The first pass decompresses in 1 MiB chunks and keeps nothing, so a bomb costs seconds and no memory
    instead of whatever the caller builds from its content; a corrupt file fails there too, naming it.
    """
    import gzip

    cap = decompression_limit() if limit is None else limit
    checked = release_file(path)
    try:
        with gzip.open(checked, "rb") as probe:
            total = 0
            while chunk := probe.read(_CHUNK):
                total += len(chunk)
                if total > cap:
                    raise _too_large("decompresses to", f"more than {cap}", cap, path)
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError; a truncated file raises EOFError
        raise DataValidationError(
            f"is not a readable gzip file ({exc})", path=path, expected="a gzip-compressed file"
        ) from None
    return io.BufferedReader(CappedReader(gzip.open(checked, "rb"), path=path, limit=cap))


def read_zip_member(archive: Any, member: str, *, path: str | Path, limit: int | None = None) -> bytes:
    """One member of an open ``zipfile.ZipFile``, refusing one that (declares it) expands past the cap."""
    cap = decompression_limit() if limit is None else limit
    declared = archive.getinfo(member).file_size
    what = f"member {member} decompresses to"
    if declared > cap:
        raise _too_large(what, str(declared), cap, path, field=member)
    with archive.open(member) as handle:
        return CappedReader(handle, path=path, limit=cap, what=what).read()


def check_zip_members(path: str | Path, *, limit: int | None = None) -> None:
    """Refuse a zip file (an ``.npz`` cache shard, say) with a member declaring more than the cap; the zip reader
    returns no more than a member declares, so this bounds what ``numpy.load`` or ``zipfile`` then read."""
    import zipfile

    cap = decompression_limit() if limit is None else limit
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.file_size > cap:
                raise _too_large(
                    f"member {info.filename} decompresses to", str(info.file_size), cap, path, field=info.filename
                )
