"""Per-application scores (AI-text detection, authorship verification/retrieval) and the multilingual score.

``ATD``, ``ATD-adversarial``, ``AV`` (with ``AV-easy``/``AV-medium``/``AV-hard`` as sub-columns) and ``AR``. Under
the default ``reference`` weighting (:data:`.columns.WEIGHTINGS`) each is the STEB authors' manual cluster
(``machine_text_detection``, ``machine_text_detection_adversarial``, ``authorship_verification``,
``authorship_retrieval`` of :mod:`.reference_clusters`) averaged per (task, metric) like every cluster; a dataset
STEB does not know joins by its ``DatasetSpec.applications`` tag. As the YAML has it, *AV overall* holds PAN18
style change. Under ``table13`` (steb 0.2) membership is by tag only and, as STEB's Table 4 text says, *AV overall*
is PAN13-15, PAN20-21, Enron and PAN22-26 style change: PAN18 style change, although tagged ``AV``, is left out
(:data:`.paper.AV_OVERALL_EXCLUDED`). Every current STEB application dataset feeds one task, so the two weightings
differ only in that membership. The AV levels (easy/medium/hard) come from tags under both. The **applications**
average is the mean of ATD, ATD adversarial, AV overall and AR (Table 4's note: the levels are not averaged in;
excel_export.py @60a14423 ``AGGREGATE_SHEETS`` "summary_tasks").

The **multilingual** score is the mean of two means, one per task type (STEB: mean AUC over the 13
PAN13-15 AV datasets, mean MRR over the 4 PAN18 AA ones), not a pool of all 17; it also has one
sub-column per task type and one per non-English language.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._specs import AggregatorSpec
from .columns import (
    REFERENCE_WEIGHTING,
    TABLE13_WEIGHTING,
    check_weighting,
    mean_column,
    mean_of_columns,
    metric_for,
    metric_label,
    task_metric_columns,
)
from .paper import AV_OVERALL_EXCLUDED
from .reference_clusters import APPLICATION_CLUSTERS, Input, cluster_inputs
from .result import AggregateResult, Column
from .table import DatasetInfo, ResultTable, as_table, task_type_order

__all__ = [
    "application_column",
    "application_score",
    "multilingual_score",
    "applications_average",
    "application_specs",
    "table13_application_specs",
]


def _reference_inputs(table: ResultTable, tag: str) -> list[Input]:
    """(dataset, task, metric) of the English datasets in ``tag``'s reference cluster, plus unknown ones by tag."""

    def by_tag(d: str, t: str, info: DatasetInfo) -> list[Input]:
        return [(d, t, metric_for(t, table.metrics("definitional")))] if tag in info.applications else []

    return cluster_inputs(table, APPLICATION_CLUSTERS[tag], by_tag)


def application_column(
    table: ResultTable, tag: str, name: str, label: str, weighting: str = REFERENCE_WEIGHTING
) -> Column:
    """The column of application ``tag`` under ``weighting`` (AV: AV overall; see the module docstring).

    Public because the ``table13`` weighting's Idiolect column is built from the same AV-overall and AR
    columns as the applications table (STEB Table 9: Idiolect = (AV overall + AR) / 2).
    """
    reason = f"no dataset in scope is tagged '{tag}'"
    if check_weighting(weighting) == REFERENCE_WEIGHTING and tag in APPLICATION_CLUSTERS:
        reason = f"no dataset in scope is in the '{APPLICATION_CLUSTERS[tag]}' cluster or tagged '{tag}'"
        return task_metric_columns(table, name, label, _reference_inputs(table, tag), empty_reason=reason)

    def member(info: DatasetInfo, task: str) -> bool:
        if tag not in info.applications:
            return False
        if tag == "multilingual":
            return True
        excluded = tag == "AV" and weighting == TABLE13_WEIGHTING and info.name in AV_OVERALL_EXCLUDED
        return not info.multilingual and not excluded

    inputs = table.inputs(member)
    return mean_column(table, name, label, inputs, table.metrics("definitional"), empty_reason=reason)


def application_score(
    tag: str,
    name: str,
    label: str,
    order: int,
    sub_tags: Sequence[tuple[str, str]] = (),
    short: str = "",
    weighting: str = REFERENCE_WEIGHTING,
) -> Callable[..., AggregateResult]:
    """An aggregator function: the column of ``tag`` under ``weighting``; ``sub_tags`` are (tag, label) sub-columns."""
    check_weighting(weighting)

    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        table = as_table(results, datasets)
        main = application_column(table, tag, name, label, weighting)
        subs = [application_column(table, sub, f"{name}/{sub}", sub_label, weighting) for sub, sub_label in sub_tags]
        if weighting == REFERENCE_WEIGHTING and tag in APPLICATION_CLUSTERS:
            description = (
                f"The '{APPLICATION_CLUSTERS[tag]}' cluster of the STEB authors' scripts, one column per (task, metric)"
                + (
                    " (AV overall: PAN18 style change included, as dataset_clusters.yaml has it)."
                    if tag == "AV"
                    else "."
                )
            )
        else:
            left_out = " (AV overall: PAN18 style change is left out, as in STEB Table 4)."
            description = f"Mean over the tasks of the datasets tagged '{tag}'" + (
                left_out if tag == "AV" and weighting == TABLE13_WEIGHTING else "."
            )
        return AggregateResult.from_column(
            main, description=description, sub_columns=subs, order=order, short=short, details={"weighting": weighting}
        )

    return aggregate


