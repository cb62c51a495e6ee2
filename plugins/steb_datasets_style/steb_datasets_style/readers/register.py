"""Register corpora read from folders or derived labels: Enron-Spam, the white-supremacy forum, Stanford politeness."""

from __future__ import annotations

from collections import Counter

import numpy as np

from steb_core import DataValidationError, DatasetNotFoundError, LoadContext
from steb_core.generic import read_table
from steb_core.io import release_path, unique_keys

from ..common import family_dir, read_text_lenient
from .base import make_record, release_files

__all__ = ["enron_spam", "hate_speech_forum", "politeness"]


def enron_spam(ctx: LoadContext, obtain: str):
    """Enron-Spam (pre-processed): ``enron1..6/{ham,spam}/*.txt``, one e-mail per file (Latin-1 in places)."""
    root = family_dir(ctx, None, obtain, "enron1/ham/*.txt, enron1/spam/*.txt, ... enron6/")
    files = [f for f in release_files(root, "**/*.txt", obtain) if f.parent.name in ("ham", "spam")]
    if not files:
        raise DataValidationError(f"no ham/ or spam/ folder with .txt files. Obtain it: {obtain}", path=root)
    stats: Counter = Counter()
    out = [r for f in files if (r := make_record(read_text_lenient(f), f.parent.name, f"{f.parent.parent.name}/{f.parent.name}/{f.name}", f, "file", stats))]
    return out, {"root": str(root), "files": len(files), **stats}


def hate_speech_forum(ctx: LoadContext, obtain: str):
    """de Gibert et al. (2018): ``annotations_metadata.csv`` (``file_id``, ``label``) + ``all_files/<file_id>.txt``.

    Only the two definite classes are kept (``hate`` / ``noHate``); ``relation`` and ``idk/skip`` are dropped.
    A ``file_id`` listed twice (with the same or a flipped label) is refused: the metadata is the only
    source of the labels. File names come from the release and must stay inside it.
    """
    root = family_dir(ctx, None, obtain, "annotations_metadata.csv and all_files/<file_id>.txt")
    meta = root / "annotations_metadata.csv"
    if not meta.is_file():
        raise DatasetNotFoundError(f"dataset '{ctx.dataset}': missing file {meta}. Obtain it: {obtain}")
    entries = []
    for where, row in read_table(meta):
        fid = row.get("file_id")
        label = row.get("label")
        if not fid or label in (None, ""):
            raise DataValidationError("is missing or empty", path=meta, record=where, field="file_id" if not fid else "label")
        entries.append((where, fid, label))
    labels = unique_keys(entries, path=meta, field="file_id", what="label")
    stats: Counter = Counter()
    out = []
    for where, fid, _ in entries:
        label = labels[fid]
        if label not in ("hate", "noHate"):
            stats["dropped_label"] += 1
            continue
        txt = release_path(root / "all_files", f"{fid}.txt", path=meta, record=where, field="file_id")
        if not txt.is_file():
            raise DataValidationError(f"names file all_files/{fid}.txt, which does not exist", path=meta, record=where, field="file_id")
        rec = make_record(read_text_lenient(txt).strip(), label, fid, txt, "file", stats)
        if rec:
            out.append(rec)
    return out, {"root": str(root), **stats}


def politeness(file_name: str):
    """Stanford Politeness Corpus CSV (``Request``, ``Normalized Score``): bottom quartile 'impolite',
    top quartile 'polite', the rest 'neutral' (the quartile split of Danescu-Niculescu-Mizil et al. 2013)."""

    def read(ctx: LoadContext, obtain: str):
        root = family_dir(ctx, "Stanford_politeness_corpus", obtain, f"{file_name} with columns Request, Normalized Score")
        path = root / file_name
        rows = []
        for where, row in read_table(path):
            for col in ("Request", "Normalized Score"):
                if row.get(col) in (None, ""):
                    raise DataValidationError("is missing or empty", path=path, record=where, field=col)
            try:
                score = float(row["Normalized Score"])
            except ValueError:
                raise DataValidationError(f"holds {row['Normalized Score']!r}", path=path, record=where, field="Normalized Score", expected="a number") from None
            rows.append((where, row, score))
        if not rows:
            raise DataValidationError("holds no request", path=path)
        lo, hi = np.quantile([s for _, _, s in rows], [0.25, 0.75])
        stats: Counter = Counter()
        out = []
        for where, row, score in rows:
            label = "impolite" if score <= lo else ("polite" if score >= hi else "neutral")
            if rec := make_record(row["Request"], label, row.get("Id"), path, where, stats):
                out.append(rec)
        return out, {"root": str(root), "quartiles": [float(lo), float(hi)], **stats}

    return read


