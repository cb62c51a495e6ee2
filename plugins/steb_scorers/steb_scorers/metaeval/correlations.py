"""Correlations between metric scores and human judgements, with source-level bootstrap.

Data are arranged as grids of shape (sources, systems): every system rated every source, as in the
human-judgement release. Segment level uses every cell; the WMT17 Kendall's-tau-like formulation
compares outputs *of the same source* (a row); system level correlates column means. Bootstrap
resamples rows (sources), keeping each source's outputs together, and reuses the same resamples for
every metric so that differences between metrics are paired.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

__all__ = [
    "pearson",
    "spearman",
    "kendall",
    "segment_correlations",
    "tau_like_counts",
    "tau_like",
    "system_means",
    "system_correlations",
    "system_kendall",
    "bootstrap_rows",
    "Bootstrap",
    "TIE_POLICIES",
    "TAU_AVERAGES",
    "tau_per_source",
    "mean_per_source_tau",
]

TIE_POLICIES = ("discordant", "exclude")
# how the tau-like statistic combines sources: one (C - D) / (C + D) over the pairs of every source (WMT17),
# or one tau per source, then the mean over the sources where some pair counts (Lai et al.'s analysis code)
TAU_AVERAGES = ("pooled", "per-source")


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson of each row of x with the same row of y (NaN where a row is constant)."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    den = np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (xc * yc).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    return float(_rowwise_pearson(np.asarray(x, float)[None], np.asarray(y, float)[None])[0])


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    return pearson(stats.rankdata(x), stats.rankdata(y))


def kendall(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b (ties in either variable handled as scipy does)."""
    return float(stats.kendalltau(x, y).statistic)


def segment_correlations(metric: np.ndarray, human: np.ndarray) -> dict[str, float]:
    m, h = np.ravel(metric), np.ravel(human)
    return {"pearson": pearson(m, h), "spearman": spearman(m, h), "kendall": kendall(m, h)}


def tau_like_counts(
    metric: np.ndarray, human: np.ndarray, threshold: float = 0.0, ties: str = "discordant"
) -> tuple[np.ndarray, np.ndarray]:
    """Concordant and discordant pair counts per row (source) of the (sources, systems) grids.

    A pair of outputs of the same source counts when the human scores differ by *more than*
    ``threshold`` (human ties never count). It is concordant when the metric orders it the same way,
    discordant when the other way; a metric tie is discordant (WMT17 DARR) or dropped (``ties='exclude'``).
    """
    if ties not in TIE_POLICIES:
        raise ValueError(f"tie policy must be one of {TIE_POLICIES}, not {ties!r}")
    metric, human = np.atleast_2d(metric).astype(float), np.atleast_2d(human).astype(float)
    i, j = np.triu_indices(metric.shape[1], k=1)
    dh = human[:, i] - human[:, j]
    dm = metric[:, i] - metric[:, j]
    ordered = (np.abs(dh) > threshold) & (dh != 0)
    same = np.sign(dm) == np.sign(dh)
    tie = dm == 0
    conc = (ordered & same & ~tie).sum(axis=1)
    disc = (ordered & ~same & ~tie).sum(axis=1)
    if ties == "discordant":
        disc = disc + (ordered & tie).sum(axis=1)
    return conc.astype(np.float64), disc.astype(np.float64)


def tau_like(metric: np.ndarray, human: np.ndarray, threshold: float = 0.0, ties: str = "discordant") -> dict[str, Any]:
    """τ = (Concordant − Discordant) / (Concordant + Discordant) with its counts and settings."""
    c, d = tau_like_counts(metric, human, threshold, ties)
    cs, ds = float(c.sum()), float(d.sum())
    return {
        "tau": (cs - ds) / (cs + ds) if cs + ds else float("nan"),
        "concordant": int(cs),
        "discordant": int(ds),
        "threshold": threshold,
        "ties": ties,
    }


