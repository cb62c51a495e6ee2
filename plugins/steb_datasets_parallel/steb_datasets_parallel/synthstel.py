"""SynthSTEL (Patel et al., 2024, StyleDistance): GPT-4 paraphrase pairs that differ in one of 40 style features.

Release (Hugging Face ``StyleDistance/synthstel``, MIT): ``data/train-*.parquet`` (3,600 rows) and
``data/test-*.parquet`` (400 rows) with columns ``positive`` (the text showing the feature), ``negative``
(the same content without it), ``feature`` and ``feature_clean`` (the feature's name). 100 pairs per feature.

Each row is one parallel item on the axis (without feature, with feature); the class is the feature.
STEB splits the 40 features into register (8) and linguistic-feature (32) datasets. The release does
not mark which is which, so register features are chosen by name: ``register_features`` (option,
comma-separated exact names) or, by default, names containing one of :data:`REGISTER_KEYWORDS`; the
resulting split is recorded in the bundle info so it can be checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import DataValidationError, LoadContext
from steb_core.hub import load_hub_split
from steb_core.parallel import ParallelItem

from .common import option_list

__all__ = ["read_synthstel", "REGISTER_KEYWORDS", "OBTAIN", "LAYOUT"]

REGISTER_KEYWORDS = ("formal", "polite", "offensive", "profan", "vulgar", "slang", "colloquial", "jargon")
HUB_ID = "StyleDistance/synthstel"
OBTAIN = (f"the Hugging Face release, hub id {HUB_ID} (MIT): `huggingface-cli download {HUB_ID} --repo-type dataset --local-dir "
          "DATA_DIR/SynthSTEL`, or a datasets.save_to_disk folder there, or the local hub cache filled by datasets.load_dataset")
LAYOUT = ("<data-dir>/SynthSTEL/ (or <data-dir>/<dataset name>/) with data/{train,test}-*.parquet (columns positive, negative, "
          "feature, feature_clean) or a save_to_disk folder; without it, the local hub cache of " + HUB_ID)
COLUMNS = ("positive", "negative", "feature")


def _is_register(name: str, chosen: tuple[str, ...] | None) -> bool:
    if chosen is not None:
        return name in chosen
    lowered = name.lower()
    return any(k in lowered for k in REGISTER_KEYWORDS)


def _read_rows(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise DataValidationError(f"is not a readable parquet file ({exc})", path=path, expected="SynthSTEL parquet") from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise DataValidationError(f"missing column(s) {missing}; it has {table.column_names}", path=path, record="schema",
                                  expected=f"columns {list(COLUMNS)}")
    return table.to_pylist()


def _hub_rows(ctx: LoadContext, root: Path, splits: tuple[str, ...]) -> list[tuple[Path, str, list[dict[str, Any]]]]:
    """Rows per split of a ``save_to_disk`` folder or hub snapshot at ``root`` (read with :mod:`steb_core.hub`)."""
    out = []
    for split in splits:
        rows = load_hub_split(root, HUB_ID, split=split, dataset=ctx.dataset)
        missing = [c for c in COLUMNS if rows and c not in rows[0]]
        if missing:
            raise DataValidationError(f"missing column(s) {missing}; it has {sorted(rows[0])}", path=root, record=f"{split} schema",
                                      expected=f"columns {list(COLUMNS)}")
        out.append((root, f"{split} split", rows))
    return out


def make_synthstel_reader(register: bool):
    """A reader for the register (``register=True``) or the linguistic-feature half of SynthSTEL."""

    def read(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
        splits = option_list(ctx, "splits", ("train", "test"))
        chosen = option_list(ctx, "register_features", ()) or None
        items: list[ParallelItem] = []
        register_names: set[str] = set()
        feature_names: set[str] = set()
        files = sorted(p for s in splits for p in [*root.glob(f"data/{s}-*.parquet"), *root.glob(f"{s}-*.parquet")])
        sources = [(path, path.name, _read_rows(path)) for path in files] if files else _hub_rows(ctx, root, splits)
        for path, name_of_file, rows in sources:
            for i, row in enumerate(rows, start=1):
                name = row.get("feature_clean") or row.get("feature")
                for col in ("positive", "negative"):
                    if not isinstance(row.get(col), str) or not row[col].strip():
                        raise DataValidationError("is empty or not text", path=path, record=f"row {i}", field=col, expected="a text")
                if not isinstance(name, str) or not name.strip():
                    raise DataValidationError("is empty", path=path, record=f"row {i}", field="feature", expected="a feature name")
                is_reg = _is_register(name, chosen)
                (register_names if is_reg else feature_names).add(name)
                if is_reg == register:
                    items.append(ParallelItem((row["negative"], row["positive"]), id=f"{name_of_file}:{i}", style_type=name, source=str(path)))
        info = {"files": [name for _, name, _ in sources], "axis": ["without feature", "with feature"],
                "register_features": sorted(register_names), "linguistic_features": sorted(feature_names),
                "register_selection": "option register_features" if chosen else f"name contains one of {list(REGISTER_KEYWORDS)}"}
        return items, info

    return read
