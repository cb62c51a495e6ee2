"""Where a scorer's weights come from: a local folder, or a Hugging Face hub id already in the local cache.

A scorer never downloads weights while it scores (runs must be reproducible offline and must not stall on
a network): a hub id is looked up in the local cache only, and a missing one raises
``steb_core.ModelNotFoundError`` naming the command that fetches it (``steb models get HUB_ID``,
or ``hf download`` on another machine and the cache copied here).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from steb_core import ModelNotFoundError

__all__ = ["resolve_checkpoint", "resolve_pretrained", "download_hint", "ModelNotFoundError"]


def _looks_like_hub_id(text: str) -> bool:
    parts = text.split("/")
    return len(parts) == 2 and all(parts) and not text.startswith((".", "/", "~")) and "\\" not in text


def download_hint(hub_id: str, files: str = "") -> str:
    """The sentence every "not cached" error ends with: the command that fetches the weights."""
    return (
        f"Fetch it with `steb models get {hub_id}`; without network here, run `hf download {hub_id}"
        f"{' ' + files if files else ''}` on a machine with network (the cache lives under $HF_HOME, default "
        f"~/.cache/huggingface) and copy the cache here, or pass a local folder."
    )


def _cached_snapshot(hub_id: str) -> str | None:
    try:
        from huggingface_hub import snapshot_download

        return str(snapshot_download(hub_id, local_files_only=True))
    except Exception:  # noqa: BLE001 - LocalEntryNotFoundError, offline mode, missing package: all mean "not here"
        return None


#: legacy un-namespaced hub ids (as COMET's hparams.yaml names its encoder) and where the hub moved them
HUB_ALIASES = {
    "xlm-roberta-large": "FacebookAI/xlm-roberta-large",
    "xlm-roberta-base": "FacebookAI/xlm-roberta-base",
    "bert-base-multilingual-cased": "google-bert/bert-base-multilingual-cased",
}


def resolve_pretrained(name: Any, what: str, files: str = "") -> str:
    """A local folder for a *pretrained encoder* named by a checkpoint's own metadata (COMET's ``pretrained_model``).

    Unlike :func:`resolve_checkpoint` it also accepts bare legacy hub ids (``xlm-roberta-large``) and their
    current namespaced names (``FacebookAI/xlm-roberta-large``), whichever is in the local cache. ``files`` lists
    the files actually needed, for the download hint.
    """
    text = os.fspath(name) if isinstance(name, (str, os.PathLike)) else None
    if not text:
        raise TypeError(f"{what}: the pretrained model must be a folder path or a hub id, not {name!r}")
    path = Path(text).expanduser()
    if path.is_dir():
        return str(path)
    looks_local = text.startswith((".", "/", "~")) or "\\" in text or text.count("/") > 1
    if looks_local:
        raise ModelNotFoundError(f"{what}: pretrained model folder {path} does not exist")
    candidates = [text] + ([HUB_ALIASES[text]] if text in HUB_ALIASES else [])
    for candidate in candidates:
        found = _cached_snapshot(candidate)
        if found:
            return found
    raise ModelNotFoundError(
        f"{what}: '{text}' is not in the local Hugging Face cache. " + download_hint(candidates[-1], files)
    )


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
            raise ModelNotFoundError(
                f"{what}: {path} is a file; expected a model folder (config.json, weights, tokenizer files)"
            )
        return str(path)
    if not _looks_like_hub_id(text):
        raise ModelNotFoundError(f"{what}: model folder {path} does not exist")
    found = _cached_snapshot(text)
    if found is None:
        raise ModelNotFoundError(
            f"{what}: '{text}' is not in the local Hugging Face cache. " + download_hint(text) + " (model=PATH)"
        )
    return found
