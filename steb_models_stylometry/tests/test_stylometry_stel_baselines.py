"""STEL baselines: the issue's exact formulas on hand examples, and STEL's zero-vector convention."""

from __future__ import annotations

import math

import numpy as np
import pytest

from steb_core import profile_cosine
from steb_models_stylometry.stel_baselines import (
    CharTrigramSimilarity,
    LevenshteinSimilarity,
    PosTagSimilarity,
    PunctuationSimilarity,
    UppercaseSimilarity,
    WordLengthSimilarity,
    profile_cosine_rows,
)


def test_profile_cosine_rows_matches_core_convention():
    a = np.array([[0, 0], [0, 0], [1, 0], [3, 4]], dtype=float)
    b = np.array([[0, 0], [1, 1], [0, 0], [4, 3]], dtype=float)
    got = profile_cosine_rows(a, b)
    assert got.tolist() == pytest.approx([profile_cosine(x, y) for x, y in zip(a, b)])
    assert got.tolist() == pytest.approx([1.0, 0.0, 0.0, 24 / 25])


def test_uppercase():
    # u("ABcd") = 2/4, u("abcD") = 1/4 -> 1 - 1/4; empty has u = 0
    sim = UppercaseSimilarity().similarity(["ABcd", "", "HI"], ["abcD", "", "hi"])
    assert sim.tolist() == pytest.approx([0.75, 1.0, 0.0])


def test_word_length():
    # w("a bb") = 1.5, w("ccc dddd") = 3.5 -> 1 - 2/3.5 ; both empty -> 1 ; one empty -> 1 - w/w = 0
    sim = WordLengthSimilarity().similarity(["a bb", "", "  "], ["ccc dddd", "", "abc"])
    assert sim.tolist() == pytest.approx([1 - 2 / 3.5, 1.0, 0.0])


def test_punctuation():
    p = PunctuationSimilarity()
    # "a,b." -> ',' and '.' each 1/4; "a,,b" -> ',' 2/4 ; cosine = (1/16*... ) computed by hand: vectors (1,1) and (2,0)
    sim = p.similarity(["a,b.", "abc", "abc", "!"], ["a,,b", "xyz", "x!", ""])
    assert sim.tolist() == pytest.approx([2 / (math.sqrt(2) * 2), 1.0, 0.0, 0.0])


def test_char_trigrams():
    # "abcd" -> abc, bcd ; "abce" -> abc, bce ; cosine = 1 / (sqrt2 * sqrt2)
    sim = CharTrigramSimilarity().similarity(["abcd", "ab", "ab", "aaaa"], ["abce", "", "abc", "aaa"])
    # "aaaa" -> aaa x2 ; "aaa" -> aaa x1 -> cosine 1
    assert sim.tolist() == pytest.approx([0.5, 1.0, 0.0, 1.0])


def test_levenshtein():
    sim = LevenshteinSimilarity().similarity(["kitten", "", "abc"], ["sitting", "", ""])
    assert sim.tolist() == pytest.approx([1 - 3 / 7, 1.0, 0.0])


def test_pos_cosine_identical_structure_and_empty():
    p = PosTagSimilarity()
    sim = p.similarity(["The cat sleeps.", "", "The cat sleeps."], ["The dog sleeps.", "", ""])
    assert sim.tolist() == pytest.approx([1.0, 1.0, 0.0])


@pytest.mark.parametrize("cls", [UppercaseSimilarity, WordLengthSimilarity, PunctuationSimilarity, CharTrigramSimilarity, LevenshteinSimilarity])
def test_long_and_odd_texts(cls):
    long = ("Hello, World! 😀 " * 7000)[:100_000]
    sim = cls().similarity([long, "😀", "   "], [long[:50_000], "café", ""])
    assert np.isfinite(sim).all() and sim[0] >= 0.5 - 1e-9


def test_similarity_only_and_misaligned():
    b = UppercaseSimilarity()
    assert b.similarity_only
    with pytest.raises(TypeError):
        b.encode(["x"])
    with pytest.raises(ValueError):
        b.similarity(["a"], ["a", "b"])
