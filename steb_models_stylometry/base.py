"""What every encoder of this package shares: a name, a cache fingerprint and ``info()``.

The runner caches embeddings keyed by the encoder's fingerprint, so the fingerprint must change
whenever anything that changes the vectors changes: the configuration, a resource file (word
lists, fitted vocabularies, reference statistics), the spaCy pipeline, or this package's version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

__all__ = ["PACKAGE_VERSION", "RESOURCES", "StylometryEncoder", "file_digest", "fingerprint_of"]

try:
    PACKAGE_VERSION = version("steb-models-stylometry")
except PackageNotFoundError:  # running from a source tree
    PACKAGE_VERSION = "0.0.0+source"

#: Folder of the files shipped with the package (word lists, default vectoriser, reference statistics).
RESOURCES = Path(__file__).resolve().parent / "resources"


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file or of every file under a folder (sorted by relative path)."""
    path = Path(path)
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for f in files:
        h.update(str(f.relative_to(path) if path.is_dir() else f.name).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def fingerprint_of(payload: Mapping[str, Any]) -> str:
    """A short stable hash of a JSON-able configuration."""
    text = json.dumps(dict(payload), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class StylometryEncoder:
    """Base class: subclasses set ``name`` and implement ``config()`` (everything that shapes the output)."""

    name: str = "stylometry"
    similarity_only: bool = False
    max_length: int | None = None  # any length: features are counts over the whole text

    def config(self) -> dict[str, Any]:
        raise NotImplementedError

    def fingerprint(self) -> str:
        return fingerprint_of(
            {"name": self.name, "class": type(self).__qualname__, "version": PACKAGE_VERSION, **self.config()}
        )

    def info(self) -> dict[str, Any]:
        return {"package": "steb-models-stylometry", "version": PACKAGE_VERSION, **self.config()}
