"""Definitional scores: what aspect of style a model captures (STEB Tables 3 and 9; the leaderboard's definitional).

Two ways of averaging a column's datasets (``weighting=``, :data:`.columns.WEIGHTINGS`):

* ``reference`` (the default) -- as the STEB authors' leaderboard scripts do: the column is a manual cluster of
  ``scripts/dataset_clusters.yaml`` (:mod:`.reference_clusters`), averaged as one column per (task, metric), each
  the mean over the cluster's datasets in it, the cluster the mean of those columns
  (:func:`.columns.task_metric_columns`). Register is then one third each order alignment, V-measure and AUC;
  linguistic features one half probing, one half order alignment; Idiolect the mean of its pre-defined-pairs AUC
  and retrieval MRR columns, i.e. (AV overall + AR) / 2 with no special case.
* ``table13`` -- steb 0.2's reading: the mean over STEB Table 13's *rows* (:mod:`.paper`), each row the mean over
  its datasets' (dataset, task) inputs (Blog = blog_age + blog_gender, PASTEL = its six, PAN rows by year), and
  Idiolect the mean of the AV-overall and AR application columns (PAN18 style change in neither, as Table 4 says).
  Registered beside the defaults by the opt-in plugin ``steb_core.aggregators.table13``.

Either way a dataset STEB's catalogue does not know (the demo suite, community plugins) joins the columns its
``categories`` tags (and ``content_independence`` mark) name, and a steb-only variant of a STEB dataset
(``STEL_register_official``, ``STEL-or-Content_*``) joins Table 13's columns. Order alignment contributes plain
accuracy everywhere except content independence (distractor accuracy) unless the cluster entry says otherwise.
Like the operational score these columns are English: datasets tagged ``multilingual`` feed only the multilingual score.

Two readings of how the columns combine (``reading=``):

* ``table9`` (:data:`TABLE9_READING`, the default) -- the paper's arithmetic, checked on all 40 model
  rows of its Table 9 and on every row of the three stored versions of docs/leaderboard.md: **Object of Study**
  is the mean of six columns (genre, register, time, demographics, dialect, **idiolect**); the **definitional**
  score is the mean of Object of Study, linguistic features and **content independence**.
* ``three-groups`` (:data:`THREE_GROUPS_READING`) -- steb 0.1's reading (before the Table 9 fix): Object of Study is
  the mean of the five columns without idiolect; idiolect is the mean over Table 13's idiolect rows
  (PAN18 SC and PAN18 cross-domain AA two rows); the definitional score is the mean of Object of Study,
  linguistic features and idiolect, with content independence beside. Always Table 13 rows. Kept so old numbers
  can be reproduced: :func:`three_groups_specs` registers it under its own column names
  (``steb report DIR --plugin steb_core.aggregators.three_groups``).

Each definitional aggregate says its reading and weighting in ``details`` (and so in ``aggregates.json``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._specs import AggregatorSpec
from .applications import application_column
from .columns import (
    REFERENCE_WEIGHTING,
    TABLE13_WEIGHTING,
    check_weighting,
    mean_of_columns,
    mean_of_rows,
    metric_for,
    rows_column,
    task_metric_columns,
)
from .paper import IDIOLECT_PARTS, OBJECT_OF_STUDY_COLUMNS, TABLE13_ROWS, known_to_table13
from .reference_clusters import CLUSTERS_SOURCE, DEFINITIONAL_CLUSTERS, Input, cluster_inputs
from .result import AggregateResult, Column
from .table import DatasetInfo, ResultTable, as_table

__all__ = [
    "TABLE9_READING",
    "THREE_GROUPS_READING",
    "READINGS",
    "OBJECTS_OF_STUDY",
    "table13_rows",
    "reference_inputs",
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
    "table13_specs",
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


def _tag_applies(table: ResultTable, column: str, info: DatasetInfo, task: str) -> bool:
    if column == "content-independence":
        return info.content_independence and table.feeds_content_independence(task)
    return column in info.categories


def table13_rows(table: ResultTable, column: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """The rows of ``column`` that have inputs in scope: Table 13's rows, then one per unknown dataset."""
    task_ok: Callable[[str], bool] = (
        table.feeds_content_independence if column == "content-independence" else (lambda t: True)
    )
    english = [(d, t) for d, t in table.expected if not table.info(d).multilingual and task_ok(t)]
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    for label, names in TABLE13_ROWS.get(column, ()):
        inputs = [(d, t) for d, t in english if d in names]
        if inputs:
            rows.append((label, inputs))
    others: dict[str, list[tuple[str, str]]] = {}
    for d, t in english:
        if not known_to_table13(d) and _tag_applies(table, column, table.info(d), t):
            others.setdefault(d, []).append((d, t))
    rows += sorted(others.items())
    return rows


