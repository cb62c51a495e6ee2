"""The torch kernels of the vector tasks (issue 28 §3), run on CPU torch against independent references.

The device is forced with ``tasks.device=cpu`` (the same code path a GPU takes, on the CPU); each
kernel is compared with the documented rule computed independently (scikit-learn cosines in float64
snapped to the 2**-20 grid, scipy ranks, scikit-learn AUROC / AP) and with the numpy path. Tolerances:
retrieval counts, all-to-all key counts and order-alignment credits must be identical; order alignment's
cosines within 1e-15; probing solutions within the solver's stopping tolerance (objective values
within 1e-6 relative, same chosen strengths and accuracies on this data).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.metrics.pairwise import cosine_similarity

torch = pytest.importorskip("torch")

from steb_core import LabelledText, OrderGroup, RetrievalSet, TextCollection  # noqa: E402
from steb_core._encoders import encoder_device  # noqa: E402
from steb_core.tasks import order_alignment, pair_all, probing, retrieval  # noqa: E402
from steb_core.tasks._common import pair_similarities  # noqa: E402
from steb_core.tasks._device import ENV_VAR, kernel_device  # noqa: E402
from steb_core.tasks._probe_solver import fit_heads, head_objective  # noqa: E402
from steb_core.tasks._torch_kernels import all_pair_counts_torch, dense_ranks_torch  # noqa: E402
from steb_core.tasks.retrieval import first_relevant_ranks, relevant_pairs  # noqa: E402

CPU_TORCH = {"tasks.device": "cpu"}
NUMPY = {"tasks.device": "numpy"}


@pytest.fixture
def torch_calls(monkeypatch):
    """Counts calls of the torch kernels, so a comparison cannot pass by running numpy twice."""
    from steb_core.tasks import _torch_kernels

    calls = {}
    for name in ("dense_ranks_torch", "all_pair_counts_torch", "row_cosines_torch"):
        original = getattr(_torch_kernels, name)

        def spy(*args, _original=original, _name=name, **kwargs):
            calls[_name] = calls.get(_name, 0) + 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(_torch_kernels, name, spy)
    original_rows = _torch_kernels.DeviceRows.matmul

    def rows_spy(self, V):
        calls["DeviceRows.matmul"] = calls.get("DeviceRows.matmul", 0) + 1
        return original_rows(self, V)

    monkeypatch.setattr(_torch_kernels.DeviceRows, "matmul", rows_spy)
    return calls


# -- choosing the device ----------------------------------------------------------------------


def _ctx(make_ctx, options=None, device=None):
    ctx = make_ctx("labelled_texts", [LabelledText(text="x", label="a")], options=options)
    ctx.device = device
    return ctx


def test_kernel_device_choice(make_ctx, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert kernel_device(_ctx(make_ctx)) is None  # auto, encoder device unknown: numpy
    assert kernel_device(_ctx(make_ctx, device="cpu")) is None  # auto and a CPU encoder: numpy stays
    assert kernel_device(_ctx(make_ctx, CPU_TORCH)) == torch.device("cpu")
    assert kernel_device(_ctx(make_ctx, NUMPY, device="cuda:0")) is None  # numpy asked for: numpy
    assert kernel_device(_ctx(make_ctx, device="mps")) is None  # auto: no float64 on MPS, numpy stays
    monkeypatch.setenv(ENV_VAR, "cpu")
    assert kernel_device(_ctx(make_ctx)) == torch.device("cpu")
    assert kernel_device(_ctx(make_ctx, NUMPY)) is None  # the option wins over the environment
    with pytest.raises(ValueError, match="MPS has no float64"):
        kernel_device(_ctx(make_ctx, {"tasks.device": "mps"}))
    with pytest.raises(ValueError, match="not a torch device"):
        kernel_device(_ctx(make_ctx, {"tasks.device": "gpu-please"}))
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            kernel_device(_ctx(make_ctx, {"tasks.device": "cuda"}))
        monkeypatch.delenv(ENV_VAR)
        assert kernel_device(_ctx(make_ctx, device="auto")) is None


def test_encoder_device_reads_without_loading():
    class Neural:
        device_name = "cuda:1"

    class SentenceTransformerLike:
        device = torch.device("cpu")

    class Plain:
        def encode(self, texts):
            return np.zeros((len(texts), 2))

    assert encoder_device(Neural()) == "cuda:1"
    assert encoder_device(SentenceTransformerLike()) == "cpu"
    assert encoder_device(Plain()) is None


# -- retrieval ----------------------------------------------------------------------------------


def _ties_and_duplicates(seed, nq=40, nt=70, d=4):
    """Small integer vectors: exact ties, duplicate rows, a zero row, several relevant targets per query."""
    rng = np.random.default_rng(seed)
    q = rng.integers(-1, 3, size=(nq, d)).astype(np.float32)
    t = rng.integers(-1, 3, size=(nt, d)).astype(np.float32)
    t[5:15] = t[0]
    t[20] = 3.0 * q[0]
    t[21] = 0.0
    qa = rng.integers(0, 9, size=nq)
    ta = np.concatenate([np.arange(9), rng.integers(0, 9, size=nt - 9)])
    return q, t, qa, ta


def _near_edges(seed, nq=50, nt=300, d=64):
    """Gaussian vectors with targets nudged so that many cosines sit near the best relevant one."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(nq, d)).astype(np.float32)
    t = (0.2 * rng.normal(size=(nt, d)) + np.repeat(q, nt // nq + 1, axis=0)[:nt]).astype(np.float32)
    t[nt // 2 :] = t[: nt - nt // 2] + np.float32(1e-7)  # near-copies: cosines within float32 error
    qa = np.arange(nq) % 12
    ta = np.arange(nt) % 12
    return q, t, qa, ta


def _rank_reference(q, t, qa, ta):
    """scipy ranks of float64 cosines (scikit-learn) snapped to the 2**-20 grid."""
    keys = np.rint(cosine_similarity(np.asarray(q, np.float64), np.asarray(t, np.float64)) * 2**20)
    above, rel, irr = [], [], []
    for i in range(len(q)):
        is_rel = ta == qa[i]
        top = int(np.argmax(np.where(is_rel, keys[i], -np.inf)))
        lo = rankdata(-keys[i], method="min")[top]
        hi = rankdata(-keys[i], method="max")[top]
        n_rel = int(np.sum(keys[i][is_rel] == keys[i][top]))
        above.append(int(lo) - 1)
        rel.append(n_rel)
        irr.append(int(hi - lo + 1) - n_rel)
    return np.array(above), np.array(rel), np.array(irr)


@pytest.mark.parametrize("make", [_ties_and_duplicates, _near_edges])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("block_cells", [None, 7 * 16])
def test_retrieval_counts_equal_reference_and_numpy(make, seed, block_cells):
    q, t, qa, ta = make(seed)
    ref = _rank_reference(q, t, qa, ta)
    numpy_counts = first_relevant_ranks(q, t, qa, ta)
    rel_q, rel_t, starts = relevant_pairs(qa, ta)
    kwargs = {} if block_cells is None else {"block_cells": block_cells}
    got = dense_ranks_torch(q, t, rel_q, rel_t, starts, torch.device("cpu"), **kwargs)
    for a, b, c in zip(got, ref, numpy_counts):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_retrieval_task_same_metrics_on_cpu_torch(make_ctx, table_encoder, torch_calls):
    rng = np.random.default_rng(3)
    style = rng.normal(size=(40, 16))
    table, queries, targets = {}, [], []
    for a in range(40):
        for side, out in (("q", queries), ("t", targets)):
            name = f"{side}{a}"
            table[name] = style[a] + rng.normal(scale=1.5, size=16)
            out.append(TextCollection(author=f"a{a}", texts_=(name,)))
    table["t0"] = table["t1"]  # an exact tie
    data = RetrievalSet(queries=tuple(queries), targets=tuple(targets))
    counted = {"retrieval.rule": "counted"}  # the torch kernel is the counted rule's; the reference's runs on the CPU
    got = retrieval.SPEC.run(make_ctx("retrieval", data, embed=table_encoder(table), options={**CPU_TORCH, **counted}))
    ref = retrieval.SPEC.run(make_ctx("retrieval", data, embed=table_encoder(table), options={**NUMPY, **counted}))
    assert got == ref
    assert ref["n_queries_with_ties"] >= 1
    assert torch_calls == {"dense_ranks_torch": 1}


# -- all-to-all ---------------------------------------------------------------------------------


@pytest.mark.parametrize("block_cells", [None, 5])
def test_all_pair_counts_equal_numpy_and_sklearn(block_cells):
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, size=(90, 6)).astype(np.float32)  # integer vectors: many exact ties
    x[10:14] = x[0]
    x[20] = 0.0
    codes = rng.integers(0, 4, size=90)
    kwargs = {} if block_cells is None else {"block_cells": block_cells}
    got = all_pair_counts_torch(x, codes, torch.device("cpu"), **kwargs)
    ref = pair_all.all_pair_counts(x, codes)
    np.testing.assert_array_equal(got.pos, ref.pos)
    np.testing.assert_array_equal(got.neg, ref.neg)
    i, j = np.triu_indices(len(x), k=1)
    keys = np.rint(cosine_similarity(x.astype(np.float64))[i, j] * 2**20)
    same = codes[i] == codes[j]
    metrics = got.metrics()
    assert metrics["auroc"] == pytest.approx(roc_auc_score(same, keys), abs=1e-12)
    assert metrics["average_precision"] == pytest.approx(average_precision_score(same, keys), abs=1e-12)


def test_pair_all_task_same_metrics_on_cpu_torch(make_ctx, table_encoder, torch_calls):
    rng = np.random.default_rng(1)
    centres = rng.normal(size=(5, 24))
    records = [LabelledText(text=f"t{i}", label=f"c{i % 5}") for i in range(150)]
    table = {r.text: centres[i % 5] + rng.normal(scale=2.0, size=24) for i, r in enumerate(records)}
    grid = {"pair_all.scores": "grid"}  # the torch kernel counts on the grid; the reference rule runs on the CPU
    got = pair_all.SPEC.run(
        make_ctx("labelled_texts", records, embed=table_encoder(table), options={**CPU_TORCH, **grid})
    )
    ref = pair_all.SPEC.run(make_ctx("labelled_texts", records, embed=table_encoder(table), options={**NUMPY, **grid}))
    assert got == ref
    assert torch_calls == {"all_pair_counts_torch": 1}


# -- order alignment ----------------------------------------------------------------------------


def test_order_alignment_same_credits_and_cosines_on_cpu_torch(make_ctx, table_encoder, torch_calls):
    rng = np.random.default_rng(2)
    styles = rng.normal(size=(4, 8))
    table, groups = {}, []
    for g in range(30):
        anchors = tuple(f"a{g}-{s}" for s in range(3))
        for s, name in enumerate(anchors):
            table[name] = styles[s] + rng.normal(scale=1.0, size=8)
        perm = rng.permutation(3)
        alternatives = tuple(f"b{g}-{s}" for s in perm)
        for s, name in zip(perm, alternatives):
            table[name] = styles[s] + rng.normal(scale=1.0, size=8)
        answer = tuple(int(np.flatnonzero(perm == s)[0]) for s in range(3))
        groups.append(OrderGroup(anchors=anchors, alternatives=alternatives, answer=answer, style_type="x"))
        distractor = f"d{g}"
        table[distractor] = styles[3] + rng.normal(size=8)
        groups.append(
            OrderGroup(anchors=anchors[:2], alternatives=alternatives, answer=answer[:2], distractor=distractor)
        )
    # exact ties: two identical anchors (the same text) tie by construction on any device
    table["same"] = styles[0].copy()
    groups.append(OrderGroup(anchors=("same", "same"), alternatives=("a0-0", "a0-1"), answer=(0, 1)))
    got = order_alignment.SPEC.run(make_ctx("order_groups", groups, embed=table_encoder(table), options=CPU_TORCH))
    ref = order_alignment.SPEC.run(make_ctx("order_groups", groups, embed=table_encoder(table), options=NUMPY))
    assert got == ref
    assert ref["n_tied"] >= 1
    assert torch_calls == {"row_cosines_torch": 1}
    texts = sorted(table)
    pairs = list(itertools.combinations(texts, 2))
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    cos_torch = pair_similarities(make_ctx("order_groups", groups, embed=table_encoder(table), options=CPU_TORCH), a, b)
    sk = np.array(
        [
            cosine_similarity(
                np.asarray(table[x], np.float32).astype(np.float64)[None],
                np.asarray(table[y], np.float32).astype(np.float64)[None],
            )[0, 0]
            for x, y in pairs
        ]
    )
    np.testing.assert_allclose(cos_torch, sk, rtol=0, atol=1e-15)


# -- probing ------------------------------------------------------------------------------------


def _probing_problem(n=400, d=24, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, d)) * np.linspace(0.2, 3.0, d)).astype(np.float32)  # anisotropic: preconditioner on
    labels = [
        probing.quantile_bins(x[:, 0] * 2 + x[:, 1] + rng.normal(size=n)),
        probing.quantile_bins(x[:, 3] > 0, n_bins=2),
    ]
    keys = probing.split_keys(n, 0)
    splits = [probing.stratified_split(y, keys) for y in labels]
    return x, labels, splits


