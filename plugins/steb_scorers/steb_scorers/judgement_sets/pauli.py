"""Loader for Pauli et al.'s constructed test set (github.com/AmaliePauli/style_transfer_evaluation, ``data/``).

Six CSV files ``syntest_anno1.csv`` ... ``syntest_anno6.csv``, one per subset: 1 sentiment and 2 detoxify (50 rows
each, with a ``reference`` column), 3 catchy, 4 polite, 5 persuasive, 6 formal (100 rows each, no references;
their columns differ: ``source_from`` and ``step`` instead of ``source`` and ``reference``). Every row is one
rewritten output (``input`` -> ``output``, aimed at ``style_to``) rated by three crowd workers on a 1-5 Likert
scale: ``AnswerA_1..3`` the style, ``AnswerB_1..3`` the content (the authors' data.py maps ``annoA_mean`` to the
style rating and ``annoB_mean`` to the content rating); ``prolificID_1..3`` say who rated in each slot.
``intention`` (style / substitution / insertion / deletion) says how the output was built; there are no systems.

A row's item id is ``SUBSET/sample_id/quest_nr`` (``sample_id`` names the source sentence, ``quest_nr`` the
question the output was shown in).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from steb_core import (
    AspectRatings,
    DataValidationError,
    JudgementTable,
    RatingScale,
    RowOrigin,
    judgement_table,
    read_tsv,
)

__all__ = ["SUBSETS", "load_pauli_constructed", "FILE_PATTERN", "SCALE"]

#: file number -> subset name (the paper's Table 2 and 5 columns)
SUBSETS = {1: "sentiment", 2: "detoxify", 3: "catchy", 4: "polite", 5: "persuasive", 6: "formal"}
FILE_PATTERN = "syntest_anno{}.csv"
SCALE = RatingScale(1, 5, "ordinal", {1: "very poor", 2: "poor", 3: "acceptable", 4: "good", 5: "very good"})
#: aspect -> the file's column prefix of its three ratings
ASPECT_COLUMNS = {"content": "AnswerB", "style": "AnswerA"}
ANNOTATORS = 3
REQUIRED = ("sample_id", "input", "output", "style_to", "quest_nr") + tuple(
    f"{prefix}_{j}" for prefix in ASPECT_COLUMNS.values() for j in range(1, ANNOTATORS + 1)
)


def _folder(path: Path) -> Path:
    """The ``data/`` folder: the path itself, or the clone's ``data/`` below it."""
    path = Path(path)
    if not (path / FILE_PATTERN.format(1)).exists() and (path / "data" / FILE_PATTERN.format(1)).exists():
        return path / "data"
    return path


def _rating(value: str, path: Path, row: int, column: str) -> float:
    try:
        return float(value) if value.strip() else float("nan")
    except ValueError:
        raise DataValidationError(
            f"is {value!r}, not a number", path=path, record=f"row {row}", field=column, expected="a rating 1-5"
        ) from None


def load_pauli_constructed(path: Path) -> JudgementTable:
    """Read the six subset files as the repository ships them (see the module docstring)."""
    folder = _folder(path)
    missing = [FILE_PATTERN.format(k) for k in SUBSETS if not (folder / FILE_PATTERN.format(k)).is_file()]
    if missing:
        raise DataValidationError(
            f"missing {', '.join(missing)}",
            path=folder,
            expected="the data/ folder of github.com/AmaliePauli/style_transfer_evaluation (syntest_anno1..6.csv)",
        )
    ids, sources, outputs, refs, subsets, styles, origins, files = [], [], [], [], [], [], [], []
    ratings: dict[str, list[list[float]]] = {a: [] for a in ASPECT_COLUMNS}
    workers: list[tuple[str, ...]] = []
    for number, subset in SUBSETS.items():
        file = folder / FILE_PATTERN.format(number)
        files.append(str(file))
        rows = read_tsv(file, delimiter=",", required=REQUIRED)
        for i, row in enumerate(rows, start=1):
            ids.append(f"{subset}/{row['sample_id']}/{row['quest_nr']}")
            sources.append(row["input"])
            outputs.append(row["output"])
            reference = (row.get("reference") or "").strip()
            refs.append((row["reference"],) if reference else ())
            subsets.append(subset)
            styles.append(row["style_to"])
            origins.append(RowOrigin(str(file), i))
            workers.append(tuple(row.get(f"prolificID_{j}", "") for j in range(1, ANNOTATORS + 1)))
            for aspect, prefix in ASPECT_COLUMNS.items():
                ratings[aspect].append(
                    [_rating(row[f"{prefix}_{j}"], file, i, f"{prefix}_{j}") for j in range(1, ANNOTATORS + 1)]
                )
    blocks = {
        aspect: AspectRatings(
            aspect,
            SCALE,
            tuple(f"rater-{j}" for j in range(1, ANNOTATORS + 1)),
            np.asarray(values, dtype=np.float64),
            fields=tuple(f"{ASPECT_COLUMNS[aspect]}_{j}" for j in range(1, ANNOTATORS + 1)),
            annotator_ids=tuple(workers),
        )
        for aspect, values in ratings.items()
    }
    return judgement_table(
        name="pauli2025-constructed",
        item_id=ids,
        source=sources,
        output=outputs,
        references=refs,
        subset=subsets,
        ratings=blocks,
        target_style=styles,
        origins=origins,
        files=files,
    )
