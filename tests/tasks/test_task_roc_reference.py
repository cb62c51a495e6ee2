"""The pair tasks' ``eer`` and ``auc@f``, checked against scikit-learn and scipy called on the scores.

Reference (github.com/rrivera1849/STEB ``steb/metrics.py`` @4b43dda3): ``calculate_eer`` = scipy ``brentq`` of
``1 - x - interp1d(fpr, tpr)(x)`` on [0, 1] with ``fpr, tpr`` from scikit-learn's ``roc_curve``;
``auc@{f:.2f}`` = ``roc_auc_score(max_fpr=f)`` for f in 0.01, 0.05, 0.10, 0.20, 0.30, 0.50. The expected values
below are those library calls on the scores themselves (or worked by hand), never steb's counting.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import interp1d
from scipy.optimize import brentq
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.metrics.pairwise import cosine_similarity

from steb_core import LabelledText, TextPair
from steb_core.tasks import pair_all, pair_predefined
from steb_core.tasks._common import exact_ranking_metrics
from steb_core.tasks.roc import FPR_THRESHOLDS, ROC_NOTE
from tests.support.reference_kernel import sklearn_cosine_on_the_reference_kernel

KEYS = ("eer", *(f"auc@{f:.2f}" for f in FPR_THRESHOLDS))


def sklearn_reference(y: np.ndarray, s: np.ndarray) -> dict[str, float]:
    """The reference's calculate_pair_classification_metrics, as calls of scikit-learn and scipy."""
    fpr, tpr, _ = roc_curve(y, s, pos_label=1)
    out = {"eer": float(brentq(lambda x: 1.0 - x - interp1d(fpr, tpr)(x), 0.0, 1.0))}
    out.update({f"auc@{f:.2f}": float(roc_auc_score(y, s, max_fpr=f)) for f in FPR_THRESHOLDS})
    return out


@pytest.mark.parametrize("seed", range(12))
def test_eer_and_partial_aucs_equal_sklearn_and_scipy_on_the_scores(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 4000))
    y = rng.random(n) < rng.uniform(0.05, 0.95)
    y[:2] = [True, False]
    s = (rng.normal(size=n) + y * rng.uniform(0, 2)).astype(np.float32)
    if seed % 2:
        s = np.round(s, 1)  # many exact ties: the curve's vertical and diagonal steps
    got = exact_ranking_metrics(s, y, roc=True)
    want = sklearn_reference(y, s)
    for key in KEYS:
        assert got[key] == pytest.approx(want[key], abs=1e-12), key
    assert got["auroc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert "eer" not in exact_ranking_metrics(s, y)  # only when asked for


def test_hand_worked_curves():
    # perfect separation: the curve goes up to tpr 1 at fpr 0; eer 0, every standardised partial AUC 1
    got = exact_ranking_metrics(np.array([0.1, 0.2, 0.8, 0.9]), np.array([False, False, True, True]), roc=True)
    assert got["eer"] == pytest.approx(0.0, abs=1e-9) and all(got[f"auc@{f:.2f}"] == 1.0 for f in FPR_THRESHOLDS)
    # all scores tied: the curve is the diagonal; eer 1/2, every standardised partial AUC 1/2 (non-discriminant)
    got = exact_ranking_metrics(np.zeros(6), np.array([True, False] * 3), roc=True)
    assert got["eer"] == pytest.approx(0.5, abs=1e-9)
    assert all(got[f"auc@{f:.2f}"] == pytest.approx(0.5, abs=1e-15) for f in FPR_THRESHOLDS)
    # scores 4 > 3 > 2 > 1 with labels +, -, +, -: curve (0,0) (0,.5) (.5,.5) (.5,1) (1,1); tpr = 1 - fpr at 0.5
    # area up to 0.1: 0.1 * 0.5 = 0.05; McClish: 0.5 * (1 + (0.05 - 0.005) / (0.1 - 0.005)) = 0.5 + 0.045 / 0.19
    got = exact_ranking_metrics(np.array([4.0, 3.0, 2.0, 1.0]), np.array([True, False, True, False]), roc=True)
    assert got["eer"] == pytest.approx(0.5, abs=1e-9)
    assert got["auc@0.10"] == pytest.approx(0.5 + 0.045 / 0.19, abs=1e-15)


def _labelled(seed: int, n: int = 80, d: int = 10):
    rng = np.random.default_rng(seed)
    x = (rng.integers(0, 3, size=(n, d)) / rng.integers(3, 8, size=(n, 1))).astype(np.float32)
    labels = [f"c{v}" for v in rng.integers(0, 3, size=n)]
    return [LabelledText(text=f"t{i}", label=lab) for i, lab in enumerate(labels)], x, np.asarray(labels)


def test_pair_all_records_them_from_its_float32_scores(make_ctx, table_encoder, tmp_path):
    records, x, y = _labelled(5)
    got = pair_all.SPEC.run(
        make_ctx("labelled_texts", records, embed=table_encoder(dict(zip([r.text for r in records], x))))
    )
    iu = np.triu_indices(len(y), k=1)
    cosine = sklearn_cosine_on_the_reference_kernel(x, tmp_path)  # scikit-learn on the reference machine's kernel
    want = sklearn_reference((y[:, None] == y[None, :])[iu], cosine[iu])
    for key in KEYS:
        assert got[key] == pytest.approx(want[key], abs=1e-9), key
    assert ROC_NOTE not in got


def test_pair_predefined_records_them(make_ctx, table_encoder):
    rng = np.random.default_rng(8)
    x = rng.random((60, 6)).astype(np.float32)
    same = rng.random(30) < 0.5
    same[:2] = [True, False]
    pairs = [TextPair(f"a{i}", f"b{i}", bool(same[i])) for i in range(30)]
    table = {**{f"a{i}": x[i] for i in range(30)}, **{f"b{i}": x[30 + i] for i in range(30)}}
    got = pair_predefined.SPEC.run(make_ctx("pairs", pairs, embed=table_encoder(table)))
    scores = np.array([cosine_similarity(x[i : i + 1], x[30 + i : 31 + i])[0, 0] for i in range(30)])
    want = sklearn_reference(same, scores)
    for key in KEYS:
        assert got[key] == pytest.approx(want[key], abs=1e-9), key


def test_the_grid_rule_says_why_it_has_none(make_ctx, table_encoder):
    records, x, _ = _labelled(6)
    got = pair_all.SPEC.run(
        make_ctx(
            "labelled_texts",
            records,
            options={"pair_all.scores": "grid"},
            embed=table_encoder(dict(zip([r.text for r in records], x))),
        )
    )
    assert not set(KEYS) & set(got) and "grid rule" in got[ROC_NOTE]
