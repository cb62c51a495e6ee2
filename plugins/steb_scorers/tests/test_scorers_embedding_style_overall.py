"""Embedding cosine, encoder-based style classifier and the overall combination."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from steb_core import get_encoder, reset_manager
from steb_scorers.embedding import EmbeddingCosineScorer
from steb_scorers.overall import OverallScorer, combine, normalise
from steb_scorers.result import ScoreResult
from steb_scorers.style import EncoderStyleClassifier


class LetterCounts:
    """A transparent encoder: counts of a, b, c, d per text; records its calls."""

    name = "letters"

    def __init__(self):
        self.calls = []

    def encode(self, texts):
        self.calls.append(list(texts))
        return np.array([[t.count(ch) for ch in "abcd"] for t in texts], dtype=np.float32)


def _cos(u, v):
    return float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))


def test_embedding_cosine_matches_manual_and_encodes_each_text_once():
    enc = LetterCounts()
    sources, outputs = ["aab", "cd", "aab"], ["ab", "cdd", "aab"]
    res = EmbeddingCosineScorer(enc, against="source").score(sources, outputs)
    assert len(enc.calls) == 1 and sorted(enc.calls[0]) == sorted({"aab", "cd", "ab", "cdd"})
    vec = {t: np.array([t.count(c) for c in "abcd"], float) for t in set(sources + outputs)}
    np.testing.assert_allclose(res.scores, [_cos(vec[o], vec[s]) for s, o in zip(sources, outputs)], rtol=1e-6)
    assert res.corpus == pytest.approx(res.scores.mean())


def test_embedding_cosine_best_of_several_references():
    res = EmbeddingCosineScorer(LetterCounts()).score(["x"], ["ab"], references=[["cd", "ab"]])
    assert res.scores[0] == pytest.approx(1.0)


def test_encoder_by_registered_name(tmp_path, monkeypatch):
    plugin = tmp_path / "letters_plugin.py"
    plugin.write_text(
        textwrap.dedent("""
        import numpy as np
        from steb_core import EncoderSpec, hookimpl

        class Enc:
            def encode(self, texts):
                return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

        @hookimpl
        def register_encoders(register):
            register(EncoderSpec(name="test-length-encoder", description="len", factory=Enc))
    """)
    )
    monkeypatch.setenv("STEB_PLUGINS", str(plugin))
    reset_manager()
    try:
        res = EmbeddingCosineScorer("test-length-encoder", against="source").score(["abc"], ["abc"])
        assert res.scores[0] == pytest.approx(1.0) and res.details["encoder"] == "Enc"
        assert get_encoder("test-length-encoder") is not None
    finally:
        reset_manager()


def test_style_classifier_equals_sklearn_on_the_same_features(tmp_path):
    formal = tmp_path / "formal.txt"
    formal.write_text("aaab\naabb\naaaa\nabab\n", encoding="utf-8")
    informal = ["cccd", "ccdd", "dddd", "cdcd"]
    enc = LetterCounts()
    clf = EncoderStyleClassifier(enc, train={"formal": formal, "informal": informal})
    outputs = ["aab", "ccd", "abcd"]
    res = clf.score(["s"] * 3, outputs, target_style=["formal", "formal", "informal"])
    x = enc.encode(["aaab", "aabb", "aaaa", "abab"] + informal)
    ref = LogisticRegression(max_iter=2000, random_state=0).fit(x, ["formal"] * 4 + ["informal"] * 4)
    p = ref.predict_proba(enc.encode(outputs))
    np.testing.assert_allclose(res.scores, [p[0, 0], p[1, 0], p[2, 1]], rtol=1e-6)
    assert res.scores[0] > 0.5 > res.scores[1]
    with pytest.raises(ValueError, match="not a class"):
        clf.score(["s"], ["a"], target_style="sarcastic")


def test_normalise_and_combine_hand_checked():
    np.testing.assert_allclose(normalise(np.array([0.0, 50.0, 100.0]), value_range=(0, 100)), [0, 0.5, 1])
    np.testing.assert_allclose(normalise(np.array([10.0, 20.0, 30.0]), higher_is_better=False), [1, 0.5, 0])
    parts = {"content": np.array([0.5, 1.0, 0.0]), "style": np.array([0.5, 0.25, 1.0])}
    np.testing.assert_allclose(combine(parts, "harmonic"), [0.5, 2 / (1 + 4), 0.0])
    np.testing.assert_allclose(combine(parts, "geometric"), [0.5, 0.5, 0.0])


class Fixed:
    def __init__(self, values, higher=True):
        self.values, self.higher = np.asarray(values, float), higher

    def score(self, sources, outputs, references=None, target_style=None):
        return ScoreResult("fixed", self.values, higher_is_better=self.higher)


def test_overall_scorer_flips_lower_is_better_components():
    scorer = OverallScorer(
        {"content": Fixed([50, 100]), "fluency": Fixed([10, 30], higher=False)}, ranges={"content": (0, 100)}
    )
    res = scorer.score(["a", "b"], ["a", "b"])
    # content -> 0.5, 1.0; fluency (batch min-max, flipped) -> 1.0, 0.0
    np.testing.assert_allclose(res.scores, [2 / (1 / 0.5 + 1), 0.0])
    assert res.details["normalisation"] == {"content": "fixed", "fluency": "batch min-max"}
