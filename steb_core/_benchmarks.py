"""The STEB benchmark as one object: ``steb`` (96 English datasets, 121 pairs) and ``steb-multilingual`` (17).

Why the core holds them and not the dataset plugins that load the data: the core's reference tree
(:mod:`steb_core.reference_tree.names`: which results folder is a STEB dataset) and the aggregators' STEB clusters
(:mod:`steb_core.aggregators.reference_clusters`) need the benchmark's membership where no dataset plugin is
installed (``steb report`` or ``steb import-tree`` on stored results), and four plugins hold its datasets
(``steb_datasets_style``, ``steb_datasets_pan``, ``steb_datasets_parallel``, ``steb_datasets_stel``), none of
which owns the whole. The core registers them through the same ``register_benchmarks`` hook as a plugin's
benchmark (:mod:`steb_core._builtin`), so ``steb list benchmarks`` and ``--suite`` treat them alike.

Sources:

* pairs: the STEB catalogue (paper Table 15; its note's counts: clustering 53, all-to-all 24, predefined 25, order
  alignment 11, retrieval 4, probing 4), the (dataset, task) rows the four plugins tagged ``steb`` before this
  object existed; the 17 non-English PAN sets are the rows tagged ``steb-multilingual``. The dataset names are the
  reference's results folders (``os.path.basename(dataset_name)``, see :mod:`steb_core.reference_tree.names`).
* clusters: ``scripts/dataset_clusters.yaml`` of github.com/rrivera1849/STEB @91d6b69a, transcribed entry by entry
  in its own syntax (how they are read and where this version differs from Table 13:
  :mod:`steb_core.aggregators.reference_clusters`).
"""

from __future__ import annotations

from ._specs import STEB_PAPER_BIBTEX, BenchmarkSpec

__all__ = ["STEB_BENCHMARK", "STEB_MULTILINGUAL_BENCHMARK", "CLUSTERS_SOURCE", "builtin_benchmarks"]

CLUSTERS_SOURCE = "scripts/dataset_clusters.yaml @91d6b69a of github.com/rrivera1849/STEB"

_DETECTRL = (
    "arxiv",
    "direct_prompt",
    "paraphrase_attacks",
    "perturbation_attacks",
    "prompt_attacks",
    "writing_prompt",
    "xsum",
    "yelp_review",
)
_M4 = ("arxiv", "peerread", "reddit", "wikihow", "wikipedia")
_MAGE = ("cmv", "eli5", "hswag", "roct", "sci_gen", "squad", "tldr", "wp", "xsum", "yelp")
_MTD_PAN = ("PAN24_news", "PAN25_26_essays", "PAN25_26_fiction", "PAN25_26_news", "PAN25_collaborative")

#: the datasets scored by both clustering and all-to-all pair classification (Table 15)
_CLUSTER_AND_PAIRS = (
    "bible_versions",
    "blog_age",
    "blog_gender",
    "ceeces",
    "core",
    "corpus-of-diverse-styles",
    "eWAVE",
    "endive",
    "enron_spam",
    "fce_l1",
    "hate_speech",
    "hate_speech_and_offensive_language",
    "masc_text_genre",
    *(f"pastel_{a}" for a in ("age", "education", "ethnic", "gender", "politics", "tod")),
    "sms_spam",
    "stackexchange_politeness",
    "telegram-spam-ham",
    "wikipedia_politeness",
    "x_genre",
)

_TASKS: dict[str, tuple[str, ...]] = {
    "clustering": (
        *_CLUSTER_AND_PAIRS,
        "gede_essay_detection",
        *(f"machine_text_detection_DetectRL_{d}" for d in _DETECTRL),
        *(f"machine_text_detection_M4_{d}" for d in _M4),
        *(f"machine_text_detection_MAGE_{d}" for d in _MAGE),
        *(f"machine_text_detection_{d}" for d in _MTD_PAN),
    ),
    "pair_all": _CLUSTER_AND_PAIRS,
    "pair_predefined": (
        "enron_authorship_corpus",
        "pan13_authorship_verification_english_test",
        *(f"pan14_authorship_verification_corpus{c}_english_{g}_test" for c in (1, 2) for g in ("essays", "novels")),
        "pan15_authorship_verification_english_test",
        "pan18_style_change",
        "pan20_authorship_verification_test",
        "pan21_authorship_verification_test",
        *(f"pan22_style_change_{level}" for level in ("advanced", "basic", "sentence")),
        *(f"pan{y}_style_change_{level}" for y in (23, 24, 25, 26) for level in ("easy", "hard", "medium")),
    ),
    "order_alignment": (
        "ASSET",
        "OneStopEnglishCorpus",
        "STEL_feature",
        "STEL_register",
        "StylePTB",
        "SynthSTEL_feature",
        "SynthSTEL_register",
        "corpus-of-diverse-styles",
        "graded_formality",
        "parallel_shakespeare",
        "twitter_aave_sae",
    ),
    "retrieval": (
        "amazon",
        "fanfiction",
        "pan18_cross_domain_authorship_attribution_english",
        "stackexchange_retrieval",
    ),
    "probing": tuple(f"probing_{d}" for d in ("amazon", "blog", "reddit", "stackexchange")),
}

_AV = (
    "pan13_authorship_verification_english_test",
    *(f"pan14_authorship_verification_corpus{c}_english_{g}_test" for c in (1, 2) for g in ("essays", "novels")),
    "pan15_authorship_verification_english_test",
    "pan20_authorship_verification_test",
    "pan21_authorship_verification_test",
    "pan18_style_change",
    "pan22_style_change_basic",
    "pan22_style_change_sentence",
    "pan22_style_change_advanced",
    *(f"pan{y}_style_change_{level}" for y in (23, 24, 25, 26) for level in ("easy", "medium", "hard")),
    "enron_authorship_corpus",
)
_AR = ("pan18_cross_domain_authorship_attribution_english", "amazon", "fanfiction", "stackexchange_retrieval")
_DISTRACTOR_ONLY = "--oa_variant distractor --oa_only"

