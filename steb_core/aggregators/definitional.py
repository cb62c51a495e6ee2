"""Definitional scores: what aspect of style a model captures (STEB Tables 3 and 9).

Column membership follows STEB's Table 13 (:mod:`.paper`), not the ``categories`` tags: each column is
the mean over its Table 13 *rows*, each row the mean over the (dataset, task) inputs of its datasets
(Blog = blog_age + blog_gender, PASTEL = its six, PAN rows by year collapsed across tasks and
difficulty levels). Datasets STEB's catalogue does not know (the demo suite, community plugins) form a
row of their own in the columns their tags name. Order alignment contributes plain accuracy everywhere
except content independence. Like the operational score these columns are English: datasets tagged
``multilingual`` feed only the multilingual score.

Two readings of how the columns combine (``reading=``):

* ``table9`` (:data:`TABLE9_READING`, the default) -- the paper's arithmetic, checked on all 40 model
  rows of its Table 9: **Object of Study** is the mean of six columns (genre, register, time,
  demographics, dialect, **idiolect**); **idiolect** is the mean of AV overall and AR, the same two
  columns as the applications table (:data:`.paper.IDIOLECT_PARTS`; PAN18 style change is in neither);
  the **definitional** score is the mean of Object of Study, linguistic features and **content
  independence** (order-alignment distractor accuracy over Table 13's eleven rows). Where the paper
  contradicts itself (Table 13 lists idiolect rows, PAN18 SC among them, that its numbers do not
  average) steb follows the numbers.
* ``three-groups`` (:data:`THREE_GROUPS_READING`) -- steb 0.1's reading (before the Table 9 fix): Object of Study is
  the mean of the five columns without idiolect; idiolect is the mean over Table 13's idiolect rows
  (PAN18 SC and PAN18 cross-domain AA two rows); the definitional score is the mean of Object of Study,
  linguistic features and idiolect, with content independence beside. Kept so old numbers can be
  reproduced: :func:`three_groups_specs` registers it under its own column names
  (``steb report DIR --plugin steb_core.aggregators.three_groups``).

Each definitional aggregate says its reading in ``details["reading"]`` (and so in ``aggregates.json``).
"""

from __future__ import annotations

from typing import Any, Callable

from ..specs import AggregatorSpec
from .applications import application_column
from .columns import DEFINITIONAL_METRIC, DISTRACTOR_METRIC, mean_of_columns, mean_of_rows, rows_column
from .paper import IDIOLECT_PARTS, OBJECT_OF_STUDY_COLUMNS, TABLE13_ROWS, known_to_table13
from .result import AggregateResult, Column
from .table import DatasetInfo, ResultTable, as_table

__all__ = [
    "TABLE9_READING",
    "THREE_GROUPS_READING",
    "READINGS",
    "OBJECTS_OF_STUDY",
    "table13_rows",
    "definitional_column",
    "idiolect_column",
    "objects_of_study_score",
    "linguistic_features_score",
    "idiolect_score",
    "content_independence_score",
    "definitional_score",
    "category_score",
    "definitional_specs",
    "three_groups_specs",
]

#: The paper's arithmetic (Tables 3 and 9); the default.
TABLE9_READING = "table9"
#: steb 0.1's reading (before the Table 9 fix) (five object-of-study columns, idiolect by Table 13 rows as a group).
THREE_GROUPS_READING = "three-groups"
READINGS = (TABLE9_READING, THREE_GROUPS_READING)

#: The five object-of-study columns read from Table 13 rows: (category tag / Table 13 column key, label).
#: Under the ``table9`` reading Object of Study adds a sixth, idiolect (:func:`idiolect_column`).
OBJECTS_OF_STUDY = OBJECT_OF_STUDY_COLUMNS


def _check_reading(reading: str) -> str:
    if reading not in READINGS:
        raise ValueError(f"unknown definitional reading {reading!r}; expected one of {', '.join(READINGS)}")
    return reading


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


def idiolect_column(table: ResultTable, name: str, label: str, reading: str = TABLE9_READING) -> Column:
    """The idiolect column under ``reading``.

    ``table9``: the mean of the AV-overall and AR columns of the applications table, each one row of
    this column. A part with no dataset in scope is left out, as a Table 13 row with no dataset in
    scope is (so a scope holding only AR datasets has idiolect = AR); with neither, there is no column.
    ``three-groups``: the mean over Table 13's idiolect rows.
    """
    if _check_reading(reading) == THREE_GROUPS_READING:
        return definitional_column(table, "idiolect", name, label)
    parts = [application_column(table, tag, f"{name}#{tag}", part_label) for tag, part_label in IDIOLECT_PARTS]
    in_scope = [part for part in parts if part.inputs]
    return mean_of_rows(table.encoders, name, label, in_scope, empty_reason="no dataset in scope is tagged 'AV' or 'AR' (STEB Table 9's idiolect parts)")


