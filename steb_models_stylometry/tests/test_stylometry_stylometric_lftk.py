"""stylometric: STEB's LFTK surface + POS features, against lftk run as STEB's reference code runs it and by hand."""

from __future__ import annotations

import numpy as np
import pytest

from steb_models_stylometry.corpus import generated_texts
from steb_models_stylometry.stylometric_lftk import LftkStylometricEncoder, surface_pos_keys


@pytest.fixture(scope="module")
def enc() -> LftkStylometricEncoder:
    return LftkStylometricEncoder()


def test_the_58_keys_are_lftks_pos_family_then_its_surface_domain():
    # the reference's order (steb/models/lftk_model.py @4a648c59 _resolve_feature_keys: families, then domains)
    keys = surface_pos_keys()
    assert len(keys) == 58 and len(set(keys)) == 58
    assert keys[:3] == ["n_adj", "n_adp", "n_adv"] and keys[33] == "n_uspace"
    assert keys[34:42] == ["t_word", "t_stopword", "t_syll", "t_syll2", "t_syll3", "t_uword", "t_sent", "t_char"]
    assert {"a_word_ps", "fkre", "smog", "n_noun"} <= set(keys) and keys[-1] == "rt_slow"


def test_pipeline_is_the_reference_codes(enc):
    # en_core_web_sm without parser and NER, spaCy's rule-based sentencizer added at the end
    assert enc.pipeline.nlp.pipe_names == ["tok2vec", "tagger", "attribute_ruler", "lemmatizer", "sentencizer"]


def test_values_by_hand(enc):
    row = dict(zip(enc.feature_names, enc.raw_features(["Hello there, friend."])[0]))
    # words without punctuation: Hello there friend -> 3 words, 16 characters, one sentence
    assert (row["t_word"], row["t_char"], row["t_sent"]) == (3, 16, 1)
    assert row["a_word_ps"] == 3 and row["a_char_pw"] == pytest.approx(16 / 3, abs=1e-7)
    syllables_per_word = row["t_syll"] / row["t_word"]
    assert row["fkre"] == pytest.approx(206.835 - 1.015 * 3 - 84.6 * syllables_per_word, abs=1e-6)
    assert row["rt_average"] == pytest.approx(3 / 240, abs=1e-7)
    assert row["n_punct"] == 2 and row["n_intj"] + row["n_adv"] + row["n_noun"] == 3


def test_equals_lftk_as_the_reference_code_batches_it(enc):
    """STEB's code: one lftk.Extractor per batch, customize(stop_words=True, punctuations=True, round_decimal=7).

    lftk's readability formulas switch the batch's shared punctuation option off, so every text after the
    first of a batch is computed without punctuation: steb's default equals those rows exactly, and
    ``punctuations=true`` equals the first row.
    """
    import lftk

    texts = generated_texts(6, seed=3, min_words=20, max_words=60) + ["Hello there, friend. How are you?"]
    docs = [doc for _, doc in enc.pipeline.whole_docs(texts)]
    extractor = lftk.Extractor(docs=docs)
    extractor.customize(stop_words=True, punctuations=True, round_decimal=7)
    reference = np.array([[row[k] for k in enc.feature_names] for row in extractor.extract(features=enc.feature_names)])
    ours = enc.raw_features(texts)
    np.testing.assert_array_equal(ours[1:], reference[1:])
    assert not np.array_equal(ours[0], reference[0])  # the first text of the batch is the odd one
    with_punct = LftkStylometricEncoder(punctuations="true").raw_features(texts[:1])
    np.testing.assert_array_equal(with_punct[0], reference[0])


def test_l2_normalised_batch_independent_and_degenerate_texts(enc):
    texts = ["The results, however, were inconclusive; further study is required.", "", "   ", "Hi", "I think so."]
    X = enc.encode(texts)
    assert X.shape == (5, 58) and X.dtype == np.float32 and np.isfinite(X).all()
    np.testing.assert_allclose(np.linalg.norm(X[[0, 4]], axis=1), 1.0, rtol=1e-6)
    assert not X[1:4].any()  # fewer than two tokens: zero vector, as in the reference code
    raw = enc.raw_features(texts[:1])[0]
    np.testing.assert_allclose(X[0], raw / np.linalg.norm(raw), rtol=1e-6)
    np.testing.assert_array_equal(enc.encode(texts[4:])[0], X[4])
    assert LftkStylometricEncoder(normalise="false").encode(texts[:1])[0] == pytest.approx(raw.astype(np.float32))


def test_fingerprint_follows_the_options(enc):
    assert enc.fingerprint() == LftkStylometricEncoder().fingerprint()
    others = {
        LftkStylometricEncoder(punctuations=True).fingerprint(),
        LftkStylometricEncoder(normalise=False).fingerprint(),
    }
    assert enc.fingerprint() not in others and len(others) == 2


def test_declares_the_reference_lftk_scoring(enc):
    # STEB reference (steb/core.py @18c49153 evaluate): LFTK models score pairs by -L1 and cluster |x|
    from steb_core import encoder_scoring

    assert encoder_scoring(enc) == {"pair_score": "neg_l1", "cluster_input": "abs"}
    plain = LftkStylometricEncoder(scoring="cosine")
    assert encoder_scoring(plain) == {"pair_score": "cosine", "cluster_input": "raw"}
    assert plain.fingerprint() != enc.fingerprint()  # the scoring is part of what the encoder is
    with pytest.raises(ValueError, match="scoring"):
        LftkStylometricEncoder(scoring="l2")
