"""Finding redundant datasets: rank correlation of models across datasets, then Ward clustering.

Two datasets that order the models the same way measure the same thing for the benchmark's
purposes; the operational score averages within such a cluster first so that, say, ten near-identical
AI-detection sets count once. Distance between datasets is ``1 - Spearman rho`` of the model scores
(0 for identical rankings, 1 for unrelated, 2 for reversed); clusters are cut from a Ward linkage at
distance 0.5. A dataset on which every model ties has no ranking: its correlation with every other
dataset is taken as 0 (distance 1), so it stays in a cluster of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "MIN_MODELS",
    "THRESHOLD",
    "ClusterResult",
    "average_ranks",
    "spearman_matrix",
    "ward_clusters",
    "discover_clusters",
]

#: Correlating rankings of fewer models says nothing (two models always correlate at +-1).
MIN_MODELS = 3
#: Ward linkage distance at which the dendrogram is cut.
THRESHOLD = 0.5


@dataclass
class ClusterResult:
    """The clusters of one task type and how they were found (stored in the report for inspection)."""

    clusters: list[list[str]]
    method: str
    models: list[str] = field(default_factory=list)
    correlations: dict[str, dict[str, float | None]] = field(default_factory=dict)
    note: str = ""


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of a 1-d array, ties given the mean of the ranks they span (as Spearman requires)."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    ranks = np.empty(len(values), dtype=float)
    start = 0
    for end in range(1, len(values) + 1):
        if end == len(values) or sorted_vals[end] != sorted_vals[start]:
            ranks[order[start:end]] = (start + 1 + end) / 2.0
            start = end
    return ranks


def spearman_matrix(scores: np.ndarray) -> np.ndarray:
    """Spearman rho between the columns of ``scores`` (models x datasets); NaN where a column is constant.

    Pearson correlation of average ranks, computed here with numpy rather than ``scipy.stats`` so that
    printing a leaderboard does not pay scipy.stats' import time.
    """
    scores = np.asarray(scores, dtype=float)
    ranks = np.column_stack([average_ranks(scores[:, j]) for j in range(scores.shape[1])])
    centred = ranks - ranks.mean(axis=0)
    norms = np.sqrt((centred**2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (centred.T @ centred) / np.outer(norms, norms)
    constant = norms == 0
    rho[constant, :] = np.nan
    rho[:, constant] = np.nan
    return np.asarray(np.clip(rho, -1.0, 1.0))


def ward_clusters(distance: np.ndarray, names: Sequence[str], threshold: float = THRESHOLD) -> list[list[str]]:
    """Flat clusters of ``names`` from a square distance matrix: Ward linkage cut at ``threshold``.

    Clusters are listed in the order of their first member in ``names``; members keep that order.
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    n = len(names)
    if n == 1:
        return [list(names)]
    dist = np.array(distance, dtype=float)
    dist = (dist + dist.T) / 2.0
    np.fill_diagonal(dist, 0.0)
    labels = fcluster(linkage(squareform(dist, checks=False), method="ward"), t=threshold, criterion="distance")
    groups: dict[int, list[str]] = {}
    for name, label in zip(names, labels):
        groups.setdefault(int(label), []).append(name)
    return list(groups.values())


def discover_clusters(scores: np.ndarray, datasets: Sequence[str], models: Sequence[str]) -> ClusterResult:
    """Cluster the datasets of one task type by how they rank ``models`` (rows of ``scores``)."""
    datasets, models = list(datasets), list(models)
    if len(models) < MIN_MODELS:
        return ClusterResult(
            [[d] for d in datasets],
            "none",
            models,
            note=(
                f"only {len(models)} model(s) with complete results; rank correlations need at least {MIN_MODELS}, "
                "so every dataset is its own cluster (plain macro-average over datasets)"
            ),
        )
    rho = spearman_matrix(scores)
    correlations = {
        a: {b: (None if np.isnan(rho[i, j]) else round(float(rho[i, j]), 6)) for j, b in enumerate(datasets)}
        for i, a in enumerate(datasets)
    }
    distance = 1.0 - np.nan_to_num(rho, nan=0.0)
    clusters = ward_clusters(distance, datasets)
    note = ""
    tied = [d for i, d in enumerate(datasets) if np.isnan(rho[i, i])]
    if tied:
        note = f"all models tie on {', '.join(tied)}: no ranking, correlation taken as 0"
    return ClusterResult(clusters, f"ward(1 - spearman), threshold {THRESHOLD}", models, correlations, note)
