"""A Google Drive file by its id, as the STEB authors publish their samples (``gdown`` in their
``download_datasets.sh``, github.com/rrivera1849/STEB).

The requests are gdown's: ``GET https://drive.google.com/uc?id=ID&export=download``, which Drive answers
with the file (a redirect to ``drive.usercontent.google.com/download``, ``Content-Disposition: attachment``)
or, for a file too large to scan for viruses, with a warning page whose download form (or ``uc?export=
download&confirm=`` link) leads to the file. The page is read with gdown's own parser
(``gdown.download.get_url_from_gdrive_confirmation``), so steb follows Drive's pages exactly as gdown
does; a quota or permission page becomes an error naming the file id and Drive's words. The bytes
themselves go through :func:`steb_core.obtain.http.download`, so a Drive file gets what every download
gets: resume, the size bound, the deadline, the mirror setting (``drive.google.com=...`` and
``drive.usercontent.google.com=...``, redirects included) and a cookie jar kept across the hops.

Only Drive is followed (issue 47), as the Zenodo path follows only its record: every URL a confirm page
names and every redirect must be ``https`` on a Drive host (:data:`DRIVE_HOSTS`) or lie under the user's
mirror base for one; a ``file://`` form action, or a hop to any other origin, is refused naming it, and
nothing is fetched or pinned.
"""

from __future__ import annotations

import hashlib
import http.cookiejar
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from .errors import FetchError
from .http import MAX_JSON_BYTES, DownloadPolicy, download, read_capped
from .mirror import mirrors, rewrite

__all__ = ["fetch_gdrive", "drive_file_id", "drive_url", "DRIVE_HOSTS", "check_drive_url"]

#: the hosts a Drive download goes through (gdown's requests, and where Drive redirects them)
DRIVE_HOSTS = ("drive.google.com", "drive.usercontent.google.com", "docs.google.com")

_ID = re.compile(r"^[-\w]{10,}$")
#: how many confirm pages may come before the file (Drive sends at most one)
_HOPS = 4


def drive_file_id(text: str) -> str:
    """The file id of ``text``: an id, or a ``drive.google.com/file/d/ID/...`` / ``...?id=ID`` URL."""
    text = text.strip()
    found = re.search(r"/file/(?:u/\d+/)?d/([-\w]+)", text) or re.search(r"[?&]id=([-\w]+)", text)
    file_id = found.group(1) if found else text
    if not _ID.match(file_id):
        raise FetchError(f"gdrive source {text!r}: expected a Google Drive file id or a drive.google.com file URL")
    return file_id


def drive_url(file_id: str) -> str:
    """The URL gdown asks first for a file id."""
    return f"https://drive.google.com/uc?id={file_id}&export=download"


def check_drive_url(url: str, file_id: str, why: str) -> str:
    """``url`` when it is https on a Drive host or under the mirror base of one; an error naming it otherwise."""
    parts = urlsplit(url)
    if parts.scheme == "https" and (parts.hostname or "").lower() in DRIVE_HOSTS and not parts.username:
        return url
    table = mirrors()
    for host in DRIVE_HOSTS:
        base = table.get(host)
        if base and (url == base or url.startswith(base + "/") or url.startswith(base + "?")):
            return url
    raise FetchError(
        f"Google Drive file {file_id}: {why} {url!r}, which is not https on a Drive host "
        f"({', '.join(DRIVE_HOSTS)}) nor under a mirror of one; refused, nothing fetched"
    )


class _MirroredRedirects(urllib.request.HTTPRedirectHandler):
    """Follow Drive's redirects through the mirror setting too (an air-gapped lab never reaches Google), and
    only to Drive (or its mirror): a redirect elsewhere is refused naming where it led."""

    def __init__(self, file_id: str) -> None:
        super().__init__()
        self.file_id = file_id

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        target = check_drive_url(rewrite(newurl), self.file_id, f"{req.full_url} redirects to")
        return super().redirect_request(req, fp, code, msg, headers, target)


def _confirm_parser() -> tuple[Callable[[str], str], type[Exception]]:
    try:
        # optional until a Drive source is fetched
        from gdown.download import get_url_from_gdrive_confirmation
        from gdown.exceptions import FileURLRetrievalError
    except ImportError as exc:
        raise FetchError(
            "Google Drive sources need the gdown package: pip install 'steb-core[get]' (or pip install gdown)"
        ) from exc
    return get_url_from_gdrive_confirmation, FileURLRetrievalError


def fetch_gdrive(
    file_id: str,
    dest: Path,
    *,
    sha256: str | None = None,
    policy: DownloadPolicy = DownloadPolicy(),
    progress: Callable[[int, int | None], None] | None = None,
    expected_size: int | None = None,
    hasher: hashlib._Hash | None = None,
    max_size: int | None = None,
    where: list[str] | None = None,
) -> Path:
    """Download Drive file ``file_id`` to ``dest`` (resumable, bounded, verified when ``sha256`` is given)."""
    parse, not_public = _confirm_parser()
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _MirroredRedirects(file_id))
    what = f"Google Drive file {file_id}"
    url = rewrite(drive_url(file_id))
    for _ in range(_HOPS):
        # an https Drive URL, or the user's own mirror base for it (steb_core.obtain.mirror)
        request = urllib.request.Request(url, headers={"User-Agent": "steb-data-get", "Accept-Encoding": "identity"})  # noqa: S310
        try:
            response = opener.open(request, timeout=policy.timeout)
        except urllib.error.HTTPError as exc:
            raise FetchError(
                f"{what}: {url}: HTTP {exc.code} {exc.reason} (is the file shared with 'anyone with the link'?)",
                transient=exc.code >= 500 or exc.code == 429,
            ) from exc
        except (urllib.error.URLError, OSError) as exc:
            raise FetchError(f"{what}: {url}: {getattr(exc, 'reason', exc)}", transient=True) from exc
        with response:
            final = response.geturl()
            html = response.headers.get("Content-Type", "").startswith("text/html")
            if "Content-Disposition" in response.headers or not html:
                break  # the file itself: fetched again below by the resumable downloader
            page = read_capped(response, url, MAX_JSON_BYTES).decode("utf-8", "replace")
        try:
            url = check_drive_url(rewrite(parse(page)), file_id, "the confirm page leads to")
        except not_public as exc:
            words = " ".join(str(exc).split())
            raise FetchError(f"{what}: Drive answered with a page, not the file: {words}", transient=True) from exc
    else:
        raise FetchError(f"{what}: still a Drive page after {_HOPS} hops ({url}); refused")
    return download(
        final,
        dest,
        sha256=sha256,
        policy=policy,
        progress=progress,
        expected_size=expected_size,
        opener=opener,
        hasher=hasher,
        max_size=max_size,
        where=where,
    )
