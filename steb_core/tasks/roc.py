"""The STEB reference's other pair-classification metrics: the EER and the McClish partial AUCs, from counts.

The reference writes, beside ``auc``, an equal error rate and six partial AUCs for every pair task
(github.com/rrivera1849/STEB ``steb/metrics.py`` @4b43dda3 ``calculate_eer`` and
``calculate_pair_classification_metrics``):

* ``eer``: scikit-learn's ``roc_curve`` of the scores (its default ``drop_intermediate=True``), then scipy's
  ``brentq`` root of ``1 - x - interp1d(fpr, tpr)(x)`` on ``[0, 1]``;
* ``auc@{f:.2f}`` for f in 0.01, 0.05, 0.10, 0.20, 0.30, 0.50: ``roc_auc_score(max_fpr=f)``, the partial AUC up to
  FPR f standardised by McClish's correction (0.5 for a non-discriminant score, 1 for a perfect one).

Both depend on the scores only through the ROC curve, which is fixed by how many positives and negatives share
each distinct score. The pair tasks hold exactly those counts (:func:`._ties.exact_ranking_metrics` counts them
after one sort), so the curve is rebuilt here from them instead of sorting the scores again for each of the
seven calls: the thresholds of ``roc_curve`` are the distinct scores from the highest down, its true / false
positive counts the cumulative counts, the collinear points it drops the ones whose second differences of both
counts are zero, and (0, 0) is put first. The counts are integers, so the curve's ``fpr`` and ``tpr`` are the
same float64 values scikit-learn computes; the EER is then the reference's own ``interp1d`` / ``brentq`` call and
the partial AUC scikit-learn's arithmetic (``_binary_roc_auc_score`` in 1.9.1: the curve cut at
``searchsorted(fpr, f, "right")``, one point interpolated at f, a trapezoid area, McClish's standardisation).
The tests compare both with scikit-learn and scipy called on the scores themselves.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "FPR_THRESHOLDS",
    "roc_curve_from_counts",
    "eer_from_curve",
    "partial_auc_from_curve",
    "reference_roc_metrics",
    "fpr_key",
    "ROC_NOTE",
    "GRID_ROC_NOTE",
]

#: ``DEFAULT_FPR_THRESHOLDS`` of the reference's metrics.py @4b43dda3
FPR_THRESHOLDS = (0.01, 0.05, 0.10, 0.20, 0.30, 0.50)


#: the record metric that says why a pair result has no ``eer`` / ``auc@...`` (the exporter shows it)
ROC_NOTE = "eer_and_partial_aucs"
#: its value for results scored by the grid rule: the counts there are per grid cell, so the curve is not the
#: reference's, and the exact scores are not kept (the grid path is the bounded one: no score array)
GRID_ROC_NOTE = (
    "not computed: scored by the grid rule (ties within 2**-20), which keeps no exact scores; eer "
    "and auc@f are computed with scores=reference (the default, up to the task's exact-pairs limit)"
)


def fpr_key(fpr: float) -> str:
    """The metric name of the partial AUC up to ``fpr``: the reference's ``f"auc@{fpr:.2f}"``."""
    return f"auc@{fpr:.2f}"


def roc_curve_from_counts(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(fpr, tpr)`` of scikit-learn's ``roc_curve`` (``drop_intermediate=True``) for scores whose distinct values,
    in ascending order, hold ``pos[i]`` positives and ``neg[i]`` negatives (module docstring)."""
    tps = np.cumsum(np.asarray(pos, dtype=np.int64)[::-1])  # thresholds from the highest score down
    fps = np.cumsum(np.asarray(neg, dtype=np.int64)[::-1])
    if len(fps) > 2:  # drop the points collinear with both neighbours (no corner in either count)
        corner = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
        keep = np.flatnonzero(np.concatenate([[True], corner, [True]]))
        tps, fps = tps[keep], fps[keep]
    tps = np.concatenate([[0], tps]).astype(np.float64)
    fps = np.concatenate([[0], fps]).astype(np.float64)
    return fps / fps[-1], tps / tps[-1]


def eer_from_curve(fpr: np.ndarray, tpr: np.ndarray) -> float:
    """The reference's ``calculate_eer``: where the linearly interpolated ROC crosses ``tpr = 1 - fpr``."""
    from scipy.interpolate import interp1d
    from scipy.optimize import brentq

    curve = interp1d(fpr, tpr)
    return float(brentq(lambda x: 1.0 - x - curve(x), 0.0, 1.0))


def partial_auc_from_curve(fpr: np.ndarray, tpr: np.ndarray, max_fpr: float) -> float:
    """``roc_auc_score(max_fpr=max_fpr)`` on the curve: the area up to ``max_fpr``, McClish-standardised."""
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    x = np.append(fpr[:stop], max_fpr)
    y = np.append(tpr[:stop], np.interp(max_fpr, [fpr[stop - 1], fpr[stop]], [tpr[stop - 1], tpr[stop]]))
    area = float(np.trapezoid(y, x))
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (area - min_area) / (max_area - min_area))


def reference_roc_metrics(pos: np.ndarray, neg: np.ndarray) -> dict[str, float]:
    """``eer`` and ``auc@0.01`` ... ``auc@0.50`` from per-score counts (both kinds present; module docstring)."""
    fpr, tpr = roc_curve_from_counts(pos, neg)
    out = {"eer": eer_from_curve(fpr, tpr)}
    out.update({fpr_key(f): partial_auc_from_curve(fpr, tpr, f) for f in FPR_THRESHOLDS})
    return out
