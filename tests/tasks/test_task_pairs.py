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
from steb_core.tasks.pair_all import all_pair_counts, upper_triangle_same


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


def _snapped_cosines(x: np.ndarray) -> np.ndarray:
    """Cosine matrix in float64 (scikit-learn) rounded to the 2**-20 tie grid (the documented rule)."""
    return np.round(cosine_similarity(np.asarray(x, dtype=np.float64)) * 2**20)


def test_upper_triangle_same_matches_triu_indices():
    codes = np.random.default_rng(0).integers(0, 3, size=23)
    iu = np.triu_indices(23, 1)
    np.testing.assert_array_equal(upper_triangle_same(codes), (codes[:, None] == codes[None, :])[iu])


@pytest.mark.parametrize("block_cells", [1, 7, 100, 10**6])  # one row per block ... everything in one block
def test_all_pair_counts_match_sklearn_on_every_pair(block_cells):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(41, 5)).astype(np.float32)
    x[7] = x[3]  # duplicates: exact ties, computed in different blocks
    x[20] = x[3]
    codes = rng.integers(0, 3, size=41)
    iu = np.triu_indices(41, 1)
    ref_scores = _snapped_cosines(x)[iu]
    same = (codes[:, None] == codes[None, :])[iu]
    got = all_pair_counts(x, codes, block_cells=block_cells).metrics()
    assert got["auroc"] == pytest.approx(roc_auc_score(same, ref_scores), abs=1e-12)
    assert got["average_precision"] == pytest.approx(average_precision_score(same, ref_scores), abs=1e-12)


