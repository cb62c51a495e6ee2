"""BLEU, chrF, ROUGE and METEOR on hand-checked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu

from steb_core import get_scorer
from steb_scorers.lexical import BleuScorer, ChrfScorer, MeteorScorer, RougeScorer, wordnet_available

SOURCES = ["the cat sat on the mat", "u r ready"]
OUTPUTS = ["the cat sat on the mat", "you are ready"]
REFS = ["a cat sat on the mat", "you are ready"]


def test_bleu_identical_is_100_and_unigram_only_overlap_hand_checked():
    res = BleuScorer(against="source").score(SOURCES, OUTPUTS)
    assert res.scores[0] == pytest.approx(100.0)
    # "you are ready" vs "u r ready": p1 = 1/3, p2 = p3 = 0 matches; exp smoothing: p_n = 1 / (2^k · total_n)
    # totals: 3, 2, 1 (effective order 3); k = 1, 2 -> p2 = 1/(2·2), p3 = 1/(4·1); BP = 1
    expected = 100 * math.exp((math.log(1 / 3) + math.log(1 / 4) + math.log(1 / 4)) / 3)
    assert res.scores[1] == pytest.approx(expected, rel=1e-6)


def test_corpus_bleu_is_not_the_mean_and_matches_sacrebleu():
    res = BleuScorer().score(SOURCES, OUTPUTS, references=REFS)
    assert res.corpus == pytest.approx(sacrebleu.corpus_bleu(OUTPUTS, [REFS]).score)
    assert res.corpus != pytest.approx(res.scores.mean())
    assert res.details["against"] == "reference"


def test_multiple_references_take_the_best():
    res = BleuScorer().score(["x"], ["you are ready"], references=[["nothing alike here", "you are ready"]])
    assert res.scores[0] == pytest.approx(100.0)


def test_chrf_identical_and_disjoint():
    res = ChrfScorer(against="source").score(["abc", "abc"], ["abc", "xyz"])
    assert res.scores[0] == pytest.approx(100.0) and res.scores[1] == pytest.approx(0.0)
    got = ChrfScorer().score(SOURCES, OUTPUTS, references=REFS)
    assert got.corpus == pytest.approx(sacrebleu.corpus_chrf(OUTPUTS, [REFS]).score)


def test_reference_metric_without_references_is_a_clear_error():
    with pytest.raises(ValueError, match="none were given"):
        ChrfScorer().score(SOURCES, OUTPUTS)
    with pytest.raises(ValueError, match="2 sources but 1 outputs"):
        ChrfScorer(against="source").score(SOURCES, OUTPUTS[:1])


def test_rouge_hand_checked():
    res = RougeScorer("rouge1", against="source").score(["the cat sat"], ["the cat ran"])
    assert res.scores[0] == pytest.approx(2 / 3)  # P = R = 2/3
    # ROUGE-2: bigrams {the cat, cat sat} vs {the cat, cat ran}: 1 of 2 -> 0.5; ROUGE-L: LCS 2 of 3
    assert res.components["rouge2"][0] == pytest.approx(0.5)
    assert res.components["rougeL"][0] == pytest.approx(2 / 3)


def test_meteor_without_synonyms_hand_checked():
    res = MeteorScorer(against="source", synonyms=False).score(["the cat sat"], ["the cat sat"])
    # P = R = 1, Fmean = 1, one chunk of 3 matches: penalty = 0.5 · (1/3)^3
    assert res.scores[0] == pytest.approx(1 - 0.5 * (1 / 3) ** 3)
    # stem match: "cats" ~ "cat" (Porter); "sat" unmatched against "sits"
    res = MeteorScorer(against="source", synonyms=False).score(["cats sat"], ["cat sits"])
    p = r = 1 / 2
    fmean = p * r / (0.9 * p + 0.1 * r)
    assert res.scores[0] == pytest.approx(fmean * (1 - 0.5 * (1 / 1) ** 3))


def test_meteor_with_synonyms_needs_wordnet():
    scorer = MeteorScorer(against="source")
    if wordnet_available():
        assert scorer.score(["the cat sat"], ["the cat sat"]).scores[0] > 0.9
    else:
        with pytest.raises(RuntimeError, match="WordNet"):
            scorer.score(["the cat sat"], ["the cat sat"])


def test_registered_names_build_scorers():
    for name in ("bleu", "chrf", "rouge1", "rouge2", "rougeL"):
        res = get_scorer(name, against="source").score(SOURCES, OUTPUTS)
        assert isinstance(res.scores, np.ndarray) and res.scores.shape == (2,)
    assert get_scorer("rouge2", against="source").measure == "rouge2"


def test_pauli_bleu_is_character_bleu_with_the_source_as_hypothesis():
    """Pauli et al.'s code: sentence_bleu([output], source) on strings, i.e. character n-grams, smoothing method 1."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    res = BleuScorer(against="source", variant="pauli").score(["ab c"], ["ab d"])
    # by hand, hypothesis "ab c" vs reference "ab d": 1-grams 3/4, 2-grams 2/3, 3-grams 1/2, 4-grams 0/1 -> (0 + 0.1)/1
    # (method 1);
    # equal lengths, no brevity penalty: (3/4 * 2/3 * 1/2 * 1/10) ** (1/4)
    assert res.scores[0] == pytest.approx((0.75 * (2 / 3) * 0.5 * 0.1) ** 0.25, abs=1e-12)
    # the authors' call itself (raw strings, nltk iterating them by character); the roles matter through the brevity
    # penalty
    sources, outputs = ["the cat sat on the mat", "hi"], ["a cat sat on a mat today", "hello there"]
    got = BleuScorer(against="source", variant="pauli").score(sources, outputs)
    smooth = SmoothingFunction().method1
    expected = [sentence_bleu([o], s, smoothing_function=smooth) for s, o in zip(sources, outputs)]
    np.testing.assert_allclose(got.scores, expected, rtol=0, atol=1e-15)
    swapped = [sentence_bleu([s], o, smoothing_function=smooth) for s, o in zip(sources, outputs)]
    assert abs(swapped[0] - expected[0]) > 1e-3
    assert got.corpus == pytest.approx(np.mean(expected)) and got.details["system_level"] == "mean of sentence scores"
    assert not got.components  # no corpus statistics: the meta-evaluation uses the mean per system
    refs = BleuScorer(against="reference", variant="pauli").score(
        sources, outputs, references=[["the cat is on the mat", "x"], ["hi there"]]
    )
    assert refs.scores[0] == pytest.approx(
        sentence_bleu(["a cat sat on a mat today"], "the cat is on the mat", smoothing_function=smooth)
    )
