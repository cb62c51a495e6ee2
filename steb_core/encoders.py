"""The encoder protocol and helpers to use any ``encode``-able object as a steb encoder.

An encoder needs only ``encode(texts: list[str]) -> array (n, d)``. Optional members, used when present:

- ``name: str`` and ``fingerprint() -> str``: identity for the embedding cache (config + weights revision);
- ``max_length: int | None``: token limit; long texts are then handled by the run's long-text protocol;
- ``count_tokens(texts) -> list[int]`` and ``truncate(texts, max_tokens) -> list[str]``: the encoder's own
  tokenizer, used by chunk-and-pool and truncation (whitespace tokens otherwise);
- ``encode_with_protocol(texts, protocol) -> array``: the encoder implements the long-text protocol itself;
- ``similarity(texts_a, texts_b) -> array (n,)``: a pairwise similarity (similarity-only methods, or an
  encoder whose similarity is not the cosine);
- ``encode_collections(collections: list[list[str]]) -> array``: multi-text (episode) encoders like LUAR;
- ``info() -> dict``: extra facts recorded in results (model revision, dtype, device).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

__all__ = [
    "Encoder",
    "SimilarityEncoder",
    "encoder_name",
    "encoder_fingerprint",
    "encoder_info",
    "has_vectors",
    "has_similarity",
    "to_float32_matrix",
    "l2_normalise",
    "cosine_rows",
    "profile_cosine",
]


@runtime_checkable
class Encoder(Protocol):
    def encode(self, texts: list[str]) -> Any: ...


@runtime_checkable
class SimilarityEncoder(Protocol):
    def similarity(self, texts_a: list[str], texts_b: list[str]) -> Any: ...


def encoder_name(encoder: Any) -> str:
    name = getattr(encoder, "name", None)
    if isinstance(name, str) and name:
        return name
    # sentence-transformers keeps the model id in model_card_data / _model_config; fall back to class name
    card = getattr(encoder, "model_card_data", None)
    base = getattr(card, "base_model", None) if card is not None else None
    if isinstance(base, str) and base:
        return base
    return type(encoder).__name__


def own_fingerprint(encoder: Any) -> str | None:
    """The encoder's own ``fingerprint()`` (method or string attribute), or None when it has none."""
    fp = getattr(encoder, "fingerprint", None)
    if callable(fp):
        return str(fp())
    return fp if isinstance(fp, str) else None


def encoder_fingerprint(encoder: Any) -> str:
    """A stable identity for cache keys: the encoder's own ``fingerprint()`` or name + class + info."""
    own = own_fingerprint(encoder)
    if own is not None:
        return own
    payload = {
        "name": encoder_name(encoder),
        "class": f"{type(encoder).__module__}.{type(encoder).__qualname__}",
        "info": encoder_info(encoder),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def encoder_info(encoder: Any) -> dict[str, Any]:
    info = getattr(encoder, "info", None)
    if callable(info):
        try:
            value = info()
        except Exception:  # info is best-effort metadata
            return {}
        return dict(value) if isinstance(value, dict) else {}
    return {}


def has_vectors(encoder: Any) -> bool:
    """False for similarity-only methods (they may still have an ``encode`` that raises)."""
    if getattr(encoder, "similarity_only", False):
        return False
    return callable(getattr(encoder, "encode", None))


def has_similarity(encoder: Any) -> bool:
    return callable(getattr(encoder, "similarity", None)) and not _is_sentence_transformer(encoder)


def _is_sentence_transformer(encoder: Any) -> bool:
    # SentenceTransformer.similarity(a, b) takes *embeddings*, not texts: never call it with texts.
    return type(encoder).__name__ == "SentenceTransformer" or any(
        c.__name__ == "SentenceTransformer" for c in type(encoder).__mro__
    )


def to_float32_matrix(value: Any, n: int, *, who: str = "encoder") -> np.ndarray:
    """Coerce an encoder's output (numpy, torch, list) to a C-contiguous float32 (n, d) array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if hasattr(value, "toarray"):
        value = value.toarray()
    arr = np.asarray(value, dtype=np.float32)
    if arr.ndim == 1 and n == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] != n:
        raise ValueError(f"{who} returned an array of shape {arr.shape} for {n} texts; expected ({n}, d)")
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise ValueError(f"{who} returned NaN or infinite values (first at text {bad})")
    return np.ascontiguousarray(arr)


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero (their cosine with anything is 0)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of row i of ``a`` with row i of ``b`` (zero vectors give 0)."""
    return np.einsum("ij,ij->i", l2_normalise(a), l2_normalise(b))


def profile_cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine of two feature profiles under STEL's convention: both all-zero -> 1, exactly one -> 0."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    if na == 0 and nb == 0:
        return 1.0
    if na == 0 or nb == 0:
        return 0.0
    return float(va @ vb / (na * nb))