#: cluster name -> its entries, in the YAML's order (``speaker_attribution``'s Fisher/RadioTalk sets and Genre's
#: ``the_pile`` have no steb dataset and feed no leaderboard column; kept so the table is the file's).
_CLUSTERS: dict[str, tuple[str, ...]] = {
    "machine_text_detection": (
        *(
            f"machine_text_detection_DetectRL_{d}"
            for d in ("arxiv", "direct_prompt", "writing_prompt", "xsum", "yelp_review")
        ),
        *(f"machine_text_detection_M4_{d}" for d in _M4),
        *(f"machine_text_detection_MAGE_{d}" for d in _MAGE),
        *(f"machine_text_detection_{d}" for d in _MTD_PAN),
        "gede_essay_detection",
    ),
    "machine_text_detection_adversarial": tuple(
        f"machine_text_detection_DetectRL_{d}" for d in ("paraphrase_attacks", "perturbation_attacks", "prompt_attacks")
    ),
    "authorship_verification": _AV,
    "authorship_retrieval": _AR,
    "speaker_attribution": (
        *(f"fisher_speaker_attribution_{s}_{h}" for s in ("bbn", "ldc") for h in ("base", "hard", "harder")),
        "radiotalk",
    ),
    "genre": ("core", "x_genre", "masc_text_genre", "the_pile"),
    "register": (
        "STEL_register --oa_variant acc",
        "SynthSTEL_register --oa_variant acc",
        "corpus-of-diverse-styles --oa_variant acc",
        "graded_formality --oa_variant acc",
        "OneStopEnglishCorpus --oa_variant acc",
        "wikipedia_politeness",
        "stackexchange_politeness",
        "ASSET --oa_variant acc",
    ),
    "style_vs_content": tuple(
        f"{d} {_DISTRACTOR_ONLY}"
        for d in (
            "STEL_register",
            "STEL_feature",
            "SynthSTEL_register",
            "SynthSTEL_feature",
            "corpus-of-diverse-styles",
            "graded_formality",
            "OneStopEnglishCorpus",
            "parallel_shakespeare",
            "ASSET",
            "StylePTB",
        )
    ),
    "time": ("bible_versions", "ceeces", "parallel_shakespeare --oa_variant acc"),
    "demographics": (
        "blog_age",
        "blog_gender",
        "fce_l1",
        *(f"pastel_{a}" for a in ("age", "education", "gender", "ethnic", "politics")),
    ),
    "feature_probing": tuple(f"probing_{d}" for d in ("amazon", "blog", "reddit", "stackexchange")),
    "predefined_features": (
        *(f"probing_{d}" for d in ("amazon", "blog", "reddit", "stackexchange")),
        "StylePTB --oa_variant acc",
        "STEL_feature --oa_variant acc",
        "SynthSTEL_feature --oa_variant acc",
    ),
    "dialect": ("endive", "twitter_aave_sae", "eWAVE"),
    "idiolect": (*_AV, *_AR),
}

#: the benchmark's version: the catalogue's rows and the clusters' source commit (a change to either is a new one)
_VERSION = "2026.06 (Table 15; clusters @91d6b69a)"

#: STEB: the 96 English datasets and their 121 (dataset, task) pairs, with the authors' clusters.
STEB_BENCHMARK = BenchmarkSpec(
    name="steb",
    version=_VERSION,
    pairs=tuple((dataset, task) for task, datasets in _TASKS.items() for dataset in datasets),
    description="STEB, the Style Text Embedding Benchmark: 96 English datasets, 121 (dataset, task) pairs "
    "(paper Table 15)",
    clusters=_CLUSTERS,
    citation=STEB_PAPER_BIBTEX,
    homepage="https://github.com/rrivera1849/STEB",
)

#: STEB's 17 non-English PAN sets (scored by steb's multilingual aggregate; the reference's config.py leaves them out
#: by default): 13 predefined-pair sets and 4 retrieval sets.
STEB_MULTILINGUAL_BENCHMARK = BenchmarkSpec(
    name="steb-multilingual",
    version=_VERSION,
    pairs=(
        *(
            (d, "pair_predefined")
            for d in (
                *(f"pan13_authorship_verification_{lang}_test" for lang in ("greek", "spanish")),
                *(
                    f"pan14_authorship_verification_corpus{c}_{g}_test"
                    for c in (1, 2)
                    for g in ("dutch_essays", "dutch_reviews", "greek_articles", "spanish_articles")
                ),
                *(f"pan15_authorship_verification_{lang}_test" for lang in ("dutch", "greek", "spanish")),
            )
        ),
        *(
            (f"pan18_cross_domain_authorship_attribution_{lang}", "retrieval")
            for lang in ("french", "italian", "polish", "spanish")
        ),
    ),
    description="STEB's 17 non-English PAN sets (Dutch, Greek, Spanish, French, Italian, Polish)",
    citation=STEB_PAPER_BIBTEX,
    homepage="https://github.com/rrivera1849/STEB",
)


def builtin_benchmarks() -> tuple[BenchmarkSpec, ...]:
    """The benchmarks the core registers (:mod:`steb_core._builtin`)."""
    return (STEB_BENCHMARK, STEB_MULTILINGUAL_BENCHMARK)
