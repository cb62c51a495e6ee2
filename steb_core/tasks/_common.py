"""Small helpers shared by the task types: text de-duplication, pairwise scores, ranking metrics.

Kept separate from the task modules so that each metric is written once and tested once against
scikit-learn (see ``tests/tasks``).

Ties (issue 14 §2). Whether two scores tie must not depend on the CPU: BLAS kernels (OpenBLAS
Haswell vs SkylakeX) and summation orders change a computed cosine by an ulp or two, and a tie
broken one way or the other changes AUROC, AP and retrieval ranks. The rule used by every task here:

1. scores are computed in float64 (cosines from float32 vectors upcast to float64, so rounding
   differences between kernels are ~1e-16);
2. each score is snapped to a fixed grid, ``key = rint(score * 2**TIE_BITS / scale)`` with
   ``TIE_BITS = 20`` and ``scale`` a power of two bounding the scores (1 for cosines, else the
   smallest power of two >= max |score|): the grid step is 2**-20 ~ 9.5e-7 of the score range;
3. scores with equal keys are ties, and all ranking is done on the integer keys.

Multiplying by a power of two is exact and ``rint`` is exactly defined, so the keys of the same
float64 values are the same on every CPU, and two computations of one score that differ by a few
ulps (~1e-16) land in different cells only when the score lies within those ulps of a cell
boundary (probability ~1e-10 per score). The step is far below anything an embedding can express:
the vectors are float32 (about 7 significant digits), so cosines closer than 1e-6 are not
distinguishable by the representation anyway. The fixed, bounded key range (2**21 + 1 cells) is
also what lets AUROC and AP be counted exactly in constant memory (:class:`RankCounts`), so an
all-to-all task over 50k texts (1.25 G pairs) needs no score array at all.
"""

from __future__ import annotations

import math
from typing import Any, Hashable, Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from ..context import TaskContext
from ..errors import DataValidationError
from ._reference_products import sdot_haswell, ssyrk_haswell

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
]

#: pairs handed to a similarity-only encoder per call: bounds memory and the size of text lists.
SIMILARITY_BATCH = 65_536
#: float64 cells gathered per batch of dense cosine pairs (two gathered arrays of this many cells).
GATHER_CELLS = 2**22
#: scores are snapped to a grid of 2**-TIE_BITS of their scale before ties are decided (module docstring)
TIE_BITS = 20
#: number of grid cells in [-scale, scale]
N_KEYS = 2 ** (TIE_BITS + 1) + 1


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
    tie grid (module docstring). All-zero rows stay zero (their cosine with anything is 0).
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


