"""What every tokenizer-backed encoder of this plugin shares: identity, token counting, long-text protocols.

Subclasses provide ``_encode(texts, max_length)`` (length-sorted, dynamically padded, truncating at
``max_length`` tokens *including* special tokens) and set the attributes listed on the class. Chunk-and-pool
is done here with the model's own tokenizer: sentence-boundary chunks (the core's ``plan_chunks``, fed our
token counts) sized so that a chunk plus the special tokens and prompt fits the limit, all chunks of a call
embedded in one length-sorted pass, then averaged per text.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any, Sequence

import numpy as np

from steb_core.longtext import plan_chunks

from .loading import ResolvedModel, check_remote_code
from .pooling import mean_by_owner
from .runtime import dtype_name, parse_int, resolve_device, resolve_dtype

__all__ = ["TokenizerEncoder"]


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class TokenizerEncoder:
    """Base class: subclasses set the attributes below in ``__init__`` and implement ``_encode``."""

    name: str
    family: str
    pooling: str
    max_length: int
    batch_size: int
    prompt: str = ""
    tokenizer: Any
    resolved: ResolvedModel
    device_name: str
    dtype_name: str

    def _setup(self, *, resolved: ResolvedModel, family: str, name: str, batch_size: int | str, device: str, dtype: str, trust: bool) -> Any:
        """Settings every subclass shares; returns the torch dtype to load the weights in."""
        check_remote_code(resolved, trust)
        self.resolved, self.family, self.name = resolved, family, name
        self.batch_size = parse_int(batch_size, "batch_size")
        self._device = resolve_device(device)
        torch_dtype = resolve_dtype(dtype)
        self.device_name, self.dtype_name = str(self._device), dtype_name(torch_dtype)
        return torch_dtype

    # -- to implement --------------------------------------------------------------------------
    def _encode(self, texts: list[str], max_length: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- the encoder protocol ------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 (n, d); texts longer than ``max_length`` tokens are truncated (the runner chunks instead)."""
        return self._encode(list(texts), self.max_length)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text without special tokens, counted by the model's tokenizer in one batch call."""
        if not texts:
            return []
        encoded = self.tokenizer(
            list(texts),
            add_special_tokens=False,
            truncation=False,
            return_attention_mask=False,
            return_token_type_ids=False,
            verbose=False,
        )
        return [len(ids) for ids in encoded["input_ids"]]

    def truncate(self, texts: Sequence[str], max_tokens: int) -> list[str]:
        """Each text cut after its first ``max_tokens`` tokens, at the character where that token ends."""
        if not texts:
            return []
        texts = list(texts)
        try:
            encoded = self.tokenizer(
                texts, add_special_tokens=False, truncation=True, max_length=max_tokens,
                return_offsets_mapping=True, return_attention_mask=False, return_token_type_ids=False,
            )
        except NotImplementedError:  # slow (Python) tokenizers have no offsets: decode the kept ids
            encoded = self.tokenizer(texts, add_special_tokens=False, truncation=True, max_length=max_tokens)
            return [self.tokenizer.decode(ids) for ids in encoded["input_ids"]]
        return [text[: offsets[-1][1]] if offsets else "" for text, offsets in zip(texts, encoded["offset_mapping"])]

    def special_token_budget(self) -> int:
        """Tokens of every input that are not text: the tokenizer's special tokens plus the prompt."""
        extra = self.tokenizer.num_special_tokens_to_add(pair=False)
        if self.prompt:
            extra += self.count_tokens([self.prompt])[0]
        return extra

    def limit_for(self, protocol_max_length: int | None) -> int:
        """The token limit of a run: the protocol's when it is tighter than the model's, else the model's."""
        if protocol_max_length is None:
            return self.max_length
        return min(int(protocol_max_length), self.max_length)

    def encode_with_protocol(self, texts: Sequence[str], protocol: Any) -> np.ndarray:
        """Embed under steb's long-text protocol (``protocol.name``, ``protocol.max_length``)."""
        texts = list(texts)
        if not texts:
            raise ValueError("nothing to encode")
        limit = self.limit_for(getattr(protocol, "max_length", None))
        name = getattr(protocol, "name", "chunk-and-pool")
        if name == "truncate":
            return self._encode(texts, limit)
        if name != "chunk-and-pool":
            raise ValueError(f"unknown long-text protocol '{name}'")
        budget = limit - self.special_token_budget()
        if budget < 1:
            raise ValueError(f"token limit {limit} leaves no room for text after special tokens and prompt")
        chunks, owner = plan_chunks(texts, budget, self)
        if len(chunks) == len(texts):  # nothing was split: no pooling needed
            return self._encode(texts, limit)
        return mean_by_owner(self._encode(chunks, limit), owner, len(texts))

    # -- identity ------------------------------------------------------------------------------
    def fingerprint(self) -> str:
        """Cache identity: what changes the vectors (weights version, pooling, dtype, limit, prompt), not the device."""
        parts = [
            self.family,
            f"{self.resolved.model_id}@{self.resolved.revision}",
            f"pooling={self.pooling}",
            f"dtype={self.dtype_name}",
            f"max_length={self.max_length}",
        ]
        if self.prompt:
            parts.append(f"prompt={self.prompt!r}")
        return "|".join(parts)

    def info(self) -> dict[str, Any]:
        """Facts recorded with every result, so a score can be traced to exact weights and settings."""
        return {
            "family": self.family,
            "model": self.resolved.model_id,
            "revision": self.resolved.revision,
            "model_source": self.resolved.source,
            "pooling": self.pooling,
            "device": self.device_name,
            "dtype": self.dtype_name,
            "max_length": self.max_length,
            "batch_size": self.batch_size,
            "prompt": self.prompt,
            "torch": _version("torch"),
            "transformers": _version("transformers"),
            "sentence_transformers": _version("sentence-transformers"),
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, model={self.resolved.model_id!r}, device={self.device_name})"
