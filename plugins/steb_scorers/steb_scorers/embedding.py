"""Content preservation as the cosine between embeddings of output and source (or reference).

Works with any steb encoder, by registered name (``steb_core.get_encoder``) or as an object with
``encode(texts)``. Each distinct text is encoded once, in one batch, so scoring 10,000 pairs costs one
encoder call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from steb_core import Scorer, cosine_rows, encoder_name, get_encoder, to_float32_matrix

from .result import ScoreResult, check_aligned, comparison_texts

__all__ = ["EmbeddingCosineScorer", "resolve_encoder"]


def resolve_encoder(encoder: Any, options: Mapping[str, Any] | None = None) -> Any:
    """An encoder object from a registered name (built with ``options``) or the object itself."""
    if encoder is None:
        raise ValueError("this scorer needs an encoder: a registered steb encoder name or an object with encode(texts)")
    if isinstance(encoder, str):
        return get_encoder(encoder, **dict(options or {}))
    if not callable(getattr(encoder, "encode", None)):
        raise TypeError(f"encoder {encoder!r} has no encode(texts) method")
    return encoder


def encode_unique(encoder: Any, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings of the distinct texts and, for each input text, the row that holds its vector."""
    index: dict[str, int] = {}
    rows = np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.int64, count=len(texts))
    unique = list(index)
    vectors = (
        to_float32_matrix(encoder.encode(unique), len(unique), who=encoder_name(encoder))
        if unique
        else np.zeros((0, 1), np.float32)
    )
    return vectors, rows


class EmbeddingCosineScorer(Scorer):
    """Cosine of output and comparison-text embeddings; with several references the best one counts."""

    name = "embedding-cosine"

    def __init__(
        self, encoder: Any = None, against: str = "reference", encoder_options: Mapping[str, Any] | None = None
    ) -> None:
        self.encoder = resolve_encoder(encoder, encoder_options)
        self.against = against

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        flat = [t for refs in compare for t in refs]
        owner = np.repeat(np.arange(len(compare)), [len(refs) for refs in compare])
        vectors, rows = encode_unique(self.encoder, list(outputs) + flat)
        out_rows, cmp_rows = rows[: len(outputs)], rows[len(outputs) :]
        cos = cosine_rows(vectors[out_rows[owner]], vectors[cmp_rows]).astype(np.float64)
        scores = np.full(len(outputs), -np.inf)
        np.maximum.at(scores, owner, cos)
        return ScoreResult(
            self.name,
            scores,
            corpus=float(scores.mean()) if len(scores) else None,
            details={"against": self.against, "encoder": encoder_name(self.encoder)},
        )
