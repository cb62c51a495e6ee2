"""Loader for Ziegenbein et al. (2024)'s absolute-rating study (timonziegenbein/inappropriateness-mitigation).

Two files of the release, as cloned:
- ``src/annotation-interface/appropriateness-study-abs/data/study_pairs.csv``: the rated pairs, columns ``id``
  (``SOURCE_MODEL``, e.g. ``1_instruct``), ``source`` (the inappropriate argument), ``rewrite`` (the system's
  output), ``issue``, ``batch``;
- ``data/style-transfer/study_results/study_abs_results.csv``: one line per (annotator, pair), columns ``a_id,
  user_id, post_id, post_text, annotation_date, result, issue, comments``; ``result`` is a Python dict literal whose
  ``otherErrorQuestion1`` / ``2`` / ``3`` answers end in the chosen option's number. The authors'
  ``analyze_abs_study`` (src/annotation-interface/analyze_annotations.py) reads them as appropriateness = the last
  digit (1-5), similarity = the last digit(s) minus 5 (options 6-10), fluency = the last two digits minus 10
  (options 11-15), keeps users 2-11 and the pairs rated by five of them, and computes Krippendorff's alpha
  (ordinal) with one coder per user.

Rows built here (Pauli et al.'s own filtered version, "ZeigenB11", is not public): the authors' filter above, one
row per pair; system = the ``MODEL`` part of the id; content = similarity, style = appropriateness, fluency;
1-5 ordinal, one annotator slot per user (NaN where a user did not rate the pair); one subset
(``appropriateness``); no references. ``result`` is parsed with :func:`ast.literal_eval` (literals only, no code)
and capped in size. The results file is stored in the repository as a large file the mirror steb was checked
against did not hold, so this loader follows the layout the authors' analysis code reads; it is tested on a
fixture in that layout.
"""

from __future__ import annotations

import ast
from collections import Counter
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

__all__ = ["load_ziegenbein", "PAIRS_FILE", "RESULTS_FILE", "USERS", "RATED_BY"]

PAIRS_FILE = "src/annotation-interface/appropriateness-study-abs/data/study_pairs.csv"
RESULTS_FILE = "data/style-transfer/study_results/study_abs_results.csv"
USERS = tuple(range(2, 12))  # analyze_abs_study keeps users 2-11
RATED_BY = 5  # ... and the pairs five of them rated
SCALE = RatingScale(1, 5, "ordinal")
MAX_RESULT_CHARS = 100_000
#: aspect -> (question key, how the authors turn its answer into 1-5)
QUESTIONS = {
    "style": ("otherErrorQuestion1", lambda a: int(a[-1])),
    "content": ("otherErrorQuestion2", lambda a: int(a[-2:]) - 5 if a[-2:] == "10" else int(a[-1]) - 5),
    "fluency": ("otherErrorQuestion3", lambda a: int(a[-2:]) - 10),
}


def _answers(text: str, path: Path, row: int) -> dict[str, float]:
    if len(text) > MAX_RESULT_CHARS:
        raise DataValidationError(f"is {len(text)} characters", path=path, record=f"row {row}", field="result")
    try:
        result = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        result = None
    if not isinstance(result, dict):
        raise DataValidationError(
            f"is not a dict literal ({text[:60]!r})", path=path, record=f"row {row}", field="result",
            expected="the study's answers, e.g. {'otherErrorQuestion1': ...}",
        )  # fmt: skip
    out = {}
    for aspect, (key, parse) in QUESTIONS.items():
        answer = result.get(key)
        try:
            out[aspect] = float(parse(str(answer)))
        except (ValueError, TypeError, IndexError):
            raise DataValidationError(
                f"answer {answer!r} of {key} has no option number", path=path, record=f"row {row}",
                field=f"result.{key}", expected="an answer ending in its option's number",
            ) from None  # fmt: skip
    return out


def load_ziegenbein(path: Path) -> JudgementTable:
    """Read the clone's two files (module docstring) into a judgement table."""
    root = Path(path)
    pairs_path, results_path = root / PAIRS_FILE, root / RESULTS_FILE
    pairs = {r["id"]: r for r in read_tsv(pairs_path, delimiter=",", required=("id", "source", "rewrite"))}
    results = read_tsv(results_path, delimiter=",", required=("a_id", "user_id", "post_id", "result"))
    kept = [(i, r) for i, r in enumerate(results, start=1) if r["user_id"].strip().isdigit()]
    kept = [(i, r) for i, r in kept if int(r["user_id"]) in USERS]
    times = Counter(r["post_id"] for _, r in kept)
    kept = [(i, r) for i, r in kept if times[r["post_id"]] == RATED_BY]
    posts = list(dict.fromkeys(r["post_id"] for _, r in kept))
    users = sorted({int(r["user_id"]) for _, r in kept})
    slot = {u: k for k, u in enumerate(users)}
    index = {p: k for k, p in enumerate(posts)}
    values = {a: np.full((len(posts), len(users)), np.nan) for a in QUESTIONS}
    first_row: dict[str, int] = {}
    for i, r in kept:
        post = r["post_id"]
        if post not in pairs:
            raise DataValidationError(
                f"names pair {post!r}, which {pairs_path.name} does not hold", path=results_path,
                record=f"row {i}", field="post_id", expected="an id of the study's pairs",
            )  # fmt: skip
        first_row.setdefault(post, i)
        for aspect, value in _answers(r["result"], results_path, i).items():
            values[aspect][index[post], slot[int(r["user_id"])]] = value
    blocks = {
        aspect: AspectRatings(
            aspect,
            SCALE,
            tuple(f"user-{u}" for u in users),
            matrix,
            fields=tuple(f"result.{QUESTIONS[aspect][0]} (user {u})" for u in users),
        )  # fmt: skip
        for aspect, matrix in values.items()
    }
    return judgement_table(
        name="ziegenbein2024-appropriateness",
        item_id=posts,
        source=[pairs[p]["source"] for p in posts],
        output=[pairs[p]["rewrite"].strip() for p in posts],
        subset=["appropriateness"] * len(posts),
        system=[p.split("_", 1)[1] if "_" in p else p for p in posts],
        ratings=blocks,
        target_style=["appropriate"] * len(posts),
        origins=[RowOrigin(str(results_path), first_row[p]) for p in posts],
        files=[str(pairs_path), str(results_path)],
    )
