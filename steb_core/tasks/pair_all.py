"""All-to-all pair classification: every unordered pair of texts, positive when the labels match.

With vectors, the upper triangle of the cosine matrix is produced block by block (rows ``r0:r1``
against columns ``r0:``), so neither an n x n matrix nor Python pair lists are built: 3,000 texts
give 4.5 M scores in about a second. With a similarity-only encoder (or one with its own
similarity), the same pairs are enumerated as index arrays and scored in batches through
``ctx.similarity``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from ..context import TaskContext
from ..encoders import l2_normalise
from ..specs import TaskSpec
from ._common import SIMILARITY_BATCH, binary_ranking_metrics, encode_labels, uses_cosine

__all__ = ["run_pair_all", "upper_triangle_cosines", "SPEC"]

#: rows per block: a block holds at most ROW_BLOCK x n float32 scores.
ROW_BLOCK = 512


def _upper_triangle(n: int, block: Callable[[int, int], np.ndarray], dtype: Any, row_block: int) -> np.ndarray:
    """Entries (i, j), i < j, in row-major order (as ``np.triu_indices(n, 1)``) of a matrix given by blocks.

    ``block(r0, r1)`` returns rows ``r0:r1`` against columns ``r0:``; only its strict upper part is kept,
    so memory stays at ``row_block x n`` besides the output.
    """
    out = np.empty(n * (n - 1) // 2, dtype=dtype)
    pos = 0
    for r0 in range(0, n, row_block):
        r1 = min(n, r0 + row_block)
        values = block(r0, r1)
        kept = values[np.triu(np.ones(values.shape, dtype=bool), 1)]
        out[pos : pos + len(kept)] = kept
        pos += len(kept)
    return out


def upper_triangle_cosines(vectors: np.ndarray, row_block: int = ROW_BLOCK) -> np.ndarray:
    """Cosines of all pairs (i, j), i < j, in row-major order."""
    unit = l2_normalise(np.asarray(vectors, dtype=np.float32))
    return _upper_triangle(len(unit), lambda r0, r1: unit[r0:r1] @ unit[r0:].T, np.float32, row_block)


def upper_triangle_same(codes: np.ndarray, row_block: int = ROW_BLOCK) -> np.ndarray:
    """Whether the two members of each pair (i < j, row-major) share a label."""
    return _upper_triangle(len(codes), lambda r0, r1: codes[r0:r1, None] == codes[None, r0:], bool, row_block)


def _index_pair_batches(n: int, batch: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Index arrays (i, j), i < j, in row-major order, about ``batch`` pairs at a time."""
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    size = 0
    for i in range(n - 1):
        j = np.arange(i + 1, n)
        rows.append(np.full(len(j), i))
        cols.append(j)
        size += len(j)
        if size >= batch:
            yield np.concatenate(rows), np.concatenate(cols)
            rows, cols, size = [], [], 0
    if size:
        yield np.concatenate(rows), np.concatenate(cols)


def _similarity_scores(ctx: TaskContext, texts: list[str]) -> np.ndarray:
    n = len(texts)
    out = np.empty(n * (n - 1) // 2, dtype=np.float64)
    pos = 0
    for ii, jj in _index_pair_batches(n, SIMILARITY_BATCH):
        scores = ctx.similarity([texts[i] for i in ii], [texts[j] for j in jj])
        out[pos : pos + len(ii)] = np.asarray(scores, dtype=np.float64).reshape(-1)
        pos += len(ii)
    return out


def run_pair_all(ctx: TaskContext) -> dict[str, Any]:
    records = ctx.data
    texts = [r.text for r in records]
    codes, classes = encode_labels([r.label for r in records])
    if uses_cosine(ctx):
        scores = upper_triangle_cosines(ctx.embed(texts))
    else:
        scores = _similarity_scores(ctx, texts)
    same = upper_triangle_same(codes)
    metrics: dict[str, Any] = binary_ranking_metrics(scores, same, what="label")
    metrics.update(n_texts=len(records), n_pairs=int(len(same)), n_positive_pairs=int(np.count_nonzero(same)))
    return metrics


SPEC = TaskSpec(
    name="pair_all",
    description="All-to-all pair classification: every pair of texts, positive = same label; AUROC of the similarity.",
    shape="labelled_texts",
    main_metric="auroc",
    run=run_pair_all,
    needs_vectors=False,
)
