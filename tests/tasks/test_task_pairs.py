"""All-to-all and predefined pair classification against brute-force pair loops and scikit-learn."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.metrics.pairwise import cosine_similarity

from steb_core import LabelledText, TextPair
from steb_core.tasks import pair_all, pair_predefined
from steb_core.tasks.pair_all import upper_triangle_cosines, upper_triangle_same


def _labelled(seed: int, n: int = 57, d: int = 8, k: int = 4):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, size=n)
    centres = rng.normal(size=(k, d))
    vectors = (centres[labels] + rng.normal(scale=1.5, size=(n, d))).astype(np.float32)
    records = [LabelledText(text=f"text {i}", label=str(lab)) for i, lab in enumerate(labels)]
    return records, vectors


def _cosine_similarity_fn(table):
    def sim(a, b):
        va = np.stack([table[t] for t in a]).astype(np.float64)
        vb = np.stack([table[t] for t in b]).astype(np.float64)
        return np.einsum("ij,ij->i", va, vb) / np.linalg.norm(va, axis=1) / np.linalg.norm(vb, axis=1)

    return sim


def test_upper_triangle_order_matches_triu_indices():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(23, 5)).astype(np.float32)
    iu = np.triu_indices(23, 1)
    ref = cosine_similarity(x)[iu]
    np.testing.assert_allclose(upper_triangle_cosines(x, row_block=4), ref, atol=1e-6)
    codes = rng.integers(0, 3, size=23)
    np.testing.assert_array_equal(upper_triangle_same(codes, row_block=5), (codes[:, None] == codes[None, :])[iu])


@pytest.mark.parametrize("seed", [0, 1])
def test_pair_all_matches_python_pair_loop(make_ctx, table_encoder, seed):
    records, vectors = _labelled(seed)
    table = {r.text: v for r, v in zip(records, vectors)}
    got = pair_all.SPEC.run(make_ctx("labelled_texts", records, embed=table_encoder(table)))
    scores, same = [], []
    for i, j in itertools.combinations(range(len(records)), 2):
        a, b = vectors[i].astype(np.float64), vectors[j].astype(np.float64)
        scores.append(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
        same.append(records[i].label == records[j].label)
    assert got["auroc"] == pytest.approx(roc_auc_score(same, scores), abs=1e-6)
    assert got["average_precision"] == pytest.approx(average_precision_score(same, scores), abs=1e-6)
    assert got["n_pairs"] == len(scores) and got["n_positive_pairs"] == sum(same)
    json.dumps(got)


def test_pair_all_similarity_only_encoder_gives_the_same_numbers(make_ctx, table_encoder, monkeypatch):
    records, vectors = _labelled(2, n=40)
    table = {r.text: v for r, v in zip(records, vectors)}
    with_vectors = pair_all.SPEC.run(make_ctx("labelled_texts", records, embed=table_encoder(table)))
    monkeypatch.setattr(pair_all, "SIMILARITY_BATCH", 50)  # several batches for 780 pairs
    calls = []

    def sim(a, b):
        calls.append(len(a))
        return _cosine_similarity_fn(table)(a, b)

    only_sim = pair_all.SPEC.run(make_ctx("labelled_texts", records, similarity=sim))
    assert pair_all.SPEC.needs_vectors is False
    assert sum(calls) == 780 and len(calls) > 1
    assert only_sim["auroc"] == pytest.approx(with_vectors["auroc"], abs=1e-6)
    assert only_sim["average_precision"] == pytest.approx(with_vectors["average_precision"], abs=1e-6)


def test_pair_all_hand_made():
    # 4 texts, labels x x y y; vectors make same-label pairs the most similar except one swap
    from steb_core.tasks._common import binary_ranking_metrics

    x = np.array([[1, 0], [1, 0.1], [0, 1], [0.1, 1]], dtype=np.float32)
    scores = upper_triangle_cosines(x)
    same = upper_triangle_same(np.array([0, 0, 1, 1]))
    assert binary_ranking_metrics(scores, same)["auroc"] == pytest.approx(1.0)


def _pairs(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    texts = [f"s{i}" for i in range(80)]
    vectors = {t: rng.normal(size=6).astype(np.float32) for t in texts}
    pairs = []
    for _ in range(n):
        a, b = rng.choice(80, size=2, replace=False)
        same = bool(rng.random() < 0.5)
        pairs.append(TextPair(text_a=texts[a], text_b=texts[b], same=same))
    return pairs, vectors


@pytest.mark.parametrize("seed", [0, 1])
def test_pair_predefined_matches_sklearn(make_ctx, table_encoder, seed):
    pairs, table = _pairs(seed)
    enc = table_encoder(table)
    got = pair_predefined.SPEC.run(make_ctx("pairs", pairs, embed=enc))
    va = np.stack([table[p.text_a] for p in pairs])
    vb = np.stack([table[p.text_b] for p in pairs])
    scores = np.diag(cosine_similarity(va, vb))
    y = [p.same for p in pairs]
    assert got["auroc"] == pytest.approx(roc_auc_score(y, scores), abs=1e-6)
    assert got["average_precision"] == pytest.approx(average_precision_score(y, scores), abs=1e-6)
    assert len(enc.calls) == 1 and enc.calls[0] <= 80  # each distinct text embedded once


def test_pair_predefined_uses_the_encoders_own_similarity(make_ctx):
    # similarity = minus the length difference: hand-computed AUROC
    pairs = [
        TextPair("aaaa", "aaab", True),  # 0
        TextPair("aa", "aaaaaa", False),  # -4
        TextPair("aaa", "aaaaa", True),  # -2
        TextPair("a", "aaaa", False),  # -3
    ]
    sim = lambda a, b: np.array([-abs(len(x) - len(y)) for x, y in zip(a, b)], dtype=float)
    got = pair_predefined.SPEC.run(make_ctx("pairs", pairs, similarity=sim))
    assert got["auroc"] == pytest.approx(1.0)
    assert got["n_pairs"] == 4 and got["n_positive_pairs"] == 2