def _idiolect_left_out(table: ResultTable, column: Column) -> list[str]:
    """English idiolect datasets in scope that feed neither idiolect part (STEB's PAN18 style change)."""
    used = {d for d, _ in column.inputs}
    idiolect_rows = {n for _, names in TABLE13_ROWS["idiolect"] for n in names}
    return sorted(
        {
            d
            for d, _ in table.expected
            if d not in used and not table.info(d).multilingual and (d in idiolect_rows or "idiolect" in table.info(d).categories)
        }
    )


def _five_columns(table: ResultTable) -> list[Column]:
    return [definitional_column(table, key, f"objects-of-study/{key}", label) for key, label in OBJECTS_OF_STUDY]


def _mean_aggregate(table: ResultTable, subs: list[Column], **fields: Any) -> AggregateResult:
    scores, missing = mean_of_columns(table.encoders, subs)
    # an order-alignment input can feed two groups (Register by plain accuracy, content independence by
    # distractor accuracy): list it once
    inputs = list(dict.fromkeys(i for sub in subs for i in sub.inputs))
    return AggregateResult(scores=scores, missing=missing, inputs=inputs, sub_columns=subs, **fields)


def _as_group(agg: AggregateResult) -> Column:
    """An aggregate as one group column of the definitional score (its own sub-columns dropped)."""
    return Column(agg.name, agg.label, agg.scores, agg.missing, agg.inputs, agg.note, agg.short, agg.rows)


def objects_of_study_score(results: Any, datasets: Any = None, *, reading: str = TABLE9_READING) -> AggregateResult:
    """Object of Study: the mean of six columns (``table9``: the five plus idiolect) or of five (``three-groups``)."""
    table = as_table(results, datasets)
    subs = _five_columns(table)
    if _check_reading(reading) == TABLE9_READING:
        subs.append(idiolect_column(table, "objects-of-study/idiolect", "Idiolect", reading))
        description = (
            "Mean of genre, register, time, demographics, dialect and idiolect (STEB Tables 3 and 9); each column is the mean "
            "over its STEB Table 13 rows, idiolect the mean of AV overall and AR."
        )
        name, label = "objects-of-study", "Objects of study"
    else:
        description = (
            "Mean of genre, register, time, demographics and dialect, each the mean over its STEB Table 13 rows "
            "(steb 0.1's reading (before the Table 9 fix): no idiolect)."
        )
        name, label = "objects-of-study-five", "Objects of study (five)"
    return _mean_aggregate(table, subs, name=name, label=label, short="Obj.", description=description, order=21, details={"reading": reading})


def _single(table: ResultTable, column: str, name: str, label: str, short: str, description: str, order: int) -> AggregateResult:
    col = definitional_column(table, column, name, label)
    return AggregateResult.from_column(col, short=short, description=description, order=order)


def linguistic_features_score(results: Any, datasets: Any = None) -> AggregateResult:
    table = as_table(results, datasets)
    return _single(
        table, "linguistic-feature", "linguistic-features", "Linguistic features", "Feat.",
        "Mean over the linguistic-feature rows of STEB Table 13 (STEL/SynthSTEL features, StylePTB, probing).", 30,
    )


def idiolect_score(results: Any, datasets: Any = None, *, reading: str = TABLE9_READING) -> AggregateResult:
    """Idiolect: the mean of AV overall and AR (``table9``) or over Table 13's idiolect rows (``three-groups``)."""
    table = as_table(results, datasets)
    if _check_reading(reading) == TABLE9_READING:
        col = idiolect_column(table, "idiolect", "Idiolect", reading)
        description = (
            "Mean of AV overall and AR, the applications table's two columns (STEB Table 9: Idiolect = (AV overall + AR) / 2; "
            "PAN18 style change, a Table 13 idiolect row, is in neither). One of the six object-of-study columns."
        )
        left_out = _idiolect_left_out(table, col)
        return AggregateResult.from_column(
            col, short="Idio.", description=description, order=25, details={"reading": reading, "idiolect_datasets_in_neither_part": left_out}
        )
    col = idiolect_column(table, "idiolect-table13-rows", "Idiolect (Table 13 rows)", reading)
    description = (
        "Mean over the idiolect rows of STEB Table 13 (Enron, PAN by year across tasks and levels, PAN18 SC and PAN18 "
        "cross-domain AA as two rows, Amazon, fanfiction, StackExchange); steb 0.1's reading (before the Table 9 fix)."
    )
    return AggregateResult.from_column(col, short="Idio. rows", description=description, order=36, details={"reading": reading})