def tau_per_source(
    metric: np.ndarray, human: np.ndarray, threshold: float = 0.0, ties: str = "discordant"
) -> np.ndarray:
    """One tau-like value per row (source) of the (sources, systems) grids; NaN where no pair of that source counts.

    Lai et al. (2022) compute the statistic this way (``kendalltau.compute_kenall`` per source, then
    ``np.mean`` over sources, a source whose pairs all tie in the human scores being skipped), which is not
    the pooled WMT17 figure: a source with few ordered pairs weighs as much as one with many.
    """
    c, d = tau_like_counts(metric, human, threshold, ties)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(c + d > 0, (c - d) / np.where(c + d > 0, c + d, 1.0), np.nan)


def mean_per_source_tau(
    metric: np.ndarray, human: np.ndarray, threshold: float = 0.0, ties: str = "discordant"
) -> dict[str, Any]:
    """Mean over sources of the per-source tau-like (sources without an ordered pair left out), with counts."""
    taus = tau_per_source(metric, human, threshold, ties)
    c, d = tau_like_counts(metric, human, threshold, ties)
    used = np.isfinite(taus)
    return {
        "tau": float(taus[used].mean()) if used.any() else float("nan"),
        "concordant": int(c.sum()),
        "discordant": int(d.sum()),
        "sources_used": int(used.sum()),
        "threshold": threshold,
        "ties": ties,
        "average": "per-source",
    }


def system_means(grid: np.ndarray) -> np.ndarray:
    return np.asarray(np.asarray(grid, float).mean(axis=0))


def system_correlations(metric: np.ndarray, human: np.ndarray) -> dict[str, float]:
    """Pearson and Spearman between per-system (column) means."""
    m, h = system_means(metric), system_means(human)
    return {"pearson": pearson(m, h), "spearman": spearman(m, h)}


def system_kendall(metric: np.ndarray, human: np.ndarray, ties: str = "discordant") -> float:
    """WMT-style Kendall tau over pairs of systems: (Concordant - Discordant) / (Concordant + Discordant).

    Pairs the humans tie are skipped; a pair the metric ties is discordant (``ties='discordant'``) or
    skipped (``'exclude'``). NaN when no pair counts.
    """
    return float(tau_like(np.asarray(metric, float)[None], np.asarray(human, float)[None], 0.0, ties)["tau"])


def bootstrap_rows(n_rows: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n_rows) row indices drawn with replacement (the resampled sources)."""
    return np.random.default_rng(seed).integers(0, n_rows, size=(n_boot, n_rows))


@dataclass
class Bootstrap:
    """Replicates of every statistic for one (metric, human) grid pair under given row resamples."""

    idx: np.ndarray
    threshold: float = 0.0
    ties: str = "discordant"
    with_kendall: bool = True
    tau_average: str = "pooled"

    def replicates(self, metric: np.ndarray, human: np.ndarray) -> dict[str, np.ndarray]:
        m, h = metric[self.idx], human[self.idx]  # (B, G, S)
        B = m.shape[0]
        mf, hf = m.reshape(B, -1), h.reshape(B, -1)
        out = {
            "segment_pearson": _rowwise_pearson(mf, hf),
            "segment_spearman": _rowwise_pearson(stats.rankdata(mf, axis=1), stats.rankdata(hf, axis=1)),
            "system_pearson": _rowwise_pearson(m.mean(axis=1), h.mean(axis=1)),
        }
        if self.with_kendall:
            out["segment_kendall"] = np.array([stats.kendalltau(mf[b], hf[b]).statistic for b in range(B)])
        if self.tau_average == "per-source":  # the mean of the resampled sources' own taus
            taus = tau_per_source(metric, human, self.threshold, self.ties)[self.idx]
            used = np.isfinite(taus)
            with np.errstate(invalid="ignore", divide="ignore"):
                out["tau_like"] = np.where(
                    used.any(axis=1), np.where(used, taus, 0.0).sum(axis=1) / used.sum(axis=1), np.nan
                )
            return out
        c, d = tau_like_counts(metric, human, self.threshold, self.ties)
        cb, db = c[self.idx].sum(axis=1), d[self.idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["tau_like"] = np.where(cb + db > 0, (cb - db) / np.where(cb + db > 0, cb + db, 1), np.nan)
        return out
