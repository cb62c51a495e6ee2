"""The tie grid and exact rank counting shared by the vector tasks (AUROC, AP, retrieval ranks).

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

import numpy as np

from .._errors import DataValidationError
from .roc import reference_roc_metrics

__all__ = ["TIE_BITS", "N_KEYS", "tie_scale", "tie_keys", "RankCounts", "exact_ranking_metrics"]

#: scores are snapped to a grid of 2**-TIE_BITS of their scale before ties are decided (module docstring)
TIE_BITS = 20
#: number of grid cells in [-scale, scale]
N_KEYS = 2 ** (TIE_BITS + 1) + 1


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


def _counted_metrics(pos: np.ndarray, neg: np.ndarray, what: str, roc: bool = False) -> dict[str, float]:
    """AUROC and AP from positive/negative counts per distinct score, scores in ascending order; with ``roc``
    also the reference's EER and partial AUCs (:func:`.roc.reference_roc_metrics`)."""
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
    out = {"auroc": auroc, "average_precision": average_precision}
    if roc:
        out.update(reference_roc_metrics(pos, neg))
    return out


def exact_ranking_metrics(
    scores: np.ndarray, positive: np.ndarray, *, what: str = "pairs", roc: bool = False
) -> dict[str, float]:
    """AUROC and AP with ties = exactly equal scores (no grid): what ``roc_auc_score`` computes on ``scores``.

    Used for the STEB reference's pair scores (float32 cosines, :func:`reference_pair_scores`), whose
    figures depend on which float32 values tie; the values are counted per distinct score after a sort.
    ``roc``: also ``eer`` and ``auc@0.01`` ... ``auc@0.50`` as the reference computes them from the same
    scores (:mod:`.roc`; no second sort).
    """
    scores, positive = _checked_scores(scores, positive)
    values, inverse = np.unique(scores, return_inverse=True)
    pos = np.bincount(inverse[positive], minlength=len(values))
    neg = np.bincount(inverse[~positive], minlength=len(values))
    return _counted_metrics(pos, neg, what, roc)
