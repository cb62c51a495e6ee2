"""Hand-made and synthetic result records: for tests, benchmarks and trying out the report.

:func:`make_record` builds one record the way the runner stores it (metrics plus the ``dataset_meta``
copied from the spec); :func:`synthetic_results` a seeded multi-encoder run over a small catalogue
shaped like STEB's (every score column fed), so reports can be rendered without running any model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._results import ResultRecord

__all__ = ["MAIN_METRIC", "make_record", "SYNTHETIC_CATALOGUE", "synthetic_results", "write_results"]

#: The main metric each built-in task type stores (as the tasks record it).
MAIN_METRIC = {
    "clustering": "v_measure",
    "pair_all": "auroc",
    "pair_predefined": "auroc",
    "order_alignment": "distractor_accuracy",  # else "accuracy" (data without distractors), as the task records it
    "retrieval": "mrr",
    "probing": "accuracy",
}


def make_record(
    encoder: str,
    dataset: str,
    task: str,
    metrics: Mapping[str, Any],
    *,
    categories: Iterable[str] = (),
    applications: Iterable[str] = (),
    languages: Iterable[str] = ("en",),
    content_independence: bool = False,
    suites: Iterable[str] = (),
    tasks: Iterable[str] | None = None,
) -> ResultRecord:
    """One result record with ``dataset_meta`` as the runner copies it from the dataset spec."""
    main_metric = MAIN_METRIC.get(task, next(iter(metrics), "score"))
    if task == "order_alignment" and main_metric not in metrics and "accuracy" in metrics:
        main_metric = "accuracy"  # the task's fallback metric
    main = metrics.get(main_metric)
    return ResultRecord(
        encoder=encoder,
        dataset=dataset,
        task=task,
        main_metric=main_metric,
        main_score=None if main is None else float(main),
        metrics=dict(metrics),
        dataset_meta={
            "categories": list(categories),
            "applications": list(applications),
            "languages": list(languages),
            "content_independence": content_independence,
            "suites": list(suites),
            "tasks": list(tasks) if tasks is not None else [task],
        },
    )


# name -> (task types, categories, applications, languages, content_independence)
SYNTHETIC_CATALOGUE: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], bool]] = {
    "core": (("clustering", "pair_all"), ("genre",), (), ("en",), False),
    "x_genre": (("clustering", "pair_all"), ("genre",), (), ("en",), False),
    "corpus-of-diverse-styles": (("clustering", "pair_all", "order_alignment"), ("genre",), (), ("en",), True),
    "wikipedia_politeness": (("clustering", "pair_all"), ("register",), (), ("en",), False),
    "STEL_register": (("order_alignment",), ("register",), (), ("en",), True),
    "graded_formality": (("order_alignment",), ("register",), (), ("en",), True),
    "bible_versions": (("clustering", "pair_all"), ("time",), (), ("en",), False),
    "parallel_shakespeare": (("order_alignment",), ("time",), (), ("en",), True),
    "blog_age": (("clustering", "pair_all"), ("demographics",), (), ("en",), False),
    "pastel_politics": (("clustering", "pair_all"), ("demographics",), (), ("en",), False),
    "endive": (("clustering", "pair_all"), ("dialect",), (), ("en",), False),
    "twitter_aave_sae": (("order_alignment",), ("dialect",), (), ("en",), True),
    "pan14_essays": (("pair_predefined",), ("idiolect",), ("AV",), ("en",), False),
    "pan20_av": (("pair_predefined",), ("idiolect",), ("AV",), ("en",), False),
    "pan23_style_change_easy": (("pair_predefined",), ("idiolect",), ("AV", "AV-easy"), ("en",), False),
    "pan23_style_change_medium": (("pair_predefined",), ("idiolect",), ("AV", "AV-medium"), ("en",), False),
    "pan23_style_change_hard": (("pair_predefined",), ("idiolect",), ("AV", "AV-hard"), ("en",), False),
    "fanfiction": (("retrieval",), ("idiolect",), ("AR",), ("en",), False),
    "pan18_aa_english": (("retrieval",), ("idiolect",), ("AR",), ("en",), False),
    "STEL_feature": (("order_alignment",), ("linguistic-feature",), (), ("en",), True),
    "StylePTB": (("order_alignment",), ("linguistic-feature",), (), ("en",), True),
    "probing_blog": (("probing",), ("linguistic-feature",), (), ("en",), False),
    "probing_reddit": (("probing",), ("linguistic-feature",), (), ("en",), False),
    "mage_cmv": (("clustering",), ("ai-detection",), ("ATD",), ("en",), False),
    "m4_reddit": (("clustering",), ("ai-detection",), ("ATD",), ("en",), False),
    "detectrl_paraphrase": (("clustering",), ("ai-detection",), ("ATD-adversarial",), ("en",), False),
    "pan13_av_greek": (("pair_predefined",), (), ("multilingual",), ("el",), False),
    "pan15_av_spanish": (("pair_predefined",), (), ("multilingual",), ("es",), False),
    "pan18_aa_polish": (("retrieval",), (), ("multilingual",), ("pl",), False),
}


def synthetic_results(
    encoders: Iterable[str] = ("tfidf-char", "function-words", "minilm", "style-roberta", "luar"), seed: int = 0
) -> list[ResultRecord]:
    """Seeded records for every (encoder, dataset, task) of :data:`SYNTHETIC_CATALOGUE`.

    Each encoder has a skill level and each task type a difficulty; scores add per-dataset noise, so
    rankings agree across some datasets and not others (which is what the redundancy clustering sees).
    """
    rng = np.random.default_rng(seed)
    encoders = list(encoders)
    skill = {enc: 0.25 + 0.6 * i / max(1, len(encoders) - 1) for i, enc in enumerate(encoders)}
    records = []
    for dataset, (tasks, cats, apps, langs, ci) in SYNTHETIC_CATALOGUE.items():
        twist = rng.normal(0, 0.15, size=len(encoders))
        for task in tasks:
            for i, enc in enumerate(encoders):
                level = float(np.clip(skill[enc] + twist[i] + rng.normal(0, 0.05), 0.02, 0.98))
                metrics: dict[str, Any] = {}
                if task == "clustering":
                    metrics = {"v_measure": 0.6 * level, "ari": 0.4 * level, "nmi": 0.6 * level}
                elif task in ("pair_all", "pair_predefined"):
                    metrics = {"auroc": 0.5 + 0.45 * level, "average_precision": 0.5 + 0.4 * level}
                elif task == "order_alignment":
                    metrics = {"accuracy": 0.3 + 0.65 * level, "distractor_accuracy": 0.1 + 0.6 * level}
                elif task == "retrieval":
                    metrics = {
                        "mrr": 0.05 + 0.5 * level,
                        "recall_at_1": 0.03 + 0.4 * level,
                        "recall_at_8": 0.1 + 0.7 * level,
                    }
                elif task == "probing":
                    metrics = {"accuracy": 0.2 + 0.5 * level}
                records.append(
                    make_record(
                        enc,
                        dataset,
                        task,
                        metrics,
                        categories=cats,
                        applications=apps,
                        languages=langs,
                        content_independence=ci,
                        suites=("synthetic",),
                        tasks=tasks,
                    )
                )
    return records


def write_results(records: Iterable[ResultRecord], output_dir: str | Path) -> Path:
    """Store records as the runner does (one JSON file each under ``output_dir``)."""
    for rec in records:
        rec.write(output_dir)
    return Path(output_dir)
