"""Small helpers shared by the task types: text de-duplication, pairwise scores, ranking metrics.

Kept separate from the task modules so that each metric is written once and tested once against
scikit-learn (see ``tests/tasks``).
"""

from __future__ import annotations

from typing import Any, Hashable, Iterable, Sequence

import numpy as np

from ..context import TaskContext
from ..encoders import l2_normalise
from ..errors import DataValidationError

__all__ = [
    "unique_index",
    "encode_labels",
    "pair_similarities",
    "binary_ranking_metrics",
    "plain",
    "option",
]

#: pairs handed to a similarity-only encoder per call: bounds memory and the size of text lists.
SIMILARITY_BATCH = 65_536


def unique_index(texts: Iterable[str]) -> tuple[list[str], np.ndarray]:
    """Distinct texts (first-seen order) and, per input text, its row in that list.

    Tasks embed each distinct text once even when it occurs in many records (pairs, groups).
    """
    rows: dict[str, int] = {}
    index = [rows.setdefault(t, len(rows)) for t in texts]
    return list(rows), np.asarray(index, dtype=np.int64)


def encode_labels(labels: Sequence[Hashable]) -> tuple[np.ndarray, list[Hashable]]:
    """Integer codes for class labels (codes follow first occurrence) and the list of classes."""
    classes: dict[Hashable, int] = {}
    codes = np.fromiter((classes.setdefault(lab, len(classes)) for lab in labels), dtype=np.int64, count=len(labels))
    return codes, list(classes)


def uses_cosine(ctx: TaskContext) -> bool:
    """True when scores are cosines of vectors we hold (no encoder-specific similarity to call)."""
    return ctx.has_vectors and ctx.similarity_fn is None


def pair_similarities(ctx: TaskContext, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
    """Score of each aligned pair (float64): cosine of the vectors, or the encoder's own similarity.

    With vectors, every distinct text is embedded once and the cosines are computed row-wise.
    Without (or with an encoder-defined similarity), ``ctx.similarity`` is called in batches.
    """
    if len(texts_a) != len(texts_b):
        raise ValueError(f"pair_similarities needs aligned lists, got {len(texts_a)} and {len(texts_b)} texts")
    if uses_cosine(ctx):
        uniques, index = unique_index([*texts_a, *texts_b])
        unit = l2_normalise(np.asarray(ctx.embed(uniques), dtype=np.float32))
        n = len(texts_a)
        out = np.empty(n, dtype=np.float64)
        for start in range(0, n, SIMILARITY_BATCH):  # gathered rows one batch at a time: bounded memory
            stop = min(start + SIMILARITY_BATCH, n)
            out[start:stop] = np.einsum("ij,ij->i", unit[index[start:stop]], unit[index[n + start : n + stop]])
        return out
    out = np.empty(len(texts_a), dtype=np.float64)
    for start in range(0, len(texts_a), SIMILARITY_BATCH):
        stop = min(start + SIMILARITY_BATCH, len(texts_a))
        out[start:stop] = np.asarray(ctx.similarity(texts_a[start:stop], texts_b[start:stop]), dtype=np.float64).reshape(-1)
    return out


def binary_ranking_metrics(scores: np.ndarray, positive: np.ndarray, *, what: str = "pairs") -> dict[str, float]:
    """AUROC and average precision of ``scores`` for the boolean labels ``positive``, from one sort.

    Same definitions as scikit-learn's ``roc_auc_score`` (trapezoidal ROC over distinct thresholds, so
    tied scores count one half, i.e. the Mann-Whitney U statistic) and ``average_precision_score``
    (precision at each distinct threshold weighted by the recall gained there). One descending sort
    serves both, which matters for the 4.5 M pairs of an all-to-all task.
    """
    scores = np.asarray(scores).reshape(-1)
    positive = np.asarray(positive, dtype=bool).reshape(-1)
    if scores.shape != positive.shape:
        raise ValueError(f"{len(scores)} scores for {len(positive)} labels")
    n_pos = int(np.count_nonzero(positive))
    n_neg = len(positive) - n_pos
    if n_pos == 0 or n_neg == 0:
        kind = "positive (same)" if n_neg == 0 else "negative (different)"
        raise DataValidationError(
            f"are all {kind}: AUROC needs both kinds", field=what, expected="both same and different pairs"
        )
    if not np.isfinite(scores).all():
        raise ValueError("similarity scores contain NaN or infinite values")
    # descending; the order inside a run of equal scores does not matter (one point per threshold)
    order = np.argsort(-scores)
    sorted_scores = scores[order]
    # last index of each run of equal scores = one ROC point per distinct threshold
    ends = np.append(np.flatnonzero(sorted_scores[1:] != sorted_scores[:-1]), len(scores) - 1)
    tps = np.cumsum(positive[order], dtype=np.int64)[ends]
    fps = ends + 1 - tps
    tpr = np.concatenate([[0.0], tps / n_pos])
    fpr = np.concatenate([[0.0], fps / n_neg])
    auroc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    precision = tps / (tps + fps)
    average_precision = float(np.sum(np.diff(tpr) * precision))
    return {"auroc": auroc, "average_precision": average_precision}


def plain(value: Any) -> Any:
    """Numpy scalars and nested containers turned into JSON-ready Python floats, ints and dicts."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value


def option(ctx: TaskContext, task: str, name: str, default: Any) -> Any:
    """A run option for one task: ``options["<task>.<name>"]`` or ``options[<task>][<name>]``, else default."""
    opts = ctx.options or {}
    key = f"{task}.{name}"
    if key in opts:
        return opts[key]
    nested = opts.get(task)
    if isinstance(nested, dict) and name in nested:
        return nested[name]
    return default
