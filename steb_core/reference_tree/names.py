"""The STEB leaderboard's names, as tables: datasets, task folders and ``metrics.json`` keys.

One place decides how a steb result record and a file of the STEB authors' results tree name the same thing,
so the exporter (:mod:`.export`), the importer (:mod:`.read`) and their tests cannot disagree.

Sources (github.com/rrivera1849/STEB, read through the search index):

* task folders: ``steb/core.py`` @18c49153 ``SUPPORTED_TASKS`` and ``evaluate`` (the folder is the task
  module's name);
* metric keys: ``steb/metrics.py`` @4b43dda3 (``calculate_pair_classification_metrics``: ``eer``, ``auc``,
  ``auc@{fpr:.2f}`` for FPR 0.01, 0.05, 0.10, 0.20, 0.30, 0.50; ``calculate_clustering_metrics``: ``v_measure``;
  ``calculate_retrieval_metrics``: ``mrr``, ``mean_rank``, ``recall@{k}`` for k 1, 8, 16, 32, 64, 128),
  ``steb/tasks/order_alignment.py`` @8a036408 (``acc_mean``, ``distractor_acc_mean``, ``_per_label``),
  ``steb/tasks/probing.py`` @acb3a009 (one key per feature, ``average``);
* the primary metric per task: ``scripts/benchmark_clustering/config.py`` ``TASK_METRICS`` (every stored version);
* dataset folders: ``os.path.basename(dataset_name)`` of the registry (``steb/steb_datasets/<name>/``); steb's
  STEB catalogue uses the same names (the paper's Table 15 misspells two, ``ceces`` and ``fce_11``), and its
  benchmark objects (:data:`steb_core._benchmarks.STEB_BENCHMARK`, ``STEB_MULTILINGUAL_BENCHMARK``) list them.

The reference's ``auc@...`` keys are its partial AUCs "at an FPR threshold" (McClish-standardised
``roc_auc_score(max_fpr=...)``). steb's pair tasks compute them and the EER from the reference's exact scores
(``scores=reference``, :mod:`steb_core.tasks.roc`) under the same names; a result scored otherwise, or stored
before steb computed them, lacks them, and an export lists them as missing rather than writing a number steb did
not compute. steb's retrieval records every recall cut-off as ``recall_at_<k>``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._benchmarks import STEB_BENCHMARK, STEB_MULTILINGUAL_BENCHMARK
from ..tasks.roc import FPR_THRESHOLDS

__all__ = [
    "REFERENCE_DATASETS",
    "DATASET_ALIASES",
    "TASK_FOLDERS",
    "STEB_TASKS",
    "MetricKey",
    "METRIC_KEYS",
    "FPR_THRESHOLDS",
    "RECALL_CUTOFFS",
    "primary_key",
    "metric_keys",
    "reference_dataset",
    "steb_dataset",
    "SHARE_BOUNDS",
    "DEFAULT_EPISODE_SIZE",
    "FIXED_EPISODE_CONFIG",
]

#: STEB's datasets: steb's registered name == the reference's results folder name. The 96 English datasets of
#: ``--suite steb`` (STEB Table 15) and the 17 non-English PAN sets of ``--suite steb-multilingual``, read from the
#: benchmark objects (:mod:`steb_core._benchmarks`), the one place that lists them.
REFERENCE_DATASETS: tuple[str, ...] = (*STEB_BENCHMARK.datasets, *STEB_MULTILINGUAL_BENCHMARK.datasets)

#: Reference folder names that name a steb dataset under another spelling (read only; steb writes the left side's
#: canonical form): the reference keeps a second eWAVE folder ``ewave`` (config @1fbd5f22), and the paper's Table 15
#: misspells two.
DATASET_ALIASES: dict[str, str] = {"ewave": "eWAVE", "ceces": "ceeces", "fce_11": "fce_l1"}

#: steb task type -> the reference's task folder (``steb/tasks/<folder>.py``).
TASK_FOLDERS: dict[str, str] = {
    "clustering": "clustering",
    "pair_all": "all_to_all_pair_classification",
    "pair_predefined": "pre_defined_pair_classification",
    "order_alignment": "order_alignment",
    "retrieval": "retrieval",
    "probing": "probing",
}
STEB_TASKS: dict[str, str] = {folder: task for task, folder in TASK_FOLDERS.items()}

#: The episode size of the reference's benchmark preset per task (``TASK_DEFAULTS`` of steb/core.py @18c49153):
#: 1 everywhere but retrieval, whose single episode holds all of a label's texts (size -1).
DEFAULT_EPISODE_SIZE: dict[str, int] = {task: (-1 if task == "retrieval" else 1) for task in TASK_FOLDERS}

#: Episode folders that do not depend on the data: ``<episode_size>_<n_episodes_per_class>`` with the preset's
#: fixed N (pre-defined pairs: 2 texts per trial; probing: each text its own class; retrieval: one episode).
FIXED_EPISODE_CONFIG: dict[str, str] = {"pair_predefined": "1_2", "probing": "1_1", "retrieval": "-1_1"}

RECALL_CUTOFFS = (1, 8, 16, 32, 64, 128)


@dataclass(frozen=True)
class MetricKey:
    """One ``metrics.json`` key of one task and the steb record metric holding the same number.

    ``reference``: the key the reference writes. ``steb``: the name steb stores the number under (steb's own
    metric where it computes one, else the reference key, kept as it is on import). On export a record's
    ``reference`` metric is used first (a run that records the reference's names beside steb's), then ``steb``.
    ``meaning``: what the number is, in both; ``condition``: when steb's number equals the reference's.
    ``bounds``: the closed range every value of the metric lies in (shares, AUCs, V-measure, accuracies in
    [0, 1]; a mean rank from 1 up); an imported value outside it is refused, never ranked.
    """

    task: str
    reference: str
    steb: str
    meaning: str
    primary: bool = False
    condition: str = ""
    bounds: tuple[float, float] = (0.0, 1.0)

    def out_of_range(self, value: float) -> str | None:
        """Why ``value`` cannot be this metric (None when it can)."""
        low, high = self.bounds
        if low <= value <= high:
            return None
        return f"{value!r} is outside the range of '{self.reference}' ([{low:g}, {high:g}])"

    def names(self) -> tuple[str, ...]:
        """The record metric names that hold this number, in the order an export tries them."""
        return tuple(dict.fromkeys((self.reference, self.steb)))


def _pair_keys(task: str) -> tuple[MetricKey, ...]:
    return (
        MetricKey(task, "eer", "eer", "equal error rate: brentq root of 1 - x - tpr(x) on the interpolated ROC"),
        MetricKey(
            task, "auc", "auroc", "ROC AUC of the pair similarities (same label/author = positive)", primary=True
        ),
        *(
            MetricKey(
                task,
                f"auc@{f:.2f}",
                f"auc@{f:.2f}",
                f"McClish-standardised partial AUC up to FPR {f:.2f} (roc_auc_score(max_fpr=...))",
            )
            for f in FPR_THRESHOLDS
        ),
    )


_ONE_TARGET = (
    "equal when every query has exactly one relevant target collection (STEB's retrieval sets: one query "
    "and one target collection per author, n_queries == n_targets); steb ranks the first relevant target, "
    "the reference averages over all relevant targets"
)

#: The one table of metric names: per task, in the order the reference writes its keys.
METRIC_KEYS: tuple[MetricKey, ...] = (
    MetricKey(
        "clustering", "v_measure", "v_measure", "V-measure of the k-means labels against the classes", primary=True
    ),
    *_pair_keys("pair_all"),
    *_pair_keys("pair_predefined"),
    MetricKey(
        "order_alignment", "acc_mean", "accuracy", "mean plain alignment score over all same-label pairs (pooled)"
    ),
    MetricKey(
        "order_alignment",
        "distractor_acc_mean",
        "distractor_accuracy",
        "mean distractor alignment score over all 'last' then all 'first' variants (pooled)",
        primary=True,
    ),
    MetricKey(
        "retrieval", "mrr", "mrr", "mean reciprocal rank of the true target", primary=True, condition=_ONE_TARGET
    ),
    MetricKey(
        "retrieval",
        "mean_rank",
        "mean_rank",
        "mean rank of the true target",
        condition=_ONE_TARGET,
        bounds=(1.0, math.inf),
    ),
    *(
        MetricKey(
            "retrieval",
            f"recall@{k}",
            f"recall_at_{k}",
            f"share of queries whose true target is within the first {k}",
            condition=_ONE_TARGET,
        )
        for k in RECALL_CUTOFFS
    ),
    MetricKey("probing", "average", "accuracy", "mean over features of the probe's test accuracy", primary=True),
)


#: the range of a per-feature probing accuracy and of a per-label order-alignment mean (keys the table has no row for)
SHARE_BOUNDS: tuple[float, float] = (0.0, 1.0)


def metric_keys(task: str) -> tuple[MetricKey, ...]:
    """The keys of ``task`` (a steb task type), in the reference's order."""
    return tuple(k for k in METRIC_KEYS if k.task == task)


def primary_key(task: str) -> MetricKey:
    """The key the reference's aggregation reads for ``task`` (``TASK_METRICS`` of config.py)."""
    return next(k for k in METRIC_KEYS if k.task == task and k.primary)


_REFERENCE = frozenset(REFERENCE_DATASETS)


def reference_dataset(name: str) -> str | None:
    """The reference folder name of steb dataset ``name``; None when STEB's leaderboard has no such dataset."""
    return name if name in _REFERENCE else None


def steb_dataset(folder: str) -> str | None:
    """The steb dataset a reference results folder holds; None when steb has no counterpart (listed, not guessed)."""
    if folder in _REFERENCE:
        return folder
    return DATASET_ALIASES.get(folder)
