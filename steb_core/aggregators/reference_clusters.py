"""STEB's manual dataset clusters, as the authors' leaderboard scripts define them (data, not code).

The clusters are ``scripts/dataset_clusters.yaml`` of github.com/rrivera1849/STEB at commit 91d6b69a (the only
one of its 54 stored versions the index lets one read; its cluster names are the published definitional columns),
transcribed into the STEB benchmark object (:data:`steb_core._benchmarks.STEB_BENCHMARK`, ``clusters``); this
module parses and reads them.
An entry is ``NAME [--oa_variant acc|distractor] [--oa_only]`` (``scripts/benchmark_clustering/manual_cluster.py``
@0a12dc0c ``parse_cluster_entry``): ``--oa_variant`` picks the order-alignment metric of that entry (``acc`` ->
``acc_mean``, steb's ``accuracy``; ``distractor`` -> ``distractor_acc_mean``, steb's ``distractor_accuracy``; none
-> the task's primary metric, config.py ``TASK_METRICS``, i.e. distractor accuracy), ``--oa_only`` keeps only the
entry's order-alignment task. How a cluster is averaged: :func:`.columns.task_metric_columns`.

How the leaderboard combines the clusters (config.py, index file 62021153327, ``DEFINITIONAL_COLUMNS``): Genre,
Register, Time, Demographics, Dialect, Idiolect are the clusters of those names; Object of Study is the mean of the
six; Linguistic Features is ``predefined_features``; Content Independence is ``style_vs_content``; the Definitional
score is the mean of Object of Study, Linguistic Features and Content Independence. The applications sheet
(``AGGREGATE_SHEETS`` "summary_tasks") averages ``machine_text_detection``, ``machine_text_detection_adversarial``,
``authorship_verification`` and ``authorship_retrieval``.

Where this version differs from the paper's Table 13 (steb's ``table13`` weighting): Corpus of Diverse Styles is a
Register entry (all its tasks, order alignment by plain accuracy), not Genre; Genre holds ``the_pile`` (no steb
dataset); PASTEL time-of-day is in no cluster; Twitter AAE/SAE is a Dialect entry read by distractor accuracy and
not a Content Independence one; PAN18 style change is in authorship verification and idiolect. docs/leaderboard.md
cannot tell these apart (it publishes cluster values only), so steb follows the code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._benchmarks import CLUSTERS_SOURCE, STEB_BENCHMARK
from ..reference_tree.names import reference_dataset
from .columns import metric_for
from .table import DatasetInfo, ResultTable

__all__ = [
    "CLUSTERS_SOURCE",
    "ClusterEntry",
    "parse_entry",
    "REFERENCE_CLUSTERS",
    "DEFINITIONAL_CLUSTERS",
    "APPLICATION_CLUSTERS",
    "OA_VARIANT_METRICS",
    "cluster_entries",
    "entry_metric",
    "Input",
    "cluster_inputs",
]

#: (dataset, task, metric) of one input of a cluster: ``metric`` is a steb metric name, a tuple tried in order, or
#: None (the record's main score, for plugin task types)
Input = tuple[str, str, "str | tuple[str, ...] | None"]


#: ``--oa_variant`` -> the steb metric it reads (config.py ``OA_VARIANT_METRICS``: acc_mean, distractor_acc_mean).
OA_VARIANT_METRICS: dict[str, str] = {"acc": "accuracy", "distractor": "distractor_accuracy"}


@dataclass(frozen=True)
class ClusterEntry:
    """One dataset entry of a cluster, with its order-alignment flags."""

    dataset: str
    oa_variant: str | None = None
    oa_only: bool = False


def parse_entry(text: str) -> ClusterEntry:
    """``"NAME --oa_variant acc --oa_only"`` -> :class:`ClusterEntry` (flags in any order; anything else refused)."""
    name, *tokens = text.split()
    variant: str | None = None
    only = False
    it = iter(tokens)
    for token in it:
        if token == "--oa_only":
            only = True
        elif token == "--oa_variant":
            variant = next(it, None)
            if variant not in OA_VARIANT_METRICS:
                raise ValueError(
                    f"cluster entry {text!r}: --oa_variant expects one of {sorted(OA_VARIANT_METRICS)}, got {variant!r}"
                )
        else:
            raise ValueError(f"cluster entry {text!r}: unexpected token {token!r}")
    return ClusterEntry(name, variant, only)


#: cluster name -> its entries, in the YAML's order, parsed from the STEB benchmark object's clusters
#: (:data:`steb_core._benchmarks.STEB_BENCHMARK`, the one place that lists them; ``speaker_attribution``'s
#: Fisher/RadioTalk sets have no steb dataset and feed no leaderboard column; kept so the table is the file's).
REFERENCE_CLUSTERS: dict[str, tuple[ClusterEntry, ...]] = {
    name: tuple(parse_entry(e) for e in entries) for name, entries in STEB_BENCHMARK.clusters.items()
}

#: steb's definitional column key (a category tag) -> the reference cluster behind it.
DEFINITIONAL_CLUSTERS: dict[str, str] = {
    "genre": "genre",
    "register": "register",
    "time": "time",
    "demographics": "demographics",
    "dialect": "dialect",
    "idiolect": "idiolect",
    "linguistic-feature": "predefined_features",
    "content-independence": "style_vs_content",
}

#: steb's application tag -> the reference cluster behind it (the AV levels and multilingual have none: tags decide).
APPLICATION_CLUSTERS: dict[str, str] = {
    "ATD": "machine_text_detection",
    "ATD-adversarial": "machine_text_detection_adversarial",
    "AV": "authorship_verification",
    "AR": "authorship_retrieval",
}


def cluster_entries(cluster: str) -> dict[str, tuple[ClusterEntry, ...]]:
    """dataset -> its entries in ``cluster`` (a dataset may appear twice, e.g. with different flags)."""
    out: dict[str, list[ClusterEntry]] = {}
    for entry in REFERENCE_CLUSTERS[cluster]:
        out.setdefault(entry.dataset, []).append(entry)
    return {d: tuple(e) for d, e in out.items()}


def entry_metric(
    task: str, entry: ClusterEntry, metrics: dict[str, str | tuple[str, ...]]
) -> str | tuple[str, ...] | None:
    """The steb metric an entry contributes for ``task`` (discovery.py @f568bff4 ``_resolve_metric_for_entry``):
    its ``oa_variant``'s, else the task's strict metric (``metrics``: the ``strict`` map)."""
    if task == "order_alignment" and entry.oa_variant is not None:
        return OA_VARIANT_METRICS[entry.oa_variant]
    return metric_for(task, metrics)


def cluster_inputs(
    table: ResultTable, cluster: str, others: Callable[[str, str, DatasetInfo], list[Input]]
) -> list[Input]:
    """The English inputs of ``cluster`` in ``table``'s scope: STEB datasets as the cluster's entries say, every other
    dataset as ``others(dataset, task, info)`` says (tags, or Table 13 for steb-only variants of STEB datasets)."""
    entries = cluster_entries(cluster)
    strict = table.metrics("strict")
    out: list[Input] = []
    for d, t in table.expected:
        info = table.info(d)
        if info.multilingual:
            continue
        ref = reference_dataset(d)
        if ref is None:
            out += others(d, t, info)
            continue
        out += [
            (d, t, entry_metric(t, e, strict))
            for e in entries.get(ref, ())
            if not (e.oa_only and t != "order_alignment")
        ]
    return out
