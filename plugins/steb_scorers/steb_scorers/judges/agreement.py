"""Agreement statistics for judges: self-consistency (Randolph's kappa) and agreement with humans."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any, TypeVar, overload

import numpy as np

H = TypeVar("H", bound=Hashable)

__all__ = ["randolph_kappa", "count_table", "agreement_with_humans", "majority"]


def count_table(labels: Sequence[Sequence[int]], n_categories: int) -> np.ndarray:
    """(items, categories) counts from each item's category indices."""
    table = np.zeros((len(labels), n_categories), dtype=np.int64)
    for i, row in enumerate(labels):
        for c in row:
            table[i, c] += 1
    return table


def randolph_kappa(table: np.ndarray) -> float:
    """Randolph's free-marginal multi-rater kappa (statsmodels), every item with the same number of ratings."""
    from statsmodels.stats.inter_rater import fleiss_kappa

    table = np.asarray(table)
    if table.shape[0] == 0:
        return float("nan")
    if len(set(table.sum(axis=1))) != 1:
        raise ValueError("randolph_kappa needs the same number of ratings for every item")
    return float(fleiss_kappa(table, method="randolph"))


@overload
def majority(values: Sequence[H], tie: H) -> H: ...


@overload
def majority(values: Sequence[H], tie: None = None) -> H | None: ...


def majority(values: Sequence[Any], tie: Any = None) -> Any:
    """The most frequent value; ``tie`` when the top two are equally frequent or there is no value."""
    if not values:
        return tie
    top = Counter(values).most_common(2)
    return tie if len(top) > 1 and top[0][1] == top[1][1] else top[0][0]


def agreement_with_humans(
    predicted: Sequence[Any], human: Sequence[Any], labels: Sequence[Any] | None = None
) -> dict[str, Any]:
    """Accuracy, Cohen's kappa and F1 (binary F1 for two labels with 1 positive, macro otherwise).

    Items the judge left undecided (None) are excluded and counted, never guessed.
    """
    from sklearn.metrics import accuracy_score, cohen_kappa_score, f1_score

    if len(predicted) != len(human):
        raise ValueError(f"{len(predicted)} judge labels for {len(human)} human labels")
    keep = [i for i, p in enumerate(predicted) if p is not None and not (isinstance(p, float) and np.isnan(p))]
    pred = [predicted[i] for i in keep]
    gold = [human[i] for i in keep]
    out: dict[str, Any] = {"n": len(keep), "undecided": len(predicted) - len(keep)}
    if not keep:
        return {**out, "accuracy": None, "cohen_kappa": None, "f1": None}
    labels = list(labels) if labels is not None else sorted(set(gold) | set(pred), key=str)
    binary = set(labels) == {0, 1}
    out["accuracy"] = float(accuracy_score(gold, pred))
    out["cohen_kappa"] = float(cohen_kappa_score(gold, pred, labels=labels))
    out["f1"] = float(
        f1_score(gold, pred, labels=labels, average="binary" if binary else "macro", pos_label=1, zero_division=0)
    )
    out["f1_average"] = "binary" if binary else "macro"
    return out
