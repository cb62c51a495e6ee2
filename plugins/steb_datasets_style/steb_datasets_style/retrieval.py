"""Authorship retrieval datasets in the LUAR test-split layout (Amazon, Reddit, Stack Exchange, fanfiction).

Layout (Rivera-Soto et al. 2021, LUAR): the dataset folder holds ``test_queries.jsonl`` and
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

from pathlib import Path

from steb_core import DatasetBundle, DatasetSpec, LoadContext
from steb_core.generic import GenericLoader

from .common import family_dir, option, with_dir
from .suite import suite_fields

LUAR_LAYOUT = ("test_queries.jsonl and test_targets.jsonl (LUAR's raw_amazon: validation_queries/validation_targets.jsonl; "
               "pan_paragraph: queries_raw/targets_raw.jsonl), one JSON object per line with author_id and syms (list of texts)")

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
    """ROOT/<dataset>/ (or ``family``), else the folder LUAR's scripts write (ROOT/raw_amazon/, ROOT/pan_paragraph/, ...)."""
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


def luar_loader(authors: int, obtain: str):
    """A loader for a LUAR-layout dataset keeping at most ``authors`` query authors (seeded)."""

    def load(ctx: LoadContext) -> DatasetBundle:
        root = luar_dir(ctx, obtain)
        q, t = luar_pair(root)
        loader = GenericLoader(
            path={"queries": option(ctx, "queries", q), "targets": option(ctx, "targets", t)},
            shape="retrieval",
            format="jsonl",
            columns={"author": option(ctx, "author_field", "author_id"), "text": option(ctx, "text_field", "syms")},
            limit=option(ctx, "authors", authors),
            skip_empty=True,
            obtain=obtain,
        )
        bundle = loader(with_dir(ctx, root))
        bundle.info.update({"dataset": ctx.dataset, "layout": "LUAR", "max_authors": option(ctx, "authors", authors)})
        return bundle

    return load


_LUAR_CITE = "@inproceedings{rivera-soto2021luar, title={Learning Universal Authorship Representations}, author={Rivera-Soto et al.}, booktitle={EMNLP}, year={2021}}"

#: what the public releases cannot deliver (shown in the listing's size)
ACCESS = {
    "amazon": "texts on request from the Amazon review data's authors; built with LUAR's scripts",
    "reddit": "not obtainable as released: LUAR publishes only comment ids",
    "fanfiction": "texts on request (PAN 2020 'large' on Zenodo); built with LUAR's scripts",
    "stackexchange_retrieval": "no public LUAR-layout release known; build it from the Stack Exchange dump",
}

RETRIEVAL = (
    ("amazon", "Amazon reviews: find the other reviews of a query's reviewer (LUAR test split, 500 authors).",
     "Amazon review data (Ni et al. 2019, request access at nijianmo.github.io/amazon) preprocessed by github.com/LLNL/LUAR "
     "scripts/preprocess_amazon_data.sh (data/raw_amazon/ -> ROOT/amazon/ or ROOT/raw_amazon/): "),
    ("reddit", "Reddit comments: find the other comments of a query's user (LUAR test split, 500 authors).",
     "LUAR's Reddit (IUR) test split (github.com/LLNL/LUAR; only comment ids are public since Reddit's API terms changed, "
     "the texts must be re-collected) in ROOT/reddit/ or ROOT/iur_dataset/: "),
    ("stackexchange_retrieval", "Stack Exchange posts: find the other posts of a query's user (500 authors).",
     "Stack Exchange posts prepared in LUAR's test-split layout: "),
    ("fanfiction", "Fan-fiction excerpts: find the other excerpts of a query's author (500 authors).",
     "fanfiction.net excerpts (PAN 2020 authorship-verification 'large' data from zenodo.org/record/3724096, on request) "
     "preprocessed by github.com/LLNL/LUAR scripts/preprocess_fanfiction_data.sh (data/pan_paragraph/ -> ROOT/fanfiction/ "
     "or ROOT/pan_paragraph/): "),
)


def retrieval_specs() -> list[DatasetSpec]:
    specs = []
    for name, description, obtain in RETRIEVAL:
        obtain = obtain + LUAR_LAYOUT
        specs.append(DatasetSpec(
            name=name, description=description, tasks=("retrieval",), loader=luar_loader(500, obtain),
            categories=("idiolect",), applications=("AR",), citation=_LUAR_CITE, license="see release", obtain=obtain,
            size=f"500 authors (query and target collections; {ACCESS[name]})", extra={"authors": 500, "layout": LUAR_LAYOUT},
            **suite_fields(name, ("retrieval",)),
        ))
    return specs
