"""The reference machine's products (:mod:`steb_core.tasks._reference_products`), checked against the real thing.

Independent references: libm's ``fma`` / ``fmaf`` (ctypes) for the fused multiply-adds, and numpy itself run
with OpenBLAS's Haswell kernels (``OPENBLAS_CORETYPE=Haswell``, read when OpenBLAS loads, hence a subprocess)
for every product shape the STEB tasks use. Then the tasks' results are shown to be the same whatever BLAS
kernel, thread count or numpy SIMD level the process runs with, while the plain BLAS products are not.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from steb_core.tasks import _reference_products as rp
from steb_core.tasks.order_alignment.products import alignment_products
from tests.support.reference_kernel import haswell_capable

REPO = Path(__file__).resolve().parents[2]


# --- helpers -------------------------------------------------------------------------------------------------
def _libm():
    name = ctypes.util.find_library("m")
    if name is None:
        pytest.skip("no libm to compare with")
    lib = ctypes.CDLL(name)
    lib.fma.restype = ctypes.c_double
    lib.fma.argtypes = [ctypes.c_double] * 3
    lib.fmaf.restype = ctypes.c_float
    lib.fmaf.argtypes = [ctypes.c_float] * 3
    return lib


def _bits(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return x.view(np.int64 if x.dtype == np.float64 else np.int32)


def _child(tmp_path: Path, code: str, inputs: dict[str, np.ndarray], env: dict[str, str]) -> tuple[dict, dict]:
    """Run ``code`` in a fresh interpreter with ``env`` added; it reads ``IN`` (npz) and saves ``OUT`` (npz).

    Returns the saved arrays and the BLAS architecture and thread count the child's OpenBLAS reported.
    """
    tag = "_".join(f"{k}-{v}" for k, v in sorted(env.items())).replace(" ", "") or "plain"
    src, dst = tmp_path / f"in_{tag}.npz", tmp_path / f"out_{tag}.npz"
    np.savez(src, **inputs)
    prelude = (
        "import sys, json, numpy as np, threadpoolctl\n"
        f"IN = np.load({str(src)!r}, allow_pickle=False)\nOUT = {str(dst)!r}\n"
        "info = [i for i in threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas']\n"
        "print(json.dumps({'arch': info[0]['architecture'] if info else None,\n"
        "                  'threads': info[0]['num_threads'] if info else None}))\n"
    )
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "NPY_DISABLE"))}
    full_env.update(env)
    proc = subprocess.run(
        [sys.executable, "-c", prelude + code], env=full_env, cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    meta = json.loads(proc.stdout.strip().splitlines()[0])
    with np.load(dst, allow_pickle=False) as out:
        return {k: out[k] for k in out.files}, meta


# --- fused multiply-add against libm --------------------------------------------------------------------------
def _f32(x) -> np.float32:
    return np.float32(x)


def _fma32_cases() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    ulp = np.float32(2.0**-23)
    cases = [
        # exact sum in float64 falls on a float32 midpoint, the product's tail decides (double rounding traps)
        (1 + ulp, (1 - ulp) * np.float32(2.0**-24), 1 + ulp),
        (1 + ulp, (1 - ulp) * np.float32(2.0**-24), np.float32(1.0)),
        (1 + ulp, (1 + ulp) * np.float32(2.0**-24), 1 + ulp),
        (-(1 + ulp), (1 - ulp) * np.float32(2.0**-24), -(1 + ulp)),
        (1 - ulp / 2, np.float32(2.0**-25) * (1 + ulp), np.float32(1.0)),
        # signed zeros
        (_f32(-0.0), _f32(1.0), _f32(-0.0)),
        (_f32(-0.0), _f32(1.0), _f32(0.0)),
        (_f32(1.0), _f32(-1.0), _f32(1.0)),
        (_f32(0.0), _f32(-3.0), _f32(-0.0)),
        (_f32(2.0), _f32(3.0), _f32(-6.0)),
        # subnormal products and results
        (_f32(2.0**-100), _f32(2.0**-40), _f32(2.0**-149)),
        (_f32(2.0**-70), _f32(-(2.0**-70)), _f32(2.0**-130)),
        (_f32(1.5 * 2.0**-75), _f32(1.5 * 2.0**-74), _f32(-(2.0**-148))),
        # huge exponent gaps
        (_f32(2.0**60), _f32(2.0**60), _f32(2.0**-100)),
        (_f32(2.0**-60), _f32(2.0**-60), _f32(2.0**100)),
        (_f32(3.0), _f32(2.0**-80), _f32(-(2.0**30))),
    ]
    a = [c[0] for c in cases]
    b = [c[1] for c in cases]
    c = [c[2] for c in cases]
    # more midpoints: c a random float32, a * b = half its ulp times (1 +- 2**-46), any sign and scale
    for _ in range(400):
        e = int(rng.integers(-30, 30))
        cv = np.float32(rng.uniform(1, 2) * 2.0**e) * np.float32(rng.choice([-1, 1]))
        u = float(np.spacing(np.abs(cv)))
        x = np.float32(1 + rng.integers(1, 2**10) * 2.0**-23)
        y = np.float32(u / 2 / float(x) * rng.choice([-1, 1]))
        a.append(x)
        b.append(y)
        c.append(cv)
    n = 20000
    a += list((rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))).astype(np.float32))
    b += list((rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))).astype(np.float32))
    c += list((rng.standard_normal(n) * np.exp2(rng.integers(-80, 80, n))).astype(np.float32))
    return np.array(a, np.float32), np.array(b, np.float32), np.array(c, np.float32)


def test_fma32_equals_libm_fmaf_on_midpoints_subnormals_signed_zeros_and_exponent_gaps():
    lib = _libm()
    a, b, c = _fma32_cases()
    got = rp.fma32(a, b, c)
    want = np.array([lib.fmaf(float(x), float(y), float(z)) for x, y, z in zip(a, b, c)], dtype=np.float32)
    assert np.array_equal(_bits(got), _bits(want))
    # the midpoint cases are real: rounding the float64 sum straight to float32 gets some wrong
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert not np.array_equal(_bits(naive), _bits(want))


def test_fma64_equals_libm_fma_including_cancellation_tiny_and_huge_arguments():
    lib = _libm()
    rng = np.random.default_rng(8)
    n = 30000
    a = rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))
    b = rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))
    c = rng.standard_normal(n) * np.exp2(rng.integers(-90, 90, n))
    c[:10000] = -(a[:10000] * b[:10000]) * (1 + rng.integers(-4, 5, 10000) * 2.0**-52)  # near cancellation
    # c + a*b near a midpoint of c's ulp: a*b = ulp(c) / 2 * (1 +- 2**-50)
    u = np.spacing(np.abs(c[10000:14000]))
    x = 1 + rng.integers(1, 2**20, 4000) * 2.0**-52
    a[10000:14000], b[10000:14000] = x, u / 2 / x * rng.choice([-1, 1], 4000)
    special = np.array(
        [
            (-0.0, 1.0, -0.0),
            (-0.0, 1.0, 0.0),
            (1.0, -1.0, 1.0),
            (0.0, -2.0, -0.0),
            (2.0**-600, 2.0**-500, 2.0**-1074),
            (2.0**-540, -(2.0**-540), 2.0**-1070),
            (2.0**600, 2.0**-590, 1.0),
            (2.0**700, 2.0**200, -(2.0**900)),
            (1.0 + 2.0**-52, 1.0 - 2.0**-52, -1.0),
            (3.0, 2.0**-1030, 2.0**-1060),
        ]
    )
    a = np.concatenate([a, special[:, 0]])
    b = np.concatenate([b, special[:, 1]])
    c = np.concatenate([c, special[:, 2]])
    got = rp.fma64(a, b, c)
    want = np.array([lib.fma(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())])
    assert np.array_equal(_bits(got), _bits(want))
    assert not np.array_equal(_bits(a * b + c), _bits(want))  # two roundings differ: the check can fail


# --- the driver simulation ------------------------------------------------------------------------------------
def test_k_blocks_follow_the_level3_drivers():
    assert rp.k_blocks(458, rp.DGEMM_Q, rp.DGEMM_UNROLL_M) == [(0, 232), (232, 458)]  # ceil(229 / 4) * 4
    assert rp.k_blocks(459, rp.SGEMM_Q, None) == [(0, 230), (230, 459)]  # syrk: (459 + 1) / 2
    assert rp.k_blocks(700, rp.SGEMM_Q, None) == [(0, 320), (320, 510), (510, 700)]
    assert rp.k_blocks(256, 256, 4) == [(0, 256)] and rp.k_blocks(40, 256, 4) == [(0, 40)]


def test_kernel_patterns_by_hand():
    p = rp._kernel_patterns(16, 12)  # H: rows 0-7 of the left six columns, T(L): rows 8-15 of them; R all chains
    assert (p[:, :6] == rp._SPLIT).all() and (p[:, 6:] == rp._CHAIN).all()
    p = rp._kernel_patterns(24, 12)  # H, R16 [0, 16), L16 [8, 24) chains, T(R) rows 16-23
    assert (p[:8, :6] == rp._SPLIT).all() and (p[8:, :6] == rp._CHAIN).all()
    assert (p[:16, 6:] == rp._CHAIN).all() and (p[16:, 6:] == rp._SPLIT).all()
    p = rp._kernel_patterns(13, 4)  # one full 8-row group in a 4-column group: split; the 5 rows left: chains
    assert (p[:8] == rp._SPLIT).all() and (p[8:] == rp._CHAIN).all()
    assert (rp._kernel_patterns(40, 8) == rp._CHAIN).all() and (rp._kernel_patterns(15, 12) == rp._CHAIN).all()


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 40, 100, 321, 641, 1000, 1537])
def test_ssyrk_simulation_computes_every_lower_element_exactly_once(n):
    for threads in (1, 2, 3):
        code = rp.ssyrk_patterns(n, 458, threads)  # raises on an element computed twice or never
        assert set(np.unique(code[np.tril_indices(n)]).tolist()) <= {rp._CHAIN, rp._SPLIT}
    assert rp._thread_ranges(200, 2) == [0, 144, 200] and rp._thread_ranges(400, 2) == [0, 288, 400]


# --- against numpy on OpenBLAS's Haswell kernels --------------------------------------------------------------
def _function_word_like(rng, shape, k):
    """Counts of a few words over a text length: rational, mostly zero, many ties (float32 as steb's vectors)."""
    counts = rng.integers(0, 4, size=(*shape, k)) * (rng.random((*shape, k)) < 0.15)
    return (counts / rng.integers(5, 60, size=(*shape, 1))).astype(np.float32)


def _gemm_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(21)
    out = {}
    for k in (7, 256, 257, 458, 459, 601, 1300):
        for m, n in ((2, 2), (2, 3), (3, 3), (3, 2), (1, 2), (1, 3), (1, 4), (1, 5)):
            for kind in ("words", "signed"):
                if kind == "words":
                    a = _function_word_like(rng, (12, m), k).astype(np.float64)
                    b = _function_word_like(rng, (12, n), k).astype(np.float64)
                    b[:4, 0] = a[:4, 0]  # identical texts: exact ties
                else:  # cancellation, and large values in the last rows (dgemv's FMA tail)
                    a = rng.standard_normal((12, m, k))
                    b = rng.standard_normal((12, n, k))
                    a[..., -3:] *= 1e3
                norm_a = np.linalg.norm(a, axis=-1, keepdims=True)
                norm_b = np.linalg.norm(b, axis=-1, keepdims=True)
                out[f"A_{k}_{m}_{n}_{kind}"] = a / np.where(norm_a == 0, 1, norm_a)
                out[f"B_{k}_{m}_{n}_{kind}"] = b / np.where(norm_b == 0, 1, norm_b)
    for k in (5, 31, 32, 33, 458, 1000):  # sdot: the 32-lane kernel and its float64 tail
        out[f"L_{k}"] = np.concatenate(
            [_function_word_like(rng, (300,), k), rng.standard_normal((300, k)).astype(np.float32)]
        )
        out[f"R_{k}"] = np.concatenate(
            [_function_word_like(rng, (300,), k), rng.standard_normal((300, k)).astype(np.float32)]
        )
    return out


_GEMM_CHILD = """
out = {}
for key in IN.files:
    if key.startswith('A_'):
        a, b = IN[key], IN['B_' + key[2:]]
        out[key[2:]] = np.stack([a[t] @ b[t].T for t in range(len(a))])
    if key.startswith('L_'):
        left, right = IN[key], IN['R_' + key[2:]]
        out[key] = np.array([(left[i:i + 1] @ right[i:i + 1].T)[0, 0] for i in range(len(left))], dtype=np.float32)
np.savez(OUT, **out)
"""


@pytest.mark.skipif(not haswell_capable(), reason="OpenBLAS's Haswell kernels need AVX2 and FMA3")
def test_dgemm_dgemv_and_sdot_equal_numpy_on_haswell_bit_for_bit(tmp_path):
    inputs = _gemm_inputs()
    blas, meta = _child(tmp_path, _GEMM_CHILD, inputs, {"OPENBLAS_CORETYPE": "Haswell"})
    assert meta["arch"] == "Haswell"
    for key, want in blas.items():
        if key.startswith("L_"):
            got = rp.sdot_haswell(inputs[key], inputs["R_" + key[2:]])
        else:
            a, b = inputs["A_" + key], inputs["B_" + key]
            t, m, k = a.shape
            n = b.shape[1]
            got = alignment_products(
                np.concatenate([a.reshape(-1, k), b.reshape(-1, k)]),
                (np.arange(t * m).reshape(t, m)),
                t * m + np.arange(t * n).reshape(t, n),
            )
        assert np.array_equal(_bits(got), _bits(want)), key
    # another kernel's products differ in the last bits, so equality above is not a matter of course
    other, meta = _child(tmp_path, _GEMM_CHILD, inputs, {"OPENBLAS_CORETYPE": "Sandybridge"})
    assert meta["arch"] == "Sandybridge"
    assert any(not np.array_equal(_bits(other[key]), _bits(blas[key])) for key in blas)


_SYRK_CHILD = """
out = {}
for key in IN.files:
    x = IN[key]  # one array: numpy's matmul sees the same buffer twice and calls ssyrk (two loads would be gemm)
    out[key] = x @ x.T
np.savez(OUT, **out)
"""


@pytest.mark.skipif(not haswell_capable(), reason="OpenBLAS's Haswell kernels need AVX2 and FMA3")
@pytest.mark.parametrize("threads", [1, 2])
def test_ssyrk_equals_numpy_on_haswell_one_and_two_threads(tmp_path, threads):
    if threads > 1 and (os.cpu_count() or 1) < threads:
        pytest.skip("OpenBLAS runs at most one thread per core")
    from sklearn.preprocessing import normalize

    rng = np.random.default_rng(5)
    inputs = {}
    for n, k in ((17, 458), (40, 458), (200, 459), (401, 458), (700, 7), (700, 100), (330, 700)):
        x = _function_word_like(rng, (n,), k) if n % 2 else rng.standard_normal((n, k)).astype(np.float32)
        x[: n // 10] = x[n // 10 : 2 * (n // 10)]  # repeated texts: tied scores
        inputs[f"X_{n}_{k}"] = normalize(x)
    blas, meta = _child(
        tmp_path, _SYRK_CHILD, inputs, {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": str(threads)}
    )
    assert meta["arch"] == "Haswell" and meta["threads"] == threads
    for key, whole in blas.items():
        n = whole.shape[0]
        got = rp.ssyrk_haswell(inputs[key], threads=threads)
        assert np.array_equal(_bits(got), _bits(whole[np.triu_indices(n, 1)])), key
    # one and two threads give different last bits (the reference machine's were two)
    n = 401
    assert not np.array_equal(
        rp.ssyrk_haswell(inputs["X_401_458"], threads=1), rp.ssyrk_haswell(inputs["X_401_458"], threads=2)
    )


# --- the tasks do not depend on the CPU ----------------------------------------------------------------------
_TASK_CHILD = """
from steb_core import DatasetBundle, DatasetSpec, LabelledText, TaskContext, TextPair, construction_task_defaults
from steb_core._parallel_corpora import ParallelItem, order_groups_from_parallel
from steb_core.tasks import order_alignment as oa, pair_all, pair_predefined
from steb_core.tasks.order_alignment.task import reference_matrices
from steb_core.tasks._common import reference_all_pair_scores, reference_pair_scores

vectors = IN["vectors"]
texts = [f"t{i}" for i in range(len(vectors))]
table = dict(zip(texts, vectors))

def ctx(shape, data, options=None, bundle_info=None):
    spec = DatasetSpec(name="t", description="t", tasks=("order_alignment",), loader=lambda c: None,
                       needs_data=False)
    bundle = DatasetBundle(**{shape: data}, info=bundle_info or {},
                           task_defaults=construction_task_defaults(bundle_info["construction"]) if bundle_info else {})
    embed = lambda ts: np.stack([table[t] for t in ts]).astype(np.float32)
    return TaskContext(dataset=spec, bundle=bundle, data=data, options=dict(options or {}), embed_fn=embed)

out = {}
for k in (2, 3):
    seqs = [tuple(texts[i * k:(i + 1) * k]) for i in range(24)]
    items = [ParallelItem(s, id=f"s{i}", style_type="x") for i, s in enumerate(seqs)]
    groups, info = order_groups_from_parallel(items, seed=0, salt="d", per_class=None)
    for products in ("reference", "blas"):
        c = ctx("order_groups", groups, {"order_alignment.products": products}, info)
        members, matrices = reference_matrices(c, groups, products, prefilter=False)
        _, fast = reference_matrices(c, groups, products)  # the task's: emulated where undecided
        for shape, m in matrices.items():
            out[f"oa_{products}_{k}_{shape[0]}x{shape[1]}"] = m
            expected = np.asarray([groups[g].candidate_answer() for g in members[shape]]).reshape(len(m), -1)
            for name, sims in (("all", m), ("prefiltered", fast[shape])):
                credits, tied = oa.reference_credits(sims, expected)
                out[f"oa_credits_{name}_{products}_{k}_{shape[0]}x{shape[1]}"] = np.concatenate([credits, tied])
            kept = (m.view(np.int64) != fast[shape].view(np.int64)).any(axis=(1, 2))  # groups left to the BLAS
            out[f"oa_kept_{products}_{k}_{shape[0]}x{shape[1]}"] = np.array([kept.sum()])
        got = oa.run_order_alignment(c)
        out[f"oa_metrics_{products}_{k}"] = np.array([got["accuracy"], got["distractor_accuracy"]])
labels = [f"c{i % 5}" for i in range(len(vectors))]
records = [LabelledText(text=t, label=lab) for t, lab in zip(texts, labels)]
def ranks(x):  # the scores' order and ties: all the pair tasks' figures depend on
    return np.unique(x, return_inverse=True)[1].reshape(-1)
for products in ("reference", "blas"):
    out[f"all_{products}"] = reference_all_pair_scores(vectors, "cosine", products=products, prefilter=False)
    out[f"all_rank_{products}"] = ranks(reference_all_pair_scores(vectors, "cosine", products=products))
    got = pair_all.SPEC.run(ctx("labelled_texts", records, {"pair_all.scores": products}))
    out[f"all_auroc_{products}"] = np.array([got["auroc"], got["eer"], got["auc@0.05"]])
    ia = np.arange(0, len(vectors) - 1, 2)
    out[f"pre_{products}"] = reference_pair_scores(vectors, ia, ia + 1, "cosine", products=products, prefilter=False)
    out[f"pre_rank_{products}"] = ranks(reference_pair_scores(vectors, ia, ia + 1, "cosine", products=products))
    pairs = [TextPair(text_a=texts[i], text_b=texts[i + 1], same=bool(i % 4)) for i in ia.tolist()]
    got = pair_predefined.SPEC.run(ctx("pairs", pairs, {"pair_predefined.scores": products}))
    out[f"pre_auroc_{products}"] = np.array([got["auroc"], got["eer"], got["auc@0.05"]])
np.savez(OUT, **out)
"""

_ENVIRONMENTS = [
    {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "2"},
    {"OPENBLAS_CORETYPE": "SkylakeX"},
    {"OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "1"},
    {"OPENBLAS_CORETYPE": "Prescott"},
    # numpy's own SIMD dispatch (normalisation, norms) at its baseline
    {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"},
]


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86-64 OpenBLAS kernels")
def test_task_results_are_the_same_on_every_blas_kernel_thread_count_and_simd_level(tmp_path):
    rng = np.random.default_rng(17)
    vectors = np.concatenate([_function_word_like(rng, (140,), 458), rng.random((60, 458)).astype(np.float32)])
    vectors[20:26] = vectors[0:6]  # repeated texts: exact ties in every task
    runs = []
    for env in _ENVIRONMENTS:
        if "Haswell" in env.values() and not haswell_capable():
            continue
        if env.get("OPENBLAS_CORETYPE") == "SkylakeX":
            from numpy._core._multiarray_umath import __cpu_features__ as features

            if not features.get("AVX512F"):
                continue
        runs.append(_child(tmp_path, _TASK_CHILD, {"vectors": vectors}, env))
    assert len(runs) >= 3
    first, _ = runs[0]
    for out, meta in runs[1:]:
        for key in first:
            if "_reference" in key and "kept" not in key:
                assert np.array_equal(_bits(out[key]), _bits(first[key])), (key, meta)
    # the task emulates only the groups the products' last bits could decide: the same credits as emulating all
    for out, _ in runs:
        for key in out:
            if key.startswith("oa_credits_prefiltered_reference"):
                assert np.array_equal(out[key], out[key.replace("prefiltered", "all")]), key
    # ... and the pre-filter did keep BLAS products (of another last bit) for some groups
    assert sum(int(out[k][0]) for out, _ in runs for k in out if k.startswith("oa_kept_reference")) > 0
    # the BLAS products themselves differ between kernels (so the equality above can fail)
    archs = {meta["arch"] for _, meta in runs}
    assert len(archs) >= 3
    blas_keys = [k for k in first if "_blas" in k and "metrics" not in k and "auroc" not in k]
    assert any(not np.array_equal(_bits(out[k]), _bits(first[k])) for out, _ in runs[1:] for k in blas_keys)
    # and the emulated products are Haswell's: under the Haswell kernel (two threads) blas == reference (the
    # pair tasks' own blas runs are left out: they pick their BLAS thread count from the load, see _threads)
    if haswell_capable() and (os.cpu_count() or 1) >= 2:
        for key in first:
            if "_reference" in key and "auroc" not in key and "kept" not in key:
                assert np.array_equal(_bits(first[key]), _bits(first[key.replace("_reference", "_blas")])), key


def test_the_defaults_are_the_reference_machines_products(make_ctx, table_encoder):
    from steb_core import LabelledText, TextPair, construction_task_defaults
    from steb_core._parallel_corpora import ParallelItem, order_groups_from_parallel
    from steb_core.tasks import order_alignment, pair_all, pair_predefined

    rng = np.random.default_rng(2)
    vectors = _function_word_like(rng, (40,), 458)
    texts = [f"t{i}" for i in range(40)]
    table = dict(zip(texts, vectors))
    items = [ParallelItem((texts[2 * i], texts[2 * i + 1]), id=f"s{i}", style_type="x") for i in range(20)]
    groups, info = order_groups_from_parallel(items, seed=0, salt="d", per_class=None)

    def oa(options):
        ctx = make_ctx("order_groups", groups, embed=table_encoder(table), options=options)
        ctx.bundle.info.update(info)
        ctx.bundle.task_defaults.update(construction_task_defaults(info["construction"]))  # the reference's rule
        return order_alignment.run_order_alignment(ctx)

    assert oa({})["products"] == "reference"
    assert oa({}) == oa({"order_alignment.products": "reference"})
    records = [LabelledText(text=t, label=f"c{i % 3}") for i, t in enumerate(texts)]
    got = pair_all.SPEC.run(make_ctx("labelled_texts", records, embed=table_encoder(table)))
    assert got["products"] == "reference"
    iu = np.triu_indices(40, 1)
    from sklearn.preprocessing import normalize

    scores = rp.ssyrk_haswell(normalize(vectors))
    same = np.array([r.label for r in records])
    from sklearn.metrics import roc_auc_score

    assert got["auroc"] == pytest.approx(roc_auc_score((same[:, None] == same[None, :])[iu], scores), abs=1e-15)
    pairs = [TextPair(text_a=texts[i], text_b=texts[i + 1], same=bool(i % 3)) for i in range(39)]
    assert pair_predefined.SPEC.run(make_ctx("pairs", pairs, embed=table_encoder(table)))["products"] == "reference"
