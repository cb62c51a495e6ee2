"""Register corpora read from folders or derived labels: Enron-Spam, the white-supremacy forum, Stanford politeness."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from steb_core import (
    DatasetNotFoundError,
    DataValidationError,
    LoadContext,
    check_inside,
    read_bytes,
    read_table,
    release_path,
    unique_keys,
)

from ..common import Loaded, Reader, family_dir, read_text_lenient
from ..releases import HATE_FORUM_ALL, HATE_FORUM_METADATA, HATE_FORUM_SAMPLED
from .base import make_record, release_files

__all__ = ["enron_spam", "hate_speech_forum", "politeness", "CONVOKIT_POLITENESS"]


def enron_spam(ctx: LoadContext, obtain: str) -> Loaded:
    """Enron-Spam (pre-processed): ``enron1..6/{ham,spam}/*.txt``, one e-mail per file (Latin-1 in places)."""
    root = family_dir(ctx, None, obtain, "enron1/ham/*.txt, enron1/spam/*.txt, ... enron6/")
    files = [f for f in release_files(root, "**/*.txt", obtain) if f.parent.name in ("ham", "spam")]
    if not files:
        raise DataValidationError(f"no ham/ or spam/ folder with .txt files. Obtain it: {obtain}", path=root)
    stats: Counter[str] = Counter()
    out = [
        r
        for f in files
        if (
            r := make_record(
                read_text_lenient(f),
                f.parent.name,
                f"{f.parent.parent.name}/{f.parent.name}/{f.name}",
                f,
                "file",
                stats,
            )
        )
    ]
    return out, {"root": str(root), "files": len(files), **stats}


def _hate_speech_labels(meta: Path) -> tuple[list[tuple[str, str, str]], dict[str, str]]:
    """``annotations_metadata.csv`` as (record, file_id, label) entries and file_id -> label.

    A ``file_id`` listed twice (with the same or a flipped label) is refused: the metadata is the only
    source of the labels (the reference takes the first row of a file_id; the release lists each once).
    """
    entries = []
    for where, row in read_table(meta):
        fid = row.get("file_id")
        label = row.get("label")
        if not fid or label in (None, ""):
            raise DataValidationError(
                "is missing or empty", path=meta, record=where, field="file_id" if not fid else "label"
            )
        entries.append((where, fid, label))
    return entries, unique_keys(entries, path=meta, field="file_id", what="label")


def _forum_text(path: Path) -> str:
    """A file as Python's text mode reads it on Linux (UTF-8, universal newlines), which is what the reference
    reads; a file that is not UTF-8 is decoded leniently rather than refused."""
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return read_text_lenient(path)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def hate_speech_forum(ctx: LoadContext, obtain: str) -> Loaded:
    """de Gibert et al. (2018), github.com/Vicomtech/hate-speech-dataset: ``annotations_metadata.csv`` (``file_id``,
    ``label``) and the sentence files.

    Default (``release=sampled_test``), as the STEB reference reads it (``steb/steb_datasets/hate_speech/loader.py``
    @95b9da3a ``load_hate_speech_dataset``, config @b9669f70; the two stored versions agree): one record per
    file of ``sampled_test/`` (478 files, 239 hate + 239 noHate), text = the whole file content, not stripped,
    label = that file's metadata label. The reference lists the folder with ``os.listdir``, whose order depends
    on the file system; steb reads the names **sorted** (the figures of ``/work/shared/data/steb-reference/``
    use sorted names too), so the first 200 per label are the same on every machine. An empty file (none in
    the release) cannot be embedded and is skipped (``skipped_empty``); the reference would keep it.

    ``release=all_files``: every file of ``all_files/`` named in the metadata, stripped, keeping only the two
    definite classes (``hate`` / ``noHate``; ``relation`` and ``idk/skip`` dropped) -- steb's reading before
    protocol 2. File names come from the release and must stay inside it.
    """
    # the names come from the source's declaration (releases.py), so what `steb data get` fetches is what is read
    release = ctx.choice("release", (HATE_FORUM_SAMPLED, HATE_FORUM_ALL))
    layout = f"{HATE_FORUM_METADATA} and {HATE_FORUM_SAMPLED}/<file_id>.txt" + (
        f" ({HATE_FORUM_ALL}/ for release={HATE_FORUM_ALL})" if release == HATE_FORUM_ALL else ""
    )
    root = family_dir(ctx, None, obtain, layout)
    meta = root / HATE_FORUM_METADATA
    if not meta.is_file():
        raise DatasetNotFoundError(f"dataset '{ctx.dataset}': missing file {meta}. Obtain it: {obtain}")
    entries, labels = _hate_speech_labels(meta)
    stats: Counter[str] = Counter()
    out = []
    if release == HATE_FORUM_SAMPLED:
        folder = root / HATE_FORUM_SAMPLED
        if not folder.is_dir():
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': missing folder {folder} (the release's test sample, 478 files). "
                f"Obtain it: {obtain}; --dataset-option release={HATE_FORUM_ALL} reads {HATE_FORUM_ALL}/ instead"
            )
        files = sorted((p for p in folder.iterdir() if p.is_file()), key=lambda p: p.name)
        for f in files:
            check_inside(f, root, what="release folder")
            fid = f.name.rsplit(".", 1)[0] if "." in f.name else f.name  # os.path.splitext: the last suffix goes
            if fid not in labels:
                raise DataValidationError(
                    f"has no row in {meta.name}",
                    path=f,
                    record=fid,
                    field="file_id",
                    expected=f"a metadata row for every file of {HATE_FORUM_SAMPLED}/",
                )
            if rec := make_record(_forum_text(f), labels[fid], fid, f, "file", stats):
                out.append(rec)
        return out, {
            "root": str(root),
            "release": HATE_FORUM_SAMPLED,
            "files": len(files),
            "file_order": "sorted names",
            **stats,
        }
    for where, fid, _ in entries:
        label = labels[fid]
        if label not in ("hate", "noHate"):
            stats["dropped_label"] += 1
            continue
        txt = release_path(root / HATE_FORUM_ALL, f"{fid}.txt", path=meta, record=where, field="file_id")
        if not txt.is_file():
            raise DataValidationError(
                f"names file {HATE_FORUM_ALL}/{fid}.txt, which does not exist", path=meta, record=where, field="file_id"
            )
        rec = make_record(read_text_lenient(txt).strip(), label, fid, txt, "file", stats)
        if rec:
            out.append(rec)
    return out, {"root": str(root), "release": HATE_FORUM_ALL, **stats}


