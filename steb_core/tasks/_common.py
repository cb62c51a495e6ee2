"""Small helpers shared by the task types: text de-duplication, pairwise scores, ranking metrics.

Kept separate from the task modules so that each metric is written once and tested once against
scikit-learn (see ``tests/tasks``).

The tie rule every task here follows (scores snapped to a fixed grid, so ties do not depend on the CPU)
is :mod:`._ties`, with the exact rank counting built on it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._context import TaskContext
from .._errors import DataValidationError
from ._device import kernel_device
from ._reference_products import sdot_haswell, sdot_ranked, ssyrk_haswell, ssyrk_ranked
from ._ties import (  # the grid and rank counting live in _ties; imported here by the task modules
    N_KEYS,
    TIE_BITS,
    RankCounts,
    exact_ranking_metrics,
    tie_keys,
    tie_scale,
)

__all__ = [
    "unique_index",
    "encode_labels",
    "unit_rows",
    "inverse_norms",
    "row_cosines",
    "pair_similarities",
    "tie_scale",
    "tie_keys",
    "RankCounts",
    "binary_ranking_metrics",
    "plain",
    "option",
    "TIE_BITS",
    "exact_ranking_metrics",
    "reference_pair_scores",
    "reference_all_pair_scores",
    "pair_scores_mode",
    "PAIR_SCORES",
    "option_choice",
    "N_KEYS",
]

#: pairs handed to a similarity-only encoder per call: bounds memory and the size of text lists.
SIMILARITY_BATCH = 65_536
#: float64 cells gathered per batch of dense cosine pairs (two gathered arrays of this many cells).
GATHER_CELLS = 2**22


def unique_index(texts: Iterable[str]) -> tuple[list[str], np.ndarray]:
    """Distinct texts (first-seen order) and, per input text, its row in that list.

    Tasks embed each distinct text once even when it occurs in many records (pairs, groups).
    """
    rows: dict[str, int] = {}
    index = [rows.setdefault(t, len(rows)) for t in texts]
    return list(rows), np.asarray(index, dtype=np.int64)


def encode_labels(labels: Sequence[Hashable]) -> tuple[np.ndarray, list[Hashable]]:
    """Integer codes for class labels (codes follow first occurrence) and the list of classes."""
    classes: dict[Hashable, int] = {}
    codes = np.fromiter((classes.setdefault(lab, len(classes)) for lab in labels), dtype=np.int64, count=len(labels))
    return codes, list(classes)


def uses_cosine(ctx: TaskContext) -> bool:
    """True when scores are cosines of vectors we hold (no encoder-specific similarity to call)."""
    return ctx.has_vectors and ctx.similarity_fn is None


def unit_rows(matrix: Any) -> Any:
    """Rows scaled to unit length in float64; a ``scipy.sparse`` matrix stays sparse (CSR).

    Float64 so that cosines computed from the rows differ between CPUs only by ~1e-16, far below the
    tie grid (:mod:`._ties`). All-zero rows stay zero (their cosine with anything is 0).
    """
    if sp.issparse(matrix):
        m = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1), dtype=np.float64).reshape(-1))
        norms[norms == 0] = 1.0
        m.data /= np.repeat(norms, np.diff(m.indptr))
        return m
    m = np.asarray(matrix, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", m, m))[:, None]
    norms[norms == 0] = 1.0
    return m / norms


def inverse_norms(matrix: Any) -> np.ndarray:
    """1 / ||row|| in float64 (0 for all-zero rows), computed in row chunks: no float64 copy of X."""
    n = matrix.shape[0]
    out = np.empty(n, dtype=np.float64)
    step = SIMILARITY_BATCH if sp.issparse(matrix) else max(256, GATHER_CELLS // max(1, matrix.shape[1]))
    for start in range(0, n, step):
        chunk = matrix[start : start + step]
        if sp.issparse(chunk):
            chunk = sp.csr_matrix(chunk, dtype=np.float64)
            sq = np.asarray(chunk.multiply(chunk).sum(axis=1)).reshape(-1)
        else:
            chunk = np.asarray(chunk, dtype=np.float64)
            sq = np.einsum("ij,ij->i", chunk, chunk)
        out[start : start + step] = sq
    norms = np.sqrt(out)
    return np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)


def row_cosines(
    left: Any, inv_left: np.ndarray, ia: np.ndarray, right: Any, inv_right: np.ndarray, ib: np.ndarray
) -> np.ndarray:
    """Cosine of ``left[ia[k]]`` and ``right[ib[k]]`` for every k, in float64, in bounded batches.

    Rows are gathered a batch at a time and upcast to float64 there, so float32 (or sparse) inputs
    are never copied whole; ``inv_*`` are :func:`inverse_norms` of the two matrices.
    """
    out = np.empty(len(ia), dtype=np.float64)
    sparse = sp.issparse(left)
    step = SIMILARITY_BATCH if sparse else max(256, GATHER_CELLS // max(1, left.shape[1]))
    for start in range(0, len(ia), step):
        stop = min(start + step, len(ia))
        a, b = left[ia[start:stop]], right[ib[start:stop]]
        if sparse:
            dots = np.asarray(
                sp.csr_matrix(a, dtype=np.float64).multiply(sp.csr_matrix(b, dtype=np.float64)).sum(axis=1)
            ).reshape(-1)
        else:
            dots = np.einsum("ij,ij->i", np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
        out[start:stop] = dots * inv_left[ia[start:stop]] * inv_right[ib[start:stop]]
    return out


def pair_similarities(ctx: TaskContext, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
    """Score of each aligned pair (float64): cosine of the vectors, or the encoder's own similarity.

    With vectors, every distinct text is embedded once and the cosines are computed row-wise in
    float64 (sparse vectors stay sparse; dense ones on the task device when there is one, ``_device``). Without (or with
    an encoder-defined similarity),
    ``ctx.similarity`` is called in batches.
    """
    if len(texts_a) != len(texts_b):
        raise ValueError(f"pair_similarities needs aligned lists, got {len(texts_a)} and {len(texts_b)} texts")
    if uses_cosine(ctx):
        uniques, index = unique_index([*texts_a, *texts_b])
        vectors = ctx.embed(uniques)
        n = len(texts_a)
        if sp.issparse(vectors):
            vectors = sp.csr_matrix(vectors)
        else:
            device = kernel_device(ctx)
            if device is not None:
                from ._torch_kernels import row_cosines_torch  # torch only when asked for

                return row_cosines_torch(np.asarray(vectors), index[:n], index[n:], device)
        inv = inverse_norms(vectors)
        return row_cosines(vectors, inv, index[:n], vectors, inv, index[n:])
    out = np.empty(len(texts_a), dtype=np.float64)
    for start in range(0, len(texts_a), SIMILARITY_BATCH):
        stop = min(start + SIMILARITY_BATCH, len(texts_a))
        out[start:stop] = np.asarray(
            ctx.similarity(texts_a[start:stop], texts_b[start:stop]), dtype=np.float64
        ).reshape(-1)
    return out


#: pair-score rules of the pair tasks: ``reference`` -- the STEB reference's scores (cosine as
#: scikit-learn's ``cosine_similarity`` computes it: float32 vectors give float32 scores; -L1 in float64)
#: with ties = equal scores, the float32 cosines' products as the reference machine's OpenBLAS Haswell
#: kernels computed them (emulated, the same on every CPU: :mod:`._reference_products`); ``blas`` -- the
#: same rule with this CPU's BLAS products (the reference's own calls; their last bits depend on the
#: kernel); ``grid`` -- steb's earlier float64 cosines on the tie grid (module docstring)
PAIR_SCORES = ("reference", "blas", "grid")
#: the whole cosine matrix in one ``cosine_similarity(X, X)`` call (the reference's) up to this many cells
WHOLE_MATRIX_CELLS = 2**26


def option_choice(ctx: TaskContext, task: str, name: str, choices: Sequence[str], default: str) -> str:
    """``<task>.<name>`` lower-cased, one of ``choices`` (else an error naming the option and the choices)."""
    value = str(option(ctx, task, name, default)).strip().lower()
    if value not in choices:
        raise DataValidationError(
            f"option {task}.{name}={value!r}", field=f"{task}.{name}", expected=" or ".join(choices)
        )
    return value


def pair_scores_mode(ctx: TaskContext, task: str) -> str:
    """``<task>.scores`` (``reference`` by default, see :data:`PAIR_SCORES`); similarity-only encoders use the grid."""
    return option_choice(ctx, task, "scores", PAIR_SCORES, "reference")


def _float32_unit_rows(matrix: Any) -> Any:
    """Rows scaled to unit length as scikit-learn's ``normalize`` does, in the vectors' own dtype (zero rows stay)."""
    from sklearn.preprocessing import normalize

    return normalize(matrix, norm="l2", copy=True)


def _emulated(unit: Any, products: str) -> bool:
    """Whether the reference machine's float32 products are emulated for these unit rows (dense float32 only)."""
    return products == "reference" and not sp.issparse(unit) and np.asarray(unit).dtype == np.float32


