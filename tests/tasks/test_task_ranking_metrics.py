"""binary_ranking_metrics / RankCounts against scikit-learn and the Mann-Whitney U statistic, and the tie rule.

References are scikit-learn on the *snapped* scores (``_snap`` below, written independently of
``tie_keys``): the documented rule is that scores in one 2**-20 grid cell of their scale are ties.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import mannwhitneyu
from sklearn.metrics import average_precision_score, roc_auc_score

from steb_core import DataValidationError
from steb_core.tasks._common import RankCounts, binary_ranking_metrics, plain, tie_keys, tie_scale


def _snap(scores: np.ndarray, scale: float | None = None) -> np.ndarray:
    """Scores rounded to the 2**-20 grid of their scale (the power of two bounding max |score|)."""
    s = np.asarray(scores, dtype=np.float64)
    if scale is None:
        scale = 2.0 ** np.ceil(np.log2(np.max(np.abs(s))))
    return np.round(s / scale * 2**20)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rounding", [None, 1])  # rounding to 1 decimal makes heavy ties
def test_matches_sklearn(seed, rounding):
    rng = np.random.default_rng(seed)
    y = rng.random(2000) < 0.3
    s = rng.normal(size=2000) + 0.8 * y
    if rounding is not None:
        s = np.round(s, rounding)
    s = s.astype(np.float32)
    got = binary_ranking_metrics(s, y)
    snapped = _snap(s)
    assert got["auroc"] == pytest.approx(roc_auc_score(y, snapped), abs=1e-12)
    assert got["average_precision"] == pytest.approx(average_precision_score(y, snapped), abs=1e-12)
    u = mannwhitneyu(snapped[y], snapped[~y]).statistic
    assert got["auroc"] == pytest.approx(u / (y.sum() * (~y).sum()), abs=1e-12)
    # the grid (~4e-6 here) is far below the spread of the scores: raw scores give nearly the same numbers
    assert got["auroc"] == pytest.approx(roc_auc_score(y, s), abs=1e-3)


def test_hand_computed():
    # positives 0.9, 0.5 ; negatives 0.5, 0.1 -> pairs: (0.9>0.5) 1, (0.9>0.1) 1, (0.5=0.5) 0.5, (0.5>0.1) 1 -> 3.5/4
    got = binary_ranking_metrics(np.array([0.9, 0.5, 0.5, 0.1]), np.array([True, True, False, False]))
    assert got["auroc"] == pytest.approx(0.875)
    # thresholds 0.9: P=1, R=.5 ; 0.5: P=2/3, R=1 -> AP = .5*1 + .5*2/3
    assert got["average_precision"] == pytest.approx(0.5 + 1 / 3)


def test_one_ulp_apart_scores_tie_in_both_orders():
    """Issue 14 §2: the same score computed twice may differ by an ulp; either order must give the tie result.

    float64 ulps (the tasks compute every score in float64): a float32 ulp (6e-8) is too close to the
    grid step (9.5e-7) for this guarantee, which is why no task ranks float32 scores.
    """
    dtype = np.float64
    rng = np.random.default_rng(7)
    base = rng.uniform(-1, 1, size=300).astype(dtype)
    y = rng.random(300) < 0.5
    y[:2] = [True, False]
    ulp_up = np.nextafter(base, dtype(np.inf))
    # every score is present twice, once per label: one copy is one ulp larger
    scores_pos_higher = np.concatenate([ulp_up, base])
    scores_neg_higher = np.concatenate([base, ulp_up])
    labels = np.concatenate([y, ~y])
    exact = np.concatenate([base, base])  # the mathematically intended exact ties
    ref_auroc = roc_auc_score(labels, exact)
    ref_ap = average_precision_score(labels, exact)
    for s in (scores_pos_higher, scores_neg_higher):
        got = binary_ranking_metrics(s, labels, scale=1.0)
        assert got["auroc"] == pytest.approx(ref_auroc, abs=1e-12)
        assert got["average_precision"] == pytest.approx(ref_ap, abs=1e-12)
    # without the rule the two orders would disagree (the test can fail)
    assert roc_auc_score(labels, scores_pos_higher) != roc_auc_score(labels, scores_neg_higher)


def test_grid_rule_is_the_documented_one():
    # cosines (scale 1): step 2**-20; half a step apart in one cell tie, one full step apart do not
    c = (12345 + 0.1) * 2.0**-20
    tie = binary_ranking_metrics(np.array([c + 2.0**-22, c]), np.array([True, False]), scale=1.0)
    assert tie["auroc"] == 0.5
    apart = binary_ranking_metrics(np.array([c + 2.0**-20, c]), np.array([True, False]), scale=1.0)
    assert apart["auroc"] == 1.0
    assert (
        tie_scale(np.array([0.3, -0.7])) == 1.0
        and tie_scale(np.array([3.0])) == 4.0
        and tie_scale(np.array([4.0])) == 4.0
    )
    assert tie_keys(np.array([1.0, -1.0, 0.5 * 2.0**-20 + 2.0**-40])).tolist() == [2**20, -(2**20), 1]
    with pytest.raises(ValueError, match="power of two"):
        tie_keys(np.array([0.1]), 0.3)


def test_counts_added_in_blocks_equal_one_call():
    rng = np.random.default_rng(3)
    s = np.round(rng.uniform(-1, 1, size=5000), 3)
    y = rng.random(5000) < 0.2
    whole = RankCounts(1.0)
    whole.add(s, y)
    parts = RankCounts(1.0)
    order = rng.permutation(5000)
    for chunk in np.array_split(order, 7):
        parts.add(s[chunk], y[chunk])
    assert parts.metrics() == whole.metrics()
    assert whole.metrics()["auroc"] == pytest.approx(roc_auc_score(y, _snap(s, 1.0)), abs=1e-12)


def test_single_class_is_a_clear_error():
    with pytest.raises(DataValidationError, match="AUROC needs both"):
        binary_ranking_metrics(np.array([0.1, 0.2]), np.array([True, True]), what="same")


def test_non_finite_scores_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        binary_ranking_metrics(np.array([0.1, np.nan]), np.array([True, False]))


def test_plain_is_json_ready():
    import json

    out = plain({"a": np.float32(0.5), "b": {"c": np.int64(3)}, "d": [np.bool_(True)]})
    assert json.loads(json.dumps(out)) == {"a": 0.5, "b": {"c": 3}, "d": [True]}
    assert type(out["a"]) is float and type(out["b"]["c"]) is int
