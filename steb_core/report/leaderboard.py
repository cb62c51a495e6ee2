"""The leaderboard: every registered aggregator run over one merged results table.

Every renderer (terminal, Markdown, CSV, HTML) reads this object, so they agree on the order of
encoders, which cells are best/second best, and what is missing.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._results import ResultRecord, load_results
from ..aggregators.columns import metric_label
from ..aggregators.result import AggregateResult, Column
from ..aggregators.table import ResultTable

__all__ = [
    "Leaderboard",
    "SuiteCoverage",
    "suite_coverage",
    "DatasetCell",
    "AggregatorFailure",
    "compute_leaderboard",
    "compute_leaderboards",
    "choose_suites",
    "load_merged",
    "rank_marks",
]


@dataclass
class AggregatorFailure:
    """An aggregator that raised or returned something other than an AggregateResult (reported, not fatal)."""

    name: str
    error: str
    detail: str = ""


@dataclass(frozen=True)
class DatasetCell:
    """One (encoder, dataset, task) as the report shows it: the main metric's name and value, plus companions."""

    metric: str
    value: float | None
    companions: tuple[tuple[str, float], ...] = ()
    #: standard deviation of the value over random draws (``--draws``, :mod:`steb_core._draws`), else None
    sd: float | None = None

    def text(self, digits: int = 4) -> str:
        """``distractor_accuracy 0.0000 · accuracy 1.0000`` (or the missing mark); ``± sd`` over random draws."""
        if self.value is None:
            return "–"
        spread = f" ± {self.sd:.{digits}f}" if self.sd is not None else ""
        parts = [f"{self.metric} {self.value:.{digits}f}{spread}"]
        parts += [f"{name} {v:.{digits}f}" for name, v in self.companions]
        return " · ".join(parts)


@dataclass(frozen=True)
class SuiteCoverage:
    """How much of a suite the results cover: datasets and (dataset, task) pairs with at least one result,
    out of every registered member of the suite (with its suite tasks); ``missing`` lists the rest."""

    suite: str
    datasets_run: int
    datasets_total: int
    pairs_run: int
    pairs_total: int
    missing: tuple[tuple[str, str], ...] = ()

    @property
    def partial(self) -> bool:
        return self.pairs_run < self.pairs_total

    def text(self) -> str:
        """``22 of 96 datasets (40 of 150 dataset-task pairs)``: the mark every partial aggregate carries."""
        return (
            f"{self.datasets_run} of {self.datasets_total} datasets ({self.pairs_run} of {self.pairs_total} "
            "dataset-task pairs)"
        )


def suite_coverage(table: ResultTable, suite: str | None) -> SuiteCoverage | None:
    """The coverage of ``suite`` by the records of ``table`` (None outside a suite or when no member is known)."""
    if not suite:
        return None
    pairs = {
        (info.name, task)
        for info in table.catalogue.values()
        if suite in info.suites
        for task in info.tasks_for_suite(suite)
    }
    if not pairs:
        return None
    ran = {(d, t) for (_, d, t) in table.records if (d, t) in pairs}
    missing = tuple(sorted(pairs - ran))
    return SuiteCoverage(suite, len({d for d, _ in ran}), len({d for d, _ in pairs}), len(ran), len(pairs), missing)


