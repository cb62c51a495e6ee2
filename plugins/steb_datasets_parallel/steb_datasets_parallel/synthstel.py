"""SynthSTEL (Patel et al., 2025, StyleDistance): GPT-4 paraphrase pairs that differ in one of 40 style features.

Release (Hugging Face ``StyleDistance/synthstel``, MIT): ``data/train-*.parquet`` (3,600 rows) and
``data/test-*.parquet`` (400 rows) with columns ``positive`` (the text showing the feature), ``negative``
(the same content without it), ``feature`` (the contrast as "presence / absence", e.g. ``polite /
impolite``) and ``feature_clean`` (a readable name). 100 pairs per feature over train + test.

Each row is one parallel item, as the STEB reference reads it (``steb/loaders/synthstel.py`` @de04732e
``load_synthstel``, HF split ``train+test``; ``steb/steb_datasets/SynthSTEL/loader.py``
``synthstel_record_handler``, the version with ``feature``): rows of train then test in release order, the
sequence [positive, negative] (most to least of the feature), both stripped; the class is the ``feature``
column, stripped and lower-cased: it has the release's 40 distinct values, while ``feature_clean`` has 38 (it
folds three self-focused contrasts -- vs. inclusive, vs. you-focused, vs. third person -- into one name; an
older stored handler used it), so only ``feature`` gives STEB Table 15's 8 register + 32 linguistic-feature
classes. Option ``splits`` picks the splits.

The release does not mark which features are register features, so they are a stated list,
:data:`REGISTER_FEATURES`: the eight ``feature`` values STEB's own loader (rrivera1849/STEB,
``steb/loaders/synthstel.py``) treats as register -- formality, politeness, offensive language, sarcasm,
positive sentiment, humour, certain tone and complex-vs-simple (the counterpart of STEL's simplicity
dimension). They are matched exactly (case and spacing aside) against ``feature`` -- never by
substring, so e.g. a slang feature whose name contains "formal" is not taken for formality. The option
``register_features`` (comma list of exact ``feature`` or ``feature_clean`` names) replaces the list.
The split read, the register/linguistic classes found and any stated feature the release lacks are
recorded in the bundle info (and warned about), so the class count can be checked against Table 15.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from steb_core import DataValidationError, LoadContext, ParallelItem, load_hub_split, release_file

from .common import Reader

__all__ = ["make_synthstel_reader", "REGISTER_FEATURES", "CLASS_COLUMN", "HUB_ID", "HUB_REVISION", "OBTAIN", "LAYOUT"]

#: STEB's eight register features of SynthSTEL, as values of the release's ``feature`` column (STEB's loader
#: lower-cases them; matching here ignores case and spacing). Every other feature is a linguistic feature.
REGISTER_FEATURES: tuple[str, ...] = (
    "formal / informal",
    "polite / impolite",
    "offensive / non-offensive",
    "with sarcasm / without sarcasm",
    "positive / negative",
    "with humor / without humor",
    "certain / uncertain",
    "complex / simple",
)
#: The column that names the class (40 values; ``feature_clean`` has 38, see the module docstring).
CLASS_COLUMN = "feature"
HUB_ID = "StyleDistance/synthstel"
#: The hub revision steb pins: commit 654e12a "Upload dataset", holding data/train-00000-of-00001.parquet (513 kB) and
#: data/test-00000-of-00001.parquet (61.5 kB) -- the sizes the data folder of main still has (checked on the hub's
#: file listings; the later commits on main edit README.md).
HUB_REVISION = "654e12a58f3805963e6282ee45619b61a5029877"
OBTAIN = (
    f"the Hugging Face release, hub id {HUB_ID} (MIT): `huggingface-cli download {HUB_ID} --repo-type dataset "
    "--revision "
    f"{HUB_REVISION} --local-dir DATA_DIR/SynthSTEL`, or a datasets.save_to_disk folder there, or the local hub cache "
    "filled by datasets.load_dataset"
)
LAYOUT = (
    "<data-dir>/SynthSTEL/ (or <data-dir>/<dataset name>/) with data/{train,test}-*.parquet (columns positive, "
    "negative, "
    "feature, feature_clean) or a save_to_disk folder; without it, the local hub cache of " + HUB_ID
)
COLUMNS = ("positive", "negative", "feature")


def _norm(name: str) -> str:
    return " ".join(name.split()).casefold()


def _register_names(chosen: tuple[str, ...] | None) -> dict[str, str]:
    """normalised name -> the stated name it matches: the option's names (either column) or the stated list."""
    return {_norm(n): n for n in (chosen if chosen is not None else REGISTER_FEATURES)}