def multilingual_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Mean over task types (AV AUC, AA MRR) of the mean over the datasets tagged ``multilingual``."""
    table = as_table(results, datasets)
    pooled = application_column(table, "multilingual", "multilingual", "Multilingual")
    tasks = sorted({t for _, t in pooled.inputs}, key=task_type_order)
    definitional = table.metrics("definitional")
    per_task = [
        mean_column(
            table,
            f"multilingual/{task}",
            f"{task} ({metric_label(definitional.get(task))})",
            [(d, t) for d, t in pooled.inputs if t == task],
            definitional,
            empty_reason="",
        )
        for task in tasks
    ]
    if per_task:
        scores, missing = mean_of_columns(table.encoders, per_task)
        main = Column("multilingual", "Multilingual", scores, missing, pooled.inputs)
    else:
        main = pooled
    languages = sorted({lang for d, _ in main.inputs for lang in table.info(d).languages if lang != "en"})
    subs = per_task + [
        mean_column(
            table,
            f"multilingual/{lang}",
            lang,
            [(d, t) for d, t in main.inputs if lang in table.info(d).languages],
            definitional,
            empty_reason=f"no multilingual dataset in {lang}",
        )
        for lang in languages
    ]
    return AggregateResult.from_column(
        main,
        description=(
            "Mean over task types of the mean over the datasets tagged 'multilingual' "
            "(STEB: mean AUC over PAN13-15 AV, mean MRR over PAN18 AA; not a pool of all datasets)."
        ),
        sub_columns=subs,
        order=90,
        short="Multi.",
    )


def applications_average(
    results: Any, datasets: Any = None, *, weighting: str = REFERENCE_WEIGHTING
) -> AggregateResult:
    """STEB Table 4's Avg: mean of ATD, ATD adversarial, AV overall and AR (no AV level sub-columns)."""
    table = as_table(results, datasets)
    check_weighting(weighting)
    parts = [
        application_column(table, "ATD", "atd", "ATD", weighting),
        application_column(table, "ATD-adversarial", "atd-adversarial", "ATD adversarial", weighting),
        application_column(table, "AV", "av", "AV", weighting),
        application_column(table, "AR", "ar", "AR", weighting),
    ]
    scores, missing = mean_of_columns(table.encoders, parts)
    return AggregateResult(
        name="applications" + ("" if weighting == REFERENCE_WEIGHTING else f"-{weighting}"),
        label="Applications" + ("" if weighting == REFERENCE_WEIGHTING else " (Table 13)"),
        short="Apps",
        scores=scores,
        missing=missing,
        inputs=[i for p in parts for i in p.inputs],
        description="Mean of ATD, ATD adversarial, AV overall and AR (STEB Table 4's Avg: AV overall only, not its "
        "levels).",
        sub_columns=parts,
        details={"weighting": weighting},
        order=85,
    )


def application_specs() -> list[AggregatorSpec]:
    levels = (("AV-easy", "AV easy"), ("AV-medium", "AV medium"), ("AV-hard", "AV hard"))
    return [
        AggregatorSpec("atd", "AI-text detection", application_score("ATD", "atd", "ATD", 50), 50),
        AggregatorSpec(
            "atd-adversarial",
            "AI-text detection under attacks",
            application_score("ATD-adversarial", "atd-adversarial", "ATD adversarial", 60, short="ATD adv."),
            60,
        ),
        AggregatorSpec(
            "av",
            "Authorship verification (easy/medium/hard sub-columns)",
            application_score("AV", "av", "AV", 70, levels),
            70,
        ),
        AggregatorSpec("ar", "Authorship retrieval", application_score("AR", "ar", "AR", 80), 80),
        AggregatorSpec("applications", "Mean of ATD, ATD adversarial, AV overall and AR", applications_average, 85),
        AggregatorSpec("multilingual", "Multilingual: non-English AV and AA", multilingual_score, 90),
    ]


def table13_application_specs() -> list[AggregatorSpec]:
    """AV overall and the applications average under steb 0.2's ``table13`` membership (PAN18 SC out), opt-in."""
    levels = (("AV-easy", "AV easy"), ("AV-medium", "AV medium"), ("AV-hard", "AV hard"))

    def average(results: Any, datasets: Any = None) -> AggregateResult:
        return applications_average(results, datasets, weighting=TABLE13_WEIGHTING)

    return [
        AggregatorSpec(
            "av-table13",
            "Authorship verification, Table 4 text (steb 0.2): PAN18 style change left out",
            application_score(
                "AV", "av-table13", "AV (Table 4)", 71, levels, short="AV T4", weighting=TABLE13_WEIGHTING
            ),
            71,
        ),
        AggregatorSpec(
            "applications-table13", "Mean of ATD, ATD adversarial, AV overall (no PAN18 SC) and AR", average, 86
        ),
    ]
