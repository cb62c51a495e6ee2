"""Length-sorted batching: one padded length per batch instead of the longest text's length everywhere.

Sorting all texts of a call by length (not just within a batch) is what makes dynamic padding pay off:
a batch then holds texts of about the same length, so little compute is spent on padding. The order is
restored by writing each batch's rows to their original positions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from steb_core import report_encoded

__all__ = ["length_order", "sorted_batches", "token_batches", "encode_sorted"]


def length_order(texts: Sequence[str]) -> np.ndarray:
    """Indices of ``texts`` from longest to shortest (stable, so equal lengths keep their order)."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    return np.argsort(-lengths, kind="stable")


def sorted_batches(texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
    """Index arrays of successive batches in longest-first order (longest first: memory errors surface at once)."""
    order = length_order(texts)
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def token_batches(tokens: Sequence[int], batch_size: int, batch_tokens: int) -> Iterator[np.ndarray]:
    """Index arrays of batches cut by a token budget: padded size (texts x longest) <= ``batch_tokens``.

    Texts go longest first by token count (stable: equal counts keep their order), so a batch's first
    text is its longest and the padded size of a batch is its length times its first text's tokens.
    A batch also holds at most ``batch_size`` texts; a text longer than the budget goes alone (it
    cannot be split here: the long-text protocol already cut what it cuts). Deterministic in its
    inputs, so the same texts give the same batches, hence the same vectors, wherever they run.
    """
    if batch_tokens < 1:
        raise ValueError(f"batch_tokens must be at least 1, not {batch_tokens}")
    counts = np.maximum(np.asarray(tokens, dtype=np.int64).reshape(-1), 1)
    order = np.argsort(-counts, kind="stable")
    start, n = 0, len(order)
    while start < n:
        longest = int(counts[order[start]])
        size = max(1, min(batch_size, batch_tokens // longest, n - start))
        yield order[start : start + size]
        start += size


def encode_sorted(
    texts: Sequence[str],
    batch_size: int,
    embed_batch: Callable[[list[str]], np.ndarray],
    *,
    tokens: Sequence[int] | None = None,
    batch_tokens: int | None = None,
) -> np.ndarray:
    """Run ``embed_batch`` over length-sorted batches and return rows in the original order of ``texts``.

    With ``batch_tokens`` (and each text's ``tokens``) the batches follow :func:`token_batches`.
    """
    n = len(texts)
    if n == 0:
        raise ValueError("nothing to encode")
    out: np.ndarray | None = None
    if batch_tokens is not None:
        if tokens is None or len(tokens) != n:
            raise ValueError("a token budget needs the token count of every text")
        batches: Iterator[np.ndarray] = token_batches(tokens, batch_size, batch_tokens)
    else:
        batches = sorted_batches(texts, batch_size)
    for index in batches:
        vectors = np.asarray(embed_batch([texts[i] for i in index]), dtype=np.float32)
        if out is None:
            out = np.empty((n, vectors.shape[1]), dtype=np.float32)
        out[index] = vectors
        report_encoded(len(index))  # the run's progress bar moves per batch, not per call of the runner
    assert out is not None
    return out
