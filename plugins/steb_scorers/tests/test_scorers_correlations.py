"""Correlations and the WMT17 tau-like formulation on hand-checked examples (and scipy)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from steb_scorers.metaeval.correlations import (
    Bootstrap,
    kendall,
    pearson,
    segment_correlations,
    spearman,
    system_correlations,
    tau_like,
    tau_like_counts,
)

X = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
Y = np.array([2.0, 1.0, 4.0, 3.0, 5.0])


def test_segment_correlations_hand_checked():
    # Pearson: cov = (−2·−1 + −1·−2 + 0 + 1·0 + 2·2)/5 = 8/5; var x = var y = 2 -> r = 0.8
    assert pearson(X, Y) == pytest.approx(0.8)
    # Spearman on ranks equal to the values: also 0.8; Kendall: 10 pairs, 2 discordant -> (8 − 2)/10
    assert spearman(X, Y) == pytest.approx(0.8)
    assert kendall(X, Y) == pytest.approx(0.6)
    got = segment_correlations(X, Y)
    assert got["pearson"] == pytest.approx(stats.pearsonr(X, Y).statistic)
    assert got["spearman"] == pytest.approx(stats.spearmanr(X, Y).statistic)


def test_spearman_with_ties_matches_scipy():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 4, 40).astype(float), rng.integers(0, 5, 40).astype(float)
    assert spearman(a, b) == pytest.approx(stats.spearmanr(a, b).statistic)
    assert kendall(a, b) == pytest.approx(stats.kendalltau(a, b).statistic)


def test_tau_like_hand_checked_with_threshold_and_ties():
    # one source, four systems. human: 90, 60, 50, 10; metric: 0.9, 0.5, 0.5, 0.6
    human = np.array([[90.0, 60.0, 50.0, 10.0]])
    metric = np.array([[0.9, 0.5, 0.5, 0.6]])
    # pairs (human diff, metric order): (0,1) 30 conc; (0,2) 40 conc; (0,3) 80 conc;
    # (1,2) 10 metric tie; (1,3) 50 disc; (2,3) 40 disc
    c, d = tau_like_counts(metric, human, threshold=0.0, ties="discordant")
    assert (c[0], d[0]) == (3, 3)
    assert tau_like(metric, human, 0.0, "discordant")["tau"] == pytest.approx(0.0)
    # excluding metric ties: 3 concordant, 2 discordant
    assert tau_like(metric, human, 0.0, "exclude")["tau"] == pytest.approx(1 / 5)
    # threshold 25 drops the (1,2) pair (difference 10): 3 vs 2 either way
    res = tau_like(metric, human, 25.0, "discordant")
    assert (res["concordant"], res["discordant"], res["tau"]) == (3, 2, pytest.approx(0.2))
    # threshold 40 keeps only differences strictly above 40: (0,3) conc, (1,3) disc -> 0
    assert tau_like(metric, human, 40.0)["tau"] == pytest.approx(0.0)


def test_tau_like_only_compares_outputs_of_the_same_source():
    # across sources the metric is anti-correlated, within each source perfectly concordant
    human = np.array([[10.0, 20.0], [80.0, 90.0]])
    metric = np.array([[0.8, 0.9], [0.1, 0.2]])
    assert tau_like(metric, human)["tau"] == 1.0
    assert kendall(metric.ravel(), human.ravel()) < 0


def test_tau_like_without_ties_equals_kendall_a_within_one_source():
    rng = np.random.default_rng(0)
    h, m = rng.permutation(8).astype(float), rng.permutation(8).astype(float)
    assert tau_like(m[None], h[None])["tau"] == pytest.approx(stats.kendalltau(m, h).statistic)


def test_system_level_uses_column_means():
    metric = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 7.0]])  # means 2, 2, 5
    human = np.array([[10.0, 30.0, 50.0], [10.0, 10.0, 50.0]])  # means 10, 20, 50
    got = system_correlations(metric, human)
    assert got["pearson"] == pytest.approx(stats.pearsonr([2, 2, 5], [10, 20, 50]).statistic)


def test_bootstrap_replicates_equal_statistics_on_resampled_sources():
    rng = np.random.default_rng(1)
    metric, human = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)) * 30
    idx = np.array([[0, 0, 2, 3, 5, 5], [1, 2, 3, 4, 4, 4]])
    rep = Bootstrap(idx, threshold=10.0).replicates(metric, human)
    for b in range(2):
        m, h = metric[idx[b]], human[idx[b]]
        assert rep["segment_pearson"][b] == pytest.approx(stats.pearsonr(m.ravel(), h.ravel()).statistic)
        assert rep["segment_spearman"][b] == pytest.approx(stats.spearmanr(m.ravel(), h.ravel()).statistic)
        assert rep["segment_kendall"][b] == pytest.approx(stats.kendalltau(m.ravel(), h.ravel()).statistic)
        assert rep["system_pearson"][b] == pytest.approx(stats.pearsonr(m.mean(0), h.mean(0)).statistic)
        assert rep["tau_like"][b] == pytest.approx(tau_like(m, h, 10.0)["tau"])


def test_constant_input_gives_nan_not_a_crash():
    assert np.isnan(pearson(np.ones(4), np.arange(4.0)))