def test_probe_solver_on_cpu_torch_reaches_the_same_optimum():
    x, labels, splits = _probing_problem()
    strengths = probing.STRENGTHS
    trains = [s[0] for s in splits]
    ref = fit_heads(x, labels, trains, strengths)
    got = fit_heads(x, labels, trains, strengths, device=torch.device("cpu"))
    for lam in strengths:
        for h, (y, train) in enumerate(zip(labels, trains)):
            f_ref = head_objective(x, y, train, ref[lam]["W"][h], ref[lam]["b"][h], lam)
            f_got = head_objective(x, y, train, got[lam]["W"][h], got[lam]["b"][h], lam)
            assert f_got == pytest.approx(f_ref, rel=1e-6)
        assert np.mean(got[lam]["pred"] == ref[lam]["pred"]) > 0.99


def test_probing_task_same_results_on_cpu_torch(make_ctx, table_encoder, torch_calls):
    x, _, _ = _probing_problem(n=300, d=16, seed=4)
    from steb_core import FeatureText

    rng = np.random.default_rng(5)
    records = [
        FeatureText(text=f"t{i}", features={"a": float(x[i, 0] * 3 + x[i, 1]), "b": float(x[i, 2] + rng.normal())})
        for i in range(len(x))
    ]
    table = {f"t{i}": x[i] for i in range(len(x))}
    got = probing.SPEC.run(make_ctx("feature_texts", records, embed=table_encoder(table), options=CPU_TORCH))
    ref = probing.SPEC.run(make_ctx("feature_texts", records, embed=table_encoder(table), options=NUMPY))
    assert got["regularisation_by_feature"] == ref["regularisation_by_feature"]
    assert got["accuracy_by_feature"] == ref["accuracy_by_feature"]
    assert torch_calls["DeviceRows.matmul"] > 10
