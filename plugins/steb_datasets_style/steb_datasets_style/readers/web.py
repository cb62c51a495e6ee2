"""Web and genre corpora: X-GENRE (hub jsonl), CORE's label map, MASC (folders of documents split into paragraphs)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext, open_gzip, read_bytes

from ..common import Loaded, family_dir, read_text_lenient, with_dir
from .base import make_record, release_files
from .tables import table

__all__ = ["XGENRE_HUB_ID", "x_genre", "CORE_SUB_REGISTERS", "core", "english_rows", "paragraphs", "masc"]

XGENRE_HUB_ID = "TajaKuzman/X-GENRE-text-genre-dataset"


def x_genre(ctx: LoadContext, obtain: str) -> Loaded:
    """X-GENRE (Kuzman et al. 2023), hosted on the Hugging Face hub as ``X-GENRE-{train,dev,test}.jsonl``
    (fields ``text``, ``labels``, ``dataset``, ``language``): read from the dataset folder (a
    ``huggingface-cli download --local-dir`` copy or a ``save_to_disk`` folder) or the local hub cache.
    All three splits are read; rows not in English are dropped."""
    from steb_core import find_hub_location, load_hub_split

    layout = "X-GENRE-train.jsonl, X-GENRE-dev.jsonl, X-GENRE-test.jsonl (text, labels, language)"
    location = find_hub_location(ctx.data_dir, XGENRE_HUB_ID) or family_dir(
        ctx, None, obtain, layout
    )  # the latter raises "obtain it"
    candidates = ("X-GENRE-*.jsonl", "X-GENRE*.json", "X-GENRE*.csv", "X-GENRE*.tsv")
    if any(p.is_file() for c in candidates for p in location.glob(c)):
        return table(candidates, columns={"text": "text", "label": "labels"}, where=english_rows, layout=layout)(
            with_dir(ctx, location), obtain
        )
    saved = (location / "dataset_dict.json").is_file() or (
        (location / "state.json").is_file() and (location / "dataset_info.json").is_file()
    )
    if not saved:
        raise DatasetNotFoundError(
            f"dataset '{ctx.dataset}': {location} holds neither X-GENRE-*.jsonl files nor a save_to_disk folder "
            f"(the GitHub repository Genre-Datasets-Comparison holds code only). Obtain it: {obtain}"
        )
    stats: Counter[str] = Counter()
    out = []
    for i, row in enumerate(load_hub_split(location, XGENRE_HUB_ID, split="train", dataset=ctx.dataset)):
        where = f"row {i + 1}"
        if not english_rows(row):
            stats["filtered"] += 1
            continue
        for col in ("text", "labels"):
            if not isinstance(row.get(col), str):
                raise DataValidationError(
                    f"holds {type(row.get(col)).__name__}", path=location, record=where, field=col, expected="text"
                )
        if rec := make_record(row["text"], row["labels"], None, location, where, stats):
            out.append(rec)
    return out, {"root": str(location), **stats}


#: CORE's 47 sub-register codes (the release's register_label_abbreviations.txt minus the eight main registers IN,
#: NA, HI, LY, SP, IP, ID, OP and OTHER): the labels the STEB reference keeps
CORE_SUB_REGISTERS = frozenset(
    "AD AV CM DF DP DS DT ED EN FH FI FS HA HT IB IT LE LT MA NE OB OE OF OH OI OL ON OO OS PA PB PO PR QA RA RE RR RS "
    "RV SL SR SS TA TB TR TS TV".split()
)


def core(ctx: LoadContext, obtain: str) -> Loaded:
    """CORE (github.com/TurkuNLP/CORE-corpus) as the STEB reference reads it (``steb/steb_datasets/core/loader.py``
    @7b9c3179 ``load_core_dataset``, config @b9669f70): train, dev, then test (``<split>.tsv`` or the release's
    ``.tsv.gz``), lines of headerless TSV (labels, id, text); a line with fewer than three fields or a blank text is
    skipped; one record per label token that is a sub-register code (case aside: :data:`CORE_SUB_REGISTERS`), so a
    multi-label document appears under each of its sub-registers; text = the third field as written. Label = the
    code in lower case."""
    root = family_dir(ctx, None, obtain, "train.tsv.gz, dev.tsv.gz, test.tsv.gz")
    stats: Counter[str] = Counter()
    out = []
    files = []
    for split in ("train", "dev", "test"):
        path = next((root / f"{split}{ext}" for ext in (".tsv", ".tsv.gz") if (root / f"{split}{ext}").is_file()), None)
        if path is None:
            continue
        files.append(path.name)
        if path.suffix == ".gz":
            with open_gzip(path) as handle:  # decompressed size capped: a gzip bomb is refused, not unpacked
                raw = handle.read()
        else:
            raw = read_bytes(path)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line_no = raw[: exc.start].count(b"\n") + 1
            raise DataValidationError(f"is not UTF-8 ({exc.reason})", path=path, record=f"line {line_no}") from None
        for i, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
            parts = line.split("\t")
            if len(parts) < 3 or not parts[2].strip():
                stats["lines_skipped"] += bool(line)
                continue
            for token in parts[0].split():
                if token.upper() in CORE_SUB_REGISTERS:
                    if rec := make_record(parts[2], token.lower(), parts[1], path, f"line {i}", stats):
                        out.append(rec)
    if not files:
        raise DataValidationError(f"holds none of train/dev/test.tsv(.gz). Obtain it: {obtain}", path=root)
    return out, {"root": str(root), "files": files, **stats}


def english_rows(row: Mapping[Any, Any]) -> bool:
    """X-GENRE: keep English rows when the release marks the language (a file without the column is English)."""
    return str(row.get("language", row.get("lang", "en")) or "en").strip().lower() in {"en", "eng", "english"}


def paragraphs(text: str, min_chars: int = 20) -> list[str]:
    """Blank-line separated paragraphs (single lines when a file has no blank line), short ones dropped."""
    blocks = re.split(r"\n\s*\n", text) if re.search(r"\n\s*\n", text) else text.split("\n")
    return [b.strip() for b in blocks if len(b.strip()) >= min_chars]


def masc(ctx: LoadContext, obtain: str) -> Loaded:
    """MASC: ``data/{written,spoken}/<genre>/*.txt``; each document split into paragraphs, label = genre folder."""
    root = family_dir(ctx, None, obtain, "data/written/<genre>/*.txt and data/spoken/<genre>/*.txt")
    base = root / "data" if (root / "data").is_dir() else root
    files = release_files(base, "*/*/*.txt", obtain)
    stats: Counter[str] = Counter()
    out = []
    min_chars = ctx.integer("min_chars", 20)
    for f in files:
        genre = f.parent.name
        for i, para in enumerate(paragraphs(read_text_lenient(f), min_chars)):
            rec = make_record(para, genre, f"{f.stem}:{i}", f, f"paragraph {i}", stats)
            if rec:
                out.append(rec)
    return out, {"root": str(root), "files": len(files), "segmentation": f"paragraphs >= {min_chars} chars", **stats}
