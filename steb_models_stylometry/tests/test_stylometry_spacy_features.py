"""lftk-probing, stylometric and biber: hand-counted features on small texts, odd and very long texts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from steb_models_stylometry.biber import FEATURE_NAMES as BIBER_NAMES
from steb_models_stylometry.biber import BiberEncoder
from steb_models_stylometry.lftk import PROBING_FEATURES, SURFACE_COUNT_FEATURES, LftkProbingExtractor
from steb_models_stylometry.stylometric import (
    DEFAULT_REFERENCE,
    STYLOMETRIC_FEATURES,
    StylometricEncoder,
    derived_features,
)

ODD = ["", "   \n ", "😀🔥🙂", "Ça va? Très bien, merci! 😀"]
LONG = ("The quick brown fox, they said, doesn't jump over 12 lazy dogs. " * 1600)[:100_000]


@pytest.fixture(scope="module")
def lftk() -> LftkProbingExtractor:
    return LftkProbingExtractor()


def test_probing_feature_names():
    assert len(PROBING_FEATURES) == 46 and len(set(PROBING_FEATURES)) == 46
    assert not any("_ent" in f for f in PROBING_FEATURES)  # no LFTK entity features
    assert {"t_kup", "t_bry", "t_subtlex_us_zipf", "n_space", "n_uspace"} <= set(PROBING_FEATURES)


def test_lftk_hand_counted(lftk):
    # tokens: The cat sat on the mat . It was happy !  (lftk counts every token, punctuation included)
    row = dict(zip(lftk.feature_names, lftk.extract(["The cat sat on the mat. It was happy!"])[0]))
    expected = {
        "t_word": 11, "t_stopword": 5, "t_punct": 2, "t_sent": 2, "t_char": 29,
        # lftk's running syllable total: "the" = 1 vowel group - final e = 0 -> total raised to 1; then
        # cat 1, sat 1, on 1, the 0, mat 1, it 1, was 1, happy 2 (a, y) -> 1 + 8 = 9
        "t_syll": 9, "t_syll2": 0, "t_syll3": 0,
        # lemmas: the cat sit on mat . it be happy !
        "t_uword": 10,
        "n_det": 2, "n_udet": 1, "n_noun": 2, "n_unoun": 2, "n_punct": 2, "n_upunct": 2, "n_adj": 1, "n_space": 0,
    }  # fmt: skip
    for key, value in expected.items():
        assert row[key] == value, key


def test_lftk_odd_texts(lftk):
    X = lftk.extract(ODD + [LONG])
    assert X.shape == (5, 46) and np.isfinite(X).all()
    assert not X[0].any()
    row = dict(zip(lftk.feature_names, X[1]))  # whitespace only: every token is SPACE
    assert row["t_word"] == row["n_space"] > 0 and row["t_punct"] == 0
    row = dict(zip(lftk.feature_names, X[4]))
    assert row["t_sent"] > 1000 and row["n_num"] == row["t_word"] // 16  # "12" once per 16-token sentence


def test_derived_features_by_hand():
    counts = np.zeros((2, 46))
    idx = {n: i for i, n in enumerate(SURFACE_COUNT_FEATURES)}
    for k, v in {
        "t_word": 10,
        "t_sent": 2,
        "t_char": 40,
        "t_syll": 15,
        "t_uword": 5,
        "t_punct": 3,
        "n_noun": 4,
        "n_unoun": 2,
        "n_punct": 3,
        "n_upunct": 1,
        "n_verb": 3,
    }.items():
        counts[0, idx[k]] = v
    f = dict(zip(STYLOMETRIC_FEATURES, derived_features(counts)[0]))
    assert f["log_words"] == pytest.approx(np.log(11))
    assert f["words_ps"] == 5 and f["chars_pw"] == 4 and f["syll_ps"] == 7.5 and f["punct_pw"] == 0.3
    assert f["simp_ttr"] == 0.5 and f["root_ttr"] == pytest.approx(5 / np.sqrt(10))
    assert f["bilog_ttr"] == pytest.approx(np.log(5) / np.log(10))
    assert f["noun_pt"] == pytest.approx(0.4) and f["noun_ps"] == 2 and f["noun_var"] == 0.5 and f["verb_var"] == 0
    assert not derived_features(counts)[1].any()  # all-zero counts -> all-zero features, no NaN


def test_stylometric_standardisation_is_fixed_and_batch_independent():
    enc = StylometricEncoder()
    ref = json.loads(DEFAULT_REFERENCE.read_text())
    texts = ["I think so.", "The results, however, were inconclusive; further study is required."]
    both = enc.encode(texts)
    alone = enc.encode(texts[1:])
    np.testing.assert_allclose(both[1], alone[0], rtol=1e-6)
    raw = enc.raw_features(texts[1:])[0]
    std = np.where(np.asarray(ref["std"]) > 0, ref["std"], 1.0)
    np.testing.assert_allclose(alone[0], np.clip((raw - ref["mean"]) / std, -10, 10), rtol=1e-5, atol=1e-6)
    X = enc.encode(ODD + [LONG])
    assert X.shape == (5, 71) and np.isfinite(X).all()
    np.testing.assert_array_equal(X[0], X[1])  # empty and whitespace: same defined vector


def _biber(texts):
    return [dict(zip(BIBER_NAMES, row)) for row in BiberEncoder(standardise=False).raw_features(texts)]


def test_biber_rules_by_hand():
    passive, by_passive, neg, question = _biber(
        ["It was stolen.", "The book was written by him.", "I can't go.", "Who did you see?"]
    )
    # "It was stolen." has 3 words -> one agentless passive = 1000/3 per 1,000 words
    assert passive["agentless_passives"] == pytest.approx(1000 / 3)
    assert passive["pronoun_it"] == pytest.approx(1000 / 3) and passive["past_tense"] == pytest.approx(1000 / 3)
    assert by_passive["by_passives"] == pytest.approx(1000 / 6) and by_passive["agentless_passives"] == 0
    # "I ca n't go" -> 4 words: contraction n't, analytic negation, possibility modal, first person
    for key in ("contractions", "analytic_negation", "possibility_modals", "first_person_pronouns"):
        assert neg[key] == pytest.approx(250.0), key
    assert question["wh_questions"] == pytest.approx(250.0)
    assert passive["type_token_ratio"] == 1.0 and passive["mean_word_length"] == pytest.approx(
        11 / 3
    )  # it + was + stolen = 11 characters


def test_biber_odd_and_long_texts():
    enc = BiberEncoder()
    X = enc.encode(ODD + [LONG])
    assert X.shape == (5, 67) and np.isfinite(X).all()
    assert not X[0].any() and not X[1].any() and not X[2].any()
    assert X[4].any()
    assert len(BIBER_NAMES) == 67
