"""All-to-all pair classification: every unordered pair of texts, positive when the labels match.

Scores (option ``pair_all.scores``):

* ``reference`` (default): the STEB authors' reference code, github.com/rrivera1849/STEB
  ``steb/tasks/all_to_all_pair_classification.py`` (index file 62020154535, the ``score_mode`` version)
  ``_pair_scores_matrix`` and ``steb/metrics.py`` @4b43dda3 ``calculate_pair_classification_metrics``:
  every pair ``i < j`` of the texts in record order scored by scikit-learn's ``cosine_similarity``
  (float32 vectors give float32 scores) or, for an encoder declaring ``pair_score="neg_l1"`` (the
  reference's LFTK ``score_mode="abs_diff"``), by ``-sum |e_i - e_j|``; AUROC with ties = equal scores,
  as ``roc_auc_score``; from the same scores ``eer`` and ``auc@0.01`` ... ``auc@0.50``, the reference's
  other keys (:mod:`.roc`). Why float32: on eWAVE with function words the AUROC of the float32 scores and
  of exact cosines differ by 4e-6, so only the same float32 scores give the reference's figure. Those
  scores' last bits depend on the BLAS kernel and thread count (about 1e-7 of AUROC), so the float32
  products are computed as the reference machine's OpenBLAS did (Haswell kernels, two threads; emulated
  with elementwise operations, the same on every CPU: :func:`._reference_products.ssyrk_haswell`).
  The scores are held in memory: above ``EXACT_PAIRS_LIMIT`` pairs the grid rule below is used and
  ``scores`` says so (that rule keeps no scores, so ``eer`` and ``auc@f`` are not computed there and
  ``eer_and_partial_aucs`` says so). They are computed on the CPU even when the encoder runs on a GPU, so the figure
  is the same.
* ``blas``: the reference rule with this CPU's BLAS (scikit-learn's own call), for checking.
* ``grid``: steb's earlier rule, below.

With vectors, the upper triangle of the cosine matrix is produced block by block in float64 (rows
``r0:r1`` against columns ``r0 + 1:``) and each block is counted straight into a
:class:`~._common.RankCounts` (positives and negatives per tie key), from which AUROC and AP are
exact. No score array is kept: memory is one block (about ``BLOCK_CELLS`` scores) plus the 32 MiB of
counts, whatever the number of texts (issue 20 §7: 50k texts are 1.25 G pairs, ~40 GB as arrays).
Sparse vectors (TF-IDF) stay sparse: the block products are sparse row products. Dense vectors
of an encoder on a GPU (or with option ``tasks.device``, :mod:`._device`) are counted there in torch,
in float64 with the same keys (:func:`._torch_kernels.all_pair_counts_torch`).

With a similarity-only encoder (or one with its own similarity), the same pairs are enumerated as
index arrays and scored in batches through ``ctx.similarity``; those scores are held in memory
(their scale is unknown until all are seen), which is the encoder's cost anyway.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._context import TaskContext
from .._errors import DataValidationError
from .._specs import TaskSpec
from ..reference_tree.task_export import PAIR_ALL_EXPORT
from ._common import (
    SIMILARITY_BATCH,
    RankCounts,
    binary_ranking_metrics,
    encode_labels,
    exact_ranking_metrics,
    pair_scores_mode,
    reference_all_pair_scores,
    unit_rows,
    uses_cosine,
)
from ._device import kernel_device
from ._threads import blas_limits
from .roc import GRID_ROC_NOTE, ROC_NOTE

__all__ = ["run_pair_all", "all_pair_counts", "upper_triangle_same", "SPEC", "BLOCK_CELLS", "EXACT_PAIRS_LIMIT"]

#: scores per block (float64 scores, their keys and labels: ~20 bytes each, so ~80 MiB a block)
BLOCK_CELLS = 2**22
#: most pairs scored by the ``reference`` rule (scores and labels in memory: ~5 bytes a pair, 320 MiB)
EXACT_PAIRS_LIMIT = 2**26


def all_pair_counts(vectors: Any, codes: np.ndarray, *, block_cells: int = BLOCK_CELLS) -> RankCounts:
    """Per tie key, how many same-label and different-label pairs (i < j) have that cosine.

    ``vectors`` is a dense array or a scipy sparse matrix; cosines are float64 (tie rule in
    :mod:`._common`).
    """
    unit = unit_rows(vectors)
    sparse = sp.issparse(unit)
    n = unit.shape[0]
    unit_t = unit.T.tocsc() if sparse else np.ascontiguousarray(unit.T)
    counts = RankCounts(1.0)
    r0 = 0
    while r0 < n - 1:
        rows = max(1, min(n - r0, block_cells // max(1, n - r0)))
        r1 = r0 + rows
        block = unit[r0:r1] @ unit_t[:, r0 + 1 :]  # row i (global r0 + i) against columns r0+1 .. n-1
        if sparse:
            block = block.toarray()
        same = codes[r0:r1, None] == codes[None, r0 + 1 :]
        # keep j > i: in block coordinates column c is j = r0 + 1 + c, so keep c >= i
        if rows > 1:
            keep = np.arange(n - r0 - 1)[None, :] >= np.arange(rows)[:, None]
            counts.add(block[keep], same[keep])
        else:
            counts.add(block, same)
        r0 = r1
    return counts


def upper_triangle_same(codes: np.ndarray) -> np.ndarray:
    """Whether the two members of each pair (i < j, row-major as ``np.triu_indices``) share a label."""
    n = len(codes)
    return np.concatenate([codes[i] == codes[i + 1 :] for i in range(n - 1)]) if n > 1 else np.zeros(0, bool)


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
    metrics: dict[str, Any] = {}
    records = ctx.data
    texts = [r.text for r in records]
    codes, classes = encode_labels([r.label for r in records])
    n = len(records)
    n_pairs = n * (n - 1) // 2
    n_positive = int(sum(c * (c - 1) // 2 for c in np.bincount(codes).tolist()))
    mode = pair_scores_mode(ctx, "pair_all")
    pair_score = ctx.scoring.get("pair_score", "cosine")
    scorable = ctx.has_vectors and (pair_score == "neg_l1" or uses_cosine(ctx))
    if scorable and mode in ("reference", "blas") and n_pairs <= EXACT_PAIRS_LIMIT:
        vectors = ctx.embed(texts)
        with blas_limits(ctx, n * n * vectors.shape[1] // 2):
            scores = reference_all_pair_scores(vectors, pair_score, products=mode)
        metrics.update(exact_ranking_metrics(scores, upper_triangle_same(codes), what="label", roc=True))
        metrics.update(scores=f"reference ({pair_score}, {scores.dtype}, ties = equal scores)", products=mode)
    elif uses_cosine(ctx):
        if pair_score != "cosine":
            raise DataValidationError(
                f"the encoder declares pair_score={pair_score!r}, which the grid rule cannot score",
                field="pair_all.scores",
                expected="reference (at most EXACT_PAIRS_LIMIT pairs)",
            )
        vectors = ctx.embed(texts)
        device = None if sp.issparse(vectors) else kernel_device(ctx)
        if device is not None:
            from ._torch_kernels import all_pair_counts_torch

            counts = all_pair_counts_torch(np.asarray(vectors), codes, device)
        else:
            with blas_limits(ctx, n * n * vectors.shape[1] // 2):
                counts = all_pair_counts(vectors, codes)
        metrics.update(counts.metrics(what="label"))
        metrics.update(scores="grid (float64 cosine, ties within 2**-20)", **{ROC_NOTE: GRID_ROC_NOTE})
    else:
        scores = _similarity_scores(ctx, texts)
        metrics.update(binary_ranking_metrics(scores, upper_triangle_same(codes), what="label"))
        metrics.update(
            scores="grid (the encoder's similarity, ties within 2**-20 of its scale)", **{ROC_NOTE: GRID_ROC_NOTE}
        )
    metrics.update(n_texts=n, n_pairs=n_pairs, n_positive_pairs=n_positive)
    return metrics


SPEC = TaskSpec(
    name="pair_all",
    description="All-to-all pair classification: every pair of texts, positive = same label; AUROC of the similarity.",
    shape="labelled_texts",
    main_metric="auroc",
    run=run_pair_all,
    needs_vectors=False,
    accepts_sparse=True,
    # 2: issue 37, the STEB reference's rules (see the module docstring); 3: the reference machine's float32
    # products, emulated (``pair_all.scores=reference``, :mod:`._reference_products`)
    version="3",
    options=("scores",),
    default_for_shape=True,
    warm_imports=("scipy.interpolate", "scipy.optimize"),  # the ROC curve's EER (roc.py)
    tree_export=PAIR_ALL_EXPORT,
)
