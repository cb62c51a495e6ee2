"""Authorship retrieval datasets (Amazon, Reddit, Stack Exchange, fan fiction): the STEB release or LUAR's layout.

The paper's own subsample (500 authors, a query and a target collection each: 1,000 collections) is
redistributed by the STEB authors (``download_datasets.sh`` of github.com/rrivera1849/STEB fetches
``amazon_retrieval.tar.gz``, ``fanfiction_retrieval.tar.gz`` and ``stackexchange_retrieval.tar.gz`` from
Google Drive). Unpacked into ROOT/<dataset>/ (or ROOT/<dataset>_retrieval/, the folder name STEB uses),
it is read as is: JSON lines ``{"text": str | [str, ...], "label": AUTHOR, "is_query": bool}``, all
texts of one (author, side) forming one collection. No further subsample is drawn and the record
(``bundle.info["subsample"]``) says so. Without it, the loader falls back to LUAR's own layout below
and draws a seeded 500-author subsample, which is not the paper's draw.

LUAR layout (Rivera-Soto et al. 2021, LUAR): the dataset folder holds ``test_queries.jsonl`` and
``test_targets.jsonl``; each line is one collection (an "episode") of one author::

    {"author_id": "A1B2...", "syms": ["first text", "second text", ...], ...}

LUAR's own scripts name the pair differently per corpus, and both are read as they write them:
``data/raw_amazon/validation_{queries,targets}.jsonl`` (Amazon) and ``data/pan_paragraph/{queries,targets}_raw.jsonl``
(fan fiction); those folders may sit beside the dataset folder under their LUAR names (ROOT/raw_amazon/, ...).
Other fields (``action_type``, ``hour``, ...) are ignored. A query's relevant target is the target
collection with the same ``author_id``. STEB subsamples 500 authors (seeded); every text of a kept
collection is kept. Field and file names can be changed with ``--dataset-option author_field=...``,
``text_field=...``, ``queries=...``, ``targets=...``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from steb_core import (
    DatasetBundle,
    DatasetSpec,
    DataValidationError,
    GenericLoader,
    LoadContext,
    RetrievalSet,
    TextCollection,
    label_text,
    open_release,
    parse_json,
)

from .common import family_dir, with_dir
from .releases import CITATIONS, SOURCES, licence_of
from .suite import suite_fields

LUAR_LAYOUT = (
    "test_queries.jsonl and test_targets.jsonl (LUAR's raw_amazon: validation_queries/validation_targets.jsonl; "
    "pan_paragraph: queries_raw/targets_raw.jsonl), one JSON object per line with author_id and syms (list of texts)"
)

#: the query/target file pairs LUAR's preprocessing writes (github.com/LLNL/LUAR scripts and src/datasets):
#: Reddit (iur_dataset, raw_all) test_*; Amazon (raw_amazon, split_amazon.py) validation_*; fan fiction
#: (pan_paragraph, preprocess_pan_into_paragraphs.py) *_raw.
LUAR_PAIRS = (
    ("test_queries.jsonl", "test_targets.jsonl"),
    ("validation_queries.jsonl", "validation_targets.jsonl"),
    ("queries_raw.jsonl", "targets_raw.jsonl"),
)

#: STEB dataset -> the folder name LUAR's scripts give it under ./data/ (also looked up beside ROOT/<dataset>/)
LUAR_FOLDERS = {"amazon": ("raw_amazon",), "reddit": ("iur_dataset", "raw_all"), "fanfiction": ("pan_paragraph",)}


def luar_dir(ctx: LoadContext, obtain: str, family: str | None = None) -> Path:
    """ROOT/<dataset>/ (or ``family``), else the folder LUAR's scripts write (ROOT/raw_amazon/, ROOT/pan_paragraph/,
    ...)."""
    if ctx.data_dir is not None and not ctx.data_dir.is_dir():
        names = ((family,) if family else ()) + LUAR_FOLDERS.get(family or ctx.dataset, ())
        for name in names:
            cand = ctx.data_dir.parent / name
            if cand.is_dir():
                return cand
    return family_dir(ctx, family, obtain, LUAR_LAYOUT)


def luar_pair(root: Path) -> tuple[str, str]:
    """The first query/target file pair present in ``root`` (default: the test pair, reported missing later)."""
    for q, t in LUAR_PAIRS:
        if (root / q).is_file() and (root / t).is_file():
            return q, t
    return LUAR_PAIRS[0]


#: STEB dataset -> the folder name the STEB authors' download script gives its redistributed subsample
STEB_FOLDERS = {
    "amazon": "amazon_retrieval",
    "fanfiction": "fanfiction_retrieval",
    "stackexchange_retrieval": "stackexchange_retrieval",
}
STEB_LAYOUT = (
    "JSON lines with text (a text or a list of texts), label (the author) and is_query (true: query, false: target)"
)


def _first_record(path: Path) -> Any:
    """The first JSON value of ``path`` (None when the first line is not JSON: another layout).

    A first line that is JSON but repeats a key or is nested too deeply to parse is an error naming the
    file and line (it is this layout, and broken), not a fall-back to another layout.
    """
    with open_release(path, "r", encoding="utf-8-sig") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    return parse_json(line, path=path, record=f"line {n}", expected=STEB_LAYOUT)
                except DataValidationError as exc:
                    if exc.reason.startswith("invalid JSON"):
                        return None
                    raise
    return None


def steb_release_files(folder: Path) -> list[Path]:
    """The files of a STEB retrieval release in ``folder`` (empty when it holds another layout).

    STEB's own loader reads every file of the folder; here the JSON-lines files (``*.jsonl``, ``*.json``,
    or every visible file when none has such a suffix), and only when the folder holds no LUAR pair
    and the first record carries ``is_query``, so a LUAR folder is never misread.
    """
    if not folder.is_dir() or any((folder / q).is_file() and (folder / t).is_file() for q, t in LUAR_PAIRS):
        return []
    visible = sorted(f for f in folder.iterdir() if f.is_file() and not f.name.startswith("."))
    files = [f for f in visible if f.suffix.lower() in (".jsonl", ".json", ".ndjson")] or visible
    first = _first_record(files[0]) if files else None
    return files if isinstance(first, dict) and "is_query" in first else []


def steb_release_dir(ctx: LoadContext) -> Path | None:
    """ROOT/<dataset>/ or ROOT/<STEB folder name>/ when it holds the STEB release, else None."""
    if ctx.data_dir is None:
        return None
    names = (ctx.data_dir, ctx.data_dir.parent / STEB_FOLDERS.get(ctx.dataset, ctx.dataset))
    return next((d for d in names if steb_release_files(d)), None)


def _is_query(value: Any, path: Path, where: str) -> bool:
    """``is_query`` as the release writes it: a JSON boolean, nothing else.

    Why not also 1/0 or "true": a value of ``1.0`` was taken for a target and dropped the author's query
    silently; the STEB release writes JSON booleans, and anything else is an edited or another file.
    """
    if isinstance(value, bool):
        return value
    raise DataValidationError(
        f"holds {value!r} ({type(value).__name__})",
        path=path,
        record=where,
        field="is_query",
        expected="true or false (a JSON boolean)",
    )


def read_steb_release(folder: Path) -> tuple[RetrievalSet, dict[str, Any]]:
    """Queries and targets of a STEB retrieval release; texts of one (author, side) make one collection."""
    grouped: dict[tuple[bool, str], list[str]] = {}
    stats: Counter[str] = Counter()
    files = steb_release_files(folder)
    for f in files:
        with open_release(f, "r", encoding="utf-8-sig") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                where = f"line {n}"
                # a key given twice (the second "label" filed texts under another author) or nesting past the
                # recursion limit is an error naming file and line, as any syntax error
                row = parse_json(line, path=f, record=where, expected=STEB_LAYOUT)
                if not isinstance(row, dict):
                    raise DataValidationError("is not a JSON object", path=f, record=where, expected=STEB_LAYOUT)
                for name in ("text", "label", "is_query"):
                    if name not in row:
                        raise DataValidationError("is missing", path=f, record=where, field=name, expected=STEB_LAYOUT)
                # one rule for every loader: JSON true and the string "true" are one author, 1 and "1" too (issue 47)
                label = label_text(row["label"], path=f, record=where, field="label")
                text = row["text"]
                texts = [text] if isinstance(text, str) else text
                if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                    raise DataValidationError(
                        f"holds {type(text).__name__}",
                        path=f,
                        record=where,
                        field="text",
                        expected="a text or a list of texts",
                    )
                kept = [t for t in texts if t.strip()]
                stats["skipped_empty"] += len(texts) - len(kept)
                if kept:
                    grouped.setdefault((_is_query(row["is_query"], f, where), label), []).extend(kept)
    queries = tuple(TextCollection(author=a, texts_=tuple(t)) for (q, a), t in grouped.items() if q)
    targets = tuple(TextCollection(author=a, texts_=tuple(t)) for (q, a), t in grouped.items() if not q)
    info = {
        "files": [str(f) for f in files],
        "skipped_empty": stats["skipped_empty"],
        "n_queries": len(queries),
        "n_targets": len(targets),
        "n_authors": len({c.author for c in queries}),
        "n_texts": sum(len(c.texts_) for c in queries + targets),
    }
    try:
        return RetrievalSet(queries=queries, targets=targets), info
    except DataValidationError as exc:
        raise DataValidationError(
            exc.reason, path=folder, record=exc.record, field=exc.field, expected=exc.expected
        ) from None


def luar_loader(authors: int, obtain: str) -> Callable[[LoadContext], DatasetBundle]:
    """A loader for a LUAR-layout dataset keeping at most ``authors`` query authors (seeded)."""

    def load(ctx: LoadContext) -> DatasetBundle:
        release = steb_release_dir(ctx)
        if release is not None:
            rs, info = read_steb_release(release)
            limit = ctx.option("authors", None)
            if limit is not None:  # only on request: the release is already the paper's subsample
                rs = GenericLoader._retrieval(
                    [("query", c) for c in rs.queries] + [("target", c) for c in rs.targets], int(limit), ctx, info
                )
            info.update(
                {
                    "dataset": ctx.dataset,
                    "root": str(release),
                    "layout": "STEB release",
                    "subsample": "the paper's redistributed subsample, read as is"
                    + (f" (then capped at {limit} authors on request)" if limit is not None else ""),
                }
            )
            return DatasetBundle(retrieval=rs, info=info)
        root = luar_dir(ctx, obtain)
        q, t = luar_pair(root)
        loader = GenericLoader(
            path={"queries": ctx.option("queries", q), "targets": ctx.option("targets", t)},
            shape="retrieval",
            format="jsonl",
            columns={"author": ctx.option("author_field", "author_id"), "text": ctx.option("text_field", "syms")},
            limit=ctx.option("authors", authors),
            skip_empty=True,
            obtain=obtain,
        )
        bundle = loader(with_dir(ctx, root))
        bundle.info.update(
            {
                "dataset": ctx.dataset,
                "layout": "LUAR",
                "max_authors": ctx.option("authors", authors),
                "subsample": f"seeded subsample of at most {ctx.option('authors', authors)} authors drawn by steb: "
                "the paper's "
                "redistributed subsample (STEB release) was not found, so this is not the paper's draw",
            }
        )
        return bundle

    return load


#: what the public releases cannot deliver (shown in the listing's size)
ACCESS = {
    "amazon": "the paper's subsample is redistributed by the STEB authors (Google Drive); else built from the Amazon "
    "review data with LUAR's scripts",
    "reddit": "not obtainable as released: LUAR publishes only comment ids; not in the STEB suite",
    "fanfiction": "the paper's subsample is redistributed by the STEB authors (Google Drive); else PAN 2020 'large' "
    "(on request) with LUAR's scripts",
    "stackexchange_retrieval": "the paper's subsample is redistributed by the STEB authors (Google Drive); no other "
    "public release in this layout",
}

_STEB_RELEASE = (
    "the paper's 500-author subsample as redistributed by the STEB authors (see `steb data get --dry-run`: "
    "gdown the Google Drive file named in github.com/rrivera1849/STEB download_datasets.sh and unpack {tar} into "
    "ROOT/{name}/ or ROOT/{folder}/: " + STEB_LAYOUT + "); otherwise "
)

RETRIEVAL = (
    (
        "amazon",
        "Amazon reviews: find the other reviews of a query's reviewer (500 authors, the paper's subsample).",
        "Amazon review data (Ni et al. 2019, request access at nijianmo.github.io/amazon) preprocessed by "
        "github.com/LLNL/LUAR "
        "scripts/preprocess_amazon_data.sh (data/raw_amazon/ -> ROOT/amazon/ or ROOT/raw_amazon/), subsampled by "
        "steb: ",
    ),
    (
        "reddit",
        "Reddit comments: find the other comments of a query's user (LUAR test split, 500 authors).",
        "LUAR's Reddit (IUR) test split (github.com/LLNL/LUAR; only comment ids are public since Reddit's API terms "
        "changed, "
        "the texts must be re-collected) in ROOT/reddit/ or ROOT/iur_dataset/: ",
    ),
    (
        "stackexchange_retrieval",
        "Stack Exchange posts: find the other posts of a query's user (500 authors, the paper's subsample).",
        "Stack Exchange posts prepared in LUAR's test-split layout: ",
    ),
    (
        "fanfiction",
        "Fan-fiction excerpts: find the other excerpts of a query's author (500 authors, the paper's subsample).",
        "fanfiction.net excerpts (PAN 2020 authorship-verification 'large' data from zenodo.org/record/3724096, on "
        "request) "
        "preprocessed by github.com/LLNL/LUAR scripts/preprocess_fanfiction_data.sh (data/pan_paragraph/ -> "
        "ROOT/fanfiction/ "
        "or ROOT/pan_paragraph/), subsampled by steb: ",
    ),
)


def retrieval_specs() -> list[DatasetSpec]:
    specs = []
    for name, description, obtain in RETRIEVAL:
        if name in STEB_FOLDERS:
            obtain = (
                _STEB_RELEASE.format(tar=f"{STEB_FOLDERS[name]}.tar.gz", name=name, folder=STEB_FOLDERS[name]) + obtain
            )
        obtain = obtain + LUAR_LAYOUT
        specs.append(
            DatasetSpec(
                name=name,
                description=description,
                tasks=("retrieval",),
                loader=luar_loader(500, obtain),
                categories=("idiolect",),
                applications=("AR",),
                citation=CITATIONS[name],
                license=licence_of(SOURCES[name]),
                obtain=obtain,
                size=f"500 authors (query and target collections; {ACCESS[name]})",
                extra={"authors": 500, "layout": LUAR_LAYOUT},
                sources=SOURCES[name],
                **suite_fields(name, ("retrieval",)),
            )
        )
    return specs
