"""The operational STEB score: macro-average within redundancy clusters, across clusters, across task types.

Per task type, the datasets in scope are clustered by how they rank the models (see
:mod:`.redundancy`); an encoder's task-type score is the mean over clusters of the mean within each
cluster, and the operational score the mean over task types. Clusters are discovered from the
encoders that have every dataset of that task type, so adding a model with partial results neither
changes the others' scores nor gets a score itself. Datasets tagged ``multilingual`` (non-English)
are left out: they have their own score.

A *frozen* cluster set (:class:`~.clusters.ClusterSet`, ``steb report --clusters FILE``, set on the
table as ``table.cluster_set``) replaces discovery, so scores do not depend on which other models are in
the folder: its clusters are used restricted to the datasets in scope, and a dataset in scope that the
set does not list is a cluster of its own (said in the task's note).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np

from .._specs import AggregatorSpec
from .columns import mean_of_columns, metric_for, metric_label
from .redundancy import MIN_MODELS, THRESHOLD, ClusterResult, discover_clusters
from .result import AggregateResult, Column, MissingInput
from .table import ResultTable, as_table, task_type_order

__all__ = ["operational_score", "operational_spec"]


def _task_column(table: ResultTable, task: str) -> tuple[Column, dict[str, Any]]:
    datasets = [d for (d, t) in _english_inputs(table) if t == task]
    metric = metric_for(task, table.metrics("operational"))
    values: dict[str, dict[str, float]] = {}
    missing: dict[str, list[MissingInput]] = {}
    for enc in table.encoders:
        row, gaps = {}, []
        for d in datasets:
            value, gap = table.value(enc, d, task, metric)
            if gap is not None:
                gaps.append(gap)
            elif value is not None:
                row[d] = value
        values[enc] = row
        if gaps:
            missing[enc] = gaps
    complete = [enc for enc in table.encoders if enc not in missing]
    matrix = np.array([[values[enc][d] for d in datasets] for enc in complete], dtype=float).reshape(
        len(complete), len(datasets)
    )
    frozen = getattr(table, "cluster_set", None)
    found = (
        _frozen_clusters(frozen, task, datasets)
        if frozen is not None
        else discover_clusters(matrix, datasets, complete)
    )
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


def _frozen_clusters(frozen: Any, task: str, datasets: list[str]) -> ClusterResult:
    """The frozen clusters of ``task`` restricted to ``datasets``; unlisted datasets are singletons."""
    listed = frozen.tasks.get(task, [])
    in_scope = set(datasets)
    clusters = [[d for d in c if d in in_scope] for c in listed]
    clusters = [c for c in clusters if c]
    covered = {d for c in clusters for d in c}
    extra = [d for d in datasets if d not in covered]
    notes = []
    if extra:
        notes.append(f"not in the cluster set, each its own cluster: {', '.join(extra)}")
    clusters += [[d] for d in extra]
    return ClusterResult(
        clusters, f"frozen: {frozen.name or frozen.source or 'cluster set'}", list(frozen.models), note="; ".join(notes)
    )


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
    frozen = getattr(table, "cluster_set", None)
    if frozen is not None:
        cluster_source = frozen.describe()
        frozen_info = {
            "name": frozen.name,
            "source": frozen.source,
            "n_models": frozen.n_models,
            "models": list(frozen.models),
        }
    else:
        used = sorted({m for info in clusters.values() for m in info.get("models", [])})
        cluster_source = f"discovered from the {len(used)} model(s) with complete results in these results"
        if any(info.get("method") == "none" for info in clusters.values()):
            cluster_source += (
                f" (fewer than {MIN_MODELS} for some task types: there every dataset is its own cluster; "
                "to compare with others' scores, freeze a shared set with --clusters FILE)"
            )
        frozen_info = None
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
        details={
            "clusters": clusters,
            "distance": "1 - spearman_rho",
            "threshold": THRESHOLD,
            "min_models": MIN_MODELS,
            "cluster_source": cluster_source,
            "cluster_set": frozen_info,
            "n_models": frozen.n_models
            if frozen is not None
            else len({m for info in clusters.values() for m in info.get("models", [])}),
        },
        order=10,
    )


def operational_spec() -> AggregatorSpec:
    return AggregatorSpec(
        name="operational",
        description="Operational STEB score: redundancy-clustered macro-average over datasets and task types",
        aggregate=operational_score,
        order=10,
    )
