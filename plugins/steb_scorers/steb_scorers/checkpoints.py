"""Where a scorer's weights come from: a local folder, or a Hugging Face hub id already in the local cache.

steb never downloads weights at run time (runs must be reproducible offline and must not stall on a
network): a hub id is looked up in the local cache only, and a missing one raises
``steb_core.errors.ModelNotFoundError`` saying how to fetch it on a machine with network.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from steb_core.errors import ModelNotFoundError

__all__ = ["resolve_checkpoint", "ModelNotFoundError"]


def _looks_like_hub_id(text: str) -> bool:
    parts = text.split("/")
    return len(parts) == 2 and all(parts) and not text.startswith((".", "/", "~")) and "\\" not in text


def resolve_checkpoint(model: Any, what: str) -> str:
    """A local folder for ``model`` (a path, or a hub id found in the local Hugging Face cache).

    ``what`` names the scorer in the error message (e.g. "BLEURT").
    """
    text = os.fspath(model) if isinstance(model, (str, os.PathLike)) else None
    if text is None:
        raise TypeError(f"{what}: model must be a folder path or a hub id, not {type(model).__name__}")
    path = Path(text).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelNotFoundError(f"{what}: {path} is a file; expected a model folder (config.json, weights, tokenizer files)")
        return str(path)
    if not _looks_like_hub_id(text):
        raise ModelNotFoundError(f"{what}: model folder {path} does not exist")
    try:
        from huggingface_hub import snapshot_download

        return str(snapshot_download(text, local_files_only=True))
    except Exception as exc:  # LocalEntryNotFoundError, offline mode, missing package: all mean "not here"
        raise ModelNotFoundError(
            f"{what}: '{text}' is not in the local Hugging Face cache and steb does not download weights. On a machine with "
            f"network run `huggingface-cli download {text}` (the cache lives under $HF_HOME, default ~/.cache/huggingface) "
            f"and copy the cache here, or pass model=PATH to a local folder. ({type(exc).__name__})"
        ) from None
