"""Plain downloads: resume through ``Range``, bounded retries, a per-read timeout and an overall deadline,
a size bound, and sha256/md5 verification naming the file that does not match.

A large release over a flaky connection must not restart from zero: the bytes so far live in
``NAME.part`` beside the destination, and the next try (or the next ``steb data get``) asks the server for
the rest. Only a verified file is renamed to its final name, so a file without ``.part`` is complete.

A hostile or broken server must not fill the disk or hold a run forever (issue 41): a body is refused
once it passes its expected size (the spec's ``size_bytes`` or the Zenodo record's ``size``) or, when none
is known, the catalogue's bound for the file (a source's ``max_bytes``, :func:`download` ``max_size``) or else
the cap of :func:`download_limit`; a ``Content-Length`` past that bound, or past the free space
of the disk, is refused before a byte is written. Those refusals remove the partial file and do not
advise resuming. API answers (:func:`fetch_json`) are read up to :data:`MAX_JSON_BYTES`. Errors while
writing (a full disk) name the file being written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import http.client
import shutil
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._limit_settings import size_setting
from .errors import FetchError

__all__ = [
    "DownloadPolicy",
    "download",
    "file_digest",
    "verify_file",
    "fetch_json",
    "read_capped",
    "download_limit",
    "MAX_JSON_BYTES",
    "DOWNLOAD_LIMIT_ENV_VAR",
    "scaled_deadline",
    "SLOWEST_RATE",
    "TooLarge",
]

CHUNK = 1 << 16
#: the most bytes an API answer (a Zenodo record, a Drive confirm page) may have; real ones are a few KB
MAX_JSON_BYTES = 16 << 20
#: the cap on one downloaded file whose size no spec or record states (``$STEB_MAX_DOWNLOAD_BYTES``)
MAX_DOWNLOAD_BYTES = 64 << 30
DOWNLOAD_LIMIT_ENV_VAR = "STEB_MAX_DOWNLOAD_BYTES"
#: statuses a later try may not repeat: server errors, rate limits, request timeouts
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


#: the slowest transfer a download with a known bound is given time for (bytes per second): a file of the
#: catalogue's ``max_bytes`` gets ``max_bytes / SLOWEST_RATE`` seconds (at least :data:`SHORTEST_DEADLINE`)
SLOWEST_RATE = 64 << 10
SHORTEST_DEADLINE = 600.0


@dataclass(frozen=True)
class DownloadPolicy:
    """How hard to try: ``retries`` further tries after the first, ``timeout`` seconds without a byte before
    a try is abandoned, ``deadline`` seconds for one file over all tries (None: no overall limit), and
    ``backoff`` seconds of pause before the second try, doubled before each later one. ``scale_deadline``:
    the deadline is the default one, not the user's, so a file whose size (or bound) is known gets a
    deadline scaled to it instead when that is shorter (:func:`scaled_deadline`)."""

    retries: int = 4
    timeout: float = 60.0
    deadline: float | None = None
    backoff: float = 1.0
    scale_deadline: bool = False


def scaled_deadline(policy: DownloadPolicy, size: int | None) -> DownloadPolicy:
    """``policy`` with its deadline scaled to a file of at most ``size`` bytes (at :data:`SLOWEST_RATE`, at least
    :data:`SHORTEST_DEADLINE`), when its deadline is the default one and the scaled one is shorter.

    Why: a one-byte-at-a-time server of a 5 MB file would otherwise hold ``steb data get`` for the whole
    default deadline (4 hours); a 5 MB file that needs more than ten minutes is not coming."""
    if size is None or not policy.scale_deadline:
        return policy
    scaled = max(SHORTEST_DEADLINE, size / SLOWEST_RATE)
    if policy.deadline is not None and policy.deadline <= scaled:
        return policy
    return dataclasses.replace(policy, deadline=scaled)


def download_limit() -> int:
    """The cap on one downloaded file of unknown size: ``$STEB_MAX_DOWNLOAD_BYTES`` (bytes, or with K/M/G/T)
    or 64 GiB, above every STEB release; a larger answer is a hostile or broken server filling the disk."""
    return size_setting(DOWNLOAD_LIMIT_ENV_VAR, MAX_DOWNLOAD_BYTES)


class TooLarge(FetchError):
    """A body past its expected size or the download cap: refused, the partial file removed, never resumed."""


def file_digest(path: Path, algorithm: str = "sha256") -> str:
    """The hex digest of a file, read in chunks."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify_file(
    path: Path, *, sha256: str | None = None, md5: str | None = None, name: str | None = None, url: str | None = None
) -> None:
    """Refuse a file whose digest differs from the expected one; the error names the file, both digests
    and where it came from."""
    for algorithm, expected in (("sha256", sha256), ("md5", md5)):
        if not expected:
            continue
        got = file_digest(path, algorithm)
        if got.lower() != expected.lower():
            raise FetchError(
                f"checksum mismatch for {name or path.name}: {algorithm} {got}, expected {expected}"
                + (f" (downloaded from {url})" if url else "")
                + "; the file was removed, nothing was kept"
            )


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code in RETRY_STATUSES
    return isinstance(
        exc,
        (
            urllib.error.URLError,
            socket.timeout,
            TimeoutError,
            ConnectionError,
            http.client.IncompleteRead,
            http.client.RemoteDisconnected,
            _ShortRead,
        ),
    )


