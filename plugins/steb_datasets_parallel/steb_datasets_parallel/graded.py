"""Corpora given as one row per content with one column per style level: graded formality.

Graded formality: each content rewritten at five formality levels. Expected release file (TSV with a
header; ``.csv`` with commas also read): columns ``level_1`` .. ``level_5`` (1 = most informal) and
optionally ``id`` and ``class`` (the source or domain the sentence comes from: groups never mix
classes). Column names are options (``level_columns``, ``class_column``) for releases that name them
differently.

The Corpus of Diverse Styles, which STEB also uses for clustering, lives in :mod:`steb_datasets_parallel.cds`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import DataValidationError, LoadContext, ParallelItem, read_tsv

from .common import locate_file

__all__ = ["read_graded_formality", "GRADED"]

GRADED = {
    "obtain": "obtain the graded formality paraphrase sets (five formality levels per content) used by STEB",
    "layout": "<data-dir>/graded_formality/graded_formality.tsv (or .csv) with header columns level_1..level_5 "
    "(1 = most informal) and optional id, class",
}


def read_graded_formality(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    path = locate_file(
        ctx, root, [str(ctx.options.get("file", "graded_formality.tsv")), "graded_formality.csv"], **GRADED
    )
    levels = ctx.names("level_columns", tuple(f"level_{i}" for i in range(1, 6)))
    class_col = str(ctx.options.get("class_column", "class"))
    rows = read_tsv(path, required=levels, delimiter="," if path.suffix == ".csv" else "\t")
    items = []
    for i, row in enumerate(rows, start=1):
        record = f"row {i}" + (f" (id {row['id']})" if row.get("id") else "")
        for col in levels:
            if not (row.get(col) or "").strip():
                raise DataValidationError(
                    "is empty", path=path, record=record, field=col, expected="the text at this level"
                )
        items.append(
            ParallelItem(
                tuple(row[c] for c in levels),
                id=row.get("id") or f"row {i}",
                style_type=(row.get(class_col) or "formality").strip() or "formality",
                source=str(path),
            )
        )
    return items, {"file": path.name, "axis": list(levels)}
