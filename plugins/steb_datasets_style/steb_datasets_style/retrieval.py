"""Authorship retrieval datasets in the LUAR test-split layout (Amazon, Reddit, Stack Exchange, fanfiction).

Layout (Rivera-Soto et al. 2021, LUAR): the dataset folder holds ``test_queries.jsonl`` and
``test_targets.jsonl``; each line is one collection (an "episode") of one author::

    {"author_id": "A1B2...", "syms": ["first text", "second text", ...], ...}

Other fields (``action_type``, ``hour``, ...) are ignored. A query's relevant target is the target
collection with the same ``author_id``. STEB subsamples 500 authors (seeded); every text of a kept
collection is kept. Field and file names can be changed with ``--option author_field=...``,
``text_field=...``, ``queries=...``, ``targets=...``.
"""

from __future__ import annotations

from steb_core import DatasetBundle, DatasetSpec, LoadContext
from steb_core.generic import GenericLoader

from .common import family_dir, option, with_dir

LUAR_LAYOUT = "test_queries.jsonl and test_targets.jsonl, one JSON object per line with author_id and syms (list of texts)"


def luar_loader(authors: int, obtain: str):
    """A loader for a LUAR-layout dataset keeping at most ``authors`` query authors (seeded)."""

    def load(ctx: LoadContext) -> DatasetBundle:
        root = family_dir(ctx, None, obtain, LUAR_LAYOUT)
        loader = GenericLoader(
            path={"queries": option(ctx, "queries", "test_queries.jsonl"), "targets": option(ctx, "targets", "test_targets.jsonl")},
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

RETRIEVAL = (
    ("amazon", "Amazon reviews: find the other reviews of a query's reviewer (LUAR test split, 500 authors).",
     "Amazon review data (Ni et al. 2019) in LUAR's test-split layout (github.com/LLNL/LUAR scripts): "),
    ("reddit", "Reddit comments: find the other comments of a query's user (LUAR test split, 500 authors).",
     "LUAR's Reddit (IUR) test split (github.com/LLNL/LUAR): "),
    ("stackexchange_retrieval", "Stack Exchange posts: find the other posts of a query's user (500 authors).",
     "Stack Exchange posts prepared in LUAR's test-split layout: "),
    ("fanfiction", "Fan-fiction excerpts: find the other excerpts of a query's author (500 authors).",
     "fanfiction.net excerpts (PAN 2020/21 authorship-verification data) prepared in LUAR's test-split layout: "),
)


def retrieval_specs() -> list[DatasetSpec]:
    specs = []
    for name, description, obtain in RETRIEVAL:
        obtain = obtain + LUAR_LAYOUT
        specs.append(DatasetSpec(
            name=name, description=description, tasks=("retrieval",), loader=luar_loader(500, obtain),
            categories=("idiolect",), applications=("AR",), citation=_LUAR_CITE, license="see release", obtain=obtain,
            size="500 authors (query and target collections)", extra={"authors": 500, "layout": LUAR_LAYOUT},
        ))
    return specs