def _column_metrics(table: ResultTable, column: str) -> dict[str, str | tuple[str, ...]]:
    """The metric map of ``column``: the content-independence column reads each task's strict metric (order
    alignment's distractor accuracy), every other definitional column the definitional one."""
    return table.metrics("content-independence" if column == "content-independence" else "definitional")


def _rule_metric(table: ResultTable, column: str, task: str) -> str | tuple[str, ...] | None:
    """The metric a dataset outside the reference clusters contributes (content independence: distractor accuracy)."""
    return metric_for(task, _column_metrics(table, column))


def _in_table13(table: ResultTable, column: str, dataset: str, task: str) -> bool:
    if column == "content-independence" and not table.feeds_content_independence(task):
        return False
    return any(dataset in names for _, names in TABLE13_ROWS.get(column, ()))


def reference_inputs(table: ResultTable, column: str) -> list[Input]:
    """The (dataset, task, metric) inputs of ``column`` under the ``reference`` weighting.

    A STEB dataset joins as its entries in the reference cluster say (:mod:`.reference_clusters`); a steb-only
    variant of a STEB dataset as its Table 13 rows say; any other dataset by its tags.
    """

    def others(d: str, t: str, info: DatasetInfo) -> list[Input]:
        member = _in_table13(table, column, d, t) if known_to_table13(d) else _tag_applies(table, column, info, t)
        return [(d, t, _rule_metric(table, column, t))] if member else []

    return cluster_inputs(table, DEFINITIONAL_CLUSTERS[column], others)


def _empty_reason(column: str, weighting: str) -> str:
    what = (
        "order-alignment dataset for content independence"
        if column == "content-independence"
        else f"'{column}' dataset"
    )
    where = "STEB Table 13 rows or tags"
    if weighting == REFERENCE_WEIGHTING:
        where = f"the '{DEFINITIONAL_CLUSTERS[column]}' cluster or tags"
    return f"no {what} in scope ({where})"


def definitional_column(
    table: ResultTable, column: str, name: str, label: str, weighting: str = REFERENCE_WEIGHTING
) -> Column:
    """One definitional column under ``weighting`` (see the module docstring)."""
    reason = _empty_reason(column, check_weighting(weighting))
    if weighting == REFERENCE_WEIGHTING:
        return task_metric_columns(table, name, label, reference_inputs(table, column), empty_reason=reason)
    metrics = _column_metrics(table, column)
    return rows_column(table, name, label, table13_rows(table, column), metrics, empty_reason=reason)


def idiolect_column(
    table: ResultTable, name: str, label: str, reading: str = TABLE9_READING, weighting: str = REFERENCE_WEIGHTING
) -> Column:
    """The idiolect column under ``reading`` and ``weighting``.

    ``table9`` + ``reference``: the reference's ``idiolect`` cluster, averaged like every cluster: its
    pre-defined-pairs AUC column (the AV sets) and its retrieval MRR column (the AR sets), so it equals
    (AV overall + AR) / 2 of the applications table by construction.
    ``table9`` + ``table13``: the mean of the AV-overall and AR columns of the applications table, each one row of
    this column. A part with no dataset in scope is left out, as a Table 13 row with no dataset in
    scope is (so a scope holding only AR datasets has idiolect = AR); with neither, there is no column.
    ``three-groups``: the mean over Table 13's idiolect rows.
    """
    if _check_reading(reading) == THREE_GROUPS_READING:
        return definitional_column(table, "idiolect", name, label, TABLE13_WEIGHTING)
    if check_weighting(weighting) == REFERENCE_WEIGHTING:
        return definitional_column(table, "idiolect", name, label, weighting)
    parts = [
        application_column(table, tag, f"{name}#{tag}", part_label, TABLE13_WEIGHTING)
        for tag, part_label in IDIOLECT_PARTS
    ]
    in_scope = [part for part in parts if part.inputs]
    return mean_of_rows(
        table.encoders,
        name,
        label,
        in_scope,
        empty_reason="no dataset in scope is tagged 'AV' or 'AR' (STEB Table 9's idiolect parts)",
    )


