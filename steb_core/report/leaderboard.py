"""The leaderboard: every registered aggregator run over one merged results table.

Every renderer (terminal, Markdown, CSV, HTML) reads this object, so they agree on the order of
encoders, which cells are best/second best, and what is missing.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..aggregators.columns import OPERATIONAL_METRIC, metric_label
from ..aggregators.result import AggregateResult, Column
from ..aggregators.table import ResultTable
from ..results import ResultRecord, load_results

__all__ = ["Leaderboard", "AggregatorFailure", "compute_leaderboard", "load_merged", "rank_marks"]


@dataclass
class AggregatorFailure:
    """An aggregator that raised or returned something other than an AggregateResult (reported, not fatal)."""

    name: str
    error: str
    detail: str = ""


@dataclass
class Leaderboard:
    table: ResultTable
    aggregates: list[AggregateResult]
    failures: list[AggregatorFailure] = field(default_factory=list)

    @property
    def encoders(self) -> list[str]:
        """Encoders ordered by the first aggregate's score (best first; incomplete last, by name)."""
        encs = list(self.table.encoders)
        if not self.aggregates:
            return encs
        first = self.aggregates[0].scores
        return sorted(encs, key=lambda e: (first.get(e) is None, -(first.get(e) or 0.0), e))

    def main_columns(self) -> list[Column]:
        return list(self.aggregates)

    def all_columns(self) -> list[Column]:
        return [col for agg in self.aggregates for col in agg.columns()]

    def aggregate(self, name: str) -> AggregateResult | None:
        return next((a for a in self.aggregates if a.name == name), None)

    def dataset_scores(self) -> tuple[list[tuple[str, str, str]], dict[str, dict[tuple[str, str], float | None]]]:
        """(dataset, task, metric) columns and encoder -> (dataset, task) -> value, using the operational metric."""
        cols = [(d, t, metric_label(OPERATIONAL_METRIC.get(t))) for d, t in self.table.expected]
        values = {
            enc: {(d, t): self.table.value(enc, d, t, OPERATIONAL_METRIC.get(t))[0] for d, t, _ in cols}
            for enc in self.table.encoders
        }
        return cols, values


def rank_marks(scores: dict[str, float | None]) -> dict[str, int]:
    """Encoder -> 1 (best) or 2 (second best) among the non-missing scores; ties share a mark."""
    distinct = sorted({round(v, 12) for v in scores.values() if v is not None}, reverse=True)
    marks = {}
    for enc, value in scores.items():
        if value is None:
            continue
        position = distinct.index(round(value, 12)) + 1
        if position <= 2:
            marks[enc] = position
    return marks


def load_merged(results_dirs: str | Path | Sequence[str | Path]) -> list[ResultRecord]:
    """The records of one or several results folders (several encoders' runs merge into one leaderboard)."""
    dirs = [results_dirs] if isinstance(results_dirs, (str, Path)) else list(results_dirs)
    return [rec for d in dirs for rec in load_results(d)]


def _registered_datasets() -> Any:
    from ..plugins import get_manager

    return get_manager().datasets()


def _registered_aggregators() -> list[Any]:
    from ..plugins import get_manager

    return sorted(get_manager().aggregators(), key=lambda spec: (spec.order, spec.name))


def compute_leaderboard(
    records: Iterable[ResultRecord],
    *,
    datasets: Any = "registered",
    aggregators: Sequence[Any] | None = None,
    suites: Iterable[str] = (),
) -> Leaderboard:
    """Run every aggregator (default: the registered ones, in their ``order``) over ``records``.

    ``datasets="registered"`` uses the installed plugins' dataset specs; ``None`` uses only the
    ``dataset_meta`` stored in the records. ``suites`` widens the scope to every registered dataset of
    those suites (see :class:`~steb_core.aggregators.table.ResultTable`).
    """
    specs = _registered_datasets() if isinstance(datasets, str) and datasets == "registered" else datasets
    table = ResultTable.build(records, specs, suites=suites)
    aggs = list(aggregators) if aggregators is not None else _registered_aggregators()
    results: list[AggregateResult] = []
    failures: list[AggregatorFailure] = []
    for spec in aggs:
        try:
            out = spec.aggregate(table, specs)
        except Exception as exc:  # a broken plugin aggregator must not take the report down
            failures.append(AggregatorFailure(spec.name, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
            continue
        if not isinstance(out, AggregateResult):
            failures.append(AggregatorFailure(spec.name, f"returned {type(out).__name__}, expected AggregateResult"))
            continue
        out.order = spec.order
        results.append(out)
    results.sort(key=lambda a: a.order)
    return Leaderboard(table, results, failures)
