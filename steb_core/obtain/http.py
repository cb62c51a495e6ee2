"""Plain downloads: resume through ``Range``, bounded retries, a per-read timeout and an overall deadline,
and sha256/md5 verification naming the file that does not match.

A large release over a flaky connection must not restart from zero: the bytes so far live in
``NAME.part`` beside the destination, and the next try (or the next ``steb data get``) asks the server for
the rest. Only a verified file is renamed to its final name, so a file without ``.part`` is complete.
"""

from __future__ import annotations

import hashlib
import http.client
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from .errors import FetchError

__all__ = ["DownloadPolicy", "download", "file_digest", "verify_file", "fetch_json"]

CHUNK = 1 << 16
#: statuses a later try may not repeat: server errors, rate limits, request timeouts
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class DownloadPolicy:
    """How hard to try: ``retries`` further tries after the first, ``timeout`` seconds without a byte before
    a try is abandoned, ``deadline`` seconds for one file over all tries (None: no overall limit), and
    ``backoff`` seconds of pause before the second try, doubled before each later one."""

    retries: int = 4
    timeout: float = 60.0
    deadline: float | None = None
    backoff: float = 1.0


def file_digest(path: Path, algorithm: str = "sha256") -> str:
    """The hex digest of a file, read in chunks."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify_file(path: Path, *, sha256: str | None = None, md5: str | None = None, name: str | None = None,
                url: str | None = None) -> None:
    """Refuse a file whose digest differs from the expected one; the error names the file, both digests
    and where it came from."""
    for algorithm, expected in (("sha256", sha256), ("md5", md5)):
        if not expected:
            continue
        got = file_digest(path, algorithm)
        if got.lower() != expected.lower():
            raise FetchError(f"checksum mismatch for {name or path.name}: {algorithm} {got}, expected {expected}"
                             + (f" (downloaded from {url})" if url else "") + "; the file was removed, nothing was kept")


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code in RETRY_STATUSES
    return isinstance(exc, (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError,
                            http.client.IncompleteRead, http.client.RemoteDisconnected, _ShortRead))


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


def download(url: str, dest: Path, *, sha256: str | None = None, md5: str | None = None,
             policy: DownloadPolicy = DownloadPolicy(), progress: Callable[[int, int | None], None] | None = None,
             headers: Mapping[str, str] | None = None) -> Path:
    """Fetch ``url`` to ``dest`` (resuming ``dest.part``), verify it, rename it into place; returns ``dest``.

    ``progress(nbytes, total)`` is called as bytes arrive (``total`` None when the server does not say).
    Errors name the URL: a client error (404, 403) at once, server errors and stalls after
    ``policy.retries`` further tries or at the deadline. A checksum mismatch removes the partial file so
    the next attempt starts clean.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    stop_at = time.monotonic() + policy.deadline if policy.deadline is not None else None
    pause = policy.backoff
    last: BaseException | None = None
    tries = 0
    while True:
        if stop_at is not None and time.monotonic() >= stop_at:
            raise FetchError(f"{url}: deadline of {policy.deadline:g} s passed after {tries} tries"
                             + (f" (last: {_describe(last)})" if last else ""), transient=True)
        tries += 1
        try:
            _one_try(url, part, policy, stop_at, progress, headers)
            break
        except _DeadlinePassed:
            raise FetchError(f"{url}: deadline of {policy.deadline:g} s passed while downloading "
                             f"({part.stat().st_size if part.exists() else 0} bytes so far, kept in {part} for a resume)",
                             transient=True) from None
        except Exception as exc:  # noqa: BLE001 - sorted into retryable and not just below
            if not _retryable(exc):
                if isinstance(exc, urllib.error.HTTPError):
                    raise FetchError(f"{url}: {_describe(exc)}") from exc
                raise
            last = exc
            kept = f" (partial download kept in {part} for a resume)" if part.exists() else ""
            if tries <= policy.retries and not _sleep_within(pause, stop_at):
                raise FetchError(f"{url}: deadline of {policy.deadline:g} s passed after {tries} tries "
                                 f"(last: {_describe(exc)}){kept}", transient=True) from exc
            if tries > policy.retries:
                raise FetchError(f"{url}: gave up after {tries} tries: {_describe(exc)}{kept}", transient=True) from exc
            pause *= 2
    try:
        verify_file(part, sha256=sha256, md5=md5, name=dest.name, url=url)
    except FetchError:
        part.unlink(missing_ok=True)
        raise
    part.replace(dest)
    return dest


class _DeadlinePassed(Exception):
    """The overall deadline passed between two chunks."""


def _one_try(url: str, part: Path, policy: DownloadPolicy, stop_at: float | None,
             progress: Callable[[int, int | None], None] | None, headers: Mapping[str, str] | None) -> None:
    """One request: ask for the bytes after those in ``part``, append (206) or start over (200)."""
    offset = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": "steb-data-get", "Accept-Encoding": "identity", **(headers or {})})
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        response = urllib.request.urlopen(request, timeout=policy.timeout)  # noqa: S310 - URLs come from dataset specs
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:  # "nothing after byte N": the partial file already holds every byte
            return
        raise
    with response:
        status = getattr(response, "status", None) or 200
        if status != 206:
            offset = 0
        length = response.headers.get("Content-Length")
        remaining = int(length) if length and length.isdigit() else None
        total = offset + remaining if remaining is not None else None
        if progress is not None and offset:
            progress(offset, total)
        received = 0
        read = getattr(response, "read1", response.read)  # what has arrived, so a stall loses nothing already received
        with open(part, "ab" if offset else "wb") as out:
            while True:
                if stop_at is not None and time.monotonic() >= stop_at:
                    raise _DeadlinePassed()
                try:
                    chunk = read(CHUNK)
                except http.client.IncompleteRead as exc:  # keep what arrived, resume after it
                    out.write(exc.partial)
                    raise _ShortRead(f"connection closed after {offset + received + len(exc.partial)} of {total} bytes") from None
                if not chunk:
                    break
                out.write(chunk)
                received += len(chunk)
                if progress is not None:
                    progress(len(chunk), total)
        if remaining is not None and received < remaining:
            raise _ShortRead(f"connection closed after {offset + received} of {total} bytes")


def fetch_json(url: str, *, policy: DownloadPolicy = DownloadPolicy()) -> object:
    """A small JSON document (an API answer) with the same retries; errors name the URL."""
    import json

    pause = policy.backoff
    last: BaseException | None = None
    for attempt in range(policy.retries + 1):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json",  # noqa: S310
                                                                             "User-Agent": "steb-data-get"}),
                                        timeout=policy.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except json.JSONDecodeError as exc:
            raise FetchError(f"{url}: the answer is not JSON ({exc})") from exc
        except Exception as exc:  # noqa: BLE001
            if not _retryable(exc):
                if isinstance(exc, urllib.error.HTTPError):
                    raise FetchError(f"{url}: {_describe(exc)}") from exc
                raise
            last = exc
            if attempt < policy.retries:
                time.sleep(pause)
                pause *= 2
    raise FetchError(f"{url}: gave up after {policy.retries + 1} tries: {_describe(last)}", transient=True)
