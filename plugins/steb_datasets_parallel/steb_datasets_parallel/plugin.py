"""Hook implementations of steb-datasets-parallel: one order-alignment dataset per parallel corpus.

Each reader returns the sequences in the STEB reference's loader order and unit; every dataset is then
built by :func:`steb_core.order_groups_from_options` -- by default the reference's construction
(the first N = max(25, min(smallest class, 200)) sequences per class, every pair of them, a plain group
and two distractor groups per pair, so the task reports accuracy and distractor accuracy). Common
options: ``per_class`` (``auto``, ``all`` or an int), ``construction`` (``steb-all-pairs/v1``: steb's
earlier seeded construction, capped by Table 15's budget), ``sampling`` (``random``), ``distractors``
(true/false); corpus options are documented per module. ``OneStopEnglishCorpus.v2`` is the corrected
OneStop construction (one sequence per article) beside the reference's line-index one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from steb_core import DatasetSpec, construction_task_defaults, hookimpl

from . import cds, citations, graded, gyafc, line_pairs, onestop, styleptb, synthstel
from .common import Reader, make_loader
from .releases import SOURCES


def _spec(
    name: str,
    *,
    read: Reader,
    budget: int | None,
    obtain: str,
    layout: str,
    description: str,
    category: str,
    citation: str,
    license: str,
    homepage: str,
    size: str,
    steb: bool = True,
    options: dict[str, Any] | None = None,
    shared_folder: str | None = None,
    classes: int | None = None,
    hub_id: str | None = None,
) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        description=description,
        tasks=("order_alignment",),
        loader=make_loader(
            read, default_budget=budget, obtain=obtain, layout=layout, shared_folder=shared_folder, hub_id=hub_id
        ),
        languages=("en",),
        categories=(category,),
        content_independence=steb,  # every STEB order-alignment corpus feeds the content-independence column
        suites=("steb",) if steb else (),
        citation=citation,
        license=license,
        obtain=obtain,
        homepage=homepage,
        size=size,
        # STEB Table 15: groups are budgeted per class (``per_class`` passed to the shared builder)
        expected={"order_alignment": {"classes": classes, "per_class": budget, "texts": classes * budget}}
        if steb and classes and budget
        else {},
        sources=SOURCES[name],
        # the rule of the default construction's groups (the loader's bundle names the one it built)
        task_defaults=construction_task_defaults(),
        extra={
            "layout": layout,
            "per_class_default": budget,
            "options": {"per_class": "int or 'all'", "distractors": "true/false", **(options or {})},
        },
    )


def _cds_spec() -> DatasetSpec:
    """Corpus of Diverse Styles: one dataset feeding clustering, all-to-all pairs and order alignment (issue 15)."""
    n = 11
    return DatasetSpec(
        name="corpus-of-diverse-styles",
        description="Corpus of Diverse Styles (11 styles: AAE tweets, Bible, COHA 1810s/1890s/1990s, English tweets, "
        "Joyce, lyrics, "
        "romantic poetry, Shakespeare, Switchboard): sentences clustered / paired by style, and each sentence aligned "
        "with its style-stripping STRAP paraphrase within a style (order alignment with distractors).",
        tasks=("clustering", "pair_all", "order_alignment"),
        loader=cds.load_cds,
        languages=("en",),
        categories=("genre",),
        content_independence=True,
        suites=("steb",),
        citation=citations.STRAP_CDS,
        license="see the STRAP release (mixed sources)",
        sources=SOURCES["corpus-of-diverse-styles"],
        task_defaults=construction_task_defaults(),  # the order groups' rule (the loader's bundle names its own)
        obtain=cds.OBTAIN,
        homepage="http://style.cs.umass.edu",
        size=f"{n} styles x {cds.CLUSTER_BUDGET} texts (clustering, all-to-all); {n} styles x {cds.ORDER_BUDGET} "
        "pairings cap (order alignment)",
        expected={
            "clustering": {"classes": n, "per_class": cds.CLUSTER_BUDGET, "texts": n * cds.CLUSTER_BUDGET},
            "pair_all": {"classes": n, "per_class": cds.CLUSTER_BUDGET, "texts": n * cds.CLUSTER_BUDGET},
            "order_alignment": {"classes": n, "per_class": cds.ORDER_BUDGET, "texts": n * cds.ORDER_BUDGET},
        },
        extra={
            "layout": cds.LAYOUT,
            "hub_id": cds.HUB_ID,
            "options": {
                "per_class": "texts per style for clustering/all-to-all (int or 'all')",
                "order_per_class": "pairings per style for order alignment (int or 'all')",
                "distractors": "true/false",
                "split": "hub split (train) or STRAP split (test)",
            },
        },
    )


def parallel_specs() -> list[DatasetSpec]:
    synth: dict[str, Any] = dict(
        budget=200,
        shared_folder="SynthSTEL",
        hub_id=synthstel.HUB_ID,
        obtain=synthstel.OBTAIN,
        layout=synthstel.LAYOUT,
        citation=citations.STYLEDISTANCE,
        license="MIT",
        homepage="https://huggingface.co/datasets/StyleDistance/synthstel",
        options={
            "splits": "comma list (train,test; default both)",
            "register_features": "comma list of exact feature / feature_clean names (default: the stated 8)",
        },
    )
    return [
        _spec(
            "GYAFC",
            read=gyafc.read_gyafc,
            budget=400,
            obtain=gyafc.OBTAIN,
            layout=gyafc.LAYOUT,
            category="register",
            description="GYAFC informal/formal rewrite pairs (test split, reference 0, both directions) per domain; "
            "also the source/reference set of the style-transfer scorers "
            "(steb_datasets_parallel.gyafc_transfer_set).",
            citation=citations.GYAFC,
            license="research only; requires the Yahoo! Answers L6 licence",
            homepage="https://github.com/raosudha89/GYAFC-corpus",
            size="400 groups per domain (2 domains)",
            steb=False,
            options={"split": "train|tune|test", "ref": "0..3", "domains": "comma list"},
        ),
        _spec(
            "SynthSTEL_feature",
            read=synthstel.make_synthstel_reader(register=False),
            category="linguistic-feature",
            description="SynthSTEL pairs (with/without one of the 32 linguistic style features: the release's 40 "
            "feature "
            "values minus the 8 register ones), 100 pairs per feature over train + test.",
            size="32 features x 200 pairings cap (100 pairs per feature in the release)",
            classes=32,
            **synth,
        ),
        _spec(
            "SynthSTEL_register",
            read=synthstel.make_synthstel_reader(register=True),
            category="register",
            description="SynthSTEL pairs for STEB's 8 register features, a stated list of the release's feature "
            "values: "
            "formal, polite, offensive, sarcasm, positive, humor, certain, complex (each vs. its absence).",
            size="8 features x 200 pairings cap (100 pairs per feature in the release)",
            classes=8,
            **synth,
        ),
        _spec(
            "StylePTB",
            read=styleptb.read_styleptb,
            budget=styleptb.BUDGET,
            obtain=styleptb.OBTAIN,
            layout=styleptb.LAYOUT,
            category="linguistic-feature",
            description="StylePTB single transformations as STEB reads them: the 21 codes minus the antonym (NAR, "
            "AAR, VAR) and "
            "WordNet synonym (NSR, ASR, VSR) replacements, train+valid+test combined, tokenised text as released; "
            "a transformation with fewer pairs than the budget (PBF) is left out: align (source, target) pairs "
            "within a transformation.",
            citation=citations.STYLEPTB,
            license="CC BY 4.0 annotations over Penn Treebank text",
            homepage="https://github.com/lvyiwei1/StylePTB",
            size="14 transformations x 50 pairings cap (15 kept codes; PBF, 7 pairs, is below the minimum class size "
            "of 50)",
            classes=14,
            options={
                "split": "all (default) or a comma list of train, valid, test",
                "transfers": "comma list of 3-letter codes",
                "min_pairs": "minimum distinct pairs per transformation (default: per_class, 50)",
            },
        ),
        _spec(
            "parallel_shakespeare",
            read=line_pairs.read_shakespeare,
            budget=400,
            obtain=line_pairs.SHAKESPEARE["obtain"],
            layout=line_pairs.SHAKESPEARE["layout"],
            category="time",
            description="Shakespeare's original lines vs their modern English rewrites (all 17 plays of Xu et al.'s "
            "release).",
            citation=citations.XU_SHAKESPEARE,
            license="no licence stated; modern side from SparkNotes (research use)",
            homepage="https://github.com/cocoxu/Shakespeare",
            size="400 pairings cap (17 plays, 21,079 line pairs; 19,746 after dropping the 1,333 left unchanged)",
            classes=1,
            options={
                "plays": "comma list of play names (default: every *_original.snt.aligned of merged/)",
                "keep_unchanged": "true/false (default false: a pair whose modern side equals the original is dropped)",
                "split": "train|valid|test: read harsh19's split files instead",
            },
        ),
        _spec(
            "OneStopEnglishCorpus",
            read=onestop.read_onestop,
            budget=600,
            obtain=onestop.OBTAIN,
            layout=onestop.LAYOUT,
            category="register",
            description="OneStopEnglish at advanced, intermediate and elementary level, as the STEB reference "
            "builds it: one 3-element sequence per line index of an article's three files, the intermediate "
            "files with their header line 'Intermediate' (the levels are not line-aligned; "
            "OneStopEnglishCorpus.v2 aligns whole articles).",
            citation=citations.ONESTOP,
            license="CC BY-SA 4.0",
            homepage="https://github.com/nishkalavallabhi/OneStopEnglishCorpus",
            size="2,088 line triplets from 189 articles (first 200 taken; Table 15: 600 pairings)",
            classes=1,
            options={
                "int_folder": "top (default: Int-Txt, header line included, the reference's figures) or nested "
                "(Int-Txt/Int-Txt, no header line: 2,117 triplets)"
            },
        ),
        _spec(
            "OneStopEnglishCorpus.v2",
            read=onestop.read_onestop_articles,
            budget=600,
            obtain=onestop.OBTAIN,
            layout=onestop.LAYOUT,
            category="register",
            steb=False,
            shared_folder="OneStopEnglishCorpus",
            description="OneStopEnglish, corrected construction: one 3-element sequence per article (its "
            "advanced, intermediate and elementary texts whole), instead of the reference's line-index "
            "triplets.",
            citation=citations.ONESTOP,
            license="CC BY-SA 4.0",
            homepage="https://github.com/nishkalavallabhi/OneStopEnglishCorpus",
            size="189 articles x 3 levels",
            classes=1,
            options={"int_folder": "nested (default: Int-Txt/Int-Txt) or top (Int-Txt)"},
        ),
        _spec(
            "ASSET",
            read=line_pairs.read_asset,
            budget=400,
            obtain=line_pairs.ASSET["obtain"],
            layout=line_pairs.ASSET["layout"],
            category="register",
            description="ASSET: one sequence per source sentence, [simplification, original], the "
            "simplification chosen as the STEB reference does (int(sha256(original)) mod 10).",
            citation=citations.ASSET,
            license="CC BY-NC 4.0",
            homepage="https://github.com/facebookresearch/asset",
            size="2,359 sources over validation + test (the first 200 taken; Table 15: 400 pairings)",
            classes=1,
            options={
                "split": "comma list of valid,test (default both)",
                "simplification": "sha256 (reference) or random",
            },
        ),
        _spec(
            "graded_formality",
            read=graded.read_graded_formality,
            budget=1000,
            obtain=graded.GRADED["obtain"],
            layout=graded.GRADED["layout"],
            category="register",
            description="Five-level graded formality paraphrase sets: 5-element ordered sets (informal -> formal).",
            citation=citations.STEB_PAPER,
            license="see the release",
            homepage="",
            size="2 classes x 1,000 pairings cap",
            classes=2,
            options={"file": "file name", "level_columns": "comma list", "class_column": "column name"},
        ),
        _spec(
            "twitter_aave_sae",
            read=line_pairs.read_twitter_aae,
            budget=400,
            obtain=line_pairs.TWITTER_AAE["obtain"],
            layout=line_pairs.TWITTER_AAE["layout"],
            category="dialect",
            description="African-American English tweets vs their Standard American English rewrites.",
            citation=citations.GROENWOLD_AAE,
            license="research use (Twitter content)",
            homepage="https://github.com/sophiegroenwold/AAVE_SAE_dataset",
            size="400 pairings cap (2,019 pairs in the EMNLP 2020 supplementary archive)",
            classes=1,
            options={"aae_file": "file name", "sae_file": "file name"},
        ),
        _cds_spec(),
    ]


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    for spec in parallel_specs():
        register(spec)
