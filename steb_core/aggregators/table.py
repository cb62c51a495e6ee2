"""The stored results as a table every aggregator reads: encoder x (dataset, task) -> metrics.

Two things are decided here once, so all aggregators agree on them:

* **the catalogue**: a dataset's categories, applications, languages and content-independence mark
  come from its registered :class:`~steb_core._specs.DatasetSpec` when the plugin is installed, else
  from the ``dataset_meta`` copied into the result record at run time. Aggregators read column
  membership from this data; the one exception is STEB's own catalogue, whose definitional rows and
  AV-overall membership follow the paper's tables (:mod:`.paper`) -- datasets it does not name still
  join the columns their tags name.
* **the scope**: which (dataset, task) pairs every encoder is expected to have. By default it is the
  union of what any encoder in the results has (so a model missing a dataset another model ran is
  incomplete); naming ``suites`` adds every registered dataset of those suites (with the task types
  ``DatasetSpec.suite_tasks`` gives for the suite), so a partial run of a suite is reported as partial. A suite
  that names a benchmark given to :meth:`ResultTable.build` (:class:`~steb_core.BenchmarkSpec`) is the benchmark's
  pairs instead, for every dataset the catalogue knows (registered, or stored with a result), as ``--suite`` runs.
  ``only_datasets``/``only_tasks``/``only_encoders`` narrow records and scope (``steb report`` filters).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .._results import ResultRecord
from .._specs import TASK_TYPES, BenchmarkSpec, DatasetSpec, TaskSpec
from .result import MissingInput

__all__ = ["DatasetInfo", "ResultTable", "as_spec_map", "as_table", "task_specs_of", "task_type_order"]


@dataclass(frozen=True)
class DatasetInfo:
    """The aggregation-relevant metadata of one dataset."""

    name: str
    tasks: tuple[str, ...] = ()
    languages: tuple[str, ...] = ("en",)
    categories: tuple[str, ...] = ()
    applications: tuple[str, ...] = ()
    content_independence: bool = False
    suites: tuple[str, ...] = ()
    #: suite -> task types of this dataset in that suite (absent: all of ``tasks``)
    suite_tasks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    source: str = "spec"  # "spec" (registered plugin) or "result" (dataset_meta of a stored record)

    @property
    def multilingual(self) -> bool:
        """Tagged ``multilingual``: scored only by the multilingual score (STEB's other scores are English)."""
        return "multilingual" in self.applications

    def tasks_for_suite(self, suite: str) -> tuple[str, ...]:
        """The task types this dataset contributes to ``suite`` (all its tasks unless the spec says otherwise)."""
        return dict(self.suite_tasks).get(suite, self.tasks)

    @classmethod
    def from_spec(cls, spec: DatasetSpec) -> DatasetInfo:
        return cls(
            name=spec.name,
            tasks=tuple(spec.tasks),
            languages=tuple(spec.languages),
            categories=tuple(spec.categories),
            applications=tuple(spec.applications),
            content_independence=bool(spec.content_independence),
            suites=tuple(spec.suites),
            suite_tasks=tuple((k, tuple(v)) for k, v in dict(getattr(spec, "suite_tasks", {}) or {}).items()),
            source="spec",
        )

    def in_benchmark(self, benchmark: BenchmarkSpec) -> DatasetInfo:
        """This dataset as a member of ``benchmark`` (suite named as it, with the tasks its pairs give, in this
        dataset's task order), the benchmark's pairs replacing a tag of that name; unchanged when not a member."""
        scored = benchmark.tasks_of(self.name)
        if not scored:
            return self
        ordered = (*(t for t in self.tasks if t in scored), *(t for t in scored if t not in self.tasks))
        return replace(
            self,
            suites=tuple(dict.fromkeys((*self.suites, benchmark.name))),
            suite_tasks=(*((k, v) for k, v in self.suite_tasks if k != benchmark.name), (benchmark.name, ordered)),
        )

    @classmethod
    def from_meta(cls, name: str, meta: Mapping[str, Any]) -> DatasetInfo:
        def tup(key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
            value = meta.get(key, default)
            if value is None:
                return default
            if isinstance(value, str):
                return (value,)
            return tuple(str(v) for v in value)

        raw_suite_tasks = meta.get("suite_tasks") or {}
        suite_tasks = (
            tuple(
                (str(k), (v,) if isinstance(v, str) else tuple(str(t) for t in v))
                for k, v in dict(raw_suite_tasks).items()
            )
            if isinstance(raw_suite_tasks, Mapping)
            else ()
        )
        return cls(
            name=name,
            suite_tasks=suite_tasks,
            tasks=tup("tasks"),
            languages=tup("languages", ("en",)),
            categories=tup("categories"),
            applications=tup("applications"),
            content_independence=bool(meta.get("content_independence", False)),
            suites=tup("suites"),
            source="result",
        )


def task_type_order(task: str) -> tuple[int, str]:
    """Sort key: the built-in task types in their canonical order, then plugin task types by name."""
    return (TASK_TYPES.index(task), task) if task in TASK_TYPES else (len(TASK_TYPES), task)


def task_specs_of(tasks: Iterable[TaskSpec] | None) -> dict[str, TaskSpec]:
    """Task type -> spec for ``tasks`` (a registry iterates as its specs); None: steb's built-in task types."""
    if tasks is None:
        from ..tasks import builtin_tasks

        tasks = builtin_tasks()
    return {spec.name: spec for spec in tasks if isinstance(spec, TaskSpec)}


def as_spec_map(datasets: Any) -> dict[str, DatasetSpec]:
    """Accept a registry, a name -> spec mapping, an iterable of specs, or None."""
    if datasets is None:
        return {}
    if isinstance(datasets, Mapping):
        return {str(k): v for k, v in datasets.items() if isinstance(v, DatasetSpec)}
    return {spec.name: spec for spec in datasets if isinstance(spec, DatasetSpec)}


@dataclass
class ResultTable:
    """Result records indexed by (encoder, dataset, task), with the catalogue and the scope.

    Iterating over it yields the records, so an aggregator written against a plain list of
    :class:`ResultRecord` also works when given a table.
    """

    records: dict[tuple[str, str, str], ResultRecord]
    catalogue: dict[str, DatasetInfo]
    expected: list[tuple[str, str]]
    encoders: list[str]
    notes: list[str] = field(default_factory=list)
    #: a frozen operational cluster set (:class:`~.clusters.ClusterSet`); None: clusters are discovered
    cluster_set: Any = None
    #: task type -> its spec, which says the metric each kind of column reads (:meth:`metrics`); the report passes
    #: the registered task types, a table built without them knows steb's built-in ones
    task_specs: dict[str, TaskSpec] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        results: Iterable[ResultRecord],
        datasets: Any = None,
        *,
        suites: Iterable[str] = (),
        only_datasets: Iterable[str] | None = None,
        only_tasks: Iterable[str] | None = None,
        only_encoders: Iterable[str] | None = None,
        cluster_set: Any = None,
        tasks: Iterable[TaskSpec] | None = None,
        benchmarks: Iterable[BenchmarkSpec] = (),
    ) -> ResultTable:
        """Index ``results``; ``suites`` widen the scope to every dataset of those suites (their suite
        tasks), and the ``only_*`` filters narrow records and scope to those datasets, tasks, encoders.
        ``tasks``: the task specs whose column metrics the aggregates read (default: steb's built-in task types;
        the report passes the registered ones, plugins' included). ``benchmarks``: the registered benchmarks; a
        suite named like one widens to its pairs (:meth:`DatasetInfo.in_benchmark`) rather than to a tag."""
        specs = as_spec_map(datasets)
        keep_d = None if only_datasets is None else set(only_datasets)
        keep_t = None if only_tasks is None else set(only_tasks)
        keep_e = None if only_encoders is None else set(only_encoders)
        records: dict[tuple[str, str, str], ResultRecord] = {}
        for rec in results:
            if (keep_d is not None and rec.dataset not in keep_d) or (keep_t is not None and rec.task not in keep_t):
                continue
            if keep_e is not None and rec.encoder not in keep_e:
                continue
            records[(rec.encoder, rec.dataset, rec.task)] = rec  # a later record replaces an earlier one
        catalogue: dict[str, DatasetInfo] = {name: DatasetInfo.from_spec(spec) for name, spec in specs.items()}
        for (_, dataset, _), rec in records.items():
            if dataset not in catalogue:
                catalogue[dataset] = DatasetInfo.from_meta(dataset, rec.dataset_meta or {})
        named = set(suites)
        for benchmark in benchmarks:
            if benchmark.name in named:
                catalogue = {name: info.in_benchmark(benchmark) for name, info in catalogue.items()}
        expected = {(d, t) for (_, d, t) in records}
        notes: list[str] = []
        for suite in suites:
            members = [info for info in catalogue.values() if suite in info.suites]
            if not members:
                notes.append(f"suite '{suite}': no registered dataset belongs to it")
            for info in members:
                expected.update((info.name, task) for task in info.tasks_for_suite(suite))
        expected = {(d, t) for d, t in expected if (keep_d is None or d in keep_d) and (keep_t is None or t in keep_t)}
        encoders = sorted({enc for (enc, _, _) in records})
        ordered = sorted(expected, key=lambda dt: (task_type_order(dt[1]), dt[0]))
        return cls(records, catalogue, ordered, encoders, notes, cluster_set, task_specs_of(tasks))

    def __iter__(self) -> Iterator[ResultRecord]:
        return iter(self.records.values())

    def metrics(self, kind: str) -> dict[str, str | tuple[str, ...]]:
        """Task type -> the metric the columns of ``kind`` read (:data:`steb_core._specs.COLUMN_KINDS`), from the
        task specs; a task type the table has no spec for reads its records' main score."""
        found = {name: spec.column_metric(kind) for name, spec in self.task_specs.items()}
        return {name: metric for name, metric in found.items() if metric is not None}

    def feeds_content_independence(self, task: str) -> bool:
        """Whether results of ``task`` feed the content-independence column (its spec names a metric for it)."""
        spec = self.task_specs.get(task)
        return spec is not None and spec.column_metric("content-independence") is not None

    def __len__(self) -> int:
        return len(self.records)

    def info(self, dataset: str) -> DatasetInfo:
        return self.catalogue.get(dataset) or DatasetInfo(dataset, source="result")

    def task_types(self) -> list[str]:
        return sorted({t for (_, t) in self.expected}, key=task_type_order)

    def inputs(self, predicate: Callable[[DatasetInfo, str], bool]) -> list[tuple[str, str]]:
        """The expected (dataset, task) pairs whose dataset info and task satisfy ``predicate(info, task)``."""
        return [(d, t) for (d, t) in self.expected if predicate(self.info(d), t)]

    def get(self, encoder: str, dataset: str, task: str) -> ResultRecord | None:
        return self.records.get((encoder, dataset, task))

    def value(
        self, encoder: str, dataset: str, task: str, metric: str | tuple[str, ...] | None
    ) -> tuple[float | None, MissingInput | None]:
        """The number ``metric`` (``None``: the record's main score) or the reason it is unavailable.

        A tuple of metric names is tried in order: the first one the result has is used.
        """
        rec = self.get(encoder, dataset, task)
        if rec is None:
            return None, MissingInput(dataset, task, "no result")
        if isinstance(metric, tuple):
            metric = next((m for m in metric if m in rec.metrics), metric[0])
        if metric is None:
            raw, label = rec.main_score, f"main score ({rec.main_metric})"
        elif metric in rec.metrics:
            raw, label = rec.metrics[metric], f"metric '{metric}'"
        elif metric == rec.main_metric and rec.main_score is not None:
            raw, label = rec.main_score, f"metric '{metric}'"
        else:
            return None, MissingInput(dataset, task, f"result has no metric '{metric}'{_why(rec)}")
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            return None, MissingInput(dataset, task, f"{label} is {raw!r}, not a finite number{_why(rec)}")
        return float(raw), None


def _why(rec: ResultRecord) -> str:
    """The failure/skip reason a runner may have stored in the metrics, if any."""
    for key in ("error", "skipped", "reason"):
        value = rec.metrics.get(key)
        if value:
            return f" ({key}: {value})"
    return ""


def as_table(results: Any, datasets: Any = None) -> ResultTable:
    """A :class:`ResultTable` from whatever an aggregator was given (a table is passed through)."""
    if isinstance(results, ResultTable):
        return results
    return ResultTable.build(results, datasets)
