"""WMD against an independent linear program, BLEURT / regression metrics on a tiny random BERT, offline errors.

COMET and BLEURT-20 (bleurt-pytorch format) are tested in test_scorers_comet_bleurt.py."""

from __future__ import annotations

import numpy as np
import pytest

from steb_scorers.checkpoints import ModelNotFoundError, resolve_checkpoint
from steb_scorers.learned import BleurtScorer, RegressionStyleScorer, WMDScorer, load_word_vectors, wmd

VECTORS = {
    "the": np.array([0.0, 0.0]),
    "cat": np.array([1.0, 0.0]),
    "dog": np.array([1.0, 1.0]),
    "sat": np.array([0.0, 2.0]),
    "ran": np.array([0.5, 2.0]),
    "mat": np.array([3.0, 0.0]),
}


def _wmd_lp(a_tokens, b_tokens, vectors):
    """The transport LP of Kusner et al. (2015) solved with scipy's linprog (HiGHS), independently of pot."""
    from scipy.optimize import linprog

    def bag(tokens):
        words = sorted({t for t in tokens if t in vectors})
        w = np.array([sum(t == x for t in tokens) for x in words], float)
        return words, w / w.sum()

    wa, a = bag(a_tokens)
    wb, b = bag(b_tokens)
    cost = np.array([[np.linalg.norm(vectors[x] - vectors[y]) for y in wb] for x in wa])
    n, m = cost.shape
    eq = np.zeros((n + m, n * m))
    for i in range(n):
        eq[i, i * m : (i + 1) * m] = 1
    for j in range(m):
        eq[n + j, j::m] = 1
    return linprog(cost.ravel(), A_eq=eq, b_eq=np.concatenate([a, b]), bounds=(0, None), method="highs").fun


def test_wmd_matches_the_transport_linear_program():
    pytest.importorskip("ot")
    cases = [
        ("the cat sat on the mat".split(), "the dog ran".split()),
        ("cat cat mat".split(), "dog sat sat sat".split()),
        ("the cat".split(), "the cat".split()),
    ]
    for x, y in cases:
        assert wmd(x, y, VECTORS) == pytest.approx(_wmd_lp(x, y, VECTORS), abs=1e-7)
    assert wmd(["cat"], ["sat"], VECTORS) == pytest.approx(np.sqrt(5.0), abs=1e-12)  # one word each: their distance
    assert wmd(["the", "cat"], ["cat", "the"], VECTORS) == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(wmd(["unknown"], ["cat"], VECTORS))


def test_wmd_scorer_reads_word2vec_text_and_is_lower_is_better(tmp_path):
    pytest.importorskip("ot")
    path = tmp_path / "vec.txt"
    path.write_text("6 2\n" + "".join(f"{w} {v[0]} {v[1]}\n" for w, v in VECTORS.items()))
    scorer = WMDScorer(embeddings=str(path), against="reference")
    res = scorer.score(["x", "y"], ["The cat sat.", "the dog"], references=[["the cat sat", "the mat"], "the cat"])
    assert res.higher_is_better is False
    assert res.scores[0] == pytest.approx(0.0, abs=1e-12)  # the closest reference counts
    assert res.scores[1] == pytest.approx(_wmd_lp(["the", "dog"], ["the", "cat"], VECTORS), abs=1e-7)
    bad = tmp_path / "bad.txt"
    bad.write_text("cat 1.0 0.0\ndog 1.0 x\n")
    with pytest.raises(ValueError, match=r"bad\.txt, line 2, word 'dog'"):
        load_word_vectors(bad)
    short = tmp_path / "short.txt"
    short.write_text("cat 1.0 0.0\ndog 1.0\n")
    with pytest.raises(ValueError, match=r"short\.txt, line 2.*1 components, expected 2"):
        load_word_vectors(short)


def _pooled_head(folder, first, second):
    """BLEURT by its definition (Sellam et al. 2020, Sec. 3): linear head on the pooled [CLS] vector of the pair."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    net = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    enc = tok([first], [second], return_tensors="pt") if second is not None else tok([first], return_tensors="pt")
    with torch.no_grad():
        pooled = net.bert(**enc).pooler_output[0].double()
    w, b = net.classifier.weight[0].detach().double(), net.classifier.bias[0].detach().double()
    return float(pooled @ w + b)


def test_bleurt_is_the_regression_head_on_reference_candidate_pairs(tiny_bert_regressor):
    scorer = BleurtScorer(model=str(tiny_bert_regressor), batch_size=2)
    res = scorer.score(
        ["s1", "s2", "s3"],
        ["you are ready", "the cat sat", "hello there"],
        references=["are you ready ?", "the dog sat on the mat", ["hello", "how are you"]],
    )
    assert res.scores[0] == pytest.approx(
        _pooled_head(tiny_bert_regressor, "are you ready ?", "you are ready"), abs=1e-5
    )
    assert res.scores[1] == pytest.approx(
        _pooled_head(tiny_bert_regressor, "the dog sat on the mat", "the cat sat"), abs=1e-5
    )
    best = max(_pooled_head(tiny_bert_regressor, r, "hello there") for r in ("hello", "how are you"))
    assert res.scores[2] == pytest.approx(best, abs=1e-5)
    # the order matters: (reference, candidate), not the other way round
    swapped = _pooled_head(tiny_bert_regressor, "you are ready", "are you ready ?")
    assert abs(swapped - res.scores[0]) > 1e-6


def test_regression_style_metric_flips_sign_for_informal_targets(tiny_bert_regressor):
    scorer = RegressionStyleScorer(model=str(tiny_bert_regressor))
    res = scorer.score(["a", "b"], ["you are ready", "u r ready"], target_style=["formal", "informal"])
    raw = [_pooled_head(tiny_bert_regressor, t, None) for t in ("you are ready", "u r ready")]
    np.testing.assert_allclose(res.components["predicted"], raw, atol=1e-5)
    np.testing.assert_allclose(res.scores, [raw[0], -raw[1]], atol=1e-5)


def test_classifier_checkpoint_is_not_a_regressor(tiny_bert_classifier):
    with pytest.raises(ValueError, match="num_labels=1"):
        BleurtScorer(model=str(tiny_bert_classifier))


def test_missing_weights_are_a_clear_offline_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(ModelNotFoundError, match="steb models get Elron/bleurt-base-128"):
        BleurtScorer()  # the default short name resolves to its hub id, which is not cached here
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        resolve_checkpoint(str(tmp_path / "nowhere" / "model"), "BLEURT")
