"""Definitional scores: what aspect of style a model captures, by the categories datasets declare.

Membership comes from the dataset specs (``categories`` and ``content_independence``), so a new
dataset plugin feeds these columns by tagging its spec. Each column is the plain mean over its
(dataset, task) inputs; order alignment contributes plain accuracy, except in the
content-independence column, which is order-alignment distractor accuracy only. Like the operational
score these columns are English: datasets tagged ``multilingual`` (which the PAN plugin also tags
``idiolect``) feed only the multilingual score.
"""

from __future__ import annotations

from typing import Any

from ..specs import AggregatorSpec
from .columns import DEFINITIONAL_METRIC, DISTRACTOR_METRIC, mean_column, mean_of_columns
from .result import AggregateResult
from .table import as_table

__all__ = ["OBJECTS_OF_STUDY", "objects_of_study_score", "category_score", "content_independence_score", "definitional_specs"]

#: Object-of-study columns: (category tag in DatasetSpec.categories, label).
OBJECTS_OF_STUDY: tuple[tuple[str, str], ...] = (
    ("genre", "Genre"),
    ("register", "Register"),
    ("time", "Time"),
    ("demographics", "Demographics"),
    ("dialect", "Dialect"),
    ("idiolect", "Idiolect"),
)


def _category_column(table, category: str, label: str, name: str):
    inputs = table.inputs(lambda info, task: category in info.categories and not info.multilingual)
    return mean_column(
        table, name, label, inputs, DEFINITIONAL_METRIC, empty_reason=f"no dataset in scope has category '{category}'"
    )


def objects_of_study_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Mean of the six object-of-study columns (each complete), with the columns as sub-columns."""
    table = as_table(results, datasets)
    subs = [_category_column(table, cat, label, f"objects-of-study/{cat}") for cat, label in OBJECTS_OF_STUDY]
    scores, missing = mean_of_columns(table.encoders, subs)
    return AggregateResult(
        name="objects-of-study",
        label="Objects of study",
        short="Obj.",
        scores=scores,
        missing=missing,
        inputs=[i for sub in subs for i in sub.inputs],
        description="Mean of genre, register, time, demographics, dialect and idiolect (each the mean over its datasets' tasks).",
        sub_columns=subs,
        order=20,
    )


def category_score(category: str, name: str, label: str, description: str, order: int, short: str = ""):
    """An aggregator function for one category column (used for linguistic features)."""

    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        table = as_table(results, datasets)
        col = _category_column(table, category, label, name)
        return AggregateResult.from_column(col, description=description, order=order, short=short)

    return aggregate


def content_independence_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Order-alignment distractor accuracy over the datasets marked ``content_independence``."""
    table = as_table(results, datasets)
    inputs = table.inputs(lambda info, task: info.content_independence and task == "order_alignment" and not info.multilingual)
    col = mean_column(
        table,
        "content-independence",
        "Content independence",
        inputs,
        DISTRACTOR_METRIC,
        empty_reason="no order-alignment dataset in scope is marked content_independence",
    )
    return AggregateResult.from_column(
        col,
        description="Order-alignment distractor accuracy over the datasets marked content_independence.",
        order=40,
        short="Indep.",
    )


def definitional_specs() -> list[AggregatorSpec]:
    features = "Linguistic features: mean over the tasks of datasets with category 'linguistic-feature'."
    return [
        AggregatorSpec("objects-of-study", "Definitional: mean of the six object-of-study columns", objects_of_study_score, 20),
        AggregatorSpec(
            "linguistic-features",
            "Definitional: linguistic features",
            category_score("linguistic-feature", "linguistic-features", "Linguistic features", features, 30, "Feat."),
            30,
        ),
        AggregatorSpec("content-independence", "Definitional: content independence (distractor accuracy)", content_independence_score, 40),
    ]
