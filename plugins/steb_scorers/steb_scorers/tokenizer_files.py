"""Tokenizers from a model folder's own files, without transformers' per-model tokenizer classes.

A fast tokenizer's ``tokenizer.json`` is the complete tokenization (normaliser, pre-tokeniser, model,
special-token template) the model was published with; loading it through the generic
``PreTrainedTokenizerFast`` uses it as written. transformers' per-model classes may instead rebuild the
pipeline from their own defaults (transformers 5's ``RemBertTokenizer`` fixes the unknown-token id at 2,
whatever the file says), so the learned metrics prefer the file. Special tokens come from
``tokenizer_config.json`` and ``special_tokens_map.json`` as ``save_pretrained`` writes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import parse_json

__all__ = ["SPECIAL_TOKENS", "tokenizer_settings", "json_tokenizer"]

SPECIAL_TOKENS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def _read(path: Path, what: str) -> dict[str, Any]:
    try:
        data = parse_json(path.read_text(encoding="utf-8"), path=path)
    except ValueError as exc:
        raise ValueError(f"{what}: {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what}: {path} must be a JSON object")
    return data


def tokenizer_settings(folder: Path, what: str) -> dict[str, Any]:
    """``tokenizer_config.json`` completed by ``special_tokens_map.json``; special tokens as plain strings."""
    settings: dict[str, Any] = {}
    if (folder / "tokenizer_config.json").is_file():
        settings = _read(folder / "tokenizer_config.json", what)
    if (folder / "special_tokens_map.json").is_file():
        for key, value in _read(folder / "special_tokens_map.json", what).items():
            settings.setdefault(key, value)
    for key in SPECIAL_TOKENS:
        value = settings.get(key)
        if isinstance(value, dict):  # an AddedToken as save_pretrained writes it
            settings[key] = value.get("content")
    return settings


def json_tokenizer(folder: str | Path, what: str) -> Any | None:
    """The tokenizer of ``folder/tokenizer.json`` with the folder's special tokens, or None without that file."""
    folder = Path(folder)
    path = folder / "tokenizer.json"
    if not path.is_file():
        return None
    from transformers import PreTrainedTokenizerFast

    settings = tokenizer_settings(folder, what)
    specials = {k: settings[k] for k in SPECIAL_TOKENS if isinstance(settings.get(k), str)}
    try:
        return PreTrainedTokenizerFast(tokenizer_file=str(path), **specials)
    except Exception as exc:  # noqa: BLE001 - a corrupt or foreign file: say which
        raise ValueError(f"{what}: {path} is not a usable tokenizer file: {exc}") from None
