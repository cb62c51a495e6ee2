"""Tokenisation and syllable counting shared by the surface features (no spaCy needed).

Rules are deliberately simple and documented so tests can check them by hand:

- *words* are maximal runs of letters/digits/underscore, optionally joined by apostrophes
  (``don't``, ``o'clock``); curly apostrophes are read as straight ones;
- *syllables* are counted as groups of consecutive vowels (a e i o u y) in the lower-cased word,
  minus one for a silent final ``e`` (not after ``l`` as in "table", and not in "-ee"), at least one
  per word that contains a letter; words without letters (numbers) count zero.
"""

from __future__ import annotations

import re

__all__ = ["WORD_RE", "normalise_apostrophes", "words", "syllables"]

WORD_RE = re.compile(r"\w+(?:'\w+)*")
_VOWEL_GROUPS = re.compile(r"[aeiouy]+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def normalise_apostrophes(text: str) -> str:
    return text.translate(_APOSTROPHES)


def words(text: str) -> list[str]:
    """The word tokens of ``text`` (see module docstring)."""
    return WORD_RE.findall(normalise_apostrophes(text))


def syllables(word: str) -> int:
    """Estimated syllable count of one word (vowel groups, silent final e, minimum one)."""
    w = word.lower()
    if not any(c.isalpha() for c in w):
        return 0
    n = len(_VOWEL_GROUPS.findall(w))
    if w.endswith("e") and not w.endswith(("le", "ee")) and n > 1:
        n -= 1
    return max(n, 1)