def _idiolect_left_out(table: ResultTable, column: Column) -> list[str]:
    """English idiolect datasets in scope that feed neither idiolect part (STEB's PAN18 style change)."""
    used = {d for d, _ in column.inputs}
    idiolect_rows = {n for _, names in TABLE13_ROWS["idiolect"] for n in names}
    return sorted(
        {
            d
            for d, _ in table.expected
            if d not in used
            and not table.info(d).multilingual
            and (d in idiolect_rows or "idiolect" in table.info(d).categories)
        }
    )


def _five_columns(table: ResultTable, weighting: str = REFERENCE_WEIGHTING) -> list[Column]:
    return [
        definitional_column(table, key, f"objects-of-study/{key}", label, weighting) for key, label in OBJECTS_OF_STUDY
    ]


def _suffix(weighting: str) -> str:
    """Names of the ``table13`` aggregates carry a suffix so both can be columns of one report."""
    return "" if weighting == REFERENCE_WEIGHTING else f"-{weighting}"


def _weighting_text(weighting: str) -> str:
    if weighting == REFERENCE_WEIGHTING:
        return f"one column per (task, metric) of its cluster in {CLUSTERS_SOURCE}, the column the mean of those"
    return "the mean over its STEB Table 13 rows"


def _mean_aggregate(table: ResultTable, subs: list[Column], **fields: Any) -> AggregateResult:
    scores, missing = mean_of_columns(table.encoders, subs)
    # an order-alignment input can feed two groups (Register by plain accuracy, content independence by
    # distractor accuracy): list it once
    inputs = list(dict.fromkeys(i for sub in subs for i in sub.inputs))
    return AggregateResult(scores=scores, missing=missing, inputs=inputs, sub_columns=subs, **fields)


def _as_group(agg: AggregateResult) -> Column:
    """An aggregate as one group column of the definitional score (its own sub-columns dropped)."""
    return Column(agg.name, agg.label, agg.scores, agg.missing, agg.inputs, agg.note, agg.short, agg.rows)


def objects_of_study_score(
    results: Any, datasets: Any = None, *, reading: str = TABLE9_READING, weighting: str = REFERENCE_WEIGHTING
) -> AggregateResult:
    """Object of Study: the mean of six columns (``table9``: the five plus idiolect) or of five (``three-groups``)."""
    table = as_table(results, datasets)
    if _check_reading(reading) == TABLE9_READING:
        check_weighting(weighting)
        subs = _five_columns(table, weighting)
        subs.append(idiolect_column(table, "objects-of-study/idiolect", "Idiolect", reading, weighting))
        idiolect = "idiolect the mean of AV overall and AR"
        if weighting == REFERENCE_WEIGHTING:
            idiolect = "idiolect the reference's idiolect cluster ((AV + AR) / 2 by construction)"
        description = (
            f"Mean of genre, register, time, demographics, dialect and idiolect (STEB Tables 3 and 9); each column is "
            f"{_weighting_text(weighting)}; {idiolect}."
        )
        name = f"objects-of-study{_suffix(weighting)}"
        label = "Objects of study" + ("" if weighting == REFERENCE_WEIGHTING else " (Table 13 rows)")
        details = {"reading": reading, "weighting": weighting}
    else:
        subs = _five_columns(table, TABLE13_WEIGHTING)
        description = (
            "Mean of genre, register, time, demographics and dialect, each the mean over its STEB Table 13 rows "
            "(steb 0.1's reading (before the Table 9 fix): no idiolect)."
        )
        name, label = "objects-of-study-five", "Objects of study (five)"
        details = {"reading": reading, "weighting": TABLE13_WEIGHTING}
    return _mean_aggregate(
        table, subs, name=name, label=label, short="Obj.", description=description, order=21, details=details
    )


def _single(
    table: ResultTable,
    column: str,
    name: str,
    label: str,
    short: str,
    description: str,
    order: int,
    weighting: str = REFERENCE_WEIGHTING,
) -> AggregateResult:
    col = definitional_column(table, column, name + _suffix(weighting), label, weighting)
    return AggregateResult.from_column(
        col, short=short, description=description, order=order, details={"weighting": weighting}
    )


def linguistic_features_score(
    results: Any, datasets: Any = None, *, weighting: str = REFERENCE_WEIGHTING
) -> AggregateResult:
    table = as_table(results, datasets)
    where = (
        "the reference's predefined_features cluster: probing average and order-alignment plain accuracy (StylePTB, "
        "STEL/SynthSTEL features), one half each"
        if check_weighting(weighting) == REFERENCE_WEIGHTING
        else "the linguistic-feature rows of STEB Table 13 (STEL/SynthSTEL features, StylePTB, probing)"
    )
    return _single(
        table,
        "linguistic-feature",
        "linguistic-features",
        "Linguistic features",
        "Feat.",
        f"Mean over {where}.",
        30,
        weighting,
    )