def test_all_pair_counts_heavy_ties():
    # integer count vectors (function-word-like): many pairs share one cosine exactly
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, size=(60, 4)).astype(np.float32)
    x[0] = 0  # an all-zero row: cosine 0 with everything
    codes = rng.integers(0, 2, size=60)
    iu = np.triu_indices(60, 1)
    ref_scores = _snapped_cosines(x)[iu]
    assert len(np.unique(ref_scores)) < len(ref_scores) / 10
    same = (codes[:, None] == codes[None, :])[iu]
    got = all_pair_counts(x, codes, block_cells=50).metrics()
    assert got["auroc"] == pytest.approx(roc_auc_score(same, ref_scores), abs=1e-12)
    assert got["average_precision"] == pytest.approx(average_precision_score(same, ref_scores), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_pair_all_matches_python_pair_loop(make_ctx, table_encoder, seed):
    records, vectors = _labelled(seed)
    table = {r.text: v for r, v in zip(records, vectors)}
    got = pair_all.SPEC.run(
        make_ctx("labelled_texts", records, embed=table_encoder(table), options={"pair_all.scores": "grid"})
    )
    assert got["scores"].startswith("grid")
    scores, same = [], []
    for i, j in itertools.combinations(range(len(records)), 2):
        a, b = vectors[i].astype(np.float64), vectors[j].astype(np.float64)
        scores.append(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
        same.append(records[i].label == records[j].label)
    snapped = np.round(np.array(scores) * 2**20)  # the tie grid (steb_core.tasks._common)
    assert got["auroc"] == pytest.approx(roc_auc_score(same, snapped), abs=1e-12)
    assert got["average_precision"] == pytest.approx(average_precision_score(same, snapped), abs=1e-12)
    # near-ties closer than the grid step (~1e-6) are the only difference from the raw scores
    assert got["average_precision"] == pytest.approx(average_precision_score(same, scores), abs=1e-4)
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


def test_pair_all_hand_made(make_ctx, table_encoder):
    # 4 texts, labels x x y y; same-label pairs are the most similar
    x = np.array([[1, 0], [1, 0.1], [0, 1], [0.1, 1]], dtype=np.float32)
    records = [LabelledText(text=f"t{i}", label=lab) for i, lab in enumerate("xxyy")]
    got = pair_all.SPEC.run(
        make_ctx("labelled_texts", records, embed=table_encoder(dict(zip([r.text for r in records], x))))
    )
    assert got["auroc"] == pytest.approx(1.0) and got["n_pairs"] == 6 and got["n_positive_pairs"] == 2


def test_pair_all_sparse_equals_dense(make_ctx, table_encoder):
    import scipy.sparse as sp

    records, vectors = _labelled(3, n=50, d=30)
    vectors[vectors < 1.0] = 0  # mostly zeros, like TF-IDF rows
    table = {r.text: v for r, v in zip(records, vectors)}
    dense = pair_all.SPEC.run(make_ctx("labelled_texts", records, embed=table_encoder(table)))
    enc = table_encoder(table)
    sparse = pair_all.SPEC.run(make_ctx("labelled_texts", records, embed=lambda t: sp.csr_matrix(enc(t))))
    assert pair_all.SPEC.accepts_sparse
    assert sparse["auroc"] == pytest.approx(dense["auroc"], abs=1e-9)
    assert sparse["average_precision"] == pytest.approx(dense["average_precision"], abs=1e-9)


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
    scores = np.round(np.diag(cosine_similarity(va.astype(np.float64), vb.astype(np.float64))) * 2**20)  # tie grid
    y = [p.same for p in pairs]
    assert got["auroc"] == pytest.approx(roc_auc_score(y, scores), abs=1e-12)
    assert got["average_precision"] == pytest.approx(average_precision_score(y, scores), abs=1e-12)
    assert len(enc.calls) == 1 and enc.calls[0] <= 80  # each distinct text embedded once


def test_pair_predefined_uses_the_encoders_own_similarity(make_ctx):
    # similarity = minus the length difference: hand-computed AUROC
    pairs = [
        TextPair("aaaa", "aaab", True),  # 0
        TextPair("aa", "aaaaaa", False),  # -4
        TextPair("aaa", "aaaaa", True),  # -2
        TextPair("a", "aaaa", False),  # -3
    ]

    def sim(a, b):
        return np.array([-abs(len(x) - len(y)) for x, y in zip(a, b)], dtype=float)

    got = pair_predefined.SPEC.run(make_ctx("pairs", pairs, similarity=sim))
    assert got["auroc"] == pytest.approx(1.0)
    assert got["n_pairs"] == 4 and got["n_positive_pairs"] == 2


def test_pair_predefined_sparse_equals_dense(make_ctx, table_encoder):
    import scipy.sparse as sp

    pairs, table = _pairs(2)
    table = {k: np.where(np.abs(v) > 0.8, v, 0).astype(np.float32) for k, v in table.items()}
    enc = table_encoder(table)
    dense = pair_predefined.SPEC.run(make_ctx("pairs", pairs, embed=enc))
    sparse = pair_predefined.SPEC.run(make_ctx("pairs", pairs, embed=lambda t: sp.csr_matrix(enc(t))))
    assert pair_predefined.SPEC.accepts_sparse
    assert sparse["auroc"] == pytest.approx(dense["auroc"], abs=1e-9)
    assert sparse["average_precision"] == pytest.approx(dense["average_precision"], abs=1e-9)


def test_pair_predefined_ties_one_ulp_apart(make_ctx):
    """The same cosine reached through vectors in another order: exact tie, whatever the summation order."""
    rng = np.random.default_rng(9)
    base = rng.normal(size=(20, 7))
    table, pairs = {}, []
    for i in range(20):
        perm = rng.permutation(7)  # b and its permuted copy: mathematically identical cosines
        table[f"a{i}"], table[f"b{i}"] = base[i], base[(i + 1) % 20]
        table[f"A{i}"], table[f"B{i}"] = base[i][perm], base[(i + 1) % 20][perm]
        pairs += [TextPair(f"a{i}", f"b{i}", True), TextPair(f"A{i}", f"B{i}", False)]
    got = pair_predefined.SPEC.run(
        make_ctx("pairs", pairs, embed=lambda t: np.stack([table[x] for x in t]).astype(np.float32))
    )
    assert got["auroc"] == 0.5  # every positive ties with its negative twin: exactly chance
