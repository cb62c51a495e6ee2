"""Probing with a release's own bins and splits (the STEB authors' ``label_<f>`` / ``split_<f>``).

Checked against scikit-learn run directly on the released train rows (the steb probe's definition: standardised
inputs, L2 logistic regression with ``C = 1 / (lambda * n_train)``), one strength so no selection is involved.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from steb_core import DataValidationError, FeatureText
from steb_core.tasks.probing import SPEC


def _records(n: int = 240, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6)).astype(np.float32)
    lab_a = np.digitize(x[:, 0] + 0.3 * rng.normal(size=n), [-0.8, 0.0, 0.8])  # 4 bins, learnable from x0
    lab_b = (x[:, 1] > 0).astype(int)
    split_a = rng.choice(["train", "val", "test", None], size=n, p=[0.6, 0.15, 0.15, 0.1])
    split_b = np.where(np.arange(n) < n // 2, "train", np.where(np.arange(n) % 2 == 0, "val", "test"))
    recs = []
    for i in range(n):
        bins = {"feat_a": int(lab_a[i]), "feat_b": None if i % 17 == 0 else int(lab_b[i])}
        splits = {"feat_a": None if split_a[i] is None else str(split_a[i]), "feat_b": str(split_b[i])}
        recs.append(FeatureText(text=f"t{i}", features={}, bins=bins, splits=splits))
    return recs, x, {"feat_a": (lab_a, split_a), "feat_b": (lab_b, split_b)}


def _sklearn_accuracy(x, labels, splits, usable, strength):
    train = np.flatnonzero((splits == "train") & usable)
    test = np.flatnonzero((splits == "test") & usable)
    scaler = StandardScaler().fit(x[train])
    model = LogisticRegression(C=1.0 / (strength * len(train)), max_iter=1000, tol=1e-8)
    model.fit(scaler.transform(x[train]), labels[train])
    return float(np.mean(model.predict(scaler.transform(x[test])) == labels[test]))


@pytest.mark.parametrize("solver", ["sklearn", "joint"])
def test_released_splits_are_used_and_match_sklearn(make_ctx, table_encoder, solver):
    recs, x, truth = _records()
    enc = table_encoder({r.text: v for r, v in zip(recs, x)})
    options = {"probing.strengths": [1e-3], "probing.solver": solver}
    got = SPEC.run(make_ctx("feature_texts", recs, embed=enc, options=options))
    assert got["probe"] == solver
    assert got["splits"] == "released" and list(got["accuracy_by_feature"]) == ["feat_a", "feat_b"]
    usable_b = np.array([i % 17 != 0 for i in range(len(recs))])
    want = {
        "feat_a": _sklearn_accuracy(
            x, truth["feat_a"][0], np.asarray(truth["feat_a"][1], dtype=object), np.ones(len(recs), bool), 1e-3
        ),
        "feat_b": _sklearn_accuracy(x, truth["feat_b"][0], truth["feat_b"][1], usable_b, 1e-3),
    }
    for name, value in want.items():
        # solver tolerance: less than one test text
        assert got["accuracy_by_feature"][name] == pytest.approx(value, abs=1.0 / 40), name
    assert got["accuracy"] == pytest.approx(np.mean(list(got["accuracy_by_feature"].values())))
    n_train_b = int(np.sum((truth["feat_b"][1] == "train") & usable_b))
    assert got["n_texts_by_split"]["feat_b"][0] == n_train_b


def test_steb_splits_option_ignores_the_released_ones(make_ctx, table_encoder):
    recs, x, _ = _records()
    recs = [
        FeatureText(text=r.text, features={"v": float(x[i, 0]), "w": float(x[i, 1])}, bins=r.bins, splits=r.splits)
        for i, r in enumerate(recs)
    ]
    enc = table_encoder({r.text: v for r, v in zip(recs, x)})
    released = SPEC.run(make_ctx("feature_texts", recs, embed=enc))
    own = SPEC.run(make_ctx("feature_texts", recs, embed=enc, options={"probing.splits": "steb"}))
    assert released["splits"] == "released" and own["splits"] == "steb"
    assert list(own["accuracy_by_feature"]) == ["v", "w"]


def test_released_mode_needs_released_bins(make_ctx, table_encoder):
    recs = [FeatureText(text=f"t{i}", features={"v": float(i)}) for i in range(30)]
    enc = table_encoder({r.text: [float(i), 1.0] for i, r in enumerate(recs)})
    with pytest.raises(DataValidationError, match="released"):
        SPEC.run(make_ctx("feature_texts", recs, embed=enc, options={"probing.splits": "released"}))


def test_reference_probe_training_equals_torch_from_the_same_start():
    # the reference's recipe (steb/tasks/probing.py @acb3a009): Linear + sigmoid, cross-entropy on the sigmoid
    # outputs, Adam(lr=0.01, weight_decay), batches of 512 in order; torch's autograd is the independent reference
    torch = pytest.importorskip("torch")
    from steb_core.tasks._reference_probe import train_probe

    rng = np.random.default_rng(2)
    x = rng.normal(size=(2600, 7)).astype(np.float32)
    y = np.digitize(x[:, 0] + x[:, 1], [-1, 0, 1])
    w0 = rng.uniform(-0.3, 0.3, size=(4, 7)).astype(np.float32)
    b0 = rng.uniform(-0.3, 0.3, size=4).astype(np.float32)
    # one epoch = six Adam steps (batches of 512 in order); epoch 1 is always the best so far: its parameters are kept
    epochs = 1
    _, w, b = train_probe(x, y, x[:1], y[:1], 1e-3, w0, b0, max_epoch=epochs)
    model = torch.nn.Linear(7, 4)
    with torch.no_grad():
        model.weight.copy_(torch.from_numpy(w0))
        model.bias.copy_(torch.from_numpy(b0))
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-3)
    states = []
    for _ in range(epochs):
        for lo in range(0, 2600, 512):
            loss = torch.nn.functional.cross_entropy(
                torch.sigmoid(model(torch.from_numpy(x[lo : lo + 512]))), torch.from_numpy(y[lo : lo + 512]).long()
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
        states.append((model.weight.detach().numpy().copy(), model.bias.detach().numpy().copy()))
    np.testing.assert_allclose(w, states[0][0], atol=1e-5)
    np.testing.assert_allclose(b, states[0][1], atol=1e-5)
