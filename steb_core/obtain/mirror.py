"""Host overrides for air-gapped labs and offline tests: ``STEB_DATA_MIRROR`` and ``HF_ENDPOINT``.

``STEB_DATA_MIRROR=github.com=file:///mirror/github,zenodo.org=http://127.0.0.1:8000`` maps a host to a
base URL; a URL on that host is rewritten to the base with the URL's path appended
(``https://github.com/o/r`` -> ``file:///mirror/github/o/r``). The hub honours ``HF_ENDPOINT`` (as
``huggingface_hub`` does), and a ``huggingface.co=...`` entry in the mirror setting as a fallback.
Read at call time, never cached, so a test's ``monkeypatch.setenv`` takes effect.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from .errors import FetchError

__all__ = ["MIRROR_ENV_VAR", "parse_mirrors", "mirrors", "rewrite", "hf_endpoint", "zenodo_base"]

MIRROR_ENV_VAR = "STEB_DATA_MIRROR"
HUB_HOST = "huggingface.co"
ZENODO_HOST = "zenodo.org"


def parse_mirrors(text: str) -> dict[str, str]:
    """``host=base,host=base`` as ``{host: base}``; a malformed entry is an error that quotes it."""
    out: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        host, sep, base = item.partition("=")
        host, base = host.strip().lower(), base.strip()
        if not sep or not host or not base or "/" in host or "://" not in base:
            raise FetchError(
                f"${MIRROR_ENV_VAR}: entry {item!r} is not of the form host=base-url "
                "(e.g. github.com=file:///mirror/github or zenodo.org=http://127.0.0.1:8000)"
            )
        out[host] = base.rstrip("/")
    return out


def mirrors(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The mirror map from ``$STEB_DATA_MIRROR`` (empty when unset)."""
    env = os.environ if environ is None else environ
    return parse_mirrors(env.get(MIRROR_ENV_VAR, ""))


def rewrite(url: str, table: Mapping[str, str] | None = None) -> str:
    """``url`` with its scheme and host replaced by the mirror base for that host (path and query kept)."""
    table = mirrors() if table is None else table
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    base = table.get(host) or (table.get(host[4:]) if host.startswith("www.") else None)
    if not base:
        return url
    return base + parts.path + (f"?{parts.query}" if parts.query else "")


def hf_endpoint(environ: Mapping[str, str] | None = None) -> str:
    """The hub endpoint: ``$HF_ENDPOINT``, else a ``huggingface.co`` mirror entry, else https://huggingface.co."""
    env = os.environ if environ is None else environ
    if env.get("HF_ENDPOINT"):
        return env["HF_ENDPOINT"].rstrip("/")
    return parse_mirrors(env.get(MIRROR_ENV_VAR, "")).get(HUB_HOST, f"https://{HUB_HOST}")


def zenodo_base(environ: Mapping[str, str] | None = None) -> str:
    """Where Zenodo's records API lives: the ``zenodo.org`` mirror entry or https://zenodo.org."""
    env = os.environ if environ is None else environ
    return parse_mirrors(env.get(MIRROR_ENV_VAR, "")).get(ZENODO_HOST, f"https://{ZENODO_HOST}")
