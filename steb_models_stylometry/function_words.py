"""The ``function-words`` encoder: relative frequencies of English function words and phrases.

The vocabulary (``resources/function_words.txt``, 392 single words; ``resources/function_phrases.txt``,
69 multi-word phrases) was written for steb from standard grammar descriptions of English closed word
classes (determiners, quantifiers, pronouns, prepositions, conjunctions, auxiliaries and modals with
their inflected and contracted forms, particles, degree/focus/time adverbs, discourse markers) and of
complex prepositions and subordinators ("instead of", "as well as", "in order to").

Counting rule (no double counting): the lower-cased text is scanned left to right for phrases, taking
at each position the *longest* phrase that starts there ("as well as" before "as well"); matches do
not overlap. Every word token inside a matched phrase is then removed from the single-word counts, so
"as well as" adds 1 to the phrase and nothing to "as" or "well". Phrase words must be whole tokens
separated by whitespace. Each count is divided by the number of word tokens of the text (see
:mod:`steb_models_stylometry.textutil`), giving relative frequencies; a text without word tokens
(empty, whitespace, emoji only) gets the all-zero vector.

Speed: tokens are counted with one regular expression and ``collections.Counter`` and phrases with one
trie-shaped regular expression, so the per-text Python work is proportional to the number of distinct
tokens, not to the text length.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

import numpy as np

from .base import RESOURCES, StylometryEncoder, file_digest
from .textutil import WORD_RE, normalise_apostrophes

__all__ = ["FunctionWordsEncoder", "load_word_list", "trie_regex"]


def load_word_list(path) -> list[str]:
    """Non-comment, non-empty lines of a resource list, lower-cased, duplicates refused."""
    items: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip().lower()
        if line and not line.startswith("#"):
            items.append(" ".join(line.split()))
    dupes = sorted({w for w in items if items.count(w) > 1})
    if dupes:
        raise ValueError(f"{path}: duplicate entries {dupes}")
    return items


def trie_regex(phrases: Iterable[str]) -> str:
    """A regex matching any phrase, preferring the longest at each position (words joined by ``\\s+``)."""
    trie: dict = {}
    for phrase in phrases:
        node = trie
        for word in phrase.split():
            node = node.setdefault(word, {})
        node[""] = {}  # end marker

    def build(node: dict) -> str:
        alternatives = []
        for word in sorted((w for w in node if w), key=lambda w: (-len(w), w)):
            child = node[word]
            rest = build(child) if any(k for k in child) else ""
            if rest:
                alternatives.append(re.escape(word) + r"(?:\s+" + rest + (")?" if "" in child else ")"))
            else:
                alternatives.append(re.escape(word))
        return "(?:" + "|".join(alternatives) + ")"

    # the greedy optional groups make the regex try the longer continuation first
    return r"(?<![\w'])" + build(trie) + r"(?![\w'])"


class FunctionWordsEncoder(StylometryEncoder):
    """Relative frequencies of 392 function words + 69 function phrases (461 dimensions)."""

    def __init__(self, name: str = "function-words") -> None:
        self.name = name
        self._words_path = RESOURCES / "function_words.txt"
        self._phrases_path = RESOURCES / "function_phrases.txt"
        self.words = load_word_list(self._words_path)
        self.phrases = load_word_list(self._phrases_path)
        self.feature_names = self.words + self.phrases
        self._word_index = {w: i for i, w in enumerate(self.words)}
        self._phrase_index = {p: len(self.words) + i for i, p in enumerate(self.phrases)}
        self._phrase_words = {p: [self._word_index.get(w) for w in p.split()] for p in self.phrases}
        self._phrase_re = re.compile(trie_regex(self.phrases))
        self._space_re = re.compile(r"\s+")

    def config(self) -> dict[str, Any]:
        return {
            "words": file_digest(self._words_path)[:16],
            "phrases": file_digest(self._phrases_path)[:16],
            "dim": len(self.feature_names),
        }

    def counts(self, text: str) -> tuple[np.ndarray, int]:
        """Raw counts (phrase words removed from the single words) and the number of word tokens."""
        vec = np.zeros(len(self.feature_names), dtype=np.float64)
        lowered = normalise_apostrophes(text).lower()
        tokens = WORD_RE.findall(lowered)
        if not tokens:
            return vec, 0
        index = self._word_index
        for token, count in Counter(tokens).items():
            i = index.get(token)
            if i is not None:
                vec[i] += count
        for match in self._phrase_re.findall(lowered):
            phrase = self._space_re.sub(" ", match)
            vec[self._phrase_index[phrase]] += 1
            for i in self._phrase_words[phrase]:
                if i is not None:
                    vec[i] -= 1
        return vec, len(tokens)

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(self.feature_names)), dtype=np.float32)
        for row, text in enumerate(texts):
            vec, n = self.counts(text)
            if n:
                out[row] = vec / n
        return out
