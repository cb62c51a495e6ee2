"""Ranks with intervals: how sure a leaderboard's order is, from a paired bootstrap over its datasets.

Why: close models swap places when one dataset more or less is in the suite (MTEB users ask for rank
resolution). A rank interval says which places a model could hold on another draw of datasets like these.

What is resampled (paired: every replicate draws the same columns for every encoder):

* the (dataset, task) columns of the per-dataset scores table (the operational metric of each result), those
  where every encoder of the leaderboard has a score, drawn with replacement as many as there are;
* inside a column, the random draws of a ``--draws`` result (:mod:`steb_core._draws`: each draw is an
  independent random sample of the dataset's instances): its value in a replicate is the mean over its K draws
  drawn with replacement, the same draw indices for every encoder whose draws have the same seeds (the same
  samples of texts). A single-sample result carries no per-instance scores, so its value stays fixed.

The statistic of a replicate is each encoder's mean over the drawn columns, ranked best first (ties share
the better rank); the point rank is that of the mean over all columns, and the interval holds the central
``level`` share of the replicates' ranks (percentile interval, rounded outward to whole ranks). This mean
weighs every dataset alike, as the per-dataset table does; the leaderboard's first column (the operational
score, averaged over clusters and task types) can order two close models otherwise, which is why the report
prints the mean beside each rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported when intervals are computed: `steb --help` and the CLI's start stay light
    import numpy as np

    from .leaderboard import Leaderboard

__all__ = [
    "RankInterval",
    "RankIntervals",
    "rank_intervals",
    "rank_interval_rows",
    "DEFAULT_RESAMPLES",
    "DEFAULT_LEVEL",
    "DEFAULT_SEED",
]

#: bootstrap replicates unless ``--resamples`` says otherwise
DEFAULT_RESAMPLES = 1000
#: the share of the replicates' ranks an interval holds
DEFAULT_LEVEL = 0.95
#: the bootstrap's seed (the run's default seed: the reference's 42)
DEFAULT_SEED = 42


@dataclass(frozen=True)
class RankInterval:
    """One encoder's rank (1 = best) by its mean per-dataset score, with the bootstrap interval of that rank."""

    encoder: str
    mean: float
    rank: int
    low: int
    high: int
    #: share of the replicates that put the encoder at rank r, for r = 1 .. number of encoders
    distribution: tuple[float, ...] = ()

    def interval_text(self) -> str:
        return f"{self.low}" if self.low == self.high else f"{self.low}–{self.high}"


@dataclass(frozen=True)
class RankIntervals:
    """The rank intervals of one leaderboard and how they were computed."""

    rows: tuple[RankInterval, ...]
    pairs: tuple[tuple[str, str], ...]
    resamples: int
    level: float
    seed: int
    #: encoders with ``--draws`` results whose draws were resampled inside their columns
    over_draws: tuple[str, ...] = ()
    #: (dataset, task) columns left out: some encoder has no score there
    left_out: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def method(self) -> str:
        """One sentence: the interval's level and what was resampled."""
        draws = f", and inside each column the random draws of {', '.join(self.over_draws)}" if self.over_draws else ""
        left = f"; {len(self.left_out)} column(s) without a score for every encoder left out" if self.left_out else ""
        return (
            f"ranks by the mean per-dataset score, {round(self.level * 100)}% intervals from a paired bootstrap over "
            f"{len(self.pairs)} (dataset, task) column(s){draws} ({self.resamples} resamples, seed {self.seed}){left}"
        )


def _draw_values(board: Leaderboard, encoder: str, dataset: str, task: str) -> tuple[tuple[int, ...], list[float]]:
    """(draw seeds, per-draw values of the cell's metric) of a ``--draws`` result; ((), []) for one sample."""
    rec = board.table.get(encoder, dataset, task)
    draws = rec.metrics.get("draws") if rec is not None else None
    if not isinstance(draws, dict):
        return (), []
    values = draws.get("values", {}).get(board.cell(encoder, dataset, task).metric) if isinstance(draws, dict) else None
    seeds = draws.get("seeds")
    if not isinstance(values, list) or len(values) < 2 or not isinstance(seeds, list):
        return (), []
    return tuple(int(s) for s in seeds), [float(v) for v in values]


def _ranks(means: np.ndarray) -> np.ndarray:
    """Ranks best first along axis 0 (ties share the better rank): 1 + how many score strictly higher."""
    higher: np.ndarray = (means[None, :, ...] > means[:, None, ...]).sum(axis=1)
    return 1 + higher


def rank_intervals(
    board: Leaderboard,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
) -> RankIntervals | None:
    """The rank intervals of ``board``'s encoders (module docstring); None with fewer than two encoders or no
    column every encoder has."""
    import numpy as np

    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1 (e.g. 0.95), not {level}")
    encoders = list(board.encoders)
    columns, values = board.dataset_scores()
    pairs = [(d, t) for d, t, _ in columns if all(values[e].get((d, t)) is not None for e in encoders)]
    left_out = tuple((d, t) for d, t, _ in columns if (d, t) not in pairs)
    if len(encoders) < 2 or not pairs:
        return None
    scores = np.asarray([[values[e][p] for p in pairs] for e in encoders], dtype=np.float64)  # (E, P)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(pairs), size=(resamples, len(pairs)))  # (B, P) columns drawn per replicate
    cube = np.repeat(scores[:, :, None], resamples, axis=2)  # (E, P, B): a column's value in each replicate
    over_draws: set[str] = set()
    for p, (dataset, task) in enumerate(pairs):
        by_seeds: dict[tuple[int, ...], list[tuple[int, list[float]]]] = {}
        for e, enc in enumerate(encoders):
            seeds, draw_values = _draw_values(board, enc, dataset, task)
            if seeds:
                by_seeds.setdefault(seeds, []).append((e, draw_values))
        for _, members in sorted(by_seeds.items()):
            k = len(members[0][1])
            index = rng.integers(0, k, size=(resamples, k))  # the same draws for every encoder of these seeds
            for e, draw_values in members:
                if len(draw_values) == k:
                    cube[e, p, :] = np.asarray(draw_values)[index].mean(axis=1)
                    over_draws.add(encoders[e])
    drawn = cube[:, picks.T, np.arange(resamples)]  # (E, P, B): replicate b's drawn columns
    means = drawn.mean(axis=1)  # (E, B)
    replicate_ranks = _ranks(means)  # (E, B)
    point = _ranks(scores.mean(axis=1))
    alpha = (1 - level) / 2
    rows = []
    for e, enc in enumerate(encoders):
        ranks = replicate_ranks[e]
        counts = np.bincount(ranks, minlength=len(encoders) + 1)[1:]
        rows.append(
            RankInterval(
                encoder=enc,
                mean=float(scores[e].mean()),
                rank=int(point[e]),
                low=int(np.quantile(ranks, alpha, method="lower")),
                high=int(np.quantile(ranks, 1 - alpha, method="higher")),
                distribution=tuple(float(c) / resamples for c in counts),
            )
        )
    rows.sort(key=lambda r: (r.rank, -r.mean, r.encoder))
    return RankIntervals(
        tuple(rows),
        tuple(pairs),
        resamples,
        level,
        seed,
        tuple(sorted(over_draws)),
        left_out,
    )


def rank_interval_rows(intervals: RankIntervals) -> list[dict[str, Any]]:
    """The rows as plain dicts (aggregates.json)."""
    return [
        {
            "encoder": r.encoder,
            "mean": r.mean,
            "rank": r.rank,
            "low": r.low,
            "high": r.high,
            "distribution": list(r.distribution),
        }
        for r in intervals.rows
    ]
