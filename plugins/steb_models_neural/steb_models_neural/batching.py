"""Length-sorted batching: one padded length per batch instead of the longest text's length everywhere.

Sorting all texts of a call by length (not just within a batch) is what makes dynamic padding pay off:
a batch then holds texts of about the same length, so little compute is spent on padding. The order is
restored by writing each batch's rows to their original positions.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

import numpy as np

__all__ = ["length_order", "sorted_batches", "encode_sorted"]


def length_order(texts: Sequence[str]) -> np.ndarray:
    """Indices of ``texts`` from longest to shortest (stable, so equal lengths keep their order)."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    return np.argsort(-lengths, kind="stable")


def sorted_batches(texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
    """Index arrays of successive batches in longest-first order (longest first: memory errors surface at once)."""
    order = length_order(texts)
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def encode_sorted(texts: Sequence[str], batch_size: int, embed_batch: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """Run ``embed_batch`` over length-sorted batches and return rows in the original order of ``texts``."""
    n = len(texts)
    if n == 0:
        raise ValueError("nothing to encode")
    out: np.ndarray | None = None
    for index in sorted_batches(texts, batch_size):
        vectors = np.asarray(embed_batch([texts[i] for i in index]), dtype=np.float32)
        if out is None:
            out = np.empty((n, vectors.shape[1]), dtype=np.float32)
        out[index] = vectors
    assert out is not None
    return out
