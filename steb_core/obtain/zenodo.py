"""A Zenodo record: its files API lists each file with an ``md5:`` checksum and a download link.

``GET {base}/api/records/{id}`` (``base`` from the ``zenodo.org`` mirror entry), then each file through
:func:`~steb_core.obtain.http.download` and verified against the record's own checksum (and a sha256
from the spec when one is given). Download links are rewritten through the mirror too, since a mirrored
record may still carry zenodo.org links.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any, Callable, Mapping

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


def record_files(url: str, *, policy: DownloadPolicy = DownloadPolicy()) -> tuple[str, list[dict[str, Any]]]:
    """The record's API URL and its file entries ``{key, size, checksum, link}``."""
    api = f"{zenodo_base()}/api/records/{_record_id(url)}"
    body = fetch_json(api, policy=policy)
    entries = body.get("files") if isinstance(body, dict) else None
    if isinstance(entries, dict):  # newer InvenioRDM answers {"entries": [...]} or {"entries": {key: ...}}
        entries = entries.get("entries", entries)
        entries = list(entries.values()) if isinstance(entries, dict) else entries
    if not isinstance(entries, list):
        raise FetchError(f"{api}: the answer has no 'files' list")
    out = []
    for entry in entries:
        key = entry.get("key") or entry.get("filename")
        link = (entry.get("links") or {}).get("self") or (entry.get("links") or {}).get("content")
        if not key or not link:
            raise FetchError(f"{api}: a file entry lacks its name or download link: {entry!r}")
        out.append({"key": key, "size": entry.get("size"), "checksum": entry.get("checksum", ""), "link": rewrite(link)})
    return api, out


def fetch_zenodo(url: str, dest: Path, *, patterns: tuple[str, ...] = (), sha256: Mapping[str, str] | None = None,
                 policy: DownloadPolicy = DownloadPolicy(), progress: Callable[[int, int | None], None] | None = None) -> str:
    """Download the record's files (those matching ``patterns`` when given) into ``dest``, each verified;
    returns the record's API URL (its revision: Zenodo records are immutable)."""
    api, entries = record_files(url, policy=policy)
    chosen = [e for e in entries if not patterns or any(fnmatch.fnmatchcase(e["key"], p) for p in patterns)]
    if not chosen:
        raise FetchError(f"{api}: no file matches {list(patterns)}; the record holds {[e['key'] for e in entries]}")
    for entry in chosen:
        algorithm, _, digest = str(entry["checksum"]).partition(":")
        if "/" in entry["key"] or entry["key"] in ("", ".", ".."):
            raise FetchError(f"{api}: file name {entry['key']!r} is not a plain file name")
        target = dest / entry["key"]
        if target.is_file():  # finished by an earlier, interrupted run (only verified files get their name)
            continue
        download(entry["link"], target, md5=digest if algorithm == "md5" else None,
                 sha256=(sha256 or {}).get(entry["key"]) or (digest if algorithm == "sha256" else None),
                 policy=policy, progress=progress)
    return api
