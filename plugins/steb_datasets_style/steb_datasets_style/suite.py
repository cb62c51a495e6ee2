"""This distribution's datasets in STEB: membership read from the core's benchmark object, sizes from Table 15.

Which (dataset, task) pairs belong to STEB is the core's :data:`steb_core.STEB_BENCHMARK` (the one list of the
benchmark, issue 48): ``--suite steb`` runs its pairs, and the ``steb`` tag and ``suite_tasks`` this module gives a
spec are read from it (they are stored with each result, so reports made from stored records know the suite). A
dataset that feeds more tasks than the benchmark scores contributes only those, and datasets outside it (the
``reddit`` retrieval set) stay outside. ``expected`` records what the catalogue promises per task (classes,
per-class budget, texts embedded) for ``steb data check``; a size row for a pair the benchmark does not hold, or a
benchmark pair of this distribution with no size row, is refused when the spec is built. For retrieval, "classes"
are authors; for probing, the 46 features (and "per class" the text count).
"""

from __future__ import annotations

from typing import Any

from steb_core import STEB_BENCHMARK

SUITE = STEB_BENCHMARK.name

#: (dataset, task, classes, per class, texts) - what the catalogue promises for each STEB pair of this
#: distribution's datasets (the pairs themselves are the benchmark's; the test checks both hold the same).
#: The catalogue spells two names differently in one table each (``fce_11``, ``ceces``); they are
#: ``fce_l1`` and ``ceeces``, as in its other table.
STEB_ROWS: tuple[tuple[str, str, int, int, int], ...] = (
    ("bible_versions", "clustering", 8, 200, 1600),
    ("blog_age", "clustering", 3, 200, 600),
    ("blog_gender", "clustering", 2, 200, 400),
    ("ceeces", "clustering", 6, 200, 1200),
    ("core", "clustering", 38, 25, 950),
    ("eWAVE", "clustering", 53, 29, 1537),
    ("endive", "clustering", 6, 200, 1200),
    ("enron_spam", "clustering", 2, 200, 400),
    ("fce_l1", "clustering", 15, 25, 375),
    ("gede_essay_detection", "clustering", 4, 200, 800),
    ("hate_speech", "clustering", 2, 200, 400),
    ("hate_speech_and_offensive_language", "clustering", 3, 200, 600),
    ("machine_text_detection_DetectRL_arxiv", "clustering", 5, 200, 1000),
    ("machine_text_detection_DetectRL_direct_prompt", "clustering", 5, 200, 1000),
    ("machine_text_detection_DetectRL_paraphrase_attacks", "clustering", 2, 200, 400),
    ("machine_text_detection_DetectRL_perturbation_attacks", "clustering", 2, 200, 400),
    ("machine_text_detection_DetectRL_prompt_attacks", "clustering", 2, 200, 400),
    ("machine_text_detection_DetectRL_writing_prompt", "clustering", 5, 200, 1000),
    ("machine_text_detection_DetectRL_xsum", "clustering", 5, 200, 1000),
    ("machine_text_detection_DetectRL_yelp_review", "clustering", 5, 200, 1000),
    ("machine_text_detection_M4_arxiv", "clustering", 6, 200, 1200),
    ("machine_text_detection_M4_peerread", "clustering", 6, 200, 1200),
    ("machine_text_detection_M4_reddit", "clustering", 6, 200, 1200),
    ("machine_text_detection_M4_wikihow", "clustering", 5, 200, 1000),
    ("machine_text_detection_M4_wikipedia", "clustering", 5, 200, 1000),
    ("machine_text_detection_MAGE_cmv", "clustering", 28, 60, 1680),
    ("machine_text_detection_MAGE_eli5", "clustering", 28, 73, 2044),
    ("machine_text_detection_MAGE_hswag", "clustering", 28, 66, 1848),
    ("machine_text_detection_MAGE_roct", "clustering", 28, 76, 2128),
    ("machine_text_detection_MAGE_sci_gen", "clustering", 28, 36, 1008),
    ("machine_text_detection_MAGE_squad", "clustering", 28, 55, 1540),
    ("machine_text_detection_MAGE_tldr", "clustering", 28, 57, 1596),
    ("machine_text_detection_MAGE_wp", "clustering", 28, 70, 1960),
    ("machine_text_detection_MAGE_xsum", "clustering", 28, 86, 2408),
    ("machine_text_detection_MAGE_yelp", "clustering", 28, 42, 1176),
    ("masc_text_genre", "clustering", 19, 150, 2850),
    ("pastel_age", "clustering", 6, 25, 150),
    ("pastel_education", "clustering", 8, 25, 200),
    ("pastel_ethnic", "clustering", 9, 25, 225),
    ("pastel_gender", "clustering", 3, 55, 165),
    ("pastel_politics", "clustering", 3, 200, 600),
    ("pastel_tod", "clustering", 5, 200, 1000),
    ("sms_spam", "clustering", 2, 200, 400),
    ("stackexchange_politeness", "clustering", 3, 200, 600),
    ("telegram-spam-ham", "clustering", 2, 200, 400),
    ("wikipedia_politeness", "clustering", 3, 200, 600),
    ("x_genre", "clustering", 9, 46, 414),
    ("bible_versions", "pair_all", 8, 200, 1600),
    ("blog_age", "pair_all", 3, 200, 600),
    ("blog_gender", "pair_all", 2, 200, 400),
    ("ceeces", "pair_all", 6, 200, 1200),
    ("core", "pair_all", 38, 25, 950),
    ("eWAVE", "pair_all", 53, 29, 1537),
    ("endive", "pair_all", 6, 200, 1200),
    ("enron_spam", "pair_all", 2, 200, 400),
    ("fce_l1", "pair_all", 15, 25, 375),
    ("hate_speech", "pair_all", 2, 200, 400),
    ("hate_speech_and_offensive_language", "pair_all", 3, 200, 600),
    ("masc_text_genre", "pair_all", 19, 150, 2850),
    ("pastel_age", "pair_all", 6, 25, 150),
    ("pastel_education", "pair_all", 8, 25, 200),
    ("pastel_ethnic", "pair_all", 9, 25, 225),
    ("pastel_gender", "pair_all", 3, 55, 165),
    ("pastel_politics", "pair_all", 3, 200, 600),
    ("pastel_tod", "pair_all", 5, 200, 1000),
    ("sms_spam", "pair_all", 2, 200, 400),
    ("stackexchange_politeness", "pair_all", 3, 200, 600),
    ("telegram-spam-ham", "pair_all", 2, 200, 400),
    ("wikipedia_politeness", "pair_all", 3, 200, 600),
    ("x_genre", "pair_all", 9, 46, 414),
    ("amazon", "retrieval", 500, 195, 97787),
    ("fanfiction", "retrieval", 500, 86, 43411),
    ("stackexchange_retrieval", "retrieval", 500, 125, 62980),
    ("probing_amazon", "probing", 46, 27584, 27584),
    ("probing_blog", "probing", 46, 39111, 39111),
    ("probing_reddit", "probing", 46, 16447, 16447),
    ("probing_stackexchange", "probing", 46, 9253, 9253),
)


