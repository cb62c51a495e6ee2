"""The ``function-words`` encoders: relative frequencies of English function words and phrases.

**Vocabulary.** The STEB paper's function-word baseline "counts the frequencies of 390 function words
and 69 function phrases (Aggazzotti and Smith, 2025)". That list ships as
``resources/aggazzotti_smith_2025_words.txt`` / ``..._phrases.txt`` (vocabulary
``aggazzotti-smith-2025``, the default). Source: the STEB reference code, github.com/rrivera1849/STEB,
``steb/resources/function_words_phrases.json`` at commit e600cb4f14e513836da97044021fa46f791051b1,
Apache-2.0 (Copyright 2025 Rivera Soto, Wegmann, Aggazzotti); the same file is
``function_words_augmented.json`` of github.com/caggazzotti/styloSpeaker at commit
679a14bdf0363d05c94760b9210cb9034fb8ec69 (that repository is GPL-3.0 since July 2026; steb takes the list
from the Apache-2.0 STEB release). steb only converted the JSON to one entry per line; the header of each
file repeats this notice. steb's earlier list, written for steb from grammar descriptions of the closed
word classes (392 words + 69 phrases), stays available as vocabulary ``steb-grammar``.

**Counting** (``counting=``), two readings:

- ``ngram`` (default; what STEB's reference code does, the paper being silent): the text is lower-cased
  and split into tokens by ``\\b\\w+\\b`` (so "don't" is "don" + "t" and "i.e." is "i" + "e"); every
  token n-gram (n = 1 to the longest phrase) that is a vocabulary entry is counted, overlapping ones
  included ("a little bit of" also counts "a little", "a" and "little"). Entries are lower-cased and a
  later entry equal to an earlier one is dropped, so the published "I" and "i" give one column: 389 + 69
  = **458 dimensions**. Entries that are not runs of word characters ("and/or", "tho'", "'til", "i.e",
  "i.e.", "e.g", "e.g.", "etc.") can never match and stay 0, exactly as in the reference code.
- ``longest`` (steb's earlier rule): tokens are ``\\w+('\\w+)*`` with curly apostrophes read as straight
  (so "don't" is one token); the text is scanned left to right for phrases, taking at each position the
  *longest* phrase that starts there, without overlaps, and the word tokens inside a matched phrase are
  not counted as single words.

Each count is divided by the number of tokens of the text under the same tokenisation (relative
frequencies); a text without tokens (empty, whitespace, emoji only) is the all-zero vector.

Named configurations: ``function-words`` (Aggazzotti & Smith list, ``ngram``: STEB's baseline) and
``function-words-grammar`` (steb's earlier list and ``longest`` rule, 461 dimensions).

Speed: single words are counted with ``collections.Counter``; phrases with a first-word index
(``ngram``) or one trie-shaped regular expression (``longest``), so the per-text work is proportional to
the number of tokens.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from .base import RESOURCES, StylometryEncoder, file_digest
from .textutil import WORD_RE, normalise_apostrophes

__all__ = ["FunctionWordsEncoder", "VOCABULARIES", "COUNTINGS", "load_word_list", "trie_regex", "NGRAM_TOKEN_RE"]

#: vocabulary name -> (word list file, phrase list file) under ``resources/``
VOCABULARIES: dict[str, tuple[str, str]] = {
    "aggazzotti-smith-2025": ("aggazzotti_smith_2025_words.txt", "aggazzotti_smith_2025_phrases.txt"),
    "steb-grammar": ("function_words.txt", "function_phrases.txt"),
}
COUNTINGS = ("ngram", "longest")
#: the token pattern of STEB's reference code (scikit-learn's ``(?u)\b\w+\b``)
NGRAM_TOKEN_RE = re.compile(r"\b\w+\b")


def load_word_list(path: str | Path, duplicates: str = "refuse") -> list[str]:
    """Non-comment, non-empty lines of a resource list, lower-cased.

    ``duplicates="refuse"`` raises on entries that coincide once lower-cased; ``"keep-first"`` drops the
    later ones (what STEB's reference code does with the published "I" / "i").
    """
    path = Path(path)
    items: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip().lower()
        if line and not line.startswith("#"):
            items.append(" ".join(line.split()))
    if duplicates == "keep-first":
        return list(dict.fromkeys(items))
    dupes = sorted({w for w in items if items.count(w) > 1})
    if dupes:
        raise ValueError(f"{path}: duplicate entries {dupes}")
    return items


def trie_regex(phrases: Iterable[str]) -> str:
    """A regex matching any phrase, preferring the longest at each position (words joined by ``\\s+``)."""
    trie: dict[str, Any] = {}
    for phrase in phrases:
        node = trie
        for word in phrase.split():
            node = node.setdefault(word, {})
        node[""] = {}  # end marker

    def build(node: dict[str, Any]) -> str:
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
    """Relative frequencies of function words + phrases (see the module docstring for both readings)."""

    def __init__(
        self, name: str = "function-words", vocabulary: str = "aggazzotti-smith-2025", counting: str = "ngram"
    ) -> None:
        if vocabulary not in VOCABULARIES:
            raise ValueError(f"unknown function-word vocabulary {vocabulary!r}; known: {', '.join(VOCABULARIES)}")
        if counting not in COUNTINGS:
            raise ValueError(f"unknown counting {counting!r}; choose one of {', '.join(COUNTINGS)}")
        self.name, self.vocabulary, self.counting = name, vocabulary, counting
        words_file, phrases_file = VOCABULARIES[vocabulary]
        self._words_path = RESOURCES / words_file
        self._phrases_path = RESOURCES / phrases_file
        # the published list has "I" and "i"; the earlier steb list is checked for duplicates
        mode = "keep-first" if vocabulary == "aggazzotti-smith-2025" else "refuse"
        words = load_word_list(self._words_path, mode)
        phrases = [p for p in load_word_list(self._phrases_path, mode) if p not in set(words)]
        self.words, self.phrases = words, phrases
        self.feature_names = words + phrases
        self._word_index = {w: i for i, w in enumerate(words)}
        self._phrase_index = {p: len(words) + i for i, p in enumerate(phrases)}
        # ngram counting: phrases by their first token (tuples of tokens)
        self._by_first: dict[str, list[tuple[tuple[str, ...], int]]] = {}
        for p, col in self._phrase_index.items():
            parts = tuple(p.split())
            self._by_first.setdefault(parts[0], []).append((parts, col))
        # longest counting
        self._phrase_words = {p: [self._word_index.get(w) for w in p.split()] for p in phrases}
        self._phrase_re = re.compile(trie_regex(phrases))
        self._space_re = re.compile(r"\s+")

    def config(self) -> dict[str, Any]:
        return {
            "vocabulary": self.vocabulary,
            "counting": self.counting,
            "words": file_digest(self._words_path)[:16],
            "phrases": file_digest(self._phrases_path)[:16],
            "dim": len(self.feature_names),
        }

    def counts(self, text: str) -> tuple[np.ndarray, int]:
        """Raw counts under the encoder's counting rule and the number of tokens of ``text``."""
        if self.counting == "ngram":
            return self._ngram_counts(text)
        return self._longest_counts(text)

    def _ngram_counts(self, text: str) -> tuple[np.ndarray, int]:
        vec = np.zeros(len(self.feature_names), dtype=np.float64)
        tokens = NGRAM_TOKEN_RE.findall(text.lower())
        if not tokens:
            return vec, 0
        index, by_first = self._word_index, self._by_first
        for token, count in Counter(tokens).items():
            i = index.get(token)
            if i is not None:
                vec[i] += count
        n = len(tokens)
        for pos, token in enumerate(tokens):
            for parts, col in by_first.get(token, ()):
                if tuple(tokens[pos : pos + len(parts)]) == parts:
                    vec[col] += 1
        return vec, n

    def _longest_counts(self, text: str) -> tuple[np.ndarray, int]:
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
        if self.phrases:
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
