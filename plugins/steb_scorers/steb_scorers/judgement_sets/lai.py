"""Lai et al. (2022)'s formality human judgements as a judgement set (the table every protocol reads).

Read by :func:`steb_scorers.metaeval.human.load_human_judgements` (the release's ``SYSTEM.human.txt`` files, one per
system, REF among them) and re-shaped: one row per (system, source line); the subset is the transfer direction
(informal-to-formal, formal-to-informal); the two annotators of each survey are different people in every survey,
so their ids are ``survey-S/annotator-J``; ratings are 0-100 (Direct-Assessment style, an interval scale). The
``lai2022`` and ``wmt17-darr`` protocols keep reading the loader's own richer object (surveys, the four reference
files), which this table is built from.
"""

from __future__ import annotations

from pathlib import Path

from steb_core import AspectRatings, JudgementTable, RatingScale, RowOrigin, judgement_table

__all__ = ["load_lai_judgements", "SCALE"]

SCALE = RatingScale(0, 100, "interval")


def load_lai_judgements(path: Path) -> JudgementTable:
    """The release's ``data/outputs`` folder (or steb's ``formality_human_judgements``) as a judgement table."""
    from ..metaeval.human import ASPECTS, TARGET_STYLE, load_human_judgements

    path = Path(path)
    if not any(path.glob("*.human.txt")) and (path / "data" / "outputs").is_dir():  # a clone of the release
        path = path / "data" / "outputs"
    data = load_human_judgements(path)
    all_refs = [list(refs) if isinstance(refs, list) else [refs] for refs in data.reference_choice("1")]
    if data.extra_references:
        all_refs = [[ref, *data.extra_references[int(i)]] for ref, i in zip(data.references, data.item)]
    ids = tuple((f"survey-{int(s)}/annotator-1", f"survey-{int(s)}/annotator-2") for s in data.survey)
    blocks = {
        aspect: AspectRatings(
            aspect,
            SCALE,
            ("annotator-1", "annotator-2"),
            data.ratings[aspect],
            fields=(f"{aspect}-1", f"{aspect}-2"),
            annotator_ids=ids,
        )
        for aspect in ASPECTS
    }
    return judgement_table(
        name="lai2022-formality",
        item_id=[f"{int(i)}" for i in data.item],
        source=data.sources,
        output=data.outputs,
        references=all_refs,
        subset=[str(d) for d in data.direction],
        system=[str(s) for s in data.system],
        ratings=blocks,
        target_style=[TARGET_STYLE[str(d)] for d in data.direction],
        origins=[RowOrigin(data.files[str(s)], int(i) + 1) for s, i in zip(data.system, data.item)],
        files=list(data.files.values()),
    )