#: ConvoKit's ``meta.Binary`` politeness annotation -> STEB's class (the reference's mapping)
CONVOKIT_POLITENESS = {1: "polite", 0: "neutral", -1: "impolite"}


def _politeness_convokit(ctx: LoadContext, obtain: str, folder: str) -> Loaded:
    """The ConvoKit corpus as the STEB reference reads it (``steb/loaders/politeness.py`` @645e127b
    ``load_politeness_dataset``): ``utterances.jsonl`` in line order; text as given (a blank one skipped); class from
    ``meta.Binary`` (1 polite, 0 neutral, -1 impolite; an utterance without an integer -1/0/1 is skipped, counted)."""
    root = family_dir(ctx, folder, obtain, f"{folder}/utterances.jsonl (ConvoKit; meta.Binary 1/0/-1)")
    path = root / "utterances.jsonl"
    if not path.is_file():
        csv_hint = (
            " It holds the Stanford CSV: read it with --dataset-option release=csv."
            if any(root.glob("*.annotated.csv"))
            else ""
        )
        raise DatasetNotFoundError(f"dataset '{ctx.dataset}': no {path}.{csv_hint} Obtain it: {obtain}")
    stats: Counter[str] = Counter()
    out = []
    for where, row in read_table(path, "jsonl"):
        text = row.get("text")
        if not isinstance(text, str) or not text.strip():
            stats["skipped_empty"] += 1
            continue
        meta = row.get("meta")
        binary = meta.get("Binary") if isinstance(meta, dict) else None
        if not isinstance(binary, int) or binary not in CONVOKIT_POLITENESS:
            stats["skipped_no_binary"] += 1
            continue
        rid = None if row.get("id") is None else str(row["id"])
        if rec := make_record(text, CONVOKIT_POLITENESS[binary], rid, path, where, stats):
            out.append(rec)
    return out, {"root": str(root), "release": "convokit", **stats}


def politeness(file_name: str, convokit_folder: str) -> Reader:
    """The politeness corpora: ConvoKit's release (default, as the STEB reference reads it:
    :func:`_politeness_convokit`)
    or ``--dataset-option release=csv``: the Stanford Politeness Corpus CSV (``Request``, ``Normalized Score``), bottom
    quartile 'impolite', top quartile 'polite', the rest 'neutral' (the quartile split of Danescu-Niculescu-Mizil et
    al. 2013; steb's reading before issue 37)."""

    def read(ctx: LoadContext, obtain: str) -> Loaded:
        if ctx.choice("release", ("convokit", "csv")) == "convokit":
            return _politeness_convokit(ctx, obtain, convokit_folder)
        root = family_dir(
            ctx, "Stanford_politeness_corpus", obtain, f"{file_name} with columns Request, Normalized Score"
        )
        path = root / file_name
        rows = []
        for where, row in read_table(path):
            for col in ("Request", "Normalized Score"):
                if row.get(col) in (None, ""):
                    raise DataValidationError("is missing or empty", path=path, record=where, field=col)
            try:
                score = float(row["Normalized Score"])
            except ValueError:
                raise DataValidationError(
                    f"holds {row['Normalized Score']!r}",
                    path=path,
                    record=where,
                    field="Normalized Score",
                    expected="a number",
                ) from None
            rows.append((where, row, score))
        if not rows:
            raise DataValidationError("holds no request", path=path)
        lo, hi = np.quantile([s for _, _, s in rows], [0.25, 0.75])
        stats: Counter[str] = Counter()
        out = []
        for where, row, score in rows:
            label = "impolite" if score <= lo else ("polite" if score >= hi else "neutral")
            if rec := make_record(row["Request"], label, row.get("Id"), path, where, stats):
                out.append(rec)
        return out, {"root": str(root), "release": "csv", "quartiles": [float(lo), float(hi)], **stats}

    return read
