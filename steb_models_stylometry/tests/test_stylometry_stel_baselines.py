"""STEL baselines: the issue's exact formulas on hand examples, and STEL's zero-vector convention."""

from __future__ import annotations

import math

import numpy as np
import pytest

from steb_core import profile_cosine
from steb_models_stylometry.stel_baselines import (
    PTB_TO_UNIVERSAL,
    STEL_POS_TAGS,
    CharTrigramSimilarity,
    LevenshteinSimilarity,
    PosTagSimilarity,
    PunctuationSimilarity,
    UppercaseSimilarity,
    WordLengthSimilarity,
    profile_cosine_rows,
    stel_cosine_rows,
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
    # w("a bb") = 1.5, w("ccc dddd") = 3.5 -> 1 - 2/3.5 ; both empty -> 1 ; "  " = 3 empty words -> 0
    sim = WordLengthSimilarity().similarity(["a bb", "", "  "], ["ccc dddd", "", "abc"])
    assert sim.tolist() == pytest.approx([1 - 2 / 3.5, 1.0, 0.0])


def test_word_length_splits_on_single_spaces_as_stel():
    # STEL: text.split(" "). "ab  cd" -> ["ab", "", "cd"]: mean 4/3 (split() would give 2);
    # "ab\ncd ef" -> ["ab\ncd", "ef"]: mean 7/2 (a newline does not split)
    w = WordLengthSimilarity()
    assert w.value("ab  cd") == pytest.approx(4 / 3)
    assert w.value("ab\ncd ef") == pytest.approx(7 / 2)
    assert w.value(" x") == pytest.approx(1 / 2)


def test_punctuation():
    p = PunctuationSimilarity()
    # "a,b." -> ',' and '.' each 1/4; "a,,b" -> ',' 2/4 ; cosine = (1/16*... ) computed by hand: vectors (1,1) and (2,0)
    sim = p.similarity(["a,b.", "abc", "abc", "!"], ["a,,b", "xyz", "x!", ""])
    assert sim.tolist() == pytest.approx([2 / (math.sqrt(2) * 2), 1.0, 0.0, 0.0])


def test_char_trigrams_lowercase_and_collapse_whitespace():
    # scikit-learn's char analyzer (STEL's): lowercase, runs of >= 2 whitespace -> one space
    c = CharTrigramSimilarity()
    assert c.trigrams("AB  \t c") == c.trigrams("ab c") == {"ab ": 1, "b c": 1}
    assert c.trigrams("a\nb") == {"a\nb": 1}  # a single newline is kept as it is
    assert CharTrigramSimilarity().similarity(["ABC"], ["abc"]).tolist() == [1.0]


def test_stel_cosine_rows_hand_values_and_rounding():
    a = np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0], [3, 4, 0], [1, 2, 2]], dtype=float)
    b = np.array([[0, 0, 0], [1, 1, 0], [0, 0, 0], [4, 3, 0], [2, 4, 4]], dtype=float)
    got = stel_cosine_rows(a, b)
    assert got[:4].tolist() == pytest.approx([1.0, 0.0, 0.0, 24 / 25], abs=1e-15)
    assert got[4] == pytest.approx(1.0, abs=1e-15)
    # operation by operation: 1 - (1 - mean(uv) / sqrt(mean(uu) * mean(vv))), each row on its own as 1-D
    rng = np.random.default_rng(0)
    x, y = rng.random((50, 12)) / 7, rng.random((50, 12)) / 3
    by_row = [1.0 - (1.0 - np.mean(u * v) / np.sqrt(np.mean(u * u) * np.mean(v * v))) for u, v in zip(x, y)]
    assert stel_cosine_rows(x, y).tolist() == by_row  # bitwise: the rounding decides STEL's ties


def test_ptb_to_universal_table():
    assert set(PTB_TO_UNIVERSAL.values()) <= set(STEL_POS_TAGS) and len(STEL_POS_TAGS) == 12
    # Petrov et al. (2012): modals are verbs, possessive ending / TO / particles are PRT, EX is DET
    expected = {
        "MD": "VERB",
        "POS": "PRT",
        "TO": "PRT",
        "RP": "PRT",
        "EX": "DET",
        "WDT": "DET",
        "PRP$": "PRON",
        "WRB": "ADV",
        "CC": "CONJ",
        "CD": "NUM",
        "IN": "ADP",
        ",": ".",
        "UH": "X",
        "NNP": "NOUN",
        "JJS": "ADJ",
    }
    assert {k: PTB_TO_UNIVERSAL[k] for k in expected} == expected


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
    # "it'd" -> PRP MD and "it had" -> PRP VBD map to the same universal tags (PRON VERB), as in STEL
    sim = p.similarity(["I think it'd work."], ["I think it would work."])
    assert sim.tolist() == pytest.approx([1.0])


@pytest.mark.parametrize(
    "cls",
    [UppercaseSimilarity, WordLengthSimilarity, PunctuationSimilarity, CharTrigramSimilarity, LevenshteinSimilarity],
)
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
