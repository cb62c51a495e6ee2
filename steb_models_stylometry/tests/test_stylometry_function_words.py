"""function-words: the paper's list and counting (against scikit-learn and by hand), the earlier rule, odd texts."""

from __future__ import annotations

import numpy as np
import pytest

from steb_models_stylometry.base import RESOURCES
from steb_models_stylometry.function_words import FunctionWordsEncoder, load_word_list


@pytest.fixture(scope="module")
def enc() -> FunctionWordsEncoder:
    """steb's earlier configuration: its own grammar-derived list, longest-match counting."""
    return FunctionWordsEncoder(name="function-words-grammar", vocabulary="steb-grammar", counting="longest")


@pytest.fixture(scope="module")
def paper() -> FunctionWordsEncoder:
    return FunctionWordsEncoder()


def _nonzero(enc, vec):
    return {enc.feature_names[i]: float(vec[i]) for i in np.flatnonzero(vec)}


def test_word_list_sizes():
    assert len(load_word_list(RESOURCES / "function_words.txt")) == 392
    assert len(load_word_list(RESOURCES / "function_phrases.txt")) == 69
    # the published list: 390 words (with both "I" and "i") and 69 phrases
    published = [
        ln for ln in (RESOURCES / "aggazzotti_smith_2025_words.txt").read_text().splitlines() if ln and ln[0] != "#"
    ]
    assert len(published) == 390 and "I" in published and "i" in published
    assert len(load_word_list(RESOURCES / "aggazzotti_smith_2025_phrases.txt")) == 69
    with pytest.raises(ValueError, match="duplicate entries"):
        load_word_list(RESOURCES / "aggazzotti_smith_2025_words.txt")
    assert len(load_word_list(RESOURCES / "aggazzotti_smith_2025_words.txt", "keep-first")) == 389


def test_paper_configuration_has_458_columns_in_the_published_order(paper):
    assert len(paper.feature_names) == 458 and paper.info()["dim"] == 458
    assert paper.feature_names[:3] == ["can", "could", "dare"] and paper.feature_names[389] == "be able to"
    assert paper.feature_names.count("i") == 1 and paper.feature_names[-1] == "tons of"


PAPER_TEXTS = [
    "I said, i.e. a little bit of the rest of it; no one knows e.g. as to why!",
    "Do not, don't... A few of the majority of us, and/or THE number of them.",
    "Café au lait 😀 with the crème brûlée, tho' 'til then",
    "",
]


def test_paper_counting_equals_scikit_learns_count_vectorizer(paper):
    """STEB's reference code counts with CountVectorizer((?u)\\b\\w+\\b, 1-4-grams, lower-cased, fixed vocabulary)."""
    from sklearn.feature_extraction.text import CountVectorizer

    vocab = {term: i for i, term in enumerate(paper.feature_names)}
    reference = CountVectorizer(lowercase=True, token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 4), vocabulary=vocab)
    counts = reference.transform(PAPER_TEXTS).toarray().astype(np.float64)
    lengths = np.array(
        [max(1, len(CountVectorizer(token_pattern=r"(?u)\b\w+\b").build_tokenizer()(t.lower()))) for t in PAPER_TEXTS]
    )
    expected = counts / lengths[:, None]
    np.testing.assert_allclose(paper.encode(PAPER_TEXTS), expected, rtol=1e-6)
    assert expected[0].any() and expected[1].any()  # the comparison is not vacuous


def test_paper_counting_by_hand(paper):
    # tokens: a little bit of the rest of it -> 8; overlapping n-grams all count
    vec, n = paper.counts("A little bit of the rest of it")
    got = _nonzero(paper, vec)
    assert n == 8
    assert got == {
        "a": 1,
        "little": 1,
        "of": 2,
        "the": 1,
        "it": 1,
        "a little": 1,
        "a little bit of": 1,
        "the rest of": 1,
    }
    # punctuated entries never match: "i.e." is the tokens "i" and "e"
    assert _nonzero(paper, paper.counts("i.e. and/or")[0]) == {"i": 1, "and": 1, "or": 1}


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="vocabulary"):
        FunctionWordsEncoder(vocabulary="nope")
    with pytest.raises(ValueError, match="counting"):
        FunctionWordsEncoder(counting="nope")


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
    same = FunctionWordsEncoder(name="function-words-grammar", vocabulary="steb-grammar", counting="longest")
    assert enc.fingerprint() == same.fingerprint()
    assert (
        enc.fingerprint()
        != FunctionWordsEncoder(name="fw-copy", vocabulary="steb-grammar", counting="longest").fingerprint()
    )
    assert enc.info()["dim"] == 461
    # the paper's configuration and the mixed readings are all different caches
    prints = {
        FunctionWordsEncoder(name="fw", vocabulary=v, counting=c).fingerprint()
        for v in ("aggazzotti-smith-2025", "steb-grammar")
        for c in ("ngram", "longest")
    }
    assert len(prints) == 4
