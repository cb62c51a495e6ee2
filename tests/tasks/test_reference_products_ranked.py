"""Emulating only where a last bit can decide (:func:`._reference_products.ssyrk_ranked` / ``sdot_ranked``).

The pair tasks' figures depend on the float32 scores only through their ranking (how many positives and
negatives share each distinct score, in order), so only the scores whose rank this CPU's products cannot
decide within a rigorous bound are emulated. Checked here against the full emulation (the tile-wise
:func:`ssyrk_haswell`, itself checked against numpy's Haswell kernel in ``test_reference_products.py``):
the bound holds, the ranking is the same, the sparse pair-wise emulation is the same bits, a constructed
tie that only emulation resolves is emulated (and would be wrong without), well-separated scores are not.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import normalize

from steb_core.tasks import _reference_products as rp
from steb_core.tasks._ties import exact_ranking_metrics


def _words(rng, n, k):
    counts = rng.integers(0, 4, size=(n, k)) * (rng.random((n, k)) < np.minimum(0.9, 3.0 / (np.arange(k) + 1.0)))
    counts[:, 0] += 1  # every text uses the first word: no all-zero row
    return (counts / rng.integers(5, 60, size=(n, 1))).astype(np.float32)


def _data(kind: str, n: int, k: int) -> np.ndarray:
    rng = np.random.default_rng({"words": 5, "signed": 6, "dense": 7}[kind])
    if kind == "words":
        x = _words(rng, n, k)
        x[10:16] = x[0:6]  # repeated texts: exact ties
    elif kind == "signed":
        x = (rng.standard_normal((n, k)) * (rng.random((n, k)) < 0.2)).astype(np.float32)
        x[:, 0] += 1.0
    else:
        x = rng.standard_normal((n, k)).astype(np.float32)
    return normalize(x)


def _ranks(scores: np.ndarray) -> np.ndarray:
    return np.unique(scores, return_inverse=True)[1].reshape(-1)


@pytest.mark.parametrize("kind", ["words", "signed", "dense"])
@pytest.mark.parametrize("threads", [1, 2])
def test_pairwise_emulation_is_the_tile_emulation_bit_for_bit(kind, threads):
    x = _data(kind, 70, 459)
    full = rp.ssyrk_haswell(x, threads=threads)
    pattern = rp.ssyrk_patterns(70, 459, threads)
    a, b = np.triu_indices(70, 1)
    got = rp.ssyrk_haswell_pairs(x, b, a, pattern[b, a])
    assert np.array_equal(got.view(np.int32), full.view(np.int32))
    # a few chosen pairs, in any order, alone
    pick = np.random.default_rng(0).choice(len(a), 37, replace=False)
    part = rp.ssyrk_haswell_pairs(x, a[pick], b[pick], pattern[b[pick], a[pick]])
    assert np.array_equal(part.view(np.int32), full[pick].view(np.int32))


@pytest.mark.parametrize("kind", ["words", "signed", "dense"])
def test_the_bound_holds_and_the_ranking_is_the_full_emulations(kind):
    x = _data(kind, 120, 459)
    full = rp.ssyrk_haswell(x)
    approx, bound, key, _, _, _ = rp.ssyrk_intervals(x)
    assert (np.abs(full.astype(np.float64) - approx) <= bound).all()
    got, emulated = rp.ssyrk_ranked(x)
    assert np.array_equal(_ranks(got), _ranks(full))
    assert 0 < emulated
    # the emulated scores are the reference's bits, the others lie within their bound of it
    same = got.view(np.int32) == full.view(np.int32)
    assert (np.abs(got.astype(np.float64) - full) <= 2 * bound).all()
    if kind == "words":
        assert same.sum() < len(full)  # some scores were left to this CPU's products
    labels = np.random.default_rng(1).integers(0, 4, 120)
    iu = np.triu_indices(120, 1)
    positive = labels[iu[0]] == labels[iu[1]]
    assert exact_ranking_metrics(got, positive, roc=True) == exact_ranking_metrics(full, positive, roc=True)
    assert exact_ranking_metrics(got, positive)["auroc"] == pytest.approx(roc_auc_score(positive, full), abs=1e-15)


def _twins() -> np.ndarray:
    """Rows a, b, a', b' with a', b' the same permutation of a, b: (a, b) and (a', b') have the same exact dot,
    but the Haswell chain sums it in another order: their reference scores are one float32 step apart, while
    the float64 dots round to the same float32 (found with seed 1)."""
    rng = np.random.default_rng(1)
    a, b = rng.random(40).astype(np.float32), rng.random(40).astype(np.float32)
    perm = rng.permutation(40)
    x = np.stack([a, b, a[perm], b[perm]])
    return (x / np.linalg.norm(x.astype(np.float64), axis=1, keepdims=True).astype(np.float32)).astype(np.float32)


def test_a_tie_only_the_emulation_breaks_is_emulated():
    x = _twins()
    full = rp.ssyrk_haswell(x)  # pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    approx, bound, key, _, _, _ = rp.ssyrk_intervals(x)
    # the construction: the same exact dot (float64 dots within 1e-15, the same float32), other last bits
    assert abs(approx[0] - approx[5]) < 1e-15 and np.float32(approx[0]) == np.float32(approx[5])
    assert full[0] != full[5]
    assert abs(float(full[0]) - float(full[5])) <= bound[0] + bound[5]  # the bound is tight enough to matter
    got, emulated = rp.ssyrk_ranked(x)
    assert got[0] == full[0] and got[5] == full[5] and emulated >= 2
    assert np.array_equal(_ranks(got), _ranks(full))
    # without the bound, this CPU's products give both pairs one float32 score, a tie the reference does not
    # have: a wrong ranking, so the test above can fail (on every kernel: the float32 equality is asserted above;
    # which float64 last bits a zero-width interval sees is the kernel's, so the ranking itself is not used here)
    naive = approx.astype(np.float32)
    assert naive[0] == naive[5]
    assert not np.array_equal(_ranks(naive), _ranks(full))


def test_well_separated_scores_are_not_emulated():
    # six rows whose cosines are far apart (each pair's dot differs from all others by > 5e-4): nothing to emulate
    rng = np.random.default_rng(4)
    x = normalize(rng.random((6, 300)).astype(np.float32) ** np.arange(1, 7)[:, None])
    full = rp.ssyrk_haswell(x)
    assert np.diff(np.sort(full.astype(np.float64))).min() > 5e-4
    calls = []

    got, emulated = rp._rank_preserving_scores(
        *rp.ssyrk_intervals(x)[:3], lambda p: calls.append(p) or rp.ssyrk_haswell(x)[p]
    )
    assert emulated == 0 and not calls
    assert np.array_equal(_ranks(got), _ranks(full))
    assert rp.ssyrk_ranked(x)[1] == 0


def test_sdot_ranked_ranks_as_the_full_emulation():
    x = _data("words", 400, 459)
    rng = np.random.default_rng(3)
    ia, ib = rng.integers(0, 400, 3000), rng.integers(0, 400, 3000)
    ib[:50] = ia[:50]  # a text against itself
    ia[50:80], ib[50:80] = ib[80:110], ia[80:110]  # the same pair both ways round: an exact tie
    full = rp.sdot_haswell(x[ia], x[ib])
    got, emulated = rp.sdot_ranked(x, ia, ib)
    assert np.array_equal(_ranks(got), _ranks(full))
    assert 0 < emulated < np.unique(np.stack([np.minimum(ia, ib), np.maximum(ia, ib)]), axis=1).shape[1]
    positive = rng.random(3000) < 0.4
    assert exact_ranking_metrics(got, positive, roc=True) == exact_ranking_metrics(full, positive, roc=True)


def test_sparse_dgemm_chains_are_the_dense_chains_bit_for_bit():
    x = _data("words", 600, 459).astype(np.float64)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    left, right = x[:300], x[300:]
    got = rp.dgemm_chains(left, right)  # sparse: the nonzero products only
    a, b = rp._columns(left), rp._columns(right)
    expected = np.zeros(300)
    for lo, hi in rp.k_blocks(459, rp.DGEMM_Q, rp.DGEMM_UNROLL_M):
        expected = expected + rp._chain64(a, b, lo, hi)
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))


def test_dense_near_ties_take_the_tile_route_and_sparse_ones_the_pairs(monkeypatch):
    """Which emulation runs is a cost choice only: the same bits for the emulated pairs either way."""
    dense, words = _data("dense", 120, 459), _data("words", 120, 459)
    full_dense, full_words = rp.ssyrk_haswell(dense), rp.ssyrk_haswell(words)
    real_pairs, real_tiles = rp.ssyrk_haswell_pairs, rp.ssyrk_haswell
    routes: list[str] = []
    monkeypatch.setattr(rp, "ssyrk_haswell_pairs", lambda *a, **k: routes.append("pairs") or real_pairs(*a, **k))
    monkeypatch.setattr(rp, "ssyrk_haswell", lambda *a, **k: routes.append("tiles") or real_tiles(*a, **k))
    got, emulated = rp.ssyrk_ranked(dense)
    assert routes == ["tiles"] and emulated > len(full_dense) / 2  # most dense ranks are undecided
    assert np.array_equal(_ranks(got), _ranks(full_dense))
    assert np.count_nonzero(got.view(np.int32) == full_dense.view(np.int32)) >= emulated  # the emulated: its bits
    routes.clear()
    got, emulated = rp.ssyrk_ranked(words)
    assert routes == ["pairs"] and 0 < emulated < len(full_words)  # sparse rows: few products per pair
    assert np.array_equal(_ranks(got), _ranks(full_words))