def _read_rows(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(release_file(path))
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for corrupt files
        raise DataValidationError(
            f"is not a readable parquet file ({exc})", path=path, expected="SynthSTEL parquet"
        ) from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise DataValidationError(
            f"missing column(s) {missing}; it has {table.column_names}",
            path=path,
            record="schema",
            expected=f"columns {list(COLUMNS)}",
        )
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def _hub_rows(ctx: LoadContext, root: Path, splits: tuple[str, ...]) -> list[tuple[Path, str, list[dict[str, Any]]]]:
    """Rows per split of a ``save_to_disk`` folder or hub snapshot at ``root`` (read with :mod:`steb_core._hub`)."""
    out = []
    for split in splits:
        rows = load_hub_split(root, HUB_ID, split=split, dataset=ctx.dataset)
        missing = [c for c in COLUMNS if rows and c not in rows[0]]
        if missing:
            raise DataValidationError(
                f"missing column(s) {missing}; it has {sorted(rows[0])}",
                path=root,
                record=f"{split} schema",
                expected=f"columns {list(COLUMNS)}",
            )
        out.append((root, f"{split} split", rows))
    return out


def make_synthstel_reader(register: bool) -> Reader:
    """A reader for the register (``register=True``) or the linguistic-feature half of SynthSTEL."""

    def read(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
        splits = ctx.names("splits", ("train", "test"))
        chosen = ctx.names("register_features", ()) or None
        names = _register_names(chosen)
        # the stated list names ``feature`` values; the option may name either column
        match_columns = (CLASS_COLUMN, "feature_clean") if chosen else (CLASS_COLUMN,)
        items: list[ParallelItem] = []
        register_names: set[str] = set()
        feature_names: set[str] = set()
        matched: set[str] = set()
        # split by split in the order asked (train, then test: the reference's "train+test"), shards sorted
        files = [p for s in splits for p in sorted([*root.glob(f"data/{s}-*.parquet"), *root.glob(f"{s}-*.parquet")])]
        sources = [(path, path.name, _read_rows(path)) for path in files] if files else _hub_rows(ctx, root, splits)
        for path, name_of_file, rows in sources:
            for i, row in enumerate(rows, start=1):
                for col in ("positive", "negative"):
                    if not isinstance(row.get(col), str) or not row[col].strip():
                        raise DataValidationError(
                            "is empty or not text", path=path, record=f"row {i}", field=col, expected="a text"
                        )
                name = row.get(CLASS_COLUMN)
                if not isinstance(name, str) or not name.strip():
                    raise DataValidationError(
                        "is empty",
                        path=path,
                        record=f"row {i}",
                        field=CLASS_COLUMN,
                        expected="a feature name (the class)",
                    )
                name = " ".join(name.split()).lower()
                hits = {
                    names[_norm(row[c])]
                    for c in match_columns
                    if isinstance(row.get(c), str) and _norm(row[c]) in names
                }
                matched |= hits
                is_reg = bool(hits)
                (register_names if is_reg else feature_names).add(name)
                if is_reg == register:
                    texts = (row["positive"].strip(), row["negative"].strip())
                    items.append(ParallelItem(texts, id=f"{name_of_file}:{i}", style_type=name, source=str(path)))
        stated = list(chosen) if chosen else list(REGISTER_FEATURES)
        not_found = [c for c in stated if c not in matched]
        if not_found:
            warnings.warn(
                f"dataset '{ctx.dataset}': register feature(s) {not_found} match no feature name of the release under "
                f"{root}; "
                f"its features are {sorted(register_names | feature_names)} (option register_features names them "
                "exactly)",
                stacklevel=2,
            )
        info = {
            "files": [name for _, name, _ in sources],
            "axis": ["with feature", "without feature"],
            "class_column": CLASS_COLUMN,
            "features_in_release": len(register_names | feature_names),
            "register_features": sorted(register_names),
            "linguistic_features": sorted(feature_names),
            "register_selection": "option register_features (exact feature / feature_clean names)"
            if chosen
            else "stated list steb_datasets_parallel.synthstel.REGISTER_FEATURES (exact feature values, as STEB's "
            "loader)",
            "register_features_not_found": not_found,
        }
        return items, info

    return read
