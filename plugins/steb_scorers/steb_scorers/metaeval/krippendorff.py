"""Krippendorff's alpha of a units x coders rating matrix (nominal, ordinal, interval), missing ratings as NaN.

Built from the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"): each unit
rated by m >= 2 coders adds 1/(m-1) for every ordered pair of its ratings; alpha = 1 - D_o / D_e with the
observed and expected disagreements under the level's difference function. The values that occur in the data are
the scale's categories (the ordinal metric counts the ratings between two categories). The coincidence matrix
depends only on which values each unit received, not on which coder gave them, so a crowd set whose coder slots
are different people on different rows gives the same alpha as one keyed by worker id.
"""

from __future__ import annotations

import numpy as np

__all__ = ["krippendorff_alpha", "LEVELS"]

LEVELS = ("nominal", "ordinal", "interval")


def _coincidences(ratings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values = np.unique(ratings[np.isfinite(ratings)])
    index = {v: k for k, v in enumerate(values)}
    o = np.zeros((values.size, values.size))
    for row in ratings:
        got = [index[v] for v in row[np.isfinite(row)]]
        m = len(got)
        if m < 2:
            continue  # a unit rated once carries no information on agreement
        counts = np.bincount(got, minlength=values.size).astype(np.float64)
        o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    return values, o


def _differences(level: str, values: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    if level == "nominal":
        return 1.0 - np.eye(values.size)
    if level == "interval":
        return np.asarray((values[:, None] - values[None, :]) ** 2, dtype=np.float64)
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(marginals)])
        lo = np.minimum.outer(np.arange(values.size), np.arange(values.size))
        hi = np.maximum.outer(np.arange(values.size), np.arange(values.size))
        between = cum[hi + 1] - cum[lo]  # sum of n_g for g from the lower to the higher category
        return np.asarray((between - (marginals[:, None] + marginals[None, :]) / 2.0) ** 2, dtype=np.float64)
    raise ValueError(f"level must be one of {LEVELS}, not {level!r}")


def krippendorff_alpha(ratings: np.ndarray, level: str = "ordinal") -> float:
    """Alpha of ``ratings`` (units x coders, NaN = not rated); NaN when fewer than two pairable ratings or one value."""
    ratings = np.asarray(ratings, dtype=np.float64)
    if ratings.ndim != 2:
        raise ValueError(f"ratings must be a units x coders matrix, not shape {ratings.shape}")
    values, o = _coincidences(ratings)
    marginals = o.sum(axis=1)
    n = marginals.sum()
    if values.size < 2 or n <= 1:
        return float("nan")
    delta = _differences(level, values, marginals)
    observed = float((o * delta).sum()) / n
    expected = float((np.outer(marginals, marginals) * delta).sum()) / (n * (n - 1))
    return float("nan") if expected == 0 else 1.0 - observed / expected
