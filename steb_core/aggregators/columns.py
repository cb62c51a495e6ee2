"""Which metric each task type contributes, and the all-or-nothing mean every column is built from."""

from __future__ import annotations

from collections.abc import Sequence

from .result import Column, MissingInput
from .table import ResultTable, task_type_order

__all__ = [
    "REFERENCE_WEIGHTING",
    "TABLE13_WEIGHTING",
    "WEIGHTINGS",
    "check_weighting",
    "metric_for",
    "metric_label",
    "mean_column",
    "mean_of_columns",
    "mean_of_rows",
    "rows_column",
    "task_metric_columns",
]

#: How a definitional or application column averages its datasets (``weighting=``). ``reference`` (the default): as
#: the STEB authors' scripts do (scripts/benchmark_clustering/manual_cluster.py @0a12dc0c
#: ``build_manual_cluster_tables``; excel_export.py @60a14423 ``mc_df.mean(axis=1)``): one column per (task, metric),
#: each the mean over the cluster's datasets in it, and the cluster the mean of its columns.
REFERENCE_WEIGHTING = "reference"
#: steb 0.2's reading: the mean over STEB Table 13's rows, each row the mean over its datasets' tasks.
TABLE13_WEIGHTING = "table13"
WEIGHTINGS = (REFERENCE_WEIGHTING, TABLE13_WEIGHTING)


