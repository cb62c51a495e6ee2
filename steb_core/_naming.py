"""Names of encoders in results: readable, and never shared by two different models in one folder.

Why a module of its own: a result's folder is named after its encoder, so two models that get the
same name (two ``SentenceTransformer`` objects, two MTEB models loaded from folders, one model with
and without ``truncate_dim``) would replace each other's result files. The rules here:

- :func:`default_name` says what a model object *is*: its own ``name``, the hub id of its model card,
  or the last component of the path it was loaded from -- never a library class name, which names
  the kind of object rather than the model;
- :func:`short_name` turns a path into its last component (a hub id stays whole), so leaderboards
  show ``my-model`` while the record keeps the full path;
- :func:`claim_name` gives a run the folder of its name when that folder is free or holds results of
  the same identity, and otherwise ``NAME@<identity prefix>``: a stable folder of its own, so both
  models' results are kept and the report shows both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeGuard

from ._io import parse_json

__all__ = ["default_name", "short_name", "claim_name", "UNIDENTIFIED_PREFIX"]

#: fingerprints of encoders whose identity cannot be established start with this (see runner)
UNIDENTIFIED_PREFIX = "unidentified-"

#: names libraries give a model they know nothing about (MTEB's placeholder for a model from a folder)
_PLACEHOLDERS = {"no_model_name/available", "no_model_name", "unknown", "none", ""}

#: library classes that wrap a model: their name says nothing about which model it is
_WRAPPER_CLASSES = {
    "SentenceTransformer",
    "SparseEncoder",
    "CrossEncoder",
    "SentenceTransformerEncoderWrapper",
    "MtebModelAdapter",
    "AbsEncoder",
    "Encoder",
    "PreTrainedModel",
    "BertModel",
    "AutoModel",
}

_HF_CACHE = re.compile(r"models--(?P<org>[^/\\]+?)--(?P<name>[^/\\]+)[/\\]snapshots[/\\]")


def short_name(source: str) -> str:
    """``/data/models/my-model/`` -> ``my-model``; a file in the hub cache -> its hub id; a hub id as is."""
    text = str(source).strip()
    cached = _HF_CACHE.search(text)
    if cached:
        return f"{cached.group('org')}/{cached.group('name')}"
    if _looks_like_path(text):
        parts = [p for p in re.split(r"[/\\]+", text) if p not in ("", ".", "..")]
        return parts[-1] if parts else text
    return text


def _looks_like_path(text: str) -> bool:
    """A path (absolute, relative with ./ or ../, ~, Windows, or existing here); ``org/model`` is a hub id."""
    if text.startswith(("/", "./", "../", "~", "\\")) or re.match(r"^[A-Za-z]:[/\\]", text):
        return True
    if text.count("/") >= 2:
        return True
    try:
        return Path(text).exists()  # a relative folder here; otherwise ``org/model`` is a hub id
    except OSError:
        return False


def _usable(name: Any) -> TypeGuard[str]:
    return isinstance(name, str) and name.strip().lower() not in _PLACEHOLDERS and name not in _WRAPPER_CLASSES


def _config_path(encoder: Any) -> str | None:
    """``_name_or_path`` of the HF config inside the object (sentence-transformers: its first module)."""
    holders = [encoder, getattr(encoder, "model", None), getattr(encoder, "auto_model", None)]
    try:
        holders.append(getattr(encoder[0], "auto_model", None))  # a SentenceTransformer's Transformer module
    except Exception:  # noqa: BLE001 - not indexable: not a module list
        pass
    for holder in holders:
        config = getattr(holder, "config", None)
        value = getattr(config, "_name_or_path", None) if config is not None else None
        if _usable(value):
            return str(value)
    return None


def default_name(encoder: Any) -> str | None:
    """What the model is, for people: its own ``name``, its model card's hub id, or its path's last
    component; MTEB models are looked through to the model they wrap. None when nothing names it."""
    for candidate in (encoder, getattr(encoder, "model", None)):
        if candidate is None:
            continue
        own = getattr(candidate, "name", None)
        if _usable(own) and not callable(own):
            return short_name(own)
        meta = getattr(candidate, "mteb_model_meta", None)
        meta_name = getattr(meta, "name", None)
        if _usable(meta_name):
            return str(meta_name)
        card = getattr(candidate, "model_card_data", None)
        for attr in ("model_id", "base_model"):
            value = getattr(card, attr, None) if card is not None else None
            if _usable(value):
                return short_name(value)
        for attr in ("name_or_path", "model_name_or_path"):
            value = getattr(candidate, attr, None)
            if _usable(value):
                return short_name(value)
        path = _config_path(candidate)
        if path:
            return short_name(path)
    return None


def _stored_fingerprints(folder: Path, encoder: str | None = None) -> set[str]:
    """The encoder fingerprints of the result records directly under ``folder``/<dataset>/<task>.json (only those
    of ``encoder`` when given: a folder of the old naming may hold another name's results)."""
    found: set[str] = set()
    if not folder.is_dir():
        return found
    for path in folder.glob("*/*.json"):
        if path.name.startswith("."):
            continue
        try:
            data = parse_json(path.read_text(encoding="utf-8"), path=path)
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or encoder not in (None, data.get("encoder")):
            continue
        if isinstance(data.get("encoder_fingerprint"), str):
            found.add(data["encoder_fingerprint"])
    return found


def _owns(stored: Iterable[str], fingerprint: str) -> bool:
    stored = set(stored)
    if fingerprint.startswith(UNIDENTIFIED_PREFIX):  # cannot tell: share only with other unidentified results
        return all(fp.startswith(UNIDENTIFIED_PREFIX) for fp in stored)
    return stored <= {fingerprint}


def claim_name(output_dir: str | Path, name: str, fingerprint: str) -> str:
    """``name`` when its results folder is free or holds this identity's results; else ``name@<id>``.

    ``<id>`` is the first 10 characters of the fingerprint (``unidentified`` for an encoder whose
    identity cannot be established), so the same model finds the same folder on every run.
    """
    from ._results import readable_slug, slug  # results imports nothing from here; lazy: no cycle

    root = Path(output_dir)
    stored = _stored_fingerprints(root / slug(name))
    if readable_slug(name) != slug(name):  # results written before issue 41 under the readable slug are this name's too
        stored |= _stored_fingerprints(root / readable_slug(name), encoder=name)
    if _owns(stored, fingerprint):
        return name
    tag = "unidentified" if fingerprint.startswith(UNIDENTIFIED_PREFIX) else fingerprint[:10]
    return f"{name}@{tag}"
