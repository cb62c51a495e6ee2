"""sentence-transformers models (style and semantic embedders) with the model's own pooling.

``SentenceTransformer.encode`` already sorts a call's texts by length and pads per batch, so this
wrapper's job is to hand it *all* texts (or chunks) of a call at once, to load strictly offline, to
apply the run's token limit, and to report identity and settings.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import numpy as np

from .base import TokenizerEncoder
from .errors import EncoderOptionError
from .loading import ResolvedModel, resolve_model
from .runtime import parse_bool
from .transformer import choose_max_length

__all__ = ["SentenceTransformerEncoder"]


class SentenceTransformerEncoder(TokenizerEncoder):
    """A sentence-transformers model by hub id or folder; ``prompt`` is prepended (E5's ``"query: "``)."""

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
        resolved: ResolvedModel | None = None,
    ) -> None:
        from sentence_transformers import SentenceTransformer

        trust = parse_bool(trust_remote_code, "trust_remote_code")
        if resolved is None:
            if model is None:
                raise EncoderOptionError("sentence-transformers needs model=HUB_ID or model=/path/to/folder")
            resolved = resolve_model(model, revision)
        torch_dtype = self._setup(
            resolved=resolved, family="sentence-transformers", name=name or f"sentence-transformers:{model}",
            batch_size=batch_size, device=device, dtype=dtype, trust=trust,
        )
        self.prompt = prompt or ""
        self.normalize = parse_bool(normalize, "normalize")
        self.model = SentenceTransformer(
            str(resolved.path),
            device=str(self._device),
            local_files_only=True,
            trust_remote_code=trust,
            model_kwargs={"dtype": torch_dtype},
        )
        self.tokenizer = self.model.tokenizer
        # sentence-transformers' own limit (max_seq_length) is the model's; a smaller max_length tightens it
        self.max_length = choose_max_length(max_length, self.model.max_seq_length, resolved.model_id)
        self.model.max_seq_length = self.max_length
        if self.normalize:
            self.pooling = "model+l2"

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
        with self._limited(max_length):
            vectors = self.model.encode(
                texts,
                batch_size=self.batch_size,
                prompt=self.prompt or None,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=self.normalize,
            )
        return np.asarray(vectors, dtype=np.float32)