def check_weighting(weighting: str) -> str:
    """``weighting`` itself, or a ValueError naming the known ones."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"unknown column weighting {weighting!r}; expected one of {', '.join(WEIGHTINGS)}")
    return weighting


#: The three maps task type -> metric the columns read are not written here: each task's registered
#: :class:`~steb_core.TaskSpec` says its own (:meth:`~steb_core.TaskSpec.column_metric`), and the table an
#: aggregator reads holds them (:meth:`ResultTable.metrics`: ``table.metrics("content-independence")``,
#: ``"operational"``, ``"definitional"``), so a plugin's task type joins every column as a built-in does.
#: Order alignment, for example: the content-independence column reads ``distractor_accuracy`` (the style found
#: despite a content distractor); the operational score reads it, else plain ``accuracy`` (datasets without
#: distractors, e.g. STEL's quadruples, whose alternatives share one content, so plain accuracy is already
#: content-independent); the object-of-study, feature and application columns read plain ``accuracy``, else
#: ``distractor_accuracy`` (a dataset whose every instance has a distractor).


def metric_label(metric: str | tuple[str, ...] | None) -> str:
    """How a metric choice reads in reports: ``distractor_accuracy, else accuracy``."""
    if metric is None:
        return "main score"
    return ", else ".join(metric) if isinstance(metric, tuple) else metric


def metric_for(task: str, metrics: dict[str, str | tuple[str, ...]]) -> str | tuple[str, ...] | None:
    """The metric key for a task type; ``None`` (the record's main score) for plugin task types."""
    return metrics.get(task)


def mean_column(
    table: ResultTable,
    name: str,
    label: str,
    inputs: Sequence[tuple[str, str]],
    metrics: dict[str, str | tuple[str, ...]],
    *,
    empty_reason: str,
) -> Column:
    """Mean over ``inputs`` per encoder; ``None`` with the gaps listed when any input is unavailable."""
    scores: dict[str, float | None] = {}
    missing: dict[str, list[MissingInput]] = {}
    for enc in table.encoders:
        if not inputs:
            scores[enc], missing[enc] = None, [MissingInput("", "", empty_reason)]
            continue
        values, gaps = [], []
        for dataset, task in inputs:
            value, gap = table.value(enc, dataset, task, metric_for(task, metrics))
            if gap is not None:
                gaps.append(gap)
            elif value is not None:
                values.append(value)
        scores[enc] = None if gaps else sum(values) / len(values)
        if gaps:
            missing[enc] = gaps
    return Column(name, label, scores, missing, list(inputs), note="" if inputs else empty_reason)


def mean_of_columns(
    encoders: Sequence[str], columns: Sequence[Column]
) -> tuple[dict[str, float | None], dict[str, list[MissingInput]]]:
    """Per encoder, the mean of ``columns`` when all are complete; otherwise ``None`` and the union of their gaps."""
    scores: dict[str, float | None] = {}
    missing: dict[str, list[MissingInput]] = {}
    for enc in encoders:
        gaps = [gap for col in columns for gap in col.missing.get(enc, [])]
        values = [col.scores.get(enc) for col in columns]
        if gaps or not columns or any(v is None for v in values):
            scores[enc] = None
            if not columns:
                gaps = [MissingInput("", "", "no column to average")]
            missing[enc] = gaps
        else:
            scores[enc] = sum(values) / len(values)  # type: ignore[arg-type]
    return scores, missing


def rows_column(
    table: ResultTable,
    name: str,
    label: str,
    rows: Sequence[tuple[str, Sequence[tuple[str, str]]]],
    metrics: dict[str, str | tuple[str, ...]],
    *,
    empty_reason: str,
) -> Column:
    """Mean over ``rows`` of the mean within each row (all-or-nothing at both levels).

    ``rows`` are (row label, (dataset, task) inputs); a row with several datasets (STEB's Blog row =
    blog_age + blog_gender) counts once in the column, however many inputs it has.
    """
    row_columns = [
        mean_column(table, f"{name}#{row_label}", row_label, list(inputs), metrics, empty_reason=empty_reason)
        for row_label, inputs in rows
    ]
    return mean_of_rows(table.encoders, name, label, row_columns, empty_reason=empty_reason)


def mean_of_rows(
    encoders: Sequence[str], name: str, label: str, row_columns: Sequence[Column], *, empty_reason: str
) -> Column:
    """A column that is the mean of ready-made row columns (kept as its ``rows`` for the report).

    With no row in scope the column is a structural gap (``empty_reason``), like a column without inputs.
    """
    if not row_columns:
        scores: dict[str, float | None] = {enc: None for enc in encoders}
        missing = {enc: [MissingInput("", "", empty_reason)] for enc in encoders}
        return Column(name, label, scores, missing, [], note=empty_reason)
    scores, missing = mean_of_columns(encoders, row_columns)
    inputs = [i for row in row_columns for i in row.inputs]
    return Column(name, label, scores, missing, inputs, rows=list(row_columns))


def _inputs_column(
    table: ResultTable, name: str, label: str, inputs: Sequence[tuple[str, str, str | tuple[str, ...] | None]]
) -> Column:
    """Mean over ``inputs`` (dataset, task, metric) per encoder, all-or-nothing (the gaps listed)."""
    scores: dict[str, float | None] = {}
    missing: dict[str, list[MissingInput]] = {}
    for enc in table.encoders:
        values, gaps = [], []
        for dataset, task, metric in inputs:
            value, gap = table.value(enc, dataset, task, metric)
            if gap is not None:
                gaps.append(gap)
            elif value is not None:
                values.append(value)
        scores[enc] = None if gaps or not values else sum(values) / len(values)
        if gaps:
            missing[enc] = gaps
    return Column(name, label, scores, missing, [(d, t) for d, t, _ in inputs])


def task_metric_columns(
    table: ResultTable,
    name: str,
    label: str,
    inputs: Sequence[tuple[str, str, str | tuple[str, ...] | None]],
    *,
    empty_reason: str,
) -> Column:
    """A cluster's value as the STEB authors' scripts compute it: the mean of its (task, metric) columns.

    ``inputs`` are (dataset, task, metric): order alignment reads ``accuracy`` or ``distractor_accuracy`` per entry
    (the YAML's ``--oa_variant``), so one dataset can feed two columns of one cluster. Each (task, metric) column is
    the mean over its datasets (manual_cluster.py @0a12dc0c ``build_manual_cluster_tables``: "each cell is the
    average metric across datasets in that cluster that contribute to the column"); the cluster is the mean of its
    columns (excel_export.py @60a14423 ``mc_df.mean(axis=1)``), so a task with one dataset weighs as much as a task
    with ten. The columns are kept as the result's ``rows`` (labelled ``task (metric)``), in task order.
    Unlike the reference, which drops a dataset from a column when some model lacks it (``complete_datasets``),
    steb keeps its all-or-nothing rule: an encoder missing an input has no score, and the gap is listed.
    """
    groups: dict[tuple[str, str], list[tuple[str, str, str | tuple[str, ...] | None]]] = {}
    for dataset, task, metric in inputs:
        key = metric[0] if isinstance(metric, tuple) else (metric or "main score")
        groups.setdefault((task, key), []).append((dataset, task, metric))
    ordered = sorted(groups, key=lambda tk: (task_type_order(tk[0]), tk[1]))
    parts = []
    for task, key in ordered:
        members = groups[(task, key)]
        metric = members[0][2]
        parts.append(_inputs_column(table, f"{name}#{task}/{key}", f"{task} ({metric_label(metric)})", members))
    return mean_of_rows(table.encoders, name, label, parts, empty_reason=empty_reason)
