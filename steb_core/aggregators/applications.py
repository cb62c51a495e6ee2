"""Per-application scores (AI-text detection, authorship verification/retrieval) and the multilingual score.

Each is the mean over the tasks of the datasets carrying an application tag in their spec
(``DatasetSpec.applications``): ``ATD``, ``ATD-adversarial``, ``AV`` (with ``AV-easy``/``AV-medium``/
``AV-hard`` as sub-columns) and ``AR``. As in STEB's Table 4, *AV overall* is PAN13-15, PAN20-21, Enron
and PAN22-26 style change: PAN18 style change, although tagged ``AV``, is left out
(:data:`.paper.AV_OVERALL_EXCLUDED`). The **applications** average is the mean of ATD, ATD adversarial,
AV overall and AR (Table 4's note: the easy/medium/hard levels are not averaged in).

The **multilingual** score is the mean of two means, one per task type (STEB: mean AUC over the 13
PAN13-15 AV datasets, mean MRR over the 4 PAN18 AA ones), not a pool of all 17; it also has one
sub-column per task type and one per non-English language.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..specs import AggregatorSpec
from .columns import DEFINITIONAL_METRIC, mean_column, mean_of_columns, metric_label
from .paper import AV_OVERALL_EXCLUDED
from .result import AggregateResult, Column
from .table import ResultTable, as_table, task_type_order

__all__ = ["application_column", "application_score", "multilingual_score", "applications_average", "application_specs"]


def application_column(table: ResultTable, tag: str, name: str, label: str) -> Column:
    """The mean over the (dataset, task) inputs of the English datasets tagged ``tag`` (AV: AV overall).

    Public because the definitional score's Idiolect column is built from the same AV-overall and AR
    columns as the applications table (STEB Table 9: Idiolect = (AV overall + AR) / 2).
    """

    def member(info, task) -> bool:
        if tag not in info.applications:
            return False
        if tag == "multilingual":
            return True
        return not info.multilingual and not (tag == "AV" and info.name in AV_OVERALL_EXCLUDED)

    inputs = table.inputs(member)
    return mean_column(table, name, label, inputs, DEFINITIONAL_METRIC, empty_reason=f"no dataset in scope is tagged '{tag}'")


def application_score(
    tag: str, name: str, label: str, order: int, sub_tags: Sequence[tuple[str, str]] = (), short: str = ""
):
    """An aggregator function: mean over the datasets tagged ``tag``; ``sub_tags`` are (tag, label) sub-columns."""

    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        table = as_table(results, datasets)
        main = application_column(table, tag, name, label)
        subs = [application_column(table, sub, f"{name}/{sub}", sub_label) for sub, sub_label in sub_tags]
        return AggregateResult.from_column(
            main,
            description=f"Mean over the tasks of the datasets tagged '{tag}'"
            + (" (AV overall: PAN18 style change is left out, as in STEB Table 4)." if tag == "AV" else "."),
            sub_columns=subs,
            order=order,
            short=short,
        )

    return aggregate


def multilingual_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Mean over task types (AV AUC, AA MRR) of the mean over the datasets tagged ``multilingual``."""
    table = as_table(results, datasets)
    pooled = application_column(table, "multilingual", "multilingual", "Multilingual")
    tasks = sorted({t for _, t in pooled.inputs}, key=task_type_order)
    per_task = [
        mean_column(
            table,
            f"multilingual/{task}",
            f"{task} ({metric_label(DEFINITIONAL_METRIC.get(task))})",
            [(d, t) for d, t in pooled.inputs if t == task],
            DEFINITIONAL_METRIC,
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
            DEFINITIONAL_METRIC,
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


def applications_average(results: Any, datasets: Any = None) -> AggregateResult:
    """STEB Table 4's Avg: mean of ATD, ATD adversarial, AV overall and AR (no AV level sub-columns)."""
    table = as_table(results, datasets)
    parts = [
        application_column(table, "ATD", "atd", "ATD"),
        application_column(table, "ATD-adversarial", "atd-adversarial", "ATD adversarial"),
        application_column(table, "AV", "av", "AV"),
        application_column(table, "AR", "ar", "AR"),
    ]
    scores, missing = mean_of_columns(table.encoders, parts)
    return AggregateResult(
        name="applications",
        label="Applications",
        short="Apps",
        scores=scores,
        missing=missing,
        inputs=[i for p in parts for i in p.inputs],
        description="Mean of ATD, ATD adversarial, AV overall and AR (STEB Table 4's Avg: AV overall only, not its levels).",
        sub_columns=parts,
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
        AggregatorSpec("av", "Authorship verification (easy/medium/hard sub-columns)", application_score("AV", "av", "AV", 70, levels), 70),
        AggregatorSpec("ar", "Authorship retrieval", application_score("AR", "ar", "AR", 80), 80),
        AggregatorSpec("applications", "Mean of ATD, ATD adversarial, AV overall and AR", applications_average, 85),
        AggregatorSpec("multilingual", "Multilingual: non-English AV and AA", multilingual_score, 90),
    ]
