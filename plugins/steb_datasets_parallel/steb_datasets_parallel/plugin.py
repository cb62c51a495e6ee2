"""Hook implementations of steb-datasets-parallel: one order-alignment dataset per parallel corpus.

Every dataset is built by :func:`steb_core.parallel.order_groups_from_parallel` (seeded
pairing, shuffled alternatives, by default one same-content distractor per group so the task reports
accuracy and distractor accuracy). Common options: ``per_class`` (int or ``all``; defaults are STEB's
budgets, in groups per class), ``distractors`` (true/false); corpus options are documented per module.
"""

from __future__ import annotations

from typing import Callable

from steb_core import DatasetSpec, hookimpl

from . import cds, graded, gyafc, line_pairs, onestop, styleptb, synthstel
from .common import Reader, make_loader


def _spec(name: str, *, read: Reader, budget: int | None, obtain: str, layout: str, description: str, category: str,
          citation: str, license: str, homepage: str, size: str, steb: bool = True, options: dict | None = None,
          shared_folder: str | None = None, classes: int | None = None, hub_id: str | None = None) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        description=description,
        tasks=("order_alignment",),
        loader=make_loader(read, default_budget=budget, obtain=obtain, layout=layout, shared_folder=shared_folder, hub_id=hub_id),
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
        expected={"order_alignment": {"classes": classes, "per_class": budget, "texts": classes * budget}} if steb and classes and budget else {},
        extra={"layout": layout, "per_class_default": budget,
               "options": {"per_class": "int or 'all'", "distractors": "true/false", **(options or {})}},
    )


def _cds_spec() -> DatasetSpec:
    """Corpus of Diverse Styles: one dataset feeding clustering, all-to-all pairs and order alignment (issue 15)."""
    n = 11
    return DatasetSpec(
        name="corpus-of-diverse-styles",
        description="Corpus of Diverse Styles (11 styles: AAE tweets, Bible, COHA 1810s/1890s/1990s, English tweets, Joyce, lyrics, "
                    "romantic poetry, Shakespeare, Switchboard): sentences clustered / paired by style, and each sentence aligned "
                    "with its style-stripping STRAP paraphrase within a style (order alignment with distractors).",
        tasks=("clustering", "pair_all", "order_alignment"),
        loader=cds.load_cds,
        languages=("en",),
        categories=("genre",),
        content_independence=True,
        suites=("steb",),
        citation="Kalpesh Krishna, John Wieting and Mohit Iyyer. 2020. Reformulating Unsupervised Style Transfer as "
                 "Paraphrase Generation. In Proceedings of EMNLP 2020.",
        license="see the STRAP release (mixed sources)",
        obtain=cds.OBTAIN,
        homepage="http://style.cs.umass.edu",
        size=f"{n} styles x {cds.CLUSTER_BUDGET} texts (clustering, all-to-all); {n} styles x {cds.ORDER_BUDGET} pairings cap (order alignment)",
        expected={
            "clustering": {"classes": n, "per_class": cds.CLUSTER_BUDGET, "texts": n * cds.CLUSTER_BUDGET},
            "pair_all": {"classes": n, "per_class": cds.CLUSTER_BUDGET, "texts": n * cds.CLUSTER_BUDGET},
            "order_alignment": {"classes": n, "per_class": cds.ORDER_BUDGET, "texts": n * cds.ORDER_BUDGET},
        },
        extra={"layout": cds.LAYOUT, "hub_id": cds.HUB_ID,
               "options": {"per_class": "texts per style for clustering/all-to-all (int or 'all')",
                           "order_per_class": "pairings per style for order alignment (int or 'all')", "distractors": "true/false",
                           "split": "hub split (train) or STRAP split (test)"}},
    )


