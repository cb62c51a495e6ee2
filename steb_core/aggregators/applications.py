"""Per-application scores (AI-text detection, authorship verification/retrieval) and the multilingual score.

Each is the mean over the tasks of the datasets carrying an application tag in their spec
(``DatasetSpec.applications``): ``ATD``, ``ATD-adversarial``, ``AV`` (with ``AV-easy``/``AV-medium``/
``AV-hard`` as sub-columns), ``AR`` and ``multilingual``. The multilingual score also has one
sub-column per non-English language of its datasets.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..specs import AggregatorSpec
from .columns import DEFINITIONAL_METRIC, mean_column
from .result import AggregateResult, Column
from .table import ResultTable, as_table

__all__ = ["application_score", "multilingual_score", "application_specs"]


def _tag_column(table: ResultTable, tag: str, name: str, label: str) -> Column:
    inputs = table.inputs(lambda info, task: tag in info.applications and (tag == "multilingual" or not info.multilingual))
    return mean_column(table, name, label, inputs, DEFINITIONAL_METRIC, empty_reason=f"no dataset in scope is tagged '{tag}'")


def application_score(
    tag: str, name: str, label: str, order: int, sub_tags: Sequence[tuple[str, str]] = (), short: str = ""
):
    """An aggregator function: mean over the datasets tagged ``tag``; ``sub_tags`` are (tag, label) sub-columns."""

    def aggregate(results: Any, datasets: Any = None) -> AggregateResult:
        table = as_table(results, datasets)
        main = _tag_column(table, tag, name, label)
        subs = [_tag_column(table, sub, f"{name}/{sub}", sub_label) for sub, sub_label in sub_tags]
        return AggregateResult.from_column(
            main,
            description=f"Mean over the tasks of the datasets tagged '{tag}'.",
            sub_columns=subs,
            order=order,
            short=short,
        )

    return aggregate


def multilingual_score(results: Any, datasets: Any = None) -> AggregateResult:
    """Mean over the datasets tagged ``multilingual``, with a sub-column per non-English language."""
    table = as_table(results, datasets)
    main = _tag_column(table, "multilingual", "multilingual", "Multilingual")
    languages = sorted({lang for d, _ in main.inputs for lang in table.info(d).languages if lang != "en"})
    subs = [
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
        description="Mean over the tasks of the datasets tagged 'multilingual' (non-English AV and AA).",
        sub_columns=subs,
        order=90,
        short="Multi.",
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
        AggregatorSpec("multilingual", "Multilingual: non-English AV and AA", multilingual_score, 90),
    ]
