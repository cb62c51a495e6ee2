"""function-words: hand-computed vectors, the phrase rule, degenerate and very long texts."""

from __future__ import annotations

import numpy as np
import pytest

from steb_models_stylometry.function_words import FunctionWordsEncoder, load_word_list
from steb_models_stylometry.base import RESOURCES


@pytest.fixture(scope="module")
def enc() -> FunctionWordsEncoder:
    return FunctionWordsEncoder()


def _nonzero(enc, vec):
    return {enc.feature_names[i]: float(vec[i]) for i in np.flatnonzero(vec)}


def test_word_list_sizes():
    assert len(load_word_list(RESOURCES / "function_words.txt")) == 392
    assert len(load_word_list(RESOURCES / "function_phrases.txt")) == 69


def test_hand_computed_vector_with_phrases(enc):
    # 13 tokens: as well as the cat i sat on the mat instead of him
    vec = enc.encode(["As well as the cat, I sat on the mat instead of him."])[0]
    n = 13
    expected = {"the": 2 / n, "i": 1 / n, "on": 1 / n, "him": 1 / n, "as well as": 1 / n, "instead of": 1 / n}
    got = _nonzero(enc, vec)
    assert got.keys() == expected.keys()
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, rel=1e-6)


def test_longest_phrase_wins_and_no_overlap(enc):
    # "as soon as" (phrase) then "as" alone; "in order to" beats nothing shorter; "a lot of" consumes "a"
    vec, n = enc.counts("as soon as possible, as well; in order to win a lot of games")
    got = _nonzero(enc, vec)
    assert n == 14
    assert got == {"as soon as": 1, "as": 1, "well": 1, "in order to": 1, "a lot of": 1}


def test_phrase_needs_whole_tokens(enc):
    vec, _ = enc.counts("Basinstead offer")  # neither 'instead of' nor 'as'
    assert _nonzero(enc, vec) == {}


def test_curly_apostrophe_and_contractions(enc):
    got = _nonzero(enc, enc.counts("I don’t know")[0])
    assert got == {"i": 1, "don't": 1}


@pytest.mark.parametrize("text", ["", "   \n\t ", "😀🔥 🙂", "!!! ..."])
def test_texts_without_words_give_zero_vector(enc, text):
    vec = enc.encode([text])
    assert vec.shape == (1, 461) and vec.dtype == np.float32
    assert not vec.any()


def test_non_ascii_text(enc):
    vec = enc.encode(["Café au lait 😀 with the crème brûlée"])[0]
    # tokens: café au lait with the crème brûlée -> 7
    assert _nonzero(enc, vec) == pytest.approx({"with": 1 / 7, "the": 1 / 7})


def test_100k_characters(enc):
    text = ("The cat and the dog, as well as the bird. " * 2400)[:100_000]
    vec = enc.encode([text])[0]
    assert np.isfinite(vec).all() and vec.sum() > 0


def test_batch_independence_and_fingerprint(enc):
    a = enc.encode(["the cat of mine"])
    b = enc.encode(["something else entirely", "the cat of mine"])
    np.testing.assert_array_equal(a[0], b[1])
    assert enc.fingerprint() == FunctionWordsEncoder().fingerprint()
    assert enc.fingerprint() != FunctionWordsEncoder(name="fw-copy").fingerprint()
    assert enc.info()["dim"] == 461
