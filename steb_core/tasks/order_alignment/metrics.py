"""One metric assembly for both rules: per-group credits in, the order-alignment metrics out.

Whichever rule decided the groups (:mod:`.stel_rule`, :mod:`.reference_rule`), the metrics are made the same
way from arrays over the groups in data order (no TaskContext):

* ``accuracy``: the mean credit of the scored plain groups (absent when there is none, e.g. STEL-or-Content
  data), beside it its mean per style type and ``chance_accuracy``, the mean chance level of those groups;
* ``distractor_accuracy``: the content-independence variant, the mean over the list of every distractor group
  whose distractor stands in the last column followed by every other one (the STEB reference's
  ``distractor_acc_mean`` in github.com/rrivera1849/STEB ``steb/tasks/order_alignment.py`` @8a036408
  ``OrderAlignmentTask.evaluate``: its "last" list, then its "first" list); per style type, per variant
  (``by_variant``) and ``chance_distractor_accuracy`` beside it (absent when there is no distractor group);
* the counts: scored plain and distractor groups, and those with more than one tied best assignment;
* under :data:`steb_core._instances.INSTANCES_KEY`, every scored group's credit in data order, plain and
  distractor groups apart (for paired tests, ``steb compare``).

A group whose credit is NaN is not scored (STEL's rule: one alternative per anchor, nothing to decide).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..._instances import INSTANCES_KEY

__all__ = ["UNSPECIFIED", "order_alignment_metrics"]

#: the style type of groups that name none
UNSPECIFIED = "unspecified"


def _mean_by(values: np.ndarray, style: np.ndarray) -> dict[str, float]:
    return {key: float(np.mean(values[style == key])) for key in sorted(set(style.tolist()))}


def order_alignment_metrics(
    credit: np.ndarray,
    chance: np.ndarray,
    tied: np.ndarray,
    distractor: np.ndarray,
    style: Sequence[str | None],
    distractor_first: np.ndarray,
    *,
    by_variant: bool = False,
    details: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The metrics of one run from per-group arrays (all of length ``groups``, in data order).

    ``credit``: each group's credit (NaN: not scored); ``chance``: its chance level; ``tied``: how many
    best assignments tie (more than 1 counts as tied); ``distractor``: whether it has a distractor;
    ``style``: its style type (None: unspecified); ``distractor_first``: whether its distractor stands
    elsewhere than in the last column (the reference's "first" variant). ``by_variant`` adds
    ``distractor_accuracy_by_variant`` (``last`` / ``first``); ``details`` (the rule's own counts and
    settings) follow the counts.
    """
    credit = np.asarray(credit, dtype=np.float64)
    scored = ~np.isnan(credit)
    has_d = np.asarray(distractor, dtype=bool)
    first = np.asarray(distractor_first, dtype=bool)
    styles = np.asarray([s or UNSPECIFIED for s in style], dtype=object)
    chance = np.asarray(chance, dtype=np.float64)
    tied = np.asarray(tied)
    plain = scored & ~has_d
    with_d = scored & has_d
    last, other = with_d & ~first, with_d & first
    metrics: dict[str, Any] = {}
    if plain.any():
        metrics["accuracy"] = float(np.mean(credit[plain]))
        metrics["accuracy_by_style_type"] = _mean_by(credit[plain], styles[plain])
        metrics["chance_accuracy"] = float(np.mean(chance[plain]))
    if with_d.any():
        metrics["distractor_accuracy"] = float(np.mean(np.concatenate([credit[last], credit[other]])))
        metrics["distractor_accuracy_by_style_type"] = _mean_by(credit[with_d], styles[with_d])
        if by_variant:
            variants = (("last", last), ("first", other))
            metrics["distractor_accuracy_by_variant"] = {k: float(np.mean(credit[v])) for k, v in variants if v.any()}
        metrics["chance_distractor_accuracy"] = float(np.mean(chance[with_d]))
    metrics.update(
        n_instances=int(np.count_nonzero(plain)),
        n_distractor_instances=int(np.count_nonzero(with_d)),
        n_tied=int(np.count_nonzero(tied[plain] > 1)),
        n_distractor_tied=int(np.count_nonzero(tied[with_d] > 1)),
        **dict(details or {}),
    )
    instances = {"accuracy": credit[scored & ~has_d].tolist(), "distractor_accuracy": credit[with_d].tolist()}
    metrics[INSTANCES_KEY] = {name: values for name, values in instances.items() if values}
    return metrics
