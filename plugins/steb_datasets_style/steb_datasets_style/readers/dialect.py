"""Dialect corpora: eWAVE's CLDF examples and EnDive's parallel dialect tables."""

from __future__ import annotations

from collections import Counter

from steb_core import DataValidationError, LoadContext, read_table, unique_keys

from ..common import Loaded, family_dir
from .base import make_record, release_files

__all__ = ["ewave", "EWAVE_MIN_EXAMPLES", "ENDIVE_DIALECTS", "endive"]

#: the reference's ``_MIN_EXAMPLES_PER_VARIETY``: a variety with fewer examples is dropped by the reader
EWAVE_MIN_EXAMPLES = 2


def ewave(ctx: LoadContext, obtain: str) -> Loaded:
    """eWAVE CLDF: ``cldf/examples.csv`` (``Language_ID``, ``Primary_Text``) + ``cldf/languages.csv``
    (``ID``, ``Name``).

    As the STEB reference reads it (``steb/steb_datasets/ewave/loader.py`` @d6c16993 ``load_eWAVE_dataset``, config
    @1fbd5f22): the examples in file order, text = ``Primary_Text`` stripped (empty ones skipped), label = the
    variety's ``Name``; varieties with fewer than 2 examples are dropped *before* the per-class count is taken
    (on the release: 53 varieties, the smallest with 29 examples, so N = 29). Where steb is stricter: an example
    naming a language ``languages.csv`` lacks, or an example ID given twice, is an error (the reference skips
    the former; the release has neither).
    """
    root = family_dir(ctx, None, obtain, "cldf/examples.csv and cldf/languages.csv (CLDF)")
    base = root / "cldf" if (root / "cldf").is_dir() else root
    entries = []
    for where, row in read_table(base / "languages.csv"):
        if not row.get("ID") or not row.get("Name"):
            raise DataValidationError(
                "is missing or empty",
                path=base / "languages.csv",
                record=where,
                field="ID" if not row.get("ID") else "Name",
            )
        entries.append((where, row["ID"], row["Name"]))
    names = unique_keys(entries, path=base / "languages.csv", field="ID", what="Name")
    stats: Counter[str] = Counter()
    out = []
    path = base / "examples.csv"
    example_ids: dict[str, str] = {}
    for where, row in read_table(path):
        for col in ("Language_ID", "Primary_Text"):
            if col not in row:
                raise DataValidationError(
                    "is missing", path=path, record=where, field=col, expected="CLDF ExampleTable columns"
                )
        lang = row["Language_ID"]
        if lang not in names:
            raise DataValidationError(
                f"names unknown language {lang!r}",
                path=path,
                record=where,
                field="Language_ID",
                expected="an ID of languages.csv",
            )
        if row.get("ID"):
            if row["ID"] in example_ids:
                raise DataValidationError(
                    f"duplicate example ID {row['ID']!r}: first at {example_ids[row['ID']]}",
                    path=path,
                    record=where,
                    field="ID",
                    expected="each ID once",
                )
            example_ids[row["ID"]] = where
        if rec := make_record((row["Primary_Text"] or "").strip(), names[lang], row.get("ID"), path, where, stats):
            out.append(rec)
    sizes = Counter(r.label for r in out)
    rare = {label: n for label, n in sizes.items() if n < EWAVE_MIN_EXAMPLES}
    if rare:
        out = [r for r in out if r.label not in rare]
        stats["dropped_varieties_under_2_examples"] = len(rare)
    return out, {"root": str(root), **stats}


ENDIVE_DIALECTS = ("SAE", "AAVE", "ChcE", "CollSgE", "IndE", "JamE")


def endive(ctx: LoadContext, obtain: str) -> Loaded:
    """EnDive: parallel tables with one text column per dialect (default: SAE and the five dialects);
    every non-empty cell becomes a text labelled with its column. ``--dataset-option dialects=...`` renames."""
    root = family_dir(ctx, None, obtain, f"*.csv / *.jsonl / *.parquet with columns {', '.join(ENDIVE_DIALECTS)}")
    dialects = ctx.option("dialects", ENDIVE_DIALECTS)
    dialects = tuple(dialects.split(",")) if isinstance(dialects, str) else tuple(dialects)
    files = [f for f in release_files(root, "*", obtain) if f.suffix in (".csv", ".tsv", ".jsonl", ".json", ".parquet")]
    stats: Counter[str] = Counter()
    out = []
    for f in files:
        for where, row in read_table(f):
            present = [d for d in dialects if d in row]
            if not present:
                raise DataValidationError(
                    f"has none of the dialect columns; row has {sorted(map(str, row))[:12]}",
                    path=f,
                    record=where,
                    field="/".join(dialects),
                )
            for d in present:
                value = row[d]
                if value in (None, ""):
                    continue
                if not isinstance(value, str):
                    raise DataValidationError(
                        f"holds {type(value).__name__}", path=f, record=where, field=d, expected="text"
                    )
                if rec := make_record(value, d, None, f, where, stats):
                    out.append(rec)
    return out, {"root": str(root), "dialects": list(dialects), **stats}
