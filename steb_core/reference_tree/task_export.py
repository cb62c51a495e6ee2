"""How a task type's results are written to the STEB leaderboard's results tree: :class:`TreeExport`, a spec field.

``steb export`` (:func:`steb_core.reference_tree.export.export_tree`) asks each record's registered
:class:`~steb_core.TaskSpec` for its ``tree_export``: the task folder, the ``metrics.json`` keys and the steb metrics
holding them, the episode folder when it does not depend on the data (or how the metrics fix it), and the keys a task
writes besides its metric keys. A plugin's task type that gives one is exported as a built-in is; one without is
listed as skipped. The built-in task types' exports are below, built from the reference's name tables
(:mod:`.names`: task folders, metric keys, the preset's fixed episode folders).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import StebError
from .names import FIXED_EPISODE_CONFIG, TASK_FOLDERS, MetricKey, metric_keys

__all__ = [
    "TreeExport",
    "export_number",
    "CLUSTERING_EXPORT",
    "PAIR_ALL_EXPORT",
    "PAIR_PREDEFINED_EXPORT",
    "ORDER_ALIGNMENT_EXPORT",
    "RETRIEVAL_EXPORT",
    "PROBING_EXPORT",
]

Metrics = Mapping[str, Any]


@dataclass(frozen=True)
class TreeExport:
    """A task type's place in the STEB results tree (``<dataset>/<short_name>/<episode>/<folder>/metrics.json``).

    ``keys``: the ``metrics.json`` keys in the order written, each naming the steb metric that holds its number (one
    ``primary``: the key the leaderboard reads; a record without a number for it is not exported). ``fixed_episode``:
    the episode folder when it does not depend on the data (``"1_1"``); else ``episode(metrics)`` may derive it where
    the arithmetic is exact, returning (folder, how), and otherwise the record's ``dataset_info`` or ``--episode``
    says. ``leading(metrics)`` / ``trailing(metrics)``: keys written before / after ``keys`` with notes (may raise
    :class:`StebError` when the record cannot be exported); ``why_missing(metrics)``: why a record lacks a key,
    when the task knows better than "not in the record".
    """

    folder: str
    keys: tuple[MetricKey, ...]
    fixed_episode: str | None = None
    episode: Callable[[Metrics], tuple[str, str] | None] | None = None
    leading: Callable[[Metrics], tuple[dict[str, Any], list[str]]] | None = None
    trailing: Callable[[Metrics], dict[str, Any]] | None = None
    why_missing: Callable[[Metrics], str | None] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", tuple(self.keys))
        if sum(1 for k in self.keys if k.primary) != 1:
            raise ValueError(f"tree export '{self.folder}': exactly one metric key must be primary")


def export_number(value: Any) -> float | None:
    """``value`` as a finite float for ``metrics.json``, else None (a bool, a string, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _clustering_episode(metrics: Metrics) -> tuple[str, str] | None:
    texts, k = metrics.get("n_texts"), metrics.get("n_clusters")
    if isinstance(texts, int) and isinstance(k, int) and k > 0 and texts % k == 0:
        return f"1_{texts // k}", "texts / clusters"
    return None


def _pair_all_episode(metrics: Metrics) -> tuple[str, str] | None:
    texts, same = metrics.get("n_texts"), metrics.get("n_positive_pairs")
    if isinstance(texts, int) and isinstance(same, int) and texts > 0 and (2 * same) % texts == 0:
        n = 2 * same // texts + 1
        if texts % n == 0:  # k classes of n texts: k * n * (n - 1) / 2 same-label pairs
            return f"1_{n}", "same-label pairs of balanced classes"
    return None


def _retrieval_check(metrics: Metrics) -> tuple[dict[str, Any], list[str]]:
    nq, nt = metrics.get("n_queries"), metrics.get("n_targets")
    if isinstance(nq, int) and isinstance(nt, int) and nq != nt:
        raise StebError(
            f"{nq} queries but {nt} target collections: steb's MRR ranks the first relevant target, "
            "the reference's averages over every relevant one; they agree only with one target "
            "per query"
        )
    if not (isinstance(nq, int) and isinstance(nt, int)):
        return {}, ["one relevant target per query assumed (the record does not count queries and targets)"]
    return {}, []


def _retrieval_why_missing(metrics: Metrics) -> str | None:
    rule = metrics.get("rule")
    if isinstance(rule, str) and rule.startswith("counted"):
        return f"not computed by retrieval's rule '{rule}' (the reference rule computes them)"
    return None


def _probing_features(metrics: Metrics) -> tuple[dict[str, Any], list[str]]:
    """One key per feature, then "average" (probing.py @acb3a009)."""
    by_feature = metrics.get("accuracy_by_feature")
    if not isinstance(by_feature, dict):
        return {}, ["no per-feature accuracies in the record: only 'average' written"]
    out = {}
    for name, value in by_feature.items():
        number = export_number(value)
        if number is not None and name != "average":
            out[str(name)] = number
    return out, []


def _order_alignment_per_label(metrics: Metrics) -> dict[str, Any]:
    """order_alignment.py's ``_per_label`` from steb's per-style-type means (or one kept from an import)."""
    kept = metrics.get("_per_label")
    if isinstance(kept, dict):
        return {"_per_label": kept}
    plain, distractor = metrics.get("accuracy_by_style_type"), metrics.get("distractor_accuracy_by_style_type")
    if not (isinstance(plain, dict) and isinstance(distractor, dict) and set(plain) == set(distractor)):
        return {}
    out = {}
    for label in plain:
        a, d = export_number(plain[label]), export_number(distractor[label])
        if a is None or d is None:
            return {}
        out[str(label)] = {"acc_mean": a, "distractor_acc_mean": d}
    return {"_per_label": out}


def _builtin(task: str, **rest: Any) -> TreeExport:
    return TreeExport(TASK_FOLDERS[task], metric_keys(task), FIXED_EPISODE_CONFIG.get(task), **rest)


CLUSTERING_EXPORT = _builtin("clustering", episode=_clustering_episode)
PAIR_ALL_EXPORT = _builtin("pair_all", episode=_pair_all_episode)
PAIR_PREDEFINED_EXPORT = _builtin("pair_predefined")
ORDER_ALIGNMENT_EXPORT = _builtin("order_alignment", trailing=_order_alignment_per_label)
RETRIEVAL_EXPORT = _builtin("retrieval", leading=_retrieval_check, why_missing=_retrieval_why_missing)
PROBING_EXPORT = _builtin("probing", leading=_probing_features)
