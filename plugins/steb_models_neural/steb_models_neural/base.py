"""What every tokenizer-backed encoder of this plugin shares: lazy loading, identity, token counting, long texts.

Building an encoder reads only small files: it resolves the model offline, validates the options and
reads the token limit from the model's configs. The tokenizer and weights are loaded on first use
(``encode``, ``encode_collections``, ``count_tokens``, ...), so a run whose vectors are all cached never
imports torch. ``fingerprint()`` and ``identity()`` come from the model's files (content hashes, see
:mod:`.identity`), never from a loaded model.

Subclasses implement ``_load()`` (set ``self._tokenizer`` and ``self._model`` from ``self.resolved``)
and ``_encode(texts, max_length)`` (length-sorted, dynamically padded, truncating at ``max_length``
tokens *including* special tokens). Chunk-and-pool is done here with the model's own tokenizer:
sentence-boundary chunks (the core's ``plan_chunks``, fed our token offsets) sized so that a chunk plus
the special tokens and prompt fits the limit, all chunks of a call embedded in one length-sorted pass,
then averaged per text.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from steb_core import plan_chunks, refusing_unsafe_weights
from steb_core import pool_chunks as mean_by_owner

from .errors import EncoderOptionError
from .identity import folder_evidence
from .loading import ResolvedModel, check_remote_code
from .runtime import (
    autocast_context,
    autocast_label,
    check_device,
    dtype_label,
    parse_int,
    resolve_device,
    resolve_dtype,
)

__all__ = ["TokenizerEncoder", "choose_max_length", "FINGERPRINT_SCHEME"]

#: bump when the way vectors are computed from the same files and options changes
FINGERPRINT_SCHEME = "steb-models-neural/fingerprint-v2"


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def choose_max_length(asked: int | str | None, limit: int | None, model: str) -> int:
    """The user's ``max_length`` if it fits the model, else the model's own limit."""
    value = parse_int(asked, "max_length") if asked not in (None, "") else None
    if value is not None and limit is not None and value > limit:
        raise EncoderOptionError(f"max_length={value} exceeds the model's limit of {limit} tokens")
    if value is None and limit is None:
        raise EncoderOptionError(f"cannot tell the token limit of '{model}': pass max_length=N")
    return value if value is not None else int(limit)  # type: ignore[arg-type]


class TokenizerEncoder:
    """Base class: subclasses call ``_setup`` in ``__init__`` and implement ``_load`` and ``_encode``."""

    name: str
    family: str
    pooling: str
    max_length: int
    batch_size: int
    prompt: str = ""
    resolved: ResolvedModel
    dtype_name: str = "float32"
    autocast: str | None = None
    batch_tokens: int | None = None

    def _setup(
        self,
        *,
        resolved: ResolvedModel,
        family: str,
        name: str,
        batch_size: int | str,
        device: str,
        dtype: Any,
        trust: bool,
        autocast: Any = None,
        batch_tokens: int | str | None = None,
    ) -> None:
        """Settings every subclass shares; nothing is loaded and torch is not imported.

        ``autocast`` (float16 / bfloat16): float32 weights, forward passes under ``torch.autocast`` in
        that precision (``dtype`` instead loads the weights in it). ``batch_tokens``: forward batches cut
        by a budget of padded tokens over length-sorted texts (:func:`.batching.token_batches`) instead of
        every ``batch_size`` texts; ``batch_size`` still caps the texts per batch.
        """
        check_remote_code(resolved, trust)
        self.resolved, self.family, self.name = resolved, family, name
        self.batch_size = parse_int(batch_size, "batch_size")
        self._device_option = check_device(device)
        self.dtype_name = dtype_label(dtype)
        self.autocast = autocast_label(autocast)
        self.batch_tokens = parse_int(batch_tokens, "batch_tokens") if batch_tokens not in (None, "") else None
        self._trust = trust
        self._identity: dict[str, Any] | None = None

    # -- lazy loading --------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self.__dict__.get("_model") is not None

    def _ensure_loaded(self) -> None:
        if self.__dict__.get("_model") is None:
            self._device = resolve_device(self._device_option)
            try:
                # torch refusing pickled weights: an error naming the file, never advice to load it unrestricted
                with refusing_unsafe_weights(self.resolved.path, f"encoder '{self.name}'"):
                    self._load(resolve_dtype(self.dtype_name))
            except BaseException:  # a failed load must not leave a half-loaded encoder behind
                self.__dict__["_model"] = self.__dict__["_tokenizer"] = None
                raise

    def _load(self, torch_dtype: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def model(self) -> Any:
        self._ensure_loaded()
        return self.__dict__["_model"]

    @model.setter
    def model(self, value: Any) -> None:
        self.__dict__["_model"] = value

    @property
    def tokenizer(self) -> Any:
        if self.__dict__.get("_tokenizer") is None:
            self._ensure_loaded()
        return self.__dict__["_tokenizer"]

    @tokenizer.setter
    def tokenizer(self, value: Any) -> None:
        self.__dict__["_tokenizer"] = value

    @property
    def device_name(self) -> str:
        """The device the model runs on once loaded; before that, the device option ("auto", "cpu", ...)."""
        device = self.__dict__.get("_device")
        return str(device) if device is not None else self.__dict__.get("_device_option", "auto")

    def _check_loaded_limit(self, limit: int | None) -> None:
        """After loading: the limit read from the files must not exceed what the loaded model takes."""
        if limit is not None and self.max_length > limit:
            raise EncoderOptionError(
                f"max_length={self.max_length} exceeds the limit of {limit} tokens that '{self.resolved.model_id}' "
                f"reports once loaded; pass max_length={limit} or less"
            )

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

    def token_offsets(self, texts: Sequence[str]) -> list[list[tuple[int, int]]] | None:
        """Character span of every token (no special tokens), or None for slow tokenizers without offsets.

        The core's chunk planner cuts over-long sentences with these: one tokenizer call per chunk.
        """
        if not texts:
            return []
        try:
            encoded = self.tokenizer(
                list(texts),
                add_special_tokens=False,
                truncation=False,
                return_offsets_mapping=True,
                return_attention_mask=False,
                return_token_type_ids=False,
                verbose=False,
            )
        except NotImplementedError:
            return None
        return [[(int(a), int(b)) for a, b in spans] for spans in encoded["offset_mapping"]]

    def truncate(self, texts: Sequence[str], max_tokens: int) -> list[str]:
        """Each text cut after its first ``max_tokens`` tokens, at the character where that token ends."""
        if not texts:
            return []
        texts = list(texts)
        try:
            encoded = self.tokenizer(
                texts,
                add_special_tokens=False,
                truncation=True,
                max_length=max_tokens,
                return_offsets_mapping=True,
                return_attention_mask=False,
                return_token_type_ids=False,
            )
        except NotImplementedError:  # slow (Python) tokenizers have no offsets: decode the kept ids
            encoded = self.tokenizer(texts, add_special_tokens=False, truncation=True, max_length=max_tokens)
            return [self.tokenizer.decode(ids) for ids in encoded["input_ids"]]
        return [text[: offsets[-1][1]] if offsets else "" for text, offsets in zip(texts, encoded["offset_mapping"])]

    def special_token_budget(self) -> int:
        """Tokens of every input that are not text: the tokenizer's special tokens plus the prompt."""
        extra = int(self.tokenizer.num_special_tokens_to_add(pair=False))
        if self.prompt:
            extra += self.count_tokens([self.prompt])[0]
        return extra

    def limit_for(self, protocol_max_length: int | None) -> int:
        """The token limit of a run: the protocol's when it is tighter than the model's, else the model's."""
        if protocol_max_length is None:
            return self.max_length
        return min(int(protocol_max_length), self.max_length)

    def chunk_budget(self, limit: int) -> int:
        budget = limit - self.special_token_budget()
        if budget < 1:
            raise ValueError(f"token limit {limit} leaves no room for text after special tokens and prompt")
        return budget

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
        return self._chunk_and_pool(texts, limit)

    def _chunk_and_pool(self, texts: list[str], limit: int) -> np.ndarray:
        """chunk-and-pool: steb's sentence-aware chunks within ``limit`` tokens, chunk vectors averaged per text."""
        chunks, owner = plan_chunks(texts, self.chunk_budget(limit), self)
        if len(chunks) == len(texts):  # nothing was split: no pooling needed
            return self._encode(texts, limit)
        return mean_by_owner(self._encode(chunks, limit), owner, len(texts))

    # -- identity ------------------------------------------------------------------------------
    def _vector_options(self) -> dict[str, Any]:
        """Options that change the vectors (never batch size, token budget, device or progress display).

        ``autocast`` joins only when set, so the fingerprints of float32 runs stay what they were.
        """
        options = {
            "pooling": self.pooling,
            "dtype": self.dtype_name,
            "max_length": self.max_length,
            "prompt": self.prompt,
        }
        if self.autocast is not None:
            options["autocast"] = self.autocast
        return options

    def _autocast(self) -> Any:
        """Context for a forward pass: ``torch.autocast`` when the option is set (``runtime.autocast_context``).

        Loads the model first when autocast is on: the autocast device type must be the one the model
        runs on (a CUDA model under a CPU autocast would silently run in float32).
        """
        if self.autocast is not None:
            self._ensure_loaded()
        return autocast_context(self.__dict__.get("_device") or "cpu", self.autocast)

    def _token_counts(self, texts: Sequence[str], max_length: int) -> list[int] | None:
        """Tokens each text takes in a forward pass (special tokens included, cut at ``max_length``),
        when a token budget is set; else None."""
        if self.batch_tokens is None:
            return None
        extra = self.special_token_budget()
        return [min(max_length, n + extra) for n in self.count_tokens(texts)]

    def identity(self) -> dict[str, Any]:
        """The evidence behind :meth:`fingerprint`: model name/path, revision, content hashes and options.

        Computed from the model's files (memoised hashes), without loading the model.
        """
        if self.__dict__.get("_identity") is None:
            evidence = folder_evidence(self.resolved.path)
            self._identity = {
                "scheme": FINGERPRINT_SCHEME,
                "family": self.family,
                "model": self.resolved.model_id,
                "revision": self.resolved.revision,
                "source": self.resolved.source,
                "config_hash": evidence["config_hash"],
                "tokenizer_hash": evidence["tokenizer_hash"],
                "weights_hash": evidence["weights_hash"],
                "modules_hash": evidence["modules_hash"],
                "weight_files": evidence["weight_files"],
                "options": self._vector_options(),
                "plugin_version": _version("steb-models-neural"),
            }
        return dict(self._identity)  # type: ignore[arg-type]

    def fingerprint(self) -> str:
        """Cache identity: SHA-256 of :meth:`identity` (what changes the vectors, never the device)."""
        payload = json.dumps(self.identity(), sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

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
            "autocast": self.autocast,
            "max_length": self.max_length,
            "batch_size": self.batch_size,
            "batch_tokens": self.batch_tokens,
            "prompt": self.prompt,
            "identity": self.identity(),
            "torch": _version("torch"),
            "transformers": _version("transformers"),
            "sentence_transformers": _version("sentence-transformers"),
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, model={self.resolved.model_id!r}, device={self.device_name})"
