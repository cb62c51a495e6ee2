"""sentence-transformers models (style and semantic embedders) with the model's own pooling.

``SentenceTransformer.encode`` already sorts a call's texts by length and pads per batch, so this
wrapper's job is to hand it *all* texts (or chunks) of a call at once, to load strictly offline and only
when first used, to apply the run's token limit, and to report identity and settings.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .base import TokenizerEncoder, choose_max_length
from .batching import encode_sorted
from .errors import EncoderOptionError
from .identity import sentence_transformer_limit_from_files
from .loading import ResolvedModel, resolve_model
from .runtime import parse_bool, parse_int

__all__ = ["SentenceTransformerEncoder"]


class SentenceTransformerEncoder(TokenizerEncoder):
    """A sentence-transformers model by hub id or folder; ``prompt`` is prepended (E5's ``"query: "``).

    ``truncate_dim`` keeps the first N dimensions (Matryoshka models); ``task`` is passed to ``encode``
    for models with task adapters (Jina v3). Both change the vectors, so both are part of the identity.
    """

    pooling = "model"

    def __init__(
        self,
        model: str | None = None,
        *,
        name: str | None = None,
        revision: str | None = None,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int | str = 32,
        max_length: int | str | None = None,
        trust_remote_code: bool | str = False,
        prompt: str = "",
        normalize: bool | str = False,
        truncate_dim: int | str | None = None,
        task: str | None = None,
        resolved: ResolvedModel | None = None,
        autocast: str | None = None,
        batch_tokens: int | str | None = None,
    ) -> None:
        trust = parse_bool(trust_remote_code, "trust_remote_code")
        if resolved is None:
            if model is None:
                raise EncoderOptionError("sentence-transformers needs model=HUB_ID or model=/path/to/folder")
            resolved = resolve_model(model, revision)
        self._setup(
            resolved=resolved,
            family="sentence-transformers",
            name=name or f"sentence-transformers:{model}",
            batch_size=batch_size,
            device=device,
            dtype=dtype,
            trust=trust,
            autocast=autocast,
            batch_tokens=batch_tokens,
        )
        self.prompt = prompt or ""
        self.normalize = parse_bool(normalize, "normalize")
        self.truncate_dim = parse_int(truncate_dim, "truncate_dim") if truncate_dim not in (None, "") else None
        self.task = task or None
        # sentence-transformers' own limit (max_seq_length), read from the files; a smaller max_length tightens it
        self.max_length = choose_max_length(
            max_length, sentence_transformer_limit_from_files(resolved.path), resolved.model_id
        )
        if self.normalize:
            self.pooling = "model+l2"

    def _load(self, torch_dtype: Any) -> None:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(
            str(self.resolved.path),
            device=str(self._device),
            local_files_only=True,
            trust_remote_code=self._trust,
            truncate_dim=self.truncate_dim,
            model_kwargs={"dtype": torch_dtype},
        )
        self._check_loaded_limit(model.max_seq_length)
        model.max_seq_length = self.max_length
        self.tokenizer = model.tokenizer
        self.model = model

    def _vector_options(self) -> dict[str, Any]:
        return {
            **super()._vector_options(),
            "normalize": self.normalize,
            "truncate_dim": self.truncate_dim,
            "task": self.task,
        }

    @contextmanager
    def _limited(self, max_length: int) -> Iterator[None]:
        """Temporarily tighten the model's truncation limit (a protocol may ask for less than the model takes)."""
        saved = self.model.max_seq_length
        self.model.max_seq_length = max_length
        try:
            yield
        finally:
            self.model.max_seq_length = saved

    def _encode(self, texts: list[str], max_length: int) -> np.ndarray:
        if not texts:
            raise ValueError("nothing to encode")
        extra = {"task": self.task} if self.task else {}

        def run(batch: list[str], batch_size: int) -> np.ndarray:
            vectors = self.model.encode(
                batch,
                batch_size=batch_size,
                prompt=self.prompt or None,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=self.normalize,
                **extra,
            )
            return np.asarray(vectors, dtype=np.float32)

        with self._limited(max_length), self._autocast():
            if self.batch_tokens is None:  # sentence-transformers sorts and batches the call itself
                return run(texts, self.batch_size)
            # token budget: our batches (prompt tokens included), one encode call each
            tokens = self._token_counts(texts, max_length)
            return encode_sorted(
                texts,
                self.batch_size,
                lambda batch: run(batch, len(batch)),
                tokens=tokens,
                batch_tokens=self.batch_tokens,
            )

    def info(self) -> dict[str, Any]:
        return {**super().info(), "normalize": self.normalize, "truncate_dim": self.truncate_dim, "task": self.task}