def catalogue_rows(name: str) -> dict[str, dict[str, int]]:
    """task -> {"classes", "per_class", "texts"} of the catalogue for dataset ``name`` (empty when not in it)."""
    return {task: {"classes": c, "per_class": p, "texts": t} for n, task, c, p, t in STEB_ROWS if n == name}


def suite_fields(name: str, tasks: tuple[str, ...]) -> dict[str, Any]:
    """``suites``/``suite_tasks``/``expected`` for a DatasetSpec: the benchmark's tasks of ``name``, in ``tasks``
    order, with the catalogue's sizes."""
    scored = STEB_BENCHMARK.tasks_of(name)
    rows = catalogue_rows(name)
    if set(rows) != set(scored):
        raise ValueError(
            f"dataset '{name}': the STEB benchmark scores it on {sorted(scored)} but the size table "
            f"(steb_datasets_style.suite.STEB_ROWS) has rows for {sorted(rows)}; they must name the same tasks"
        )
    if not scored:
        return {}
    unknown = sorted(set(scored) - set(tasks))
    if unknown:
        raise ValueError(f"dataset '{name}': the STEB benchmark scores it on tasks {unknown} the dataset does not feed")
    return {"suites": (SUITE,), "suite_tasks": {SUITE: tuple(t for t in tasks if t in scored)}, "expected": rows}
