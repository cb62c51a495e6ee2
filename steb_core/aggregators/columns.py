"""Which metric each task type contributes, and the all-or-nothing mean every column is built from."""

from __future__ import annotations

from typing import Sequence

from .result import Column, MissingInput
from .table import ResultTable

__all__ = ["DISTRACTOR_METRIC", "OPERATIONAL_METRIC", "DEFINITIONAL_METRIC", "metric_for", "metric_label", "mean_column", "mean_of_columns", "mean_of_rows", "rows_column"]

#: Strict metric per task type: order alignment counts only when the style is found despite a content
#: distractor (the content-independence column uses this map).
DISTRACTOR_METRIC: dict[str, str | tuple[str, ...]] = {
    "clustering": "v_measure",
    "pair_all": "auroc",
    "pair_predefined": "auroc",
    "order_alignment": "distractor_accuracy",
    "retrieval": "mrr",
    "probing": "accuracy",
}

#: Operational score: distractor accuracy, or plain accuracy for order-alignment datasets without
#: distractors (e.g. STEL's quadruples): their alternatives all share one content, so content cannot
#: help there and plain accuracy is already content-independent.
OPERATIONAL_METRIC: dict[str, str | tuple[str, ...]] = {**DISTRACTOR_METRIC, "order_alignment": ("distractor_accuracy", "accuracy")}

#: Object-of-study, feature and application columns use plain order-alignment accuracy; a result that
#: reports only distractor accuracy (every instance of the dataset has a distractor) counts with that.
DEFINITIONAL_METRIC: dict[str, str | tuple[str, ...]] = {**DISTRACTOR_METRIC, "order_alignment": ("accuracy", "distractor_accuracy")}


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
            else:
                values.append(value)
        scores[enc] = None if gaps else sum(values) / len(values)
        if gaps:
            missing[enc] = gaps
    return Column(name, label, scores, missing, list(inputs), note="" if inputs else empty_reason)


def mean_of_columns(encoders: Sequence[str], columns: Sequence[Column]) -> tuple[dict[str, float | None], dict[str, list[MissingInput]]]:
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


def mean_of_rows(encoders: Sequence[str], name: str, label: str, row_columns: Sequence[Column], *, empty_reason: str) -> Column:
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
