"""Definitional scores: what aspect of style a model captures (STEB Table 9's columns).

Column membership follows STEB's Table 13 (:mod:`.paper`), not the ``categories`` tags: each column is
the mean over its Table 13 *rows*, each row the mean over the (dataset, task) inputs of its datasets
(Blog = blog_age + blog_gender, PASTEL = its six, PAN rows by year collapsed across tasks and
difficulty levels). Datasets STEB's catalogue does not know (the demo suite, community plugins) form a
row of their own in the columns their tags name.

The three groups: **objects of study** (genre, register, time, demographics, dialect; the
Object-of-Study score is the mean of these five columns), **linguistic features** and **authorship**
(idiolect). The **definitional** score is the mean of those three groups. **Content independence** is
order-alignment *distractor* accuracy over its Table 13 rows and stands beside them. Order alignment
contributes plain accuracy everywhere else. Like the operational score these columns are English:
datasets tagged ``multilingual`` feed only the multilingual score.
"""

from __future__ import annotations

from typing import Any, Callable

from ..specs import AggregatorSpec
from .columns import DEFINITIONAL_METRIC, DISTRACTOR_METRIC, mean_of_columns, rows_column
from .paper import OBJECT_OF_STUDY_COLUMNS, TABLE13_ROWS, known_to_table13
from .result import AggregateResult, Column
from .table import DatasetInfo, ResultTable, as_table

__all__ = [
    "OBJECTS_OF_STUDY",
    "table13_rows",
    "definitional_column",
    "objects_of_study_score",
    "linguistic_features_score",
    "idiolect_score",
    "content_independence_score",
    "definitional_score",
    "category_score",
    "definitional_specs",
]

#: Object-of-study columns: (category tag / Table 13 column key, label).
OBJECTS_OF_STUDY = OBJECT_OF_STUDY_COLUMNS


def _tag_applies(column: str, info: DatasetInfo, task: str) -> bool:
    if column == "content-independence":
        return info.content_independence and task == "order_alignment"
    return column in info.categories


def table13_rows(table: ResultTable, column: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The rows of ``column`` that have inputs in scope: Table 13's rows, then one per unknown dataset."""
    task_ok: Callable[[str], bool] = (lambda t: t == "order_alignment") if column == "content-independence" else (lambda t: True)
    english = [(d, t) for d, t in table.expected if not table.info(d).multilingual and task_ok(t)]
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    for label, names in TABLE13_ROWS.get(column, ()):
        inputs = [(d, t) for d, t in english if d in names]
        if inputs:
            rows.append((label, inputs))
    others: dict[str, list[tuple[str, str]]] = {}
    for d, t in english:
        if not known_to_table13(d) and _tag_applies(column, table.info(d), t):
            others.setdefault(d, []).append((d, t))
    rows += sorted(others.items())
    return rows


def definitional_column(table: ResultTable, column: str, name: str, label: str) -> Column:
    """One definitional column: mean over its rows (content independence reads distractor accuracy)."""
    metrics = DISTRACTOR_METRIC if column == "content-independence" else DEFINITIONAL_METRIC
    what = "order-alignment dataset for content independence" if column == "content-independence" else f"'{column}' dataset"
    return rows_column(table, name, label, table13_rows(table, column), metrics, empty_reason=f"no {what} in scope (STEB Table 13 rows or tags)")


def _objects_columns(table: ResultTable) -> list[Column]:
    return [definitional_column(table, key, f"objects-of-study/{key}", label) for key, label in OBJECTS_OF_STUDY]


def _mean_aggregate(table: ResultTable, subs: list[Column], **fields: Any) -> AggregateResult:
    scores, missing = mean_of_columns(table.encoders, subs)
    return AggregateResult(scores=scores, missing=missing, inputs=[i for sub in subs for i in sub.inputs], sub_columns=subs, **fields)


def objects_of_study_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Mean of the five object-of-study columns (genre, register, time, demographics, dialect)."""
    table = as_table(results, datasets)
    return _mean_aggregate(
        table,
        _objects_columns(table),
        name="objects-of-study",
        label="Objects of study",
        short="Obj.",
        description="Mean of genre, register, time, demographics and dialect; each column is the mean over its STEB Table 13 rows.",
        order=21,
    )


def _single(table: ResultTable, column: str, name: str, label: str, short: str, description: str, order: int) -> AggregateResult:
    col = definitional_column(table, column, name, label)
    return AggregateResult.from_column(col, short=short, description=description, order=order)


def linguistic_features_score(results: Any, datasets: Any = None) -> AggregateResult:
    table = as_table(results, datasets)
    return _single(
        table, "linguistic-feature", "linguistic-features", "Linguistic features", "Feat.",
        "Mean over the linguistic-feature rows of STEB Table 13 (STEL/SynthSTEL features, StylePTB, probing).", 30,
    )


def idiolect_score(results: Any, datasets: Any = None) -> AggregateResult:
    table = as_table(results, datasets)
    return _single(
        table, "idiolect", "idiolect", "Authorship (idiolect)", "Auth.",
        "Mean over the idiolect rows of STEB Table 13 (Enron, PAN by year across tasks and levels, Amazon, fanfiction, StackExchange).", 35,
    )


def content_independence_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Order-alignment distractor accuracy over STEB Table 13's content-independence rows."""
    table = as_table(results, datasets)
    return _single(
        table, "content-independence", "content-independence", "Content independence", "Indep.",
        "Order-alignment distractor accuracy over the content-independence rows of STEB Table 13 (STEL's are STEL-or-Content).", 40,
    )


def definitional_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Mean of the three groups: objects of study, linguistic features, authorship (idiolect)."""
    table = as_table(results, datasets)
    objects = objects_of_study_score(table)
    groups: list[Column] = [
        Column(objects.name, objects.label, objects.scores, objects.missing, objects.inputs, objects.note, objects.short),
        linguistic_features_score(table),
        idiolect_score(table),
    ]
    return _mean_aggregate(
        table,
        groups,
        name="definitional",
        label="Definitional",
        short="Def.",
        description="Mean of the three definitional groups: objects of study, linguistic features, authorship (idiolect).",
        order=20,
    )


def category_score(category: str, name: str, label: str, description: str, order: int, short: str = ""):
    """An aggregator function for one definitional column (Table 13 rows, then tagged unknown datasets)."""

    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        table = as_table(results, datasets)
        return _single(table, category, name, label, short, description, order)

    return aggregate


def definitional_specs() -> list[AggregatorSpec]:
    return [
        AggregatorSpec("definitional", "Definitional: mean of objects of study, linguistic features and authorship", definitional_score, 20),
        AggregatorSpec("objects-of-study", "Definitional: mean of the five object-of-study columns", objects_of_study_score, 21),
        AggregatorSpec("linguistic-features", "Definitional: linguistic features", linguistic_features_score, 30),
        AggregatorSpec("idiolect", "Definitional: authorship (idiolect)", idiolect_score, 35),
        AggregatorSpec("content-independence", "Definitional: content independence (distractor accuracy)", content_independence_score, 40),
    ]
