"""binary_ranking_metrics against scikit-learn and the Mann-Whitney U statistic."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import mannwhitneyu
from sklearn.metrics import average_precision_score, roc_auc_score

from steb_core import DataValidationError
from steb_core.tasks._common import binary_ranking_metrics, plain


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rounding", [None, 1])  # rounding to 1 decimal makes heavy ties
def test_matches_sklearn(seed, rounding):
    rng = np.random.default_rng(seed)
    y = rng.random(2000) < 0.3
    s = rng.normal(size=2000) + 0.8 * y
    if rounding is not None:
        s = np.round(s, rounding)
    got = binary_ranking_metrics(s.astype(np.float32), y)
    assert got["auroc"] == pytest.approx(roc_auc_score(y, s.astype(np.float32)), abs=1e-12)
    assert got["average_precision"] == pytest.approx(average_precision_score(y, s.astype(np.float32)), abs=1e-12)
    u = mannwhitneyu(s[y], s[~y]).statistic
    assert got["auroc"] == pytest.approx(u / (y.sum() * (~y).sum()), abs=1e-12)


def test_hand_computed():
    # positives 0.9, 0.5 ; negatives 0.5, 0.1 -> pairs: (0.9>0.5) 1, (0.9>0.1) 1, (0.5=0.5) 0.5, (0.5>0.1) 1 -> 3.5/4
    got = binary_ranking_metrics(np.array([0.9, 0.5, 0.5, 0.1]), np.array([True, True, False, False]))
    assert got["auroc"] == pytest.approx(0.875)
    # thresholds 0.9: P=1, R=.5 ; 0.5: P=2/3, R=1 -> AP = .5*1 + .5*2/3
    assert got["average_precision"] == pytest.approx(0.5 + 1 / 3)


def test_single_class_is_a_clear_error():
    with pytest.raises(DataValidationError, match="AUROC needs both"):
        binary_ranking_metrics(np.array([0.1, 0.2]), np.array([True, True]), what="same")


def test_plain_is_json_ready():
    import json

    out = plain({"a": np.float32(0.5), "b": {"c": np.int64(3)}, "d": [np.bool_(True)]})
    assert json.loads(json.dumps(out)) == {"a": 0.5, "b": {"c": 3}, "d": [True]}
    assert type(out["a"]) is float and type(out["b"]["c"]) is int