class _ShortRead(Exception):
    """The server closed the connection before the promised number of bytes."""


def _describe(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return f"{exc.reason}"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "no data within the read timeout (stalled)"
    return f"{type(exc).__name__}: {exc}"


def _sleep_within(seconds: float, stop_at: float | None) -> bool:
    """Pause before the next try; False when that would pass the deadline."""
    if stop_at is not None and time.monotonic() + seconds >= stop_at:
        return False
    time.sleep(seconds)
    return True


def download(
    url: str,
    dest: Path,
    *,
    sha256: str | None = None,
    md5: str | None = None,
    policy: DownloadPolicy = DownloadPolicy(),
    progress: Callable[[int, int | None], None] | None = None,
    headers: Mapping[str, str] | None = None,
    expected_size: int | None = None,
    opener: urllib.request.OpenerDirector | None = None,
    hasher: hashlib._Hash | None = None,
    max_size: int | None = None,
    where: list[str] | None = None,
) -> Path:
    """Fetch ``url`` to ``dest`` (resuming ``dest.part``), verify it, rename it into place; returns ``dest``.

    ``progress(nbytes, total)`` is called as bytes arrive (``total`` None when the server does not say).
    Errors name the URL: a client error (404, 403) at once, server errors and stalls after
    ``policy.retries`` further tries or at the deadline. A checksum mismatch removes the partial file so
    the next attempt starts clean. ``expected_size`` (from the spec or the record) bounds the body; without
    it ``max_size`` (the catalogue's bound for a file whose publisher states no size) and then
    :func:`download_limit` do; the deadline is scaled to the size or bound (:func:`scaled_deadline`).
    ``opener`` carries cookies between requests (Google Drive); ``hasher``, when given, is fed the finished
    file (so a caller recording a digest reads it once); ``where``, when given, gets the URL each answering
    response came from after its redirects (so a caller can record the host the bytes really came from).
    """
    dest = Path(dest)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError(f"cannot create the folder {dest.parent}: {exc.strerror or exc}") from exc
    part = dest.with_name(dest.name + ".part")
    if expected_size is not None:
        limit, bound = expected_size, "expected"
    elif max_size is not None:
        limit, bound = max_size, "catalogue"
    else:
        limit, bound = download_limit(), ""
    policy = scaled_deadline(policy, limit if bound else None)
    stop_at = time.monotonic() + policy.deadline if policy.deadline is not None else None
    pause = policy.backoff
    last: BaseException | None = None
    tries = 0
    while True:
        if stop_at is not None and time.monotonic() >= stop_at:
            raise FetchError(
                f"{url}: deadline of {policy.deadline:g} s passed after {tries} tries"
                + (f" (last: {_describe(last)})" if last else ""),
                transient=True,
            )
        tries += 1
        try:
            _one_try(url, part, policy, stop_at, progress, headers, limit, bound, opener, where)
            break
        except TooLarge:
            part.unlink(missing_ok=True)
            raise
        except _DeadlinePassed:
            raise FetchError(
                f"{url}: deadline of {policy.deadline:g} s passed while downloading "
                f"({part.stat().st_size if part.exists() else 0} bytes so far, kept in {part} for a resume)",
                transient=True,
            ) from None
        except Exception as exc:
            if not _retryable(exc):
                if isinstance(exc, urllib.error.HTTPError):
                    raise FetchError(f"{url}: {_describe(exc)}") from exc
                raise
            last = exc
            kept = f" (partial download kept in {part} for a resume)" if part.exists() else ""
            if tries <= policy.retries and not _sleep_within(pause, stop_at):
                raise FetchError(
                    f"{url}: deadline of {policy.deadline:g} s passed after {tries} tries "
                    f"(last: {_describe(exc)}){kept}",
                    transient=True,
                ) from exc
            if tries > policy.retries:
                raise FetchError(f"{url}: gave up after {tries} tries: {_describe(exc)}{kept}", transient=True) from exc
            pause *= 2
    try:
        verify_file(part, sha256=sha256, md5=md5, name=dest.name, url=url)
        if expected_size is not None and part.stat().st_size != expected_size:
            raise FetchError(
                f"{dest.name} from {url} has {part.stat().st_size} bytes, expected {expected_size}; "
                "the file was removed, nothing was kept"
            )
    except FetchError:
        part.unlink(missing_ok=True)
        raise
    if hasher is not None:
        with open(part, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                hasher.update(chunk)
    try:
        part.replace(dest)
    except OSError as exc:
        raise FetchError(f"cannot rename {part} to {dest.name}: {exc.strerror or exc}") from exc
    return dest


class _DeadlinePassed(Exception):
    """The overall deadline passed between two chunks."""


def _too_large(url: str, part: Path, size: int, limit: int, known: str, declared: bool) -> TooLarge:
    what = "announces" if declared else "sent more than"
    bound = {
        "expected": f"the expected {limit} bytes (the size the spec or record states)",
        "catalogue": f"the {limit} bytes steb's catalogue allows this file (its publisher states no size)",
    }.get(known, f"the cap of {limit} bytes for a file of unknown size (set ${DOWNLOAD_LIMIT_ENV_VAR} to raise it)")
    return TooLarge(
        f"{url}: the server {what} {size} bytes for {part.name.removesuffix('.part')}, past {bound}; "
        "refused, the partial file was removed"
    )


def _one_try(
    url: str,
    part: Path,
    policy: DownloadPolicy,
    stop_at: float | None,
    progress: Callable[[int, int | None], None] | None,
    headers: Mapping[str, str] | None,
    limit: int,
    known: str,
    opener: urllib.request.OpenerDirector | None,
    where: list[str] | None = None,
) -> None:
    """One request: ask for the bytes after those in ``part``, append (206) or start over (200)."""
    offset = part.stat().st_size if part.exists() else 0
    if offset > limit:  # left by a run with another bound: nothing of it can be right
        part.unlink()
        offset = 0
    # a plugin's declared source, the user's mirror for it, or a Zenodo link checked against its record: never data
    sent = {"User-Agent": "steb-data-get", "Accept-Encoding": "identity", **(headers or {})}
    request = urllib.request.Request(url, headers=sent)  # noqa: S310
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        response = (opener.open if opener is not None else urllib.request.urlopen)(request, timeout=policy.timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:  # "nothing after byte N": the partial file already holds every byte
            return
        raise
    with response:
        if where is not None:
            where.append(response.geturl())
        status = getattr(response, "status", None) or 200
        if status != 206:
            offset = 0
        length = response.headers.get("Content-Length")
        remaining = int(length) if length and length.isdigit() else None
        total = offset + remaining if remaining is not None else None
        if total is not None and total > limit:
            raise _too_large(url, part, total, limit, known, declared=True)
        if remaining is not None:
            _check_free_space(part, remaining, url)
        if progress is not None and offset:
            progress(offset, total)
        received = 0
        read = getattr(response, "read1", response.read)  # what has arrived, so a stall loses nothing already received
        try:
            out = open(part, "ab" if offset else "wb")  # noqa: SIM115 - entered just below, once the open succeeded
        except OSError as exc:
            raise FetchError(f"cannot write {part}: {exc.strerror or exc}") from exc
        with out:
            while True:
                if stop_at is not None and time.monotonic() >= stop_at:
                    raise _DeadlinePassed()
                try:
                    chunk = read(CHUNK)
                except http.client.IncompleteRead as exc:  # keep what arrived, resume after it
                    _write(out, exc.partial, part)
                    raise _ShortRead(
                        f"connection closed after {offset + received + len(exc.partial)} of {total} bytes"
                    ) from None
                if not chunk:
                    break
                if offset + received + len(chunk) > limit:
                    raise _too_large(url, part, offset + received + len(chunk), limit, known, declared=False)
                _write(out, chunk, part)
                received += len(chunk)
                if progress is not None:
                    progress(len(chunk), total)
        if remaining is not None and received < remaining:
            raise _ShortRead(f"connection closed after {offset + received} of {total} bytes")


def _write(out: object, chunk: bytes, part: Path) -> None:
    """Append ``chunk``; a full disk or a file-size limit is an error naming the file (not a bare errno)."""
    try:
        out.write(chunk)  # type: ignore[attr-defined]
    except OSError as exc:
        raise FetchError(
            f"cannot write {part}: {exc.strerror or exc} (errno {exc.errno}); free space and run the "
            "same command again to continue after the bytes already written"
        ) from exc


def _check_free_space(part: Path, needed: int, url: str) -> None:
    """Refuse a body the disk cannot hold, before writing it (no half-filled disk)."""
    try:
        free = shutil.disk_usage(part.parent).free
    except OSError:
        return
    if needed > free:
        raise FetchError(
            f"{url}: {part.name.removesuffix('.part')} needs {needed} more bytes but {part.parent} has {free} free; "
            "nothing more was written"
        )


def fetch_json(url: str, *, policy: DownloadPolicy = DownloadPolicy(), limit: int = MAX_JSON_BYTES) -> object:
    """A small JSON document (an API answer) with the same retries; errors name the URL. The answer is read
    in chunks up to ``limit`` bytes (and within ``policy.deadline``): an endless or huge answer is refused."""
    import json

    pause = policy.backoff
    last: BaseException | None = None
    stop_at = time.monotonic() + policy.deadline if policy.deadline is not None else None
    for attempt in range(policy.retries + 1):
        try:
            # an API URL built from a plugin's declared record (or the user's mirror for it): never data
            request = urllib.request.Request(url, headers={"Accept": "application/json", "User-Agent": "steb-data-get"})  # noqa: S310
            with urllib.request.urlopen(request, timeout=policy.timeout) as response:  # noqa: S310
                return json.loads(read_capped(response, url, limit, stop_at).decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise FetchError(f"{url}: the answer is not JSON ({exc})") from exc
        except Exception as exc:
            if not _retryable(exc):
                if isinstance(exc, urllib.error.HTTPError):
                    raise FetchError(f"{url}: {_describe(exc)}") from exc
                raise
            last = exc
            if attempt < policy.retries:
                if not _sleep_within(pause, stop_at):
                    break
                pause *= 2
    why = _describe(last) if last is not None else "no answer"
    raise FetchError(f"{url}: gave up after {attempt + 1} tries: {why}", transient=True)


def read_capped(response: Any, url: str, limit: int, stop_at: float | None = None) -> bytes:
    """The whole body of ``response``, refused past ``limit`` bytes (declared or received) or ``stop_at``."""
    length = response.headers.get("Content-Length")
    if length and length.isdigit() and int(length) > limit:
        raise FetchError(
            f"{url}: the answer announces {int(length)} bytes, more than the {limit} an API answer may have; refused"
        )
    chunks: list[bytes] = []
    size = 0
    read: Callable[[int], bytes] = getattr(response, "read1", response.read)
    while True:
        if stop_at is not None and time.monotonic() >= stop_at:
            raise FetchError(
                f"{url}: the deadline passed while reading the answer ({size} bytes so far)", transient=True
            )
        chunk = read(CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise FetchError(f"{url}: the answer is longer than the {limit} bytes an API answer may have; refused")
        chunks.append(chunk)
