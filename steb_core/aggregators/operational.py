"""The operational STEB score: macro-average within redundancy clusters, across clusters, across task types.

Per task type, the datasets in scope are clustered by how they rank the models (see
:mod:`.redundancy`); an encoder's task-type score is the mean over clusters of the mean within each
cluster, and the operational score the mean over task types. Clusters are discovered from the
encoders that have every dataset of that task type, so adding a model with partial results neither
changes the others' scores nor gets a score itself. Datasets tagged ``multilingual`` (non-English)
are left out: they have their own score.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np

from ..specs import AggregatorSpec
from .columns import OPERATIONAL_METRIC, mean_of_columns, metric_for, metric_label
from .redundancy import MIN_MODELS, THRESHOLD, discover_clusters
from .result import AggregateResult, Column, MissingInput
from .table import ResultTable, as_table, task_type_order

__all__ = ["operational_score", "operational_spec"]


def _task_column(table: ResultTable, task: str) -> tuple[Column, dict[str, Any]]:
    datasets = [d for (d, t) in _english_inputs(table) if t == task]
    metric = metric_for(task, OPERATIONAL_METRIC)
    values: dict[str, dict[str, float]] = {}
    missing: dict[str, list[MissingInput]] = {}
    for enc in table.encoders:
        row, gaps = {}, []
        for d in datasets:
            value, gap = table.value(enc, d, task, metric)
            if gap is not None:
                gaps.append(gap)
            else:
                row[d] = value
        values[enc] = row
        if gaps:
            missing[enc] = gaps
    complete = [enc for enc in table.encoders if enc not in missing]
    matrix = np.array([[values[enc][d] for d in datasets] for enc in complete], dtype=float).reshape(len(complete), len(datasets))
    found = discover_clusters(matrix, datasets, complete)
    scores: dict[str, float | None] = {}
    for enc in table.encoders:
        if enc in missing:
            scores[enc] = None
            continue
        cluster_means = [sum(values[enc][d] for d in cluster) / len(cluster) for cluster in found.clusters]
        scores[enc] = sum(cluster_means) / len(cluster_means)
    label = f"{task} ({metric_label(metric)})"
    column = Column(f"operational/{task}", label, scores, missing, [(d, task) for d in datasets], found.note)
    return column, {"metric": metric_label(metric), **asdict(found)}


def _english_inputs(table: ResultTable) -> list[tuple[str, str]]:
    """The operational score is STEB's English benchmark: datasets tagged ``multilingual`` are scored separately."""
    return table.inputs(lambda info, task: not info.multilingual)


def operational_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Aggregate stored results into the operational score (see the module docstring)."""
    table = as_table(results, datasets)
    sub_columns: list[Column] = []
    clusters: dict[str, Any] = {}
    for task in sorted({t for _, t in _english_inputs(table)}, key=task_type_order):
        column, info = _task_column(table, task)
        sub_columns.append(column)
        clusters[task] = info
    scores, missing = mean_of_columns(table.encoders, sub_columns)
    return AggregateResult(
        name="operational",
        label="Operational",
        short="Oper.",
        scores=scores,
        missing=missing,
        inputs=_english_inputs(table),
        note="" if sub_columns else "no results in scope",
        description=(
            "Mean over task types of the mean over redundancy clusters of the mean within each cluster; "
            f"clusters: Ward linkage on 1 - Spearman rho between model rankings, cut at {THRESHOLD} "
            f"(needs >= {MIN_MODELS} models with complete results, else each dataset is its own cluster)."
        ),
        sub_columns=sub_columns,
        details={"clusters": clusters, "distance": "1 - spearman_rho", "threshold": THRESHOLD, "min_models": MIN_MODELS},
        order=10,
    )


def operational_spec() -> AggregatorSpec:
    return AggregatorSpec(
        name="operational",
        description="Operational STEB score: redundancy-clustered macro-average over datasets and task types",
        aggregate=operational_score,
        order=10,
    )
