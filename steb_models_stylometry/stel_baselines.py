"""STEL's simple similarity-only baselines (Wegmann & Nguyen 2021, EMNLP: the simple "style measures" compared there),
as pairwise ``similarity`` methods.

Each object has ``similarity(texts_a, texts_b) -> (n,) float64`` and ``similarity_only = True``; tasks
that need vectors skip them, the order-alignment task compares the pairwise similarities.

The formulas follow the description of STEL's own baselines (the paper's description of its
baselines and the released STEL code, ``legacy_sim_classes.py``, read not copied) including the details that decide
ties, because STEL scores a tied
quadruple as a coin flip and the published accuracies depend on which instances tie
(``len`` is the number of Unicode characters):

- ``stel-uppercase``: ``1 - |u_a - u_b|`` with ``u = (#uppercase characters) / len(text)``, ``u = 0`` for "";
- ``stel-word-length``: ``1 - |w_a - w_b| / max(w_a, w_b)`` with ``w`` the mean character length of the
  *words split on single spaces* (``text.split(" ")``: two consecutive spaces make an empty word of
  length 0, a newline does not split); 1 when both are 0;
- ``stel-punctuation``: cosine of the 12 relative frequencies (count / len(text)) of ``' : , _ ! ? ; . " ( ) -``;
- ``stel-char3-cosine``: cosine of the character-3-gram count vectors over the vocabulary of the two texts
  being compared, after lowercasing and collapsing every run of two or more whitespace characters to
  one space (the preprocessing of scikit-learn's ``CountVectorizer(analyzer="char")``, which STEL uses);
  1 when neither text has a 3-gram;
- ``stel-pos-cosine``: cosine of the relative frequencies of the 12 universal POS tags of Petrov, Das &
  McDonald (2012, "A Universal Part-of-Speech Tagset", LREC, Table/Appendix mapping for the English Penn
  Treebank) — STEL tags with NLTK's averaged-perceptron tagger and maps its Penn tags to these 12. That
  tagger's model is a separate NLTK data download, so steb maps the Penn tags of spaCy's tagger
  (``token.tag_``) with the same table instead; the tokeniser and tagger differ, hence the figures do
  (see ``bench/stylometry/README.md``);
- ``stel-levenshtein``: ``1 - lev(a, b) / max(len a, len b)`` (1 for two empty texts), via rapidfuzz.

**Cosine, as STEL computes it.** STEL's cosine is ``1 - scipy.spatial.distance.cosine(u, v)`` with the
scipy of 2021, whose correlation distance averaged the products: ``d = 1 - mean(u*v) / sqrt(mean(u*u) *
mean(v*v))`` (means over the vector's dimensions, numpy's pairwise summation), unclipped; the
similarity is ``1 - d``. Mathematically this is the plain cosine, but the rounding decides which STEL
quadruples tie, so :func:`stel_cosine_rows` reproduces it operation by operation: with it the
punctuation baseline agrees with STEL's published per-instance predictions on 387 of the 400 shared
instances instead of 334 with the textbook ``dot / (|u| |v|)``. Zero vectors follow STEL's convention
(:func:`steb_core.profile_cosine`): two all-zero profiles have similarity 1, exactly one gives 0.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .base import StylometryEncoder

__all__ = [
    "PUNCTUATION_MARKS",
    "PTB_TO_UNIVERSAL",
    "STEL_POS_TAGS",
    "profile_cosine_rows",
    "stel_cosine_rows",
    "UppercaseSimilarity",
    "WordLengthSimilarity",
    "PunctuationSimilarity",
    "CharTrigramSimilarity",
    "PosTagSimilarity",
    "LevenshteinSimilarity",
]

PUNCTUATION_MARKS = ("'", ":", ",", "_", "!", "?", ";", ".", '"', "(", ")", "-")

_WHITESPACE_RUN = re.compile(r"\s\s+")

#: the 12 universal POS tags of Petrov, Das & McDonald (2012), in the order STEL lists them
STEL_POS_TAGS = ("ADJ", "ADP", "ADV", "CONJ", "DET", "NOUN", "NUM", "PRT", "PRON", "VERB", ".", "X")


def _ptb_to_universal() -> dict[str, str]:
    """Penn Treebank tag -> universal tag, after Petrov et al. (2012)'s English mapping, plus spaCy's extra Penn
    tags."""
    groups = {
        ".": ["!", "#", "$", "''", "(", ")", ",", "-LRB-", "-RRB-", ".", ":", "?", "``", "HYPH", "NFP"],
        "CONJ": ["CC"],
        "NUM": ["CD"],
        "DET": ["DT", "EX", "PDT", "WDT"],
        "X": ["FW", "LS", "SYM", "UH", "ADD", "XX", "_SP"],
        "ADP": ["IN"],
        "ADJ": ["JJ", "JJR", "JJS", "AFX"],
        "VERB": ["MD", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"],
        "NOUN": ["NN", "NNP", "NNPS", "NNS"],
        "PRT": ["POS", "RP", "TO"],
        "PRON": ["PRP", "PRP$", "WP", "WP$"],
        "ADV": ["RB", "RBR", "RBS", "WRB"],
    }
    return {tag: uni for uni, tags in groups.items() for tag in tags}


#: spaCy's (Penn Treebank) ``token.tag_`` -> one of :data:`STEL_POS_TAGS`
PTB_TO_UNIVERSAL: dict[str, str] = _ptb_to_universal()


def profile_cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise :func:`steb_core.profile_cosine` (both zero -> 1, one zero -> 0), vectorised."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = dots / (na * nb)
    out[(na == 0) | (nb == 0)] = 0.0
    out[(na == 0) & (nb == 0)] = 1.0
    return np.asarray(out)


def stel_cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine computed as STEL's 2021 scipy did (module docstring), STEL's zero-vector convention.

    ``1 - (1 - mean(a*b) / sqrt(mean(a*a) * mean(b*b)))`` per row, means by numpy's pairwise summation
    over the row (the same order for a 2-D row as for a 1-D vector), no clipping: a result may exceed 1
    by an ulp exactly where STEL's did.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 2 or a.shape != b.shape:
        raise ValueError(f"stel_cosine_rows needs two equal 2-D arrays, got {a.shape} and {b.shape}")
    out = np.empty(a.shape[0])
    if a.shape[1] == 0:
        out[:] = 1.0
        return out
    uv = np.mean(a * b, axis=1)
    uu = np.mean(np.square(a), axis=1)
    vv = np.mean(np.square(b), axis=1)
    za = ~np.any(a != 0, axis=1)
    zb = ~np.any(b != 0, axis=1)
    ok = ~(za | zb)
    with np.errstate(invalid="ignore", divide="ignore"):
        dist = 1.0 - uv[ok] / np.sqrt(uu[ok] * vv[ok])
    out[ok] = 1.0 - dist
    out[za ^ zb] = 0.0
    out[za & zb] = 1.0
    return out


def _stel_cosine_counts(ca: Counter[str], cb: Counter[str]) -> float:
    """STEL's cosine of two sparse integer count profiles over the union of their keys (see :func:`stel_cosine_rows`).

    The sums are exact integers, so ``mean = sum / n`` with ``n`` the size of the union reproduces numpy's
    mean of the dense vectors bit for bit.
    """
    if not ca and not cb:
        return 1.0
    if not ca or not cb:
        return 0.0
    n = len(ca.keys() | cb.keys())
    uv = sum(v * cb[k] for k, v in ca.items() if k in cb)
    uu = sum(v * v for v in ca.values())
    vv = sum(v * v for v in cb.values())
    dist = 1.0 - (uv / n) / float(np.sqrt((uu / n) * (vv / n)))
    return 1.0 - dist


class _PairwiseBaseline(StylometryEncoder):
    similarity_only = True

    def config(self) -> dict[str, Any]:
        return {}

    def encode(self, texts: list[str]) -> np.ndarray:
        raise TypeError(
            f"{self.name} is a similarity-only method: it defines similarity(texts_a, texts_b), not vectors"
        )

    @staticmethod
    def _check(texts_a: Sequence[str], texts_b: Sequence[str]) -> None:
        if len(texts_a) != len(texts_b):
            raise ValueError(f"similarity needs aligned lists, got {len(texts_a)} and {len(texts_b)} texts")


class _ScalarBaseline(_PairwiseBaseline):
    """Similarity from one number per text."""

    def value(self, text: str) -> float:
        raise NotImplementedError

    def compare(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        self._check(texts_a, texts_b)
        a = np.array([self.value(t) for t in texts_a], dtype=np.float64)
        b = np.array([self.value(t) for t in texts_b], dtype=np.float64)
        return self.compare(a, b)


class UppercaseSimilarity(_ScalarBaseline):
    name = "stel-uppercase"

    def value(self, text: str) -> float:
        return sum(1 for c in text if c.isupper()) / len(text) if text else 0.0

    def compare(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(1.0 - np.abs(a - b))


class WordLengthSimilarity(_ScalarBaseline):
    name = "stel-word-length"

    def value(self, text: str) -> float:
        if not text:
            return 0.0
        words = text.split(" ")  # STEL splits on single spaces: "a  b" has an empty third word
        return sum(len(w) for w in words) / len(words)

    def compare(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        top = np.maximum(a, b)
        out = np.ones_like(top)
        nz = top > 0
        out[nz] = 1.0 - np.abs(a[nz] - b[nz]) / top[nz]
        return np.asarray(out)


class _ProfileBaseline(_PairwiseBaseline):
    """Cosine (computed as STEL does, :func:`stel_cosine_rows`) of per-text feature profiles."""

    def profiles(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        self._check(texts_a, texts_b)
        return stel_cosine_rows(self.profiles(texts_a), self.profiles(texts_b))


class PunctuationSimilarity(_ProfileBaseline):
    name = "stel-punctuation"

    def profiles(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(PUNCTUATION_MARKS)))
        for row, text in enumerate(texts):
            if text:
                out[row] = [text.count(m) / len(text) for m in PUNCTUATION_MARKS]
        return out


class PosTagSimilarity(_ProfileBaseline):
    """Cosine of the relative frequencies of the 12 universal POS tags (Petrov et al. 2012) of spaCy's Penn tags.

    STEL tags with NLTK (``word_tokenize`` + averaged perceptron, a separate data download) and maps the
    Penn Treebank tags to the universal tagset; steb maps spaCy's Penn tags (``token.tag_``) with the same
    table (:data:`PTB_TO_UNIVERSAL`), whitespace tokens dropped (NLTK's tokeniser has none), tags missing
    from the table counted as ``X``. The frequencies are relative to the number of tokens, as STEL's.
    """

    name = "stel-pos-cosine"

    def __init__(self, spacy_model: str | None = None, batch_size: int = 256, n_process: int = 1) -> None:
        from .spacy_pipeline import SpacyPipeline

        self.pipeline = SpacyPipeline(spacy_model, needs=("pos",), batch_size=batch_size, n_process=n_process)

    def config(self) -> dict[str, Any]:
        return {"spacy": self.pipeline.describe(), "tagset": "universal-12 (Petrov et al. 2012) from Penn tags"}

    def profiles(self, texts: Sequence[str]) -> np.ndarray:
        index = {t: i for i, t in enumerate(STEL_POS_TAGS)}
        out = np.zeros((len(texts), len(STEL_POS_TAGS)))
        counts = np.zeros(len(texts))
        for row, doc in self.pipeline.iter_docs(texts):
            for tok in doc:
                if tok.is_space:
                    continue
                out[row, index[PTB_TO_UNIVERSAL.get(tok.tag_, "X")]] += 1
                counts[row] += 1
        nz = counts > 0
        out[nz] /= counts[nz, None]
        return out


class CharTrigramSimilarity(_PairwiseBaseline):
    """Cosine of character-3-gram counts, preprocessed as scikit-learn's char analyzer (lowercase, whitespace runs ->
    " ")."""

    name = "stel-char3-cosine"

    @staticmethod
    def trigrams(text: str) -> Counter[str]:
        text = _WHITESPACE_RUN.sub(" ", text.lower())
        return Counter(text[i : i + 3] for i in range(len(text) - 2))

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        self._check(texts_a, texts_b)
        cache: dict[str, Counter[str]] = {}

        def grams(t: str) -> Counter[str]:
            got = cache.get(t)
            if got is None:
                got = cache[t] = self.trigrams(t)
            return got

        return np.array([_stel_cosine_counts(grams(a), grams(b)) for a, b in zip(texts_a, texts_b)], dtype=np.float64)


class LevenshteinSimilarity(_PairwiseBaseline):
    name = "stel-levenshtein"

    def config(self) -> dict[str, Any]:
        import rapidfuzz

        return {"rapidfuzz": rapidfuzz.__version__}

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        from rapidfuzz.distance import Levenshtein

        self._check(texts_a, texts_b)
        # STEL: 1 - edit distance / max(len a, len b), written out so the rounding is STEL's; 1 for two empty strings
        return np.array(
            [
                1.0 - Levenshtein.distance(a, b) / max(len(a), len(b)) if (a or b) else 1.0
                for a, b in zip(texts_a, texts_b)
            ],
            dtype=np.float64,
        )


#: name -> (class, one-line description) for the plugin
BASELINES: dict[str, tuple[Callable[..., Any], str]] = {
    "stel-uppercase": (UppercaseSimilarity, "STEL baseline: 1 - |difference of uppercase-character ratios|"),
    "stel-word-length": (
        WordLengthSimilarity,
        "STEL baseline: 1 - |w1 - w2| / max(w1, w2), w = mean length of the words split on single spaces",
    ),
    "stel-punctuation": (
        PunctuationSimilarity,
        "STEL baseline: cosine of relative frequencies of ' : , _ ! ? ; . \" ( ) -",
    ),
    "stel-char3-cosine": (
        CharTrigramSimilarity,
        "STEL baseline: cosine of lowercased character-3-gram counts (vocabulary of the pair)",
    ),
    "stel-pos-cosine": (
        PosTagSimilarity,
        "STEL baseline: cosine of the 12 universal POS tag frequencies (spaCy Penn tags mapped as Petrov et al. 2012)",
    ),
    "stel-levenshtein": (LevenshteinSimilarity, "STEL baseline: 1 - Levenshtein distance / max length"),
}