def parallel_specs() -> list[DatasetSpec]:
    synth_cite = ("Ajay Patel, Jiacheng Zhu, Justin Qiu, Zachary Horvitz, Marianna Apidianaki, Kathleen McKeown and Chris "
                  "Callison-Burch. 2025. StyleDistance: Stronger Content-Independent Style Embeddings with Synthetic "
                  "Parallel Examples. In Proceedings of NAACL 2025.")
    synth = dict(budget=200, shared_folder="SynthSTEL", hub_id=synthstel.HUB_ID, obtain=synthstel.OBTAIN, layout=synthstel.LAYOUT, citation=synth_cite, license="MIT",
                 homepage="https://huggingface.co/datasets/StyleDistance/synthstel",
                 options={"splits": "comma list (train,test)", "register_features": "comma list of feature names"})
    return [
        _spec("GYAFC", read=gyafc.read_gyafc, budget=400, obtain=gyafc.OBTAIN, layout=gyafc.LAYOUT, category="register",
              description="GYAFC informal/formal rewrite pairs (test split, reference 0, both directions) per domain; "
                          "also the source/reference set of the style-transfer scorers "
                          "(steb_datasets_parallel.gyafc_transfer_set).",
              citation="Sudha Rao and Joel Tetreault. 2018. Dear Sir or Madam, May I Introduce the GYAFC Dataset: Corpus, "
                       "Benchmarks and Metrics for Formality Style Transfer. In Proceedings of NAACL-HLT 2018.",
              license="research only; requires the Yahoo! Answers L6 licence", homepage="https://github.com/raosudha89/GYAFC-corpus",
              size="400 groups per domain (2 domains)", steb=False,
              options={"split": "train|tune|test", "ref": "0..3", "domains": "comma list"}),
        _spec("SynthSTEL_feature", read=synthstel.make_synthstel_reader(register=False), category="linguistic-feature",
              description="SynthSTEL pairs (with/without one of 32 linguistic style features), 100 pairs per feature.",
              size="32 features x 200 pairings cap (100 pairs per feature in the release)", classes=32, **synth),
        _spec("SynthSTEL_register", read=synthstel.make_synthstel_reader(register=True), category="register",
              description="SynthSTEL pairs for the 8 register features (formality, politeness, ...).",
              size="8 features x 200 pairings cap (100 pairs per feature in the release)", classes=8, **synth),
        _spec("StylePTB", read=styleptb.read_styleptb, budget=50, obtain=styleptb.OBTAIN, layout=styleptb.LAYOUT,
              category="linguistic-feature",
              description="StylePTB single transformations (15 meaning-preserving ones; tokenised text as released): "
                          "align (source, target) pairs within a transformation.",
              citation="Yiwei Lyu, Paul Pu Liang, Hai Pham, Eduard Hovy, Barnabas Poczos, Ruslan Salakhutdinov and "
                       "Louis-Philippe Morency. 2021. StylePTB: A Compositional Benchmark for Fine-grained Controllable "
                       "Text Style Transfer. In Proceedings of NAACL-HLT 2021.",
              license="CC BY 4.0 annotations over Penn Treebank text (LDC licence)", homepage="https://github.com/lvyiwei1/StylePTB",
              size="15 transformations x 50 pairings cap (STEB's catalogue lists 14 classes; which one it drops is not stated)",
              classes=14,
              options={"split": "train|valid|test", "transfers": "comma list of 3-letter codes"}),
        _spec("parallel_shakespeare", read=line_pairs.read_shakespeare, budget=400, obtain=line_pairs.SHAKESPEARE["obtain"],
              layout=line_pairs.SHAKESPEARE["layout"], category="time",
              description="Shakespeare's original lines vs their modern English rewrites.",
              citation="Wei Xu, Alan Ritter, Bill Dolan, Ralph Grishman and Colin Cherry. 2012. Paraphrasing for Style. "
                       "In Proceedings of COLING 2012. Splits: Harsh Jhamtani et al. 2017, Shakespearizing Modern Language "
                       "Using Copy-Enriched Sequence-to-Sequence Models.",
              license="research use (Sparknotes / eNotes modern translations)",
              homepage="https://github.com/harsh19/Shakespearizing-Modern-English", size="400 pairings (test split: 1,462 line pairs)",
              classes=1,
              options={"split": "train|valid|test"}),
        _spec("OneStopEnglishCorpus", read=onestop.read_onestop, budget=600, obtain=onestop.OBTAIN, layout=onestop.LAYOUT,
              category="register",
              description="OneStopEnglish articles at elementary, intermediate and advanced level: 3-element ordered sets.",
              citation="Sowmya Vajjala and Ivana Lucic. 2018. OneStopEnglish corpus: A new corpus for automatic readability "
                       "assessment and text simplification. In Proceedings of the BEA Workshop 2018.",
              license="CC BY-SA 4.0", homepage="https://github.com/nishkalavallabhi/OneStopEnglishCorpus",
              size="189 articles x 3 levels (600 pairings cap)", classes=1),
        _spec("ASSET", read=line_pairs.read_asset, budget=400, obtain=line_pairs.ASSET["obtain"], layout=line_pairs.ASSET["layout"],
              category="register",
              description="ASSET: each source sentence vs one of its 10 simplifications, drawn with the run seed.",
              citation="Fernando Alva-Manchego, Louis Martin, Antoine Bordes, Carolina Scarton, Benoit Sagot and Lucia Specia. "
                       "2020. ASSET: A Dataset for Tuning and Evaluation of Sentence Simplification Models with Multiple "
                       "Rewriting Transformations. In Proceedings of ACL 2020.",
              license="CC BY-NC 4.0", homepage="https://github.com/facebookresearch/asset",
              size="400 pairings cap over validation + test (2,359 sources; the test split alone has 359)", classes=1,
              options={"split": "comma list of valid,test (default both)"}),
        _spec("graded_formality", read=graded.read_graded_formality, budget=1000, obtain=graded.GRADED["obtain"],
              layout=graded.GRADED["layout"], category="register",
              description="Five-level graded formality paraphrase sets: 5-element ordered sets (informal -> formal).",
              citation="As used in STEB (Rivera Soto, Wegmann and Aggazzotti): graded formality paraphrase sets.",
              license="see the release", homepage="", size="2 classes x 1,000 pairings cap", classes=2,
              options={"file": "file name", "level_columns": "comma list", "class_column": "column name"}),
        _spec("twitter_aave_sae", read=line_pairs.read_twitter_aae, budget=400, obtain=line_pairs.TWITTER_AAE["obtain"],
              layout=line_pairs.TWITTER_AAE["layout"], category="dialect",
              description="African-American English tweets vs their Standard American English rewrites.",
              citation="Sophie Groenwold, Lily Ou, Aesha Parekh, Samhita Honnavalli, Sharon Levy, Diba Mirza and William Yang "
                       "Wang. 2020. Investigating African-American Vernacular English in Transformer-Based Text Generation. "
                       "In Proceedings of EMNLP 2020.",
              license="research use (Twitter content)", homepage="https://github.com/sophiegroenwold/AAVE_SAE_dataset",
              size="400 pairings cap (2,019 pairs in the EMNLP 2020 supplementary archive)", classes=1,
              options={"aae_file": "file name", "sae_file": "file name"}),
        _cds_spec(),
    ]


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    for spec in parallel_specs():
        register(spec)