@dataclass
class Leaderboard:
    table: ResultTable
    aggregates: list[AggregateResult]
    failures: list[AggregatorFailure] = field(default_factory=list)
    #: the suite this leaderboard covers (None: results outside any suite, or no grouping)
    suite: str | None = None
    #: aggregate name -> why it is not a column here (it cannot be complete in this scope)
    dropped: dict[str, str] = field(default_factory=dict)
    #: task type -> the metrics shown, labelled, next to its main score (:meth:`steb_core.TaskSpec.shown_metrics`:
    #: order alignment's plain accuracy beside its distractor accuracy, so a newcomer who saw "accuracy 1.0"
    #: during the run is not puzzled by a 0); None: from the table's task specs
    companions: dict[str, tuple[str, ...]] | None = None

    #: each encoder's rank with its bootstrap interval (:func:`steb_core.report.ranks.rank_intervals`; set by
    #: ``build_report``; None: not computed, or fewer than two encoders)
    ranks: Any = None

    def __post_init__(self) -> None:
        if self.companions is None:
            self.companions = {name: spec.shown_metrics() for name, spec in self.table.task_specs.items()}

    @property
    def title(self) -> str:
        """The suite's name, marked "partial: N of M datasets (K of L pairs)" when the results cover part of it:
        a partial aggregate is never shown under the suite's name alone."""
        if not self.suite:
            return "results"
        mark = self.partial_mark()
        return f"suite '{self.suite}'" + (f" (partial: {mark})" if mark else "")

    @property
    def coverage(self) -> SuiteCoverage | None:
        """How much of the suite the results cover (None: results outside any suite)."""
        return suite_coverage(self.table, self.suite)

    def partial_mark(self) -> str:
        """ "N of M datasets (K of L dataset-task pairs)" when the suite is covered in part, else ""."""
        cov = self.coverage
        return cov.text() if cov is not None and cov.partial else ""

    @property
    def encoders(self) -> list[str]:
        """Encoders ordered by the first shown aggregate's score (best first; incomplete last, by name)."""
        encs = list(self.table.encoders)
        shown = self.shown_aggregates()
        if not shown:
            return encs
        first = shown[0].scores
        return sorted(encs, key=lambda e: (first.get(e) is None, -(first.get(e) or 0.0), e))

    def origins(self) -> dict[str, str]:
        """Encoder -> ``published`` (every result of it read from a STEB results tree: the authors' numbers) or
        ``yours`` (computed by steb); empty when no encoder is published, so a plain report has no such column."""
        from ..reference_tree.read import is_imported

        published: dict[str, bool] = {}
        for (encoder, _, _), record in self.table.records.items():
            published[encoder] = published.get(encoder, True) and is_imported(record)
        if not any(published.values()):
            return {}
        return {e: "published" if published.get(e) else "yours" for e in self.table.encoders}

    def shown_aggregates(self) -> list[AggregateResult]:
        """The aggregates that are columns here (those that can be complete in this scope)."""
        return [a for a in self.aggregates if a.name not in self.dropped]

    def main_columns(self) -> list[Column]:
        return list(self.shown_aggregates())

    def all_columns(self) -> list[Column]:
        return [col for agg in self.shown_aggregates() for col in agg.columns()]

    def aggregate(self, name: str) -> AggregateResult | None:
        return next((a for a in self.aggregates if a.name == name), None)

    def protocols(self) -> list[str]:
        """The STEB protocol versions the stored results say they follow ('unknown' where a record does not say)."""
        found = {
            str(getattr(rec, "steb_protocol", "") or (rec.protocol or {}).get("steb_protocol") or "unknown")
            for rec in self.table
        }
        return sorted(found)

    def cell(self, encoder: str, dataset: str, task: str) -> DatasetCell:
        """What the report shows for one result: the operational metric (named) and its companions."""
        choice = self.table.metrics("operational").get(task)
        rec = self.table.get(encoder, dataset, task)
        if isinstance(choice, tuple):
            used = next((m for m in choice if rec is not None and m in rec.metrics), choice[0])
        else:
            used = choice if choice is not None else (rec.main_metric if rec is not None else "main score")
        value = self.table.value(encoder, dataset, task, choice)[0]
        companions = []
        if rec is not None and value is not None:
            for name in (self.companions or {}).get(task, ()):
                extra = rec.metrics.get(name)
                if (
                    name != used
                    and isinstance(extra, (int, float))
                    and not isinstance(extra, bool)
                    and math.isfinite(extra)
                ):
                    companions.append((name, float(extra)))
        draws = rec.metrics.get("draws") if rec is not None else None
        sd = draws.get("sd", {}).get(used) if isinstance(draws, dict) and isinstance(draws.get("sd"), dict) else None
        spread = float(sd) if isinstance(sd, (int, float)) and value is not None else None
        return DatasetCell(used, value, tuple(companions), spread)

    def dataset_scores(self) -> tuple[list[tuple[str, str, str]], dict[str, dict[tuple[str, str], float | None]]]:
        """(dataset, task, metric) columns and encoder -> (dataset, task) -> value, using the operational metric."""
        operational = self.table.metrics("operational")
        cols = [(d, t, metric_label(operational.get(t))) for d, t in self.table.expected]
        values = {
            enc: {(d, t): self.table.value(enc, d, t, operational.get(t))[0] for d, t, _ in cols}
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
    from .._plugins import get_manager

    return get_manager().datasets()


def _registered_tasks() -> list[Any]:
    from .._plugins import get_manager

    return list(get_manager().tasks())


def _registered_benchmarks() -> list[Any]:
    from .._plugins import get_manager

    return list(get_manager().benchmarks())


def _registered_aggregators() -> list[Any]:
    from .._plugins import get_manager

    return sorted(get_manager().aggregators(), key=lambda spec: (spec.order, spec.name))


def compute_leaderboard(
    records: Iterable[ResultRecord],
    *,
    datasets: Any = "registered",
    aggregators: Sequence[Any] | None = None,
    suites: Iterable[str] = (),
    suite: str | None = None,
    only_datasets: Iterable[str] | None = None,
    only_tasks: Iterable[str] | None = None,
    only_encoders: Iterable[str] | None = None,
    cluster_set: Any = None,
    tasks: Any = "registered",
    benchmarks: Any = "registered",
) -> Leaderboard:
    """Run every aggregator (default: the registered ones, in their ``order``) over ``records``.

    ``datasets="registered"`` uses the installed plugins' dataset specs; ``None`` uses only the
    ``dataset_meta`` stored in the records. ``suites`` widens the scope to every registered dataset of
    those suites (see :class:`~steb_core.aggregators.table.ResultTable`); ``suite`` only names the
    leaderboard. ``only_*`` filter records and scope; ``cluster_set`` freezes the operational clusters.
    ``tasks``: the task specs whose column metrics and companions the columns read (``"registered"``: the
    installed plugins', so a plugin's task type joins every column; ``None``: steb's built-in task types).
    ``benchmarks``: a suite in ``suites`` named like one of them widens to its (dataset, task) pairs, as ``--suite``
    runs them (``"registered"``: the installed plugins' and the core's STEB; ``()``: tags only).
    An aggregate that cannot be complete in this scope (a whole column has no input) is computed but
    not a column (:attr:`Leaderboard.dropped` says why).
    """
    specs = _registered_datasets() if isinstance(datasets, str) and datasets == "registered" else datasets
    table = ResultTable.build(
        records,
        specs,
        suites=suites,
        only_datasets=only_datasets,
        only_tasks=only_tasks,
        only_encoders=only_encoders,
        cluster_set=cluster_set,
        tasks=_registered_tasks() if isinstance(tasks, str) and tasks == "registered" else tasks,
        benchmarks=_benchmarks(benchmarks),
    )
    aggs = list(aggregators) if aggregators is not None else _registered_aggregators()
    results: list[AggregateResult] = []
    failures: list[AggregatorFailure] = []
    for spec in aggs:
        try:
            out = spec.aggregate(table, specs)
        except Exception as exc:  # noqa: BLE001 - a broken plugin aggregator must not take the report down
            failures.append(AggregatorFailure(spec.name, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
            continue
        if not isinstance(out, AggregateResult):
            failures.append(AggregatorFailure(spec.name, f"returned {type(out).__name__}, expected AggregateResult"))
            continue
        out.order = spec.order
        results.append(out)
    results.sort(key=lambda a: a.order)
    dropped = {a.name: a.structural_gap for a in results if a.structural_gap}
    return Leaderboard(
        table, results, failures, suite=suite or (next(iter(suites), None) if suites else None), dropped=dropped
    )


def _benchmarks(benchmarks: Any) -> list[Any]:
    """``benchmarks`` as a list: ``"registered"`` -> the registered ones, None -> none."""
    if isinstance(benchmarks, str) and benchmarks == "registered":
        return _registered_benchmarks()
    return list(benchmarks or ())


def _suites_of(records: Sequence[ResultRecord], specs: Any) -> tuple[dict[str, tuple[str, ...]], dict[str, set[str]]]:
    """dataset -> its suites (spec first, else stored meta); suite -> every dataset known to belong to it."""
    from ..aggregators.table import DatasetInfo, as_spec_map

    spec_map = as_spec_map(specs)
    infos = {name: DatasetInfo.from_spec(spec) for name, spec in spec_map.items()}
    suites_of = {name: tuple(info.suites) for name, info in infos.items()}
    for rec in records:  # the suites stored with a result count too (a renamed or uninstalled plugin)
        stored = DatasetInfo.from_meta(rec.dataset, rec.dataset_meta or {}).suites
        suites_of[rec.dataset] = tuple(dict.fromkeys((*suites_of.get(rec.dataset, ()), *stored)))
    members: dict[str, set[str]] = {}
    for name, names in suites_of.items():
        for s in names:
            members.setdefault(s, set()).add(name)
    return suites_of, members


def choose_suites(records: Sequence[ResultRecord], specs: Any = None) -> list[str | None]:
    """The suites to show one leaderboard each for: a greedy cover of the datasets in ``records``.

    A suite's coverage is the share of its datasets that were run; the best-covered suite (ties: the
    larger one) is taken first, then the next that covers a dataset not yet covered, and so on. The
    README's steps (``--suite demo``, then ``--suite stel``) give ``demo`` and ``stel``, not ``steb``
    (which holds the STEL datasets too but was barely run). ``None`` stands for datasets in no suite.
    """
    suites_of, members = _suites_of(records, specs)
    ran = sorted({rec.dataset for rec in records})
    chosen: list[str | None] = []
    uncovered = set(ran)
    ran_set = set(ran)
    candidates = {s for d in ran for s in suites_of.get(d, ())}
    while uncovered:
        useful = [s for s in candidates if s not in chosen and members.get(s, set()) & uncovered]
        if not useful:
            break
        best = min(useful, key=lambda s: (-len(members[s] & ran_set) / len(members[s]), -len(members[s]), s))
        chosen.append(best)
        uncovered -= members[best]
    if uncovered:
        chosen.append(None)
    return chosen


def compute_leaderboards(
    records: Sequence[ResultRecord],
    *,
    datasets: Any = "registered",
    aggregators: Sequence[Any] | None = None,
    suites: Sequence[str] | None = None,
    only_datasets: Iterable[str] | None = None,
    only_tasks: Iterable[str] | None = None,
    only_encoders: Iterable[str] | None = None,
    cluster_set: Any = None,
    benchmarks: Any = "registered",
) -> list[Leaderboard]:
    """One leaderboard per suite: the named ``suites`` (each widened to its full scope; a benchmark's name to its
    pairs), else the suites :func:`choose_suites` picks for the records (each scoped to what was run)."""
    specs = _registered_datasets() if isinstance(datasets, str) and datasets == "registered" else datasets
    known = _benchmarks(benchmarks)
    keep = {
        "dataset": None if only_datasets is None else set(only_datasets),
        "task": None if only_tasks is None else set(only_tasks),
        "encoder": None if only_encoders is None else set(only_encoders),
    }
    from .._choices import check_values

    for attr, allowed in keep.items():  # a misspelt filter value would silently drop rows from the leaderboard
        check_values(
            attr,
            sorted(allowed) if allowed else None,
            {getattr(r, attr) for r in records},
            hint=f"the {attr}s with results in this folder",
        )
    records = [
        r for r in records if all(allowed is None or getattr(r, attr) in allowed for attr, allowed in keep.items())
    ]
    suites_of, _ = _suites_of(records, specs)
    filters = dict(
        only_datasets=only_datasets, only_tasks=only_tasks, only_encoders=only_encoders, cluster_set=cluster_set
    )
    named: list[str | None] = list(suites or ())
    for benchmark in known:  # a named benchmark's records are its datasets', tagged or not
        if benchmark.name in named:
            for name in {r.dataset for r in records if benchmark.tasks_of(r.dataset)}:
                suites_of[name] = tuple(dict.fromkeys((*suites_of.get(name, ()), benchmark.name)))
    groups: list[str | None] = named if named else choose_suites(records, specs)
    boards = []
    for group in groups:
        if group is None:
            subset = [r for r in records if not any(s in groups for s in suites_of.get(r.dataset, ()))]
        else:
            subset = [r for r in records if group in suites_of.get(r.dataset, ())]
        board = compute_leaderboard(
            subset,
            datasets=specs,
            aggregators=aggregators,
            suites=[group] if (named and group) else (),
            benchmarks=known,
            **filters,
        )
        board.suite = group
        boards.append(board)
    return boards or [
        compute_leaderboard(records, datasets=specs, aggregators=aggregators, benchmarks=known, **filters)
    ]
