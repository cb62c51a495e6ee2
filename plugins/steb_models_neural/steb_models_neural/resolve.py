"""Encoders for names no plugin registered: a model folder on disk or a hub id in the local cache.

``steb run --encoder path/to/model`` and ``steb.evaluate("org/model-id")`` reach this through the core's
``resolve_encoder`` hook. Anything that is not a sentence-transformers or transformers model folder (or
a hub id whose snapshot is already in the local Hugging Face cache) is passed on (None), so the core can
report an unknown encoder. Nothing is downloaded and nothing is loaded: the encoder is lazy like every
other encoder of this plugin.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import EncoderOptionError, ModelNotAvailableError
from .loading import ResolvedModel, resolve_model

__all__ = ["resolve_by_name", "is_model_folder"]

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def is_model_folder(path: Path) -> bool:
    return path.is_dir() and ((path / "modules.json").is_file() or (path / "config.json").is_file())


def _locate(name: str, revision: str | None) -> ResolvedModel | None:
    path = Path(name).expanduser()
    if path.exists():
        return resolve_model(str(path), revision) if is_model_folder(path) else None
    if not _HUB_ID.match(name):
        return None
    try:
        resolved = resolve_model(name, revision)  # the local hub cache only
    except ModelNotAvailableError:
        return None
    return resolved if is_model_folder(resolved.path) else None


def resolve_by_name(name: str, options: Mapping[str, Any] | None = None) -> Any:
    """A lazy sentence-transformers encoder for ``name`` (folder or cached hub id), else None."""
    options = dict(options or {})
    if not isinstance(name, str) or not name:
        return None
    resolved = _locate(name, options.get("revision"))
    if resolved is None:
        return None
    if options.pop("model", None) not in (None, name):
        raise EncoderOptionError(f"encoder '{name}' names the model itself; drop the model= option")
    options.pop("revision", None)
    options.setdefault("name", name)
    from .sentence import SentenceTransformerEncoder

    return SentenceTransformerEncoder(resolved=resolved, **options)
