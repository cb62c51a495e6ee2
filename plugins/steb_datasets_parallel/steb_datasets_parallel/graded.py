"""Corpora given as one row per content with one column per style level: graded formality, CDS.

Graded formality: each content rewritten at five formality levels. Expected release file (TSV with a
header; ``.csv`` with commas also read): columns ``level_1`` .. ``level_5`` (1 = most informal) and
optionally ``id`` and ``class`` (the source or domain the sentence comes from: groups never mix
classes). Column names are options (``level_columns``, ``class_column``) for releases that name them
differently.

Corpus of Diverse Styles (Krishna et al., 2020, STRAP): 11 styles (AAE tweets, Bible, Shakespeare,
Joyce, lyrics, poetry, Switchboard, English tweets, 1810s..1990s COHA). The release has
``{split}.txt`` with one sentence per line and ``{split}.label`` with its style; STRAP's
style-stripping paraphrases ship as GPT-2 BPE (``{split}.paraphrase_250_input0.bpe``) which must be
decoded to text first (STRAP's ``datasets/bpe2text.py``) into ``{split}.paraphrase.txt``. Each line is a
parallel item on the axis (neutral paraphrase, original styled sentence); the class is the style.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import DataValidationError, LoadContext, read_tsv
from steb_core.parallel import ParallelItem

from .aligned import read_aligned
from .common import locate_file, option_list

__all__ = ["read_graded_formality", "read_cds", "GRADED", "CDS"]

GRADED = {
    "obtain": "obtain the graded formality paraphrase sets (five formality levels per content) used by STEB",
    "layout": "<data-dir>/graded_formality/graded_formality.tsv (or .csv) with header columns level_1..level_5 "
              "(1 = most informal) and optional id, class",
}
CDS = {
    "obtain": "download the Corpus of Diverse Styles from STRAP (https://github.com/martiansideofthemoon/style-transfer-paraphrase) "
              "and decode the {split}.paraphrase_250_input0.bpe paraphrases to text with its datasets/bpe2text.py",
    "layout": "<data-dir>/corpus-of-diverse-styles/{split}.txt, {split}.label and {split}.paraphrase.txt, line-aligned",
}


def read_graded_formality(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    path = locate_file(ctx, root, [str(ctx.options.get("file", "graded_formality.tsv")), "graded_formality.csv"], **GRADED)
    levels = option_list(ctx, "level_columns", tuple(f"level_{i}" for i in range(1, 6)))
    class_col = str(ctx.options.get("class_column", "class"))
    rows = read_tsv(path, required=levels, delimiter="," if path.suffix == ".csv" else "\t")
    items = []
    for i, row in enumerate(rows, start=1):
        record = f"row {i}" + (f" (id {row['id']})" if row.get("id") else "")
        for col in levels:
            if not (row.get(col) or "").strip():
                raise DataValidationError("is empty", path=path, record=record, field=col, expected="the text at this level")
        items.append(ParallelItem(tuple(row[c] for c in levels), id=row.get("id") or f"row {i}",
                                  style_type=(row.get(class_col) or "formality").strip() or "formality", source=str(path)))
    return items, {"file": path.name, "axis": list(levels)}


def read_cds(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    split = str(ctx.options.get("split", "test"))
    files = {role: locate_file(ctx, root, [f"{split}.{ext}"], **CDS)
             for role, ext in (("text", "txt"), ("label", "label"), ("paraphrase", "paraphrase.txt"))}
    rows = read_aligned(files)
    items = [ParallelItem((r["paraphrase"], r["text"]), id=f"{split}:{i}", style_type=r["label"].strip(), source=str(files["text"]))
             for i, r in enumerate(rows, start=1)]
    return items, {"split": split, "axis": ["paraphrase", "original"], "styles": sorted({it.style_type for it in items})}
