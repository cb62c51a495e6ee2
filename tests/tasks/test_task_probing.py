"""Probing: binning against pandas.qcut, stratified splits, probe accuracy against a plain sklearn pipeline."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from steb_core import DataValidationError, FeatureText
from steb_core.tasks.probing import SPEC, STRENGTHS, fit_probe, quantile_bins, stratified_split


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kind", ["continuous", "counts"])
def test_bins_match_pandas_qcut(seed, kind):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=500) if kind == "continuous" else rng.poisson(1.2, size=500).astype(float)
    ours = quantile_bins(values)
    ref = pd.qcut(values, 5, labels=False, duplicates="drop")
    ref = np.searchsorted(np.unique(ref), ref)  # renumbered 0..b-1 like ours
    np.testing.assert_array_equal(ours, ref)
    if kind == "continuous":
        assert np.bincount(ours).tolist() == [100] * 5


def test_few_distinct_values_and_tiny_bins():
    values = np.array([0.0] * 25 + [1.0] * 25 + [2.0] * 50 + [3.0] * 5)
    ref = pd.qcut(values, 5, labels=False, duplicates="drop")
    assert np.bincount(ref).tolist() == [50, 50, 5]  # edges 0, 1, 2, 3 after dropping duplicates
    # the 5-text bin is merged into its lower neighbour
    assert np.bincount(quantile_bins(values)).tolist() == [50, 55]
    # 70 % zeros: the 20..80 % quantiles collapse, two edges remain -> one bin, as in qcut
    skewed = np.array([0.0] * 90 + [1.0] * 8 + [2.0] * 30)
    assert quantile_bins(skewed).max() == pd.qcut(skewed, 5, labels=False, duplicates="drop").max() == 0
    assert quantile_bins(np.zeros(50)).max() == 0  # constant feature: one bin


def test_split_is_stratified_disjoint_and_seeded():
    labels = np.repeat(np.arange(5), [100, 200, 50, 150, 100])
    train, val, test = stratified_split(labels, seed=3)
    assert len(np.intersect1d(train, val)) == 0 and len(np.intersect1d(val, test)) == 0
    assert len(train) + len(val) + len(test) == len(labels)
    for part, frac in ((train, 0.6), (val, 0.2), (test, 0.2)):
        np.testing.assert_allclose(np.bincount(labels[part], minlength=5), frac * np.bincount(labels), atol=1)
    again = stratified_split(labels, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip((train, val, test), again))
    other = stratified_split(labels, seed=4)
    assert not np.array_equal(train, other[0])


def test_probe_matches_plain_sklearn_grid():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 20))
    y = quantile_bins(x[:, 0] + 0.5 * rng.normal(size=400))
    split = stratified_split(y, seed=0)
    got = fit_probe(x, y, split, warm_start=False, max_iter=2000)
    train, val, test = split
    scaler = StandardScaler().fit(x[train])
    best = None
    for lam in STRENGTHS:  # independent grid, in increasing order; keep the first best on ties after sorting below
        model = LogisticRegression(C=1 / (lam * len(train)), max_iter=2000).fit(scaler.transform(x[train]), y[train])
        val_acc = model.score(scaler.transform(x[val]), y[val])
        test_acc = model.score(scaler.transform(x[test]), y[test])
        if best is None or val_acc > best[0] or (val_acc == best[0] and lam > best[1]):
            best = (val_acc, lam, test_acc)
    assert got["strength"] == best[1]
    assert got["test_accuracy"] == pytest.approx(best[2])
    assert got["validation_accuracy"] == pytest.approx(best[0])
    warm = fit_probe(x, y, split, warm_start=True, max_iter=2000)
    assert warm["test_accuracy"] == pytest.approx(best[2], abs=0.03)


def _feature_records(n=300, d=16, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    recs, table = [], {}
    for i in range(n):
        t = f"text {i}"
        table[t] = x[i]
        feats = {"encoded": float(x[i, 0] * 3 + x[i, 1]), "noise": float(rng.normal()), "constant": 1.0}
        recs.append(FeatureText(text=t, features=feats))
    return recs, table


def test_run_probing_end_to_end(make_ctx, table_encoder):
    recs, table = _feature_records()
    got = SPEC.run(make_ctx("feature_texts", recs, embed=table_encoder(table), seed=1))
    assert set(got["accuracy_by_feature"]) == {"encoded", "noise"}
    assert got["skipped_features"] == {"constant": 1}
    assert got["accuracy_by_feature"]["encoded"] > 0.6  # linearly decodable
    assert got["accuracy_by_feature"]["noise"] < 0.4  # chance is 0.2
    assert got["accuracy"] == pytest.approx(np.mean(list(got["accuracy_by_feature"].values())))
    assert set(got["regularisation_by_feature"].values()) <= set(STRENGTHS)
    assert got["n_bins_by_feature"] == {"encoded": 5, "noise": 5}
    json.dumps(got)
    again = SPEC.run(make_ctx("feature_texts", recs, embed=table_encoder(table), seed=1))
    assert again == got


def test_mismatched_feature_names_are_reported(make_ctx, table_encoder):
    recs = [FeatureText(text="a", features={"x": 1.0}, id="r0"), FeatureText(text="b", features={"y": 1.0}, id="r1")]
    with pytest.raises(DataValidationError, match="feature names differ") as err:
        SPEC.run(make_ctx("feature_texts", recs, embed=table_encoder({"a": [1.0], "b": [2.0]})))
    assert "r1" in str(err.value)