def row_cosines(left: Any, inv_left: np.ndarray, ia: np.ndarray, right: Any, inv_right: np.ndarray, ib: np.ndarray) -> np.ndarray:
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
            dots = np.asarray(sp.csr_matrix(a, dtype=np.float64).multiply(sp.csr_matrix(b, dtype=np.float64)).sum(axis=1)).reshape(-1)
        else:
            dots = np.einsum("ij,ij->i", np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
        out[start:stop] = dots * inv_left[ia[start:stop]] * inv_right[ib[start:stop]]
    return out


def pair_similarities(ctx: TaskContext, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
    """Score of each aligned pair (float64): cosine of the vectors, or the encoder's own similarity.

    With vectors, every distinct text is embedded once and the cosines are computed row-wise in
    float64 (sparse vectors stay sparse; dense ones on the task device when there is one, ``_device``). Without (or with an encoder-defined similarity),
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
            from ._device import kernel_device  # noqa: PLC0415 - _device imports this module

            device = kernel_device(ctx)
            if device is not None:
                from ._torch_kernels import row_cosines_torch  # noqa: PLC0415 - torch only when asked for

                return row_cosines_torch(np.asarray(vectors), index[:n], index[n:], device)
        inv = inverse_norms(vectors)
        return row_cosines(vectors, inv, index[:n], vectors, inv, index[n:])
    out = np.empty(len(texts_a), dtype=np.float64)
    for start in range(0, len(texts_a), SIMILARITY_BATCH):
        stop = min(start + SIMILARITY_BATCH, len(texts_a))
        out[start:stop] = np.asarray(ctx.similarity(texts_a[start:stop], texts_b[start:stop]), dtype=np.float64).reshape(-1)
    return out


def tie_scale(scores: np.ndarray) -> float:
    """Smallest power of two >= max |score| (1.0 for all-zero scores): the grid's scale."""
    top = float(np.max(np.abs(scores))) if len(scores) else 0.0
    if top == 0.0:
        return 1.0
    mantissa, exponent = math.frexp(top)  # top = mantissa * 2**exponent, 0.5 <= mantissa < 1
    return math.ldexp(1.0, exponent - 1) if mantissa == 0.5 else math.ldexp(1.0, exponent)


def tie_keys(scores: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Integer grid keys of ``scores`` (float64): equal keys are ties (module docstring).

    ``scale`` must be a power of two so that the multiplication is exact.
    """
    mantissa, _ = math.frexp(scale)
    if mantissa != 0.5:
        raise ValueError(f"tie scale must be a power of two, got {scale!r}")
    return np.rint(np.asarray(scores, dtype=np.float64) * (2.0**TIE_BITS / scale)).astype(np.int64)


class RankCounts:
    """Exact AUROC / AP by counting positives and negatives per tie key, in constant memory.

    ``add`` can be called block by block (scores of any size, in any order); memory is two int64
    arrays of ``N_KEYS`` (2**21 + 1) cells = 32 MiB whatever the number of scores. Scores must lie in
    ``[-scale, scale]`` (cosines: scale 1; a few ulps beyond are clipped to the edge cell).
    """

    def __init__(self, scale: float = 1.0):
        self.scale = float(scale)
        self.pos = np.zeros(N_KEYS, dtype=np.int64)
        self.neg = np.zeros(N_KEYS, dtype=np.int64)

    def add(self, scores: np.ndarray, positive: np.ndarray) -> None:
        scores, positive = _checked_scores(scores, positive)
        keys = tie_keys(scores, self.scale)
        keys += 2**TIE_BITS
        np.clip(keys, 0, N_KEYS - 1, out=keys)
        self.pos += np.bincount(keys[positive], minlength=N_KEYS)
        self.neg += np.bincount(keys[~positive], minlength=N_KEYS)

    def metrics(self, *, what: str = "pairs") -> dict[str, float]:
        """AUROC and AP over everything added (definitions: :func:`binary_ranking_metrics`)."""
        cells = np.flatnonzero((self.pos + self.neg) > 0)  # one ROC point per distinct key
        return _counted_metrics(self.pos[cells], self.neg[cells], what)


def _checked_scores(scores: np.ndarray, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores and labels as flat arrays of equal length, the scores finite (else a ValueError saying which)."""
    scores = np.asarray(scores).reshape(-1)
    positive = np.asarray(positive, dtype=bool).reshape(-1)
    if scores.shape != positive.shape:
        raise ValueError(f"{len(scores)} scores for {len(positive)} labels")
    if not np.isfinite(scores).all():
        raise ValueError("similarity scores contain NaN or infinite values")
    return scores, positive


def _counted_metrics(pos: np.ndarray, neg: np.ndarray, what: str) -> dict[str, float]:
    """AUROC and AP from positive/negative counts per distinct score, scores in ascending order."""
    n_pos, n_neg = int(pos.sum()), int(neg.sum())
    if n_pos == 0 or n_neg == 0:
        kind = "positive (same)" if n_neg == 0 else "negative (different)"
        raise DataValidationError(
            f"are all {kind}: AUROC needs both kinds", field=what, expected="both same and different pairs"
        )
    tps = np.cumsum(pos[::-1])  # thresholds from the highest score down
    fps = np.cumsum(neg[::-1])
    tpr = np.concatenate([[0.0], tps / n_pos])
    fpr = np.concatenate([[0.0], fps / n_neg])
    auroc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    precision = tps / (tps + fps)
    average_precision = float(np.sum(np.diff(tpr) * precision))
    return {"auroc": auroc, "average_precision": average_precision}


def exact_ranking_metrics(scores: np.ndarray, positive: np.ndarray, *, what: str = "pairs") -> dict[str, float]:
    """AUROC and AP with ties = exactly equal scores (no grid): what ``roc_auc_score`` computes on ``scores``.

    Used for the STEB reference's pair scores (float32 cosines, :func:`reference_pair_scores`), whose
    figures depend on which float32 values tie; the values are counted per distinct score after a sort.
    """
    scores, positive = _checked_scores(scores, positive)
    values, inverse = np.unique(scores, return_inverse=True)
    pos = np.bincount(inverse[positive], minlength=len(values))
    neg = np.bincount(inverse[~positive], minlength=len(values))
    return _counted_metrics(pos, neg, what)


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
        raise DataValidationError(f"option {task}.{name}={value!r}", field=f"{task}.{name}",
                                  expected=" or ".join(choices))
    return value


def pair_scores_mode(ctx: TaskContext, task: str) -> str:
    """``<task>.scores`` (``reference`` by default, see :data:`PAIR_SCORES`); similarity-only encoders use the grid."""
    return option_choice(ctx, task, "scores", PAIR_SCORES, "reference")


def _float32_unit_rows(matrix: Any) -> Any:
    """Rows scaled to unit length as scikit-learn's ``normalize`` does, in the vectors' own dtype (zero rows stay)."""
    from sklearn.preprocessing import normalize  # noqa: PLC0415

    return normalize(matrix, norm="l2", copy=True)


def _emulated(unit: Any, products: str) -> bool:
    """Whether the reference machine's float32 products are emulated for these unit rows (dense float32 only)."""
    return products == "reference" and not sp.issparse(unit) and np.asarray(unit).dtype == np.float32


def reference_pair_scores(vectors: Any, ia: np.ndarray, ib: np.ndarray, pair_score: str,
                          products: str = "reference") -> np.ndarray:
    """The reference's score of the pairs ``(vectors[ia[k]], vectors[ib[k]])``, higher = more alike.

    ``cosine``: as ``sklearn.metrics.pairwise.cosine_similarity`` of the two rows (rows normalised by
    scikit-learn in their dtype, float32 for steb's vectors, then one ``(1, d) @ (d, 1)`` product, which
    numpy hands to ``cblas_sdot``): the STEB reference's ``_pair_score``
    (``steb/tasks/pre_defined_pair_classification.py`` @63f649ce). ``products="reference"``: that sdot as
    the reference machine's Haswell kernel computed it (:func:`._reference_products.sdot_haswell`, the
    same on every CPU); ``"blas"``: this CPU's sdot; other dtypes and sparse rows: row-wise sums
    (einsum / sparse multiply). ``neg_l1``: minus the sum of absolute differences, in float64 (its
    ``score_mode="abs_diff"``).
    """
    out = np.empty(len(ia), dtype=np.float64)
    if pair_score == "neg_l1":
        dense = vectors.toarray() if sp.issparse(vectors) else np.asarray(vectors)
        step = max(1, GATHER_CELLS // max(1, dense.shape[1]))
        for start in range(0, len(ia), step):
            a = dense[ia[start:start + step]].astype(np.float64)
            b = dense[ib[start:start + step]].astype(np.float64)
            out[start:start + step] = -np.abs(a - b).sum(axis=1)
        return out
    unit = _float32_unit_rows(sp.csr_matrix(vectors) if sp.issparse(vectors) else np.asarray(vectors))
    step = SIMILARITY_BATCH if sp.issparse(unit) else max(256, GATHER_CELLS // max(1, unit.shape[1]))
    emulated = _emulated(unit, products)
    blas = products == "blas" and not sp.issparse(unit)
    for start in range(0, len(ia), step):
        a, b = unit[ia[start:start + step]], unit[ib[start:start + step]]
        if sp.issparse(unit):
            dots = np.asarray(a.multiply(b).sum(axis=1)).reshape(-1)
        elif emulated:
            dots = sdot_haswell(a, b)
        elif blas:  # the reference's call, one (1, d) @ (d, 1) product (cblas_sdot / ddot) per pair
            dots = np.array([(a[i:i + 1] @ b[i:i + 1].T)[0, 0] for i in range(len(a))], dtype=a.dtype)
        else:
            dots = np.einsum("ij,ij->i", a, b)
        out[start:start + step] = dots
    return out


def reference_all_pair_scores(vectors: Any, pair_score: str, *, products: str = "reference",
                              block_cells: int = GATHER_CELLS) -> np.ndarray:
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
    (float32 cosines stay float32, so their ties are the reference's).
    """
    n = vectors.shape[0]
    dense = None
    if pair_score != "neg_l1":
        unit = _float32_unit_rows(vectors)
        if _emulated(unit, products):
            return ssyrk_haswell(unit)
        if n * n <= WHOLE_MATRIX_CELLS:
            from sklearn.metrics.pairwise import cosine_similarity  # noqa: PLC0415

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
            block = -np.abs(dense[r0:r1, None, :] - dense[None, r0 + 1:, :]).sum(axis=2)
        else:
            from sklearn.metrics.pairwise import cosine_similarity  # noqa: PLC0415

            block = cosine_similarity(vectors[r0:r1], vectors[r0 + 1:])
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
    snapped scores ``tie_keys(scores, scale)``: scores in one grid cell are ties (module docstring).
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
    """A run option for one task: ``options["<task>.<name>"]`` or ``options[<task>][<name>]``, else default."""
    opts = ctx.options or {}
    key = f"{task}.{name}"
    if key in opts:
        return opts[key]
    nested = opts.get(task)
    if isinstance(nested, dict) and name in nested:
        return nested[name]
    return default