def idiolect_score(
    results: Any, datasets: Any = None, *, reading: str = TABLE9_READING, weighting: str = REFERENCE_WEIGHTING
) -> AggregateResult:
    """Idiolect: the reference cluster or the mean of AV overall and AR (``table9``), or Table 13's rows."""
    table = as_table(results, datasets)
    if _check_reading(reading) == TABLE9_READING:
        col = idiolect_column(table, "idiolect" + _suffix(weighting), "Idiolect", reading, weighting)
        if weighting == REFERENCE_WEIGHTING:
            description = (
                f"The idiolect cluster of {CLUSTERS_SOURCE} averaged per (task, metric): pre-defined-pairs AUC "
                "over the authorship-verification sets (PAN18 style change included, as the YAML has it) and "
                "retrieval MRR over the authorship-retrieval sets, so Idiolect = (AV overall + AR) / 2 (STEB Table 9) "
                "by construction."
            )
            return AggregateResult.from_column(
                col,
                short="Idio.",
                description=description,
                order=25,
                details={"reading": reading, "weighting": weighting},
            )
        description = (
            "Mean of AV overall and AR, the applications table's two columns (STEB Table 9: Idiolect = (AV overall + "
            "AR) / 2; "
            "PAN18 style change, a Table 13 idiolect row, is in neither). One of the six object-of-study columns."
        )
        left_out = _idiolect_left_out(table, col)
        return AggregateResult.from_column(
            col,
            short="Idio.",
            description=description,
            order=25,
            details={"reading": reading, "weighting": weighting, "idiolect_datasets_in_neither_part": left_out},
        )
    col = idiolect_column(table, "idiolect-table13-rows", "Idiolect (Table 13 rows)", reading)
    description = (
        "Mean over the idiolect rows of STEB Table 13 (Enron, PAN by year across tasks and levels, PAN18 SC and PAN18 "
        "cross-domain AA as two rows, Amazon, fanfiction, StackExchange); steb 0.1's reading (before the Table 9 fix)."
    )
    return AggregateResult.from_column(
        col,
        short="Idio. rows",
        description=description,
        order=36,
        details={"reading": reading, "weighting": TABLE13_WEIGHTING},
    )


def content_independence_score(
    results: Any, datasets: Any = None, *, weighting: str = REFERENCE_WEIGHTING
) -> AggregateResult:
    """Order-alignment distractor accuracy over the reference's style_vs_content cluster (or Table 13's rows)."""
    table = as_table(results, datasets)
    where = (
        f"the style_vs_content cluster of {CLUSTERS_SOURCE}"
        if check_weighting(weighting) == REFERENCE_WEIGHTING
        else "the content-independence rows of STEB Table 13"
    )
    return _single(
        table,
        "content-independence",
        "content-independence",
        "Content independence",
        "Indep.",
        f"Order-alignment distractor accuracy over {where} (STEL-or-Content joins STEL's); one of the definitional "
        "score's three groups.",
        40,
        weighting,
    )


def definitional_score(
    results: Any, datasets: Any = None, *, reading: str = TABLE9_READING, weighting: str = REFERENCE_WEIGHTING
) -> AggregateResult:
    """The definitional score: mean of three groups (see the module docstring for the readings and weightings).

    ``table9``: Object of Study (six columns), linguistic features, content independence.
    ``three-groups``: Object of Study (five columns), linguistic features, idiolect (Table 13 rows).
    """
    table = as_table(results, datasets)
    _check_reading(reading)
    if reading == TABLE9_READING:
        check_weighting(weighting)
        objects = _as_group(objects_of_study_score(table, reading=reading, weighting=weighting))
        features = linguistic_features_score(table, weighting=weighting)
        groups: list[Column] = [objects, features, content_independence_score(table, weighting=weighting)]
        return _mean_aggregate(
            table,
            groups,
            name="definitional" + _suffix(weighting),
            label="Definitional" + ("" if weighting == REFERENCE_WEIGHTING else " (Table 13 rows)"),
            short="Def.",
            description=(
                "Mean of the three definitional groups: objects of study (six columns, idiolect included), linguistic "
                f"features, content independence (STEB Tables 3 and 9); each column {_weighting_text(weighting)}."
            ),
            order=20,
            details={"reading": reading, "weighting": weighting},
        )
    objects = _as_group(objects_of_study_score(table, reading=reading))
    features = linguistic_features_score(table, weighting=TABLE13_WEIGHTING)
    features.name = "linguistic-features"  # the steb 0.1 column kept its plain name
    groups = [objects, features, _as_group(idiolect_score(table, reading=reading))]
    return _mean_aggregate(
        table,
        groups,
        name="definitional-three-groups",
        label="Definitional (three groups)",
        short="Def. 3g",
        description=(
            "steb 0.1's reading (before the Table 9 fix): mean of objects of study (five columns), linguistic "
            "features and idiolect "
            "(Table 13 rows); content independence not averaged in."
        ),
        order=22,
        details={"reading": reading, "weighting": TABLE13_WEIGHTING},
    )


