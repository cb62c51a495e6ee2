"""A Zenodo record: its files API lists each file with an ``md5:`` checksum, its size and a download link.

``GET {base}/api/records/{id}`` (``base`` from the ``zenodo.org`` mirror entry), then each file through
:func:`~steb_core.obtain.http.download`, bounded by the record's ``size`` and verified against the record's
own checksum (and a sha256 from the spec when one is given). Download links are rewritten through the
mirror too, since a mirrored record may still carry zenodo.org links.

Only the record's own files are fetched (issue 41): a link must be ``https`` (or the mirror's scheme) on
the host that answered the API call, under that record's ``/files/`` path; a ``file://`` link or one to
another host is refused. A file the record lists without a checksum is refused unless the spec pins its
sha256: a real Zenodo record always states one, so its absence means the answer is not Zenodo's, and
trust on first use (which steb allows for plain URLs) would accept whatever such an answer points to.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .errors import FetchError
from .http import DownloadPolicy, download, fetch_json
from .mirror import rewrite, zenodo_base

__all__ = ["record_files", "fetch_zenodo"]


def _record_id(url: str) -> str:
    """``6411789``, ``zenodo.org/records/6411789`` or ``https://zenodo.org/record/6411789`` -> ``6411789``."""
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    if not tail.isdigit():
        raise FetchError(f"zenodo source {url!r}: expected a record id (digits) or a record URL")
    return tail


def _own_link(api: str, record: str, key: str, link: str) -> str:
    """``link`` (mirrored) when it is a file of this record on the API's own origin; an error naming it otherwise."""
    mirrored = rewrite(link)
    want, got = urlsplit(api), urlsplit(mirrored)
    path = unquote(got.path)
    if (
        got.scheme not in ("https", want.scheme)
        or (got.scheme, got.netloc) != (want.scheme, want.netloc)
        or not any(path.startswith(f"{prefix}/{record}/files/") for prefix in ("/api/records", "/records", "/record"))
    ):
        raise FetchError(
            f"{api}: the download link of {key!r} is {link!r}, not a file of record {record} on "
            f"{want.scheme}://{want.netloc}; "
            "refused, nothing fetched"
        )
    return mirrored


def record_files(url: str, *, policy: DownloadPolicy = DownloadPolicy()) -> tuple[str, list[dict[str, Any]]]:
    """The record's API URL and its file entries ``{key, size, checksum, link}`` (links checked, mirrored)."""
    record = _record_id(url)
    api = f"{zenodo_base()}/api/records/{record}"
    body = fetch_json(api, policy=policy)
    entries = body.get("files") if isinstance(body, dict) else None
    if isinstance(entries, dict):  # newer InvenioRDM answers {"entries": [...]} or {"entries": {key: ...}}
        entries = entries.get("entries", entries)
        entries = list(entries.values()) if isinstance(entries, dict) else entries
    if not isinstance(entries, list):
        raise FetchError(f"{api}: the answer has no 'files' list")
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise FetchError(f"{api}: a file entry is not an object: {entry!r}"[:300])
        key = entry.get("key") or entry.get("filename")
        links = entry.get("links")
        links = links if isinstance(links, dict) else {}
        link = links.get("self") or links.get("content")
        if not isinstance(key, str) or not key or not isinstance(link, str) or not link:
            raise FetchError(f"{api}: a file entry lacks its name or download link: {entry!r}"[:300])
        size = entry.get("size")
        out.append(
            {
                "key": key,
                "size": size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None,
                "checksum": str(entry.get("checksum") or ""),
                "link": _own_link(api, record, key, link),
            }
        )
    return api, out


def fetch_zenodo(
    url: str,
    dest: Path,
    *,
    patterns: tuple[str, ...] = (),
    sha256: Mapping[str, str] | None = None,
    policy: DownloadPolicy = DownloadPolicy(),
    progress: Callable[[int, int | None], None] | None = None,
) -> str:
    """Download the record's files (those matching ``patterns`` when given) into ``dest``, each verified;
    returns the record's API URL (its revision: Zenodo records are immutable)."""
    api, entries = record_files(url, policy=policy)
    chosen = [e for e in entries if not patterns or any(fnmatch.fnmatchcase(e["key"], p) for p in patterns)]
    if not chosen:
        raise FetchError(f"{api}: no file matches {list(patterns)}; the record holds {[e['key'] for e in entries]}")
    for entry in chosen:
        algorithm, _, digest = entry["checksum"].partition(":")
        pinned = (sha256 or {}).get(entry["key"])
        if "/" in entry["key"] or "\\" in entry["key"] or entry["key"] in ("", ".", ".."):
            raise FetchError(f"{api}: file name {entry['key']!r} is not a plain file name")
        if not pinned and not (algorithm in ("md5", "sha256") and digest):
            raise FetchError(
                f"{api}: the record lists {entry['key']!r} without a checksum ({entry['checksum']!r}); a Zenodo "
                "record always states one, so the file is not accepted unverified (pin its sha256 in the spec "
                "to fetch it anyway)"
            )
        target = dest / entry["key"]
        if target.is_file():  # finished by an earlier, interrupted run (only verified files get their name)
            continue
        download(
            entry["link"],
            target,
            md5=digest if algorithm == "md5" else None,
            sha256=pinned or (digest if algorithm == "sha256" else None),
            policy=policy,
            progress=progress,
            expected_size=entry["size"],
        )
    return api