def reference_pair_scores(
    vectors: Any,
    ia: np.ndarray,
    ib: np.ndarray,
    pair_score: str,
    products: str = "reference",
    *,
    prefilter: bool = True,
) -> np.ndarray:
    """The reference's score of the pairs ``(vectors[ia[k]], vectors[ib[k]])``, higher = more alike.

    ``cosine``: as ``sklearn.metrics.pairwise.cosine_similarity`` of the two rows (rows normalised by
    scikit-learn in their dtype, float32 for steb's vectors, then one ``(1, d) @ (d, 1)`` product, which
    numpy hands to ``cblas_sdot``): the STEB reference's ``_pair_score``
    (``steb/tasks/pre_defined_pair_classification.py`` @63f649ce). ``products="reference"``: that sdot as
    the reference machine's Haswell kernel computed it (:func:`._reference_products.sdot_haswell`, the
    same on every CPU); ``"blas"``: this CPU's sdot; other dtypes and sparse rows: row-wise sums
    (einsum / sparse multiply). ``neg_l1``: minus the sum of absolute differences, in float64 (its
    ``score_mode="abs_diff"``). ``prefilter`` (the tasks' way): only the scores whose rank among the others
    this CPU's products cannot decide are emulated (:func:`._reference_products.sdot_ranked`): every score
    compares with every other as the reference's do (so the figures are the reference's), but a decided
    score is this CPU's cosine rounded to float32, within a proven bound of the reference's, not its bits.
    """
    out = np.empty(len(ia), dtype=np.float64)
    if pair_score == "neg_l1":
        dense = vectors.toarray() if sp.issparse(vectors) else np.asarray(vectors)
        step = max(1, GATHER_CELLS // max(1, dense.shape[1]))
        for start in range(0, len(ia), step):
            a = dense[ia[start : start + step]].astype(np.float64)
            b = dense[ib[start : start + step]].astype(np.float64)
            out[start : start + step] = -np.abs(a - b).sum(axis=1)
        return out
    unit = _float32_unit_rows(sp.csr_matrix(vectors) if sp.issparse(vectors) else np.asarray(vectors))
    step = SIMILARITY_BATCH if sp.issparse(unit) else max(256, GATHER_CELLS // max(1, unit.shape[1]))
    emulated = _emulated(unit, products)
    if emulated and prefilter:
        out[:] = sdot_ranked(unit, ia, ib)[0]
        return out
    blas = products == "blas" and not sp.issparse(unit)
    for start in range(0, len(ia), step):
        a, b = unit[ia[start : start + step]], unit[ib[start : start + step]]
        if sp.issparse(unit):
            dots = np.asarray(a.multiply(b).sum(axis=1)).reshape(-1)
        elif emulated:
            dots = sdot_haswell(a, b)
        elif blas:  # the reference's call, one (1, d) @ (d, 1) product (cblas_sdot / ddot) per pair
            dots = np.array([(a[i : i + 1] @ b[i : i + 1].T)[0, 0] for i in range(len(a))], dtype=a.dtype)
        else:
            dots = np.einsum("ij,ij->i", a, b)
        out[start : start + step] = dots
    return out


def reference_all_pair_scores(
    vectors: Any,
    pair_score: str,
    *,
    products: str = "reference",
    block_cells: int = GATHER_CELLS,
    prefilter: bool = True,
) -> np.ndarray:
    """Scores of every pair ``i < j`` in row-major order (as ``np.triu_indices(n, 1)``), as the reference.

    ``cosine``: the reference's ``_pair_scores_matrix`` (index file 62020154535) calls
    ``sklearn.metrics.pairwise.cosine_similarity(X, X)``: rows normalised by scikit-learn in their dtype,
    then ``X @ X.T`` of one array, which numpy hands to ``cblas_ssyrk`` (float32 vectors give float32
    scores). ``products="reference"``: that ssyrk as the reference machine's OpenBLAS computed it (Haswell
    kernels, two threads: :func:`._reference_products.ssyrk_haswell`, the same on every CPU);
    ``"blas"`` (and float64 or sparse vectors): scikit-learn's call on this CPU (one call up to
    ``WHOLE_MATRIX_CELLS`` cells, else row blocks, whose gemm products may differ from syrk's in the
    last bits). ``neg_l1``: ``-sum |e_i - e_j|`` in float64 (the reference's LFTK ``score_mode``), summed
    by numpy over the last axis as the reference's ``np.sum(..., axis=2)``. The scores keep their dtype
    (float32 cosines stay float32, so their ties are the reference's). ``prefilter`` (the task's way):
    only the scores whose rank among the others this CPU's products cannot decide are emulated
    (:func:`._reference_products.ssyrk_ranked`): every score compares with every other as the
    reference's do, so every figure is the reference's, but a decided score is this CPU's cosine rounded
    to float32 (within a proven bound of the reference's), not its bits; ``prefilter=False`` emulates all.
    """
    n = vectors.shape[0]
    dense = None
    if pair_score != "neg_l1":
        unit = _float32_unit_rows(vectors)
        if _emulated(unit, products):
            return ssyrk_ranked(unit)[0] if prefilter else ssyrk_haswell(unit)
        if n * n <= WHOLE_MATRIX_CELLS:
            from sklearn.metrics.pairwise import cosine_similarity

            whole = cosine_similarity(vectors, vectors)
            whole = whole.toarray() if sp.issparse(whole) else np.asarray(whole)
            return whole[np.triu_indices(n, 1)]
    if pair_score == "neg_l1":
        dense = (vectors.toarray() if sp.issparse(vectors) else np.asarray(vectors)).astype(np.float64)
    pieces = []
    r0 = 0
    while r0 < n - 1:
        rows = max(1, min(n - r0 - 1, block_cells // max(1, (n - r0) * (vectors.shape[1] if dense is not None else 1))))
        r1 = r0 + rows
        if dense is not None:
            block = -np.abs(dense[r0:r1, None, :] - dense[None, r0 + 1 :, :]).sum(axis=2)
        else:
            from sklearn.metrics.pairwise import cosine_similarity

            block = cosine_similarity(vectors[r0:r1], vectors[r0 + 1 :])
        for i in range(rows):  # row r0 + i keeps the columns j > r0 + i
            pieces.append(block[i, i:])
        r0 = r1
    if not pieces:
        return np.zeros(0, dtype=np.float64)
    return np.concatenate(pieces)


def binary_ranking_metrics(
    scores: np.ndarray, positive: np.ndarray, *, what: str = "pairs", scale: float | None = None
) -> dict[str, float]:
    """AUROC and average precision of ``scores`` for the boolean labels ``positive``.

    Same definitions as scikit-learn's ``roc_auc_score`` (trapezoidal ROC over distinct thresholds, so
    tied scores count one half, i.e. the Mann-Whitney U statistic) and ``average_precision_score``
    (precision at each distinct threshold weighted by the recall gained there), applied to the
    snapped scores ``tie_keys(scores, scale)``: scores in one grid cell are ties (:mod:`._ties`).
    ``scale`` defaults to :func:`tie_scale` of the scores; cosines pass 1. Counting per key replaces a
    sort, so the cost is linear in the number of scores.
    """
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    positive = np.asarray(positive, dtype=bool).reshape(-1)
    if scores.shape != positive.shape:
        raise ValueError(f"{len(scores)} scores for {len(positive)} labels")
    if not np.isfinite(scores).all():
        raise ValueError("similarity scores contain NaN or infinite values")
    counts = RankCounts(tie_scale(scores) if scale is None else scale)
    counts.add(scores, positive)
    return counts.metrics(what=what)


def plain(value: Any) -> Any:
    """Numpy scalars and nested containers turned into JSON-ready Python floats, ints and dicts."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value


def option(ctx: TaskContext, task: str, name: str, default: Any) -> Any:
    """A run option for one task: ``options["<task>.<name>"]`` or ``options[<task>][<name>]``, else the dataset's
    task default (:meth:`TaskContext.task_default`), else ``default``."""
    return ctx.option(task, name, default)