def category_score(
    category: str,
    name: str,
    label: str,
    description: str,
    order: int,
    short: str = "",
    weighting: str = REFERENCE_WEIGHTING,
) -> Callable[..., AggregateResult]:
    """An aggregator function for one definitional column (reference cluster or Table 13 rows, then tags)."""

    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        table = as_table(results, datasets)
        return _single(table, category, name, label, short, description, order, weighting)

    return aggregate


def definitional_specs() -> list[AggregatorSpec]:
    """The built-in definitional columns: STEB Table 9's reading, the reference scripts' weighting."""
    return [
        AggregatorSpec(
            "definitional",
            "Definitional: mean of objects of study, linguistic features and content independence",
            definitional_score,
            20,
        ),
        AggregatorSpec(
            "objects-of-study",
            "Definitional: mean of the six object-of-study columns (idiolect included)",
            objects_of_study_score,
            21,
        ),
        AggregatorSpec(
            "idiolect", "Definitional: idiolect, the mean of its AV (AUC) and AR (MRR) columns", idiolect_score, 25
        ),
        AggregatorSpec("linguistic-features", "Definitional: linguistic features", linguistic_features_score, 30),
        AggregatorSpec(
            "content-independence",
            "Definitional: content independence (distractor accuracy)",
            content_independence_score,
            40,
        ),
    ]


def _with_weighting(fn: Callable[..., AggregateResult], weighting: str) -> Callable[..., AggregateResult]:
    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        return fn(results, datasets, weighting=weighting)

    return aggregate


def table13_specs() -> list[AggregatorSpec]:
    """The definitional columns under steb 0.2's ``table13`` weighting, named ``...-table13``, beside the defaults.

    Not registered by default; ``--plugin steb_core.aggregators.table13`` adds them (with ``av-table13`` and
    ``applications-table13``, :func:`.applications.table13_application_specs`).
    """
    w = TABLE13_WEIGHTING
    return [
        AggregatorSpec(
            "definitional-table13",
            "Definitional, Table 13 rows (steb 0.2): mean of objects of study, features, content independence",
            _with_weighting(definitional_score, w),
            24,
        ),
        AggregatorSpec(
            "objects-of-study-table13",
            "Definitional, Table 13 rows (steb 0.2): the six object-of-study columns",
            _with_weighting(objects_of_study_score, w),
            26,
        ),
        AggregatorSpec(
            "idiolect-table13",
            "Definitional, Table 13 rows (steb 0.2): idiolect = mean of AV overall (no PAN18 SC) and AR",
            _with_weighting(idiolect_score, w),
            27,
        ),
        AggregatorSpec(
            "linguistic-features-table13",
            "Definitional, Table 13 rows (steb 0.2): linguistic features",
            _with_weighting(linguistic_features_score, w),
            31,
        ),
        AggregatorSpec(
            "content-independence-table13",
            "Definitional, Table 13 rows (steb 0.2): content independence",
            _with_weighting(content_independence_score, w),
            41,
        ),
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
            "Definitional, steb 0.1 reading: mean of objects of study (five), linguistic features and idiolect (Table "
            "13 rows)",
            _with_reading(definitional_score, THREE_GROUPS_READING),
            22,
        ),
        AggregatorSpec(
            "objects-of-study-five",
            "Definitional, steb 0.1 reading: mean of the five object-of-study columns (no idiolect)",
            _with_reading(objects_of_study_score, THREE_GROUPS_READING),
            23,
        ),
        AggregatorSpec(
            "idiolect-table13-rows",
            "Definitional, steb 0.1 reading: idiolect as the mean over Table 13's rows",
            _with_reading(idiolect_score, THREE_GROUPS_READING),
            36,
        ),
    ]