def content_independence_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Order-alignment distractor accuracy over STEB Table 13's content-independence rows."""
    table = as_table(results, datasets)
    return _single(
        table, "content-independence", "content-independence", "Content independence", "Indep.",
        "Order-alignment distractor accuracy over the content-independence rows of STEB Table 13 (STEL's are STEL-or-Content); "
        "one of the definitional score's three groups.", 40,
    )


def definitional_score(results: Any, datasets: Any = None, *, reading: str = TABLE9_READING) -> AggregateResult:
    """The definitional score: mean of three groups (see the module docstring for the two readings).

    ``table9``: Object of Study (six columns), linguistic features, content independence.
    ``three-groups``: Object of Study (five columns), linguistic features, idiolect (Table 13 rows).
    """
    table = as_table(results, datasets)
    _check_reading(reading)
    objects = _as_group(objects_of_study_score(table, reading=reading))
    features = linguistic_features_score(table)
    if reading == TABLE9_READING:
        groups: list[Column] = [objects, features, content_independence_score(table)]
        return _mean_aggregate(
            table, groups, name="definitional", label="Definitional", short="Def.",
            description=(
                "Mean of the three definitional groups: objects of study (six columns, idiolect included), linguistic "
                "features, content independence (STEB Tables 3 and 9)."
            ),
            order=20, details={"reading": reading},
        )
    groups = [objects, features, _as_group(idiolect_score(table, reading=reading))]
    return _mean_aggregate(
        table, groups, name="definitional-three-groups", label="Definitional (three groups)", short="Def. 3g",
        description=(
            "steb 0.1's reading (before the Table 9 fix): mean of objects of study (five columns), linguistic features and idiolect "
            "(Table 13 rows); content independence not averaged in."
        ),
        order=22, details={"reading": reading},
    )


def category_score(category: str, name: str, label: str, description: str, order: int, short: str = ""):
    """An aggregator function for one definitional column (Table 13 rows, then tagged unknown datasets)."""

    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        table = as_table(results, datasets)
        return _single(table, category, name, label, short, description, order)

    return aggregate


def definitional_specs() -> list[AggregatorSpec]:
    """The built-in definitional columns, STEB Table 9's reading."""
    return [
        AggregatorSpec("definitional", "Definitional: mean of objects of study, linguistic features and content independence", definitional_score, 20),
        AggregatorSpec("objects-of-study", "Definitional: mean of the six object-of-study columns (idiolect included)", objects_of_study_score, 21),
        AggregatorSpec("idiolect", "Definitional: idiolect, the mean of AV overall and AR", idiolect_score, 25),
        AggregatorSpec("linguistic-features", "Definitional: linguistic features", linguistic_features_score, 30),
        AggregatorSpec("content-independence", "Definitional: content independence (distractor accuracy)", content_independence_score, 40),
    ]


def _with_reading(fn: Callable[..., AggregateResult], reading: str) -> Callable[..., AggregateResult]:
    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        return fn(results, datasets, reading=reading)

    return aggregate


def three_groups_specs() -> list[AggregatorSpec]:
    """steb's steb 0.1 reading under its own column names, to show beside the built-in ones.

    Not registered by default; ``--plugin steb_core.aggregators.three_groups`` adds them to a report.
    """
    return [
        AggregatorSpec(
            "definitional-three-groups",
            "Definitional, steb 0.1 reading: mean of objects of study (five), linguistic features and idiolect (Table 13 rows)",
            _with_reading(definitional_score, THREE_GROUPS_READING), 22,
        ),
        AggregatorSpec(
            "objects-of-study-five", "Definitional, steb 0.1 reading: mean of the five object-of-study columns (no idiolect)",
            _with_reading(objects_of_study_score, THREE_GROUPS_READING), 23,
        ),
        AggregatorSpec(
            "idiolect-table13-rows", "Definitional, steb 0.1 reading: idiolect as the mean over Table 13's rows",
            _with_reading(idiolect_score, THREE_GROUPS_READING), 36,
        ),
    ]
