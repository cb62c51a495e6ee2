"""STEL's simple similarity-only baselines (Wegmann & Nguyen 2021), as pairwise ``similarity`` methods.

Each object has ``similarity(texts_a, texts_b) -> (n,) float64`` and ``similarity_only = True``; tasks
that need vectors skip them, the order-alignment task compares the pairwise similarities.

Formulas (``len`` is the number of Unicode characters):

- ``stel-uppercase``: ``1 - |u_a - u_b|`` with ``u = (#uppercase characters) / len(text)``, ``u = 0`` for "";
- ``stel-word-length``: ``1 - |w_a - w_b| / max(w_a, w_b)`` with ``w`` the mean character length of the
  whitespace-separated tokens (``w = 0`` without tokens); 1 when both are 0;
- ``stel-punctuation``: cosine of the 12 relative frequencies (count / len(text)) of ``' : , _ ! ? ; . " ( ) -``;
- ``stel-char3-cosine``: cosine of the character-3-gram count vectors, vocabulary = the 3-grams of the two
  texts being compared;
- ``stel-pos-cosine``: cosine of the counts of spaCy's universal POS tags (17 UD tags + SPACE);
- ``stel-levenshtein``: ``1 - lev(a, b) / max(len a, len b)`` (1 for two empty texts), via rapidfuzz.

Every cosine follows STEL's convention (:func:`steb_core.profile_cosine`): two all-zero profiles have
similarity 1, exactly one all-zero profile gives 0.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np

from .base import StylometryEncoder

__all__ = [
    "PUNCTUATION_MARKS",
    "profile_cosine_rows",
    "UppercaseSimilarity",
    "WordLengthSimilarity",
    "PunctuationSimilarity",
    "CharTrigramSimilarity",
    "PosTagSimilarity",
    "LevenshteinSimilarity",
]

PUNCTUATION_MARKS = ("'", ":", ",", "_", "!", "?", ";", ".", '"', "(", ")", "-")


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
    return out


class _PairwiseBaseline(StylometryEncoder):
    similarity_only = True

    def config(self) -> dict[str, Any]:
        return {}

    def encode(self, texts: list[str]) -> np.ndarray:
        raise TypeError(f"{self.name} is a similarity-only method: it defines similarity(texts_a, texts_b), not vectors")

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
        return 1.0 - np.abs(a - b)


class WordLengthSimilarity(_ScalarBaseline):
    name = "stel-word-length"

    def value(self, text: str) -> float:
        tokens = text.split()
        return sum(len(t) for t in tokens) / len(tokens) if tokens else 0.0

    def compare(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        top = np.maximum(a, b)
        out = np.ones_like(top)
        nz = top > 0
        out[nz] = 1.0 - np.abs(a[nz] - b[nz]) / top[nz]
        return out


class _ProfileBaseline(_PairwiseBaseline):
    """Cosine (STEL convention) of per-text feature profiles."""

    def profiles(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        self._check(texts_a, texts_b)
        return profile_cosine_rows(self.profiles(texts_a), self.profiles(texts_b))


class PunctuationSimilarity(_ProfileBaseline):
    name = "stel-punctuation"

    def profiles(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(PUNCTUATION_MARKS)))
        for row, text in enumerate(texts):
            if text:
                out[row] = [text.count(m) / len(text) for m in PUNCTUATION_MARKS]
        return out


class PosTagSimilarity(_ProfileBaseline):
    """Cosine of universal-POS-tag counts from a spaCy pipeline (tagger + attribute ruler only)."""

    name = "stel-pos-cosine"

    def __init__(self, spacy_model: str | None = None, batch_size: int = 256, n_process: int = 1) -> None:
        from .spacy_pipeline import SpacyPipeline

        self.pipeline = SpacyPipeline(spacy_model, needs=("pos",), batch_size=batch_size, n_process=n_process)

    def config(self) -> dict[str, Any]:
        return {"spacy": self.pipeline.describe()}

    def profiles(self, texts: Sequence[str]) -> np.ndarray:
        from .spacy_pipeline import POS_TAGS

        index = {t: i for i, t in enumerate(POS_TAGS)}
        out = np.zeros((len(texts), len(POS_TAGS)))
        for row, doc in self.pipeline.iter_docs(texts):
            for tag, count in Counter(tok.pos_ for tok in doc).items():
                if tag in index:
                    out[row, index[tag]] += count
        return out


class CharTrigramSimilarity(_PairwiseBaseline):
    name = "stel-char3-cosine"

    @staticmethod
    def trigrams(text: str) -> Counter:
        return Counter(text[i : i + 3] for i in range(len(text) - 2))

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        self._check(texts_a, texts_b)
        out = np.empty(len(texts_a))
        for i, (a, b) in enumerate(zip(texts_a, texts_b)):
            ca, cb = self.trigrams(a), self.trigrams(b)
            dot = float(sum(v * cb[k] for k, v in ca.items() if k in cb))
            na = float(np.sqrt(sum(v * v for v in ca.values())))
            nb = float(np.sqrt(sum(v * v for v in cb.values())))
            out[i] = 1.0 if na == 0 and nb == 0 else (0.0 if na == 0 or nb == 0 else dot / (na * nb))
        return out


class LevenshteinSimilarity(_PairwiseBaseline):
    name = "stel-levenshtein"

    def config(self) -> dict[str, Any]:
        import rapidfuzz

        return {"rapidfuzz": rapidfuzz.__version__}

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        from rapidfuzz.distance import Levenshtein

        self._check(texts_a, texts_b)
        # normalized_similarity = 1 - distance / max(len a, len b); rapidfuzz returns 1.0 for two empty strings
        return np.array([Levenshtein.normalized_similarity(a, b) for a, b in zip(texts_a, texts_b)], dtype=np.float64)


#: name -> (class, one-line description) for the plugin
BASELINES: dict[str, tuple[Callable[..., Any], str]] = {
    "stel-uppercase": (UppercaseSimilarity, "STEL baseline: 1 - |difference of uppercase-character ratios|"),
    "stel-word-length": (WordLengthSimilarity, "STEL baseline: 1 - |w1 - w2| / max(w1, w2), w = mean whitespace-token length"),
    "stel-punctuation": (PunctuationSimilarity, "STEL baseline: cosine of relative frequencies of ' : , _ ! ? ; . \" ( ) -"),
    "stel-char3-cosine": (CharTrigramSimilarity, "STEL baseline: cosine of character-3-gram counts (vocabulary of the pair)"),
    "stel-pos-cosine": (PosTagSimilarity, "STEL baseline: cosine of universal POS tag counts (spaCy)"),
    "stel-levenshtein": (LevenshteinSimilarity, "STEL baseline: 1 - Levenshtein distance / max length (rapidfuzz)"),
}
