"""Time and peak memory of each STEB task at STEB scale, against plain scikit-learn on the same inputs.

Usage (from the repository root)::

    .venv/bin/python bench/tasks/bench_tasks.py                       # every task, STEB scale
    .venv/bin/python bench/tasks/bench_tasks.py --tasks pair_all retrieval
    .venv/bin/python bench/tasks/bench_tasks.py --tasks probing --probing-features 4
    .venv/bin/python bench/tasks/bench_tasks.py --tasks torch_kernels --task-device cpu   # torch kernels vs numpy

Inputs are random float32 vectors with a planted class signal (the numbers measure cost, not
quality). "steb" runs the registered task through a TaskContext (record handling included);
"sklearn" is the plain scikit-learn computation a user would write for the same metric (MTEB's
clustering evaluator is exactly MiniBatchKMeans + v_measure_score). Peak memory is the peak resident
set size above its value when the call starts, sampled every 5 ms by a thread (inputs built beforehand
are not counted). tracemalloc, used before, doubled the time of allocation-heavy code such as the joint
probing solver, so the times and memory figures before 2026-11-23 came with that overhead. Where the
plain approach cannot run at full scale (a 100k x 100k score matrix is 40 GB) both are timed on a
smaller slice for the ratio and steb alone at full scale.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.cluster import MiniBatchKMeans
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    average_precision_score,
    label_ranking_average_precision_score,
    roc_auc_score,
    v_measure_score,
)
from sklearn.metrics.pairwise import cosine_similarity, paired_cosine_distances
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from steb_core import (
    DatasetBundle,
    DatasetSpec,
    FeatureText,
    LabelledText,
    RetrievalSet,
    TaskContext,
    TextCollection,
    TextPair,
)
from steb_core.tasks import clustering, pair_all, pair_predefined, probing, retrieval
from steb_core.tasks._probe_solver import fit_heads
from steb_core.tasks._threads import task_threads

DIM = 768


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


PAGE = os.sysconf("SC_PAGE_SIZE")


def measure(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds, peak MiB (resident set above the start, sampled every 5 ms) and the result of fn()."""
    gc.collect()
    base = _rss_bytes()
    peak = [base]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], _rss_bytes())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    try:
        result = fn()
    finally:
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
    peak[0] = max(peak[0], _rss_bytes())
    return seconds, (peak[0] - base) / 2**20, result


def vectors_with_classes(n: int, k: int, seed: int = 0, dim: int = DIM) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, size=n)
    centres = rng.normal(size=(k, dim)).astype(np.float32)
    x = centres[labels] + rng.normal(scale=3.0, size=(n, dim)).astype(np.float32)
    return x.astype(np.float32), labels


def context(shape: str, data: Any, table: np.ndarray) -> TaskContext:
    spec = DatasetSpec(
        name="bench", description="bench", tasks=("clustering",), loader=lambda c: None, needs_data=False
    )
    bundle = DatasetBundle(**{shape: data})

    def embed(texts: list[str]) -> np.ndarray:
        return table[np.fromiter((int(t[1:]) for t in texts), dtype=np.int64, count=len(texts))]

    return TaskContext(dataset=spec, bundle=bundle, data=data, seed=0, embed_fn=embed)


def bench_clustering(args) -> list[dict]:
    x, y = vectors_with_classes(2800, 14)
    records = [LabelledText(text=f"t{i}", label=str(c)) for i, c in enumerate(y)]
    ours = measure(lambda: clustering.SPEC.run(context("labelled_texts", records, x)))
    ref = measure(
        lambda: v_measure_score(
            y, MiniBatchKMeans(n_clusters=14, batch_size=32, n_init="auto", random_state=0).fit(x).labels_
        )
    )
    return [row("clustering", "2,800 texts, 14 labels", ours, ref, ours[2]["v_measure"], ref[2])]


def bench_pair_all(args) -> list[dict]:
    x, y = vectors_with_classes(3000, 10)
    records = [LabelledText(text=f"t{i}", label=str(c)) for i, c in enumerate(y)]
    ours = measure(lambda records=records, x=x: pair_all.SPEC.run(context("labelled_texts", records, x)))

    def plain():
        iu = np.triu_indices(len(x), 1)
        s = cosine_similarity(x)[iu]
        same = (y[:, None] == y[None, :])[iu]
        return roc_auc_score(same, s), average_precision_score(same, s)

    ref = measure(plain)
    return [row("pair_all", "3,000 texts (4.5 M pairs)", ours, ref, ours[2]["auroc"], ref[2][0])]


def bench_pair_predefined(args) -> list[dict]:
    n_texts, n_pairs = 150_000, 150_000
    x, _ = vectors_with_classes(n_texts, 50)
    rng = np.random.default_rng(1)
    a = rng.integers(0, n_texts, n_pairs)
    b = (a + rng.integers(1, n_texts, n_pairs)) % n_texts
    same = rng.random(n_pairs) < 0.4
    pairs = [TextPair(text_a=f"t{i}", text_b=f"t{j}", same=bool(s)) for i, j, s in zip(a, b, same)]
    ours = measure(lambda: pair_predefined.SPEC.run(context("pairs", pairs, x)))

    def plain():
        s = 1.0 - paired_cosine_distances(x[a], x[b])
        return roc_auc_score(same, s), average_precision_score(same, s)

    ref = measure(plain)
    return [row("pair_predefined", "150k pairs over 150k texts", ours, ref, ours[2]["auroc"], ref[2][0])]


def retrieval_inputs(n: int, seed: int = 2):
    """n queries and n targets, one per author (as in LUAR-style splits), one text each."""
    rng = np.random.default_rng(seed)
    style = rng.normal(size=(n, DIM)).astype(np.float32)
    table = np.concatenate([style + rng.normal(scale=4.0, size=(n, DIM)).astype(np.float32) for _ in range(2)])
    queries = tuple(TextCollection(author=f"a{i}", texts_=(f"t{i}",)) for i in range(n))
    targets = tuple(TextCollection(author=f"a{i}", texts_=(f"t{n + i}",)) for i in range(n))
    return RetrievalSet(queries=queries, targets=targets), table


def bench_retrieval(args) -> list[dict]:
    rows = []
    small = args.retrieval_compare
    data, table = retrieval_inputs(small)
    ours = measure(lambda: retrieval.SPEC.run(context("retrieval", data, table)))

    def plain():
        s = cosine_similarity(table[:small], table[small:])
        return label_ranking_average_precision_score(np.eye(small, dtype=int), s)  # = MRR with one relevant target

    ref = measure(plain)
    rows.append(row("retrieval", f"{small:,} x {small:,}", ours, ref, ours[2]["mrr"], ref[2]))
    if args.retrieval_full:
        del data, table
        data, table = retrieval_inputs(args.retrieval_full)
        ours = measure(lambda: retrieval.SPEC.run(context("retrieval", data, table)))
        n = args.retrieval_full
        rows.append(
            row(
                "retrieval",
                f"{n:,} x {n:,}",
                ours,
                None,
                ours[2]["mrr"],
                None,
                note="plain: n x n matrix would need %.0f GB" % (n * n * 4 / 1e9),
            )
        )
    return rows


def numpy_counting_mrr(q: np.ndarray, t: np.ndarray) -> float:
    """The plain numpy route (issue 28 §2): the whole float32 score matrix, then per query the targets above the true
    one."""
    qn = q / np.linalg.norm(q, axis=1, keepdims=True)
    tn = t / np.linalg.norm(t, axis=1, keepdims=True)
    scores = qn @ tn.T
    above = np.count_nonzero(scores > np.diagonal(scores)[:, None], axis=1)  # query i's true target is target i
    return float(np.mean(1.0 / (above + 1.0)))


def bench_retrieval_gemm(args) -> list[dict]:
    """Retrieval at the matrix-product limit (issue 28 §2): steb vs numpy counting vs the float32 GEMM, one run.

    Same inputs for all three (n queries x n targets, 768-d float32, one relevant target each). The
    GEMM is timed twice: into a fresh result (what ``q @ t.T`` costs a user, page faults included)
    and into a preallocated, already touched buffer (the arithmetic alone). Best of ``--repeats``
    for each, interleaved; the load average is printed with every repeat.
    """
    n = args.retrieval_gemm_size
    data, table = retrieval_inputs(n)
    q, t = table[:n], table[n:]
    ctx_threads = args.retrieval_threads
    results: dict[str, list] = {"steb": [], "numpy counting": [], "gemm (fresh result)": [], "gemm (out=, touched)": []}
    loads = []
    for rep in range(args.repeats):
        loads.append(os.getloadavg()[0])
        ctx = context("retrieval", data, table)
        ctx.threads = ctx_threads
        results["steb"].append(measure(lambda ctx=ctx: retrieval.SPEC.run(ctx)))
        results["numpy counting"].append(measure(lambda: numpy_counting_mrr(q, t)))
        results["gemm (fresh result)"].append(measure(lambda: (q @ t.T).shape))
        out = np.empty((n, n), np.float32)
        out.fill(0.0)
        results["gemm (out=, touched)"].append(measure(lambda out=out: np.matmul(q, t.T, out=out).shape))
        del out
        same_run = round(results["steb"][-1][0] / results["gemm (out=, touched)"][-1][0], 3)
        print(
            json.dumps(
                {
                    "repeat": rep,
                    "load_before": round(loads[-1], 2),
                    **{k: round(v[-1][0], 2) for k, v in results.items()},
                    "steb_vs_gemm_out_this_repeat": same_run,
                }
            ),
            flush=True,
        )
    best = {k: min(v, key=lambda r: r[0]) for k, v in results.items()}
    gemm = best["gemm (out=, touched)"][0]
    rows = []
    for name, (sec, mib, res) in best.items():
        metric = res["mrr"] if isinstance(res, dict) else (res if isinstance(res, float) else float("nan"))
        out_row = {
            "what": name,
            "scale": f"{n:,} x {n:,} x {DIM}",
            "s": round(sec, 2),
            "peak_mib": round(mib, 1),
            "vs_gemm_out": round(sec / gemm, 3),
            "vs_gemm_fresh": round(sec / best["gemm (fresh result)"][0], 3),
        }
        if name in ("steb", "numpy counting"):
            out_row["mrr"] = round(metric, 6)
        if name == "steb":
            out_row["threads"] = (
                ctx_threads if ctx_threads else f"steb's choice ({task_threads(None, n * n * DIM)} now)"
            )
        out_row["load_min_max"] = [round(min(loads), 2), round(max(loads), 2), round(os.getloadavg()[0], 2)]
        print(json.dumps(out_row), flush=True)
        rows.append(out_row)
    return rows


def probing_inputs(n: int, n_feat: int, seed: int = 3, spectrum: str = "isotropic"):
    """n texts x n_feat count features linearly related to Gaussian embeddings.

    ``spectrum="decay"`` gives the embeddings the anisotropy of real sentence embeddings: a common
    offset and principal-component variances falling as 1/k in a random rotation, so a few
    directions dominate (standardising columns does not undo a rotated spectrum).
    """
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, DIM)).astype(np.float32)
    x = z
    if spectrum == "decay":
        rotation = np.linalg.qr(rng.normal(size=(DIM, DIM)))[0].astype(np.float32)
        x = (
            (z / np.sqrt(np.arange(1, DIM + 1, dtype=np.float32))) @ rotation + rng.normal(size=DIM).astype(np.float32)
        ).astype(np.float32)
    weights = rng.normal(size=(DIM, n_feat)).astype(np.float32)
    counts = np.maximum(0, np.round((z @ weights) / 8 + rng.normal(scale=2.0, size=(n, n_feat)) + 4))
    names = [f"f{j}" for j in range(n_feat)]
    records = [FeatureText(text=f"t{i}", features=dict(zip(names, counts[i].tolist()))) for i in range(n)]
    return x, counts, names, records


def probing_targets(x, counts, names, seed=0):
    """(name, bins, (train, val, test)) per feature with two or more bins: the probing task's own
    construction (quantile bins, splits from the run's shared keys), for the loops below."""
    keys = probing.split_keys(len(x), seed)
    targets = []
    for j, name in enumerate(names):
        y = probing.quantile_bins(counts[:, j])
        if y.max() >= 1:
            targets.append((name, y, probing.stratified_split(y, keys)))
    return targets


def sklearn_probe_loop(x, counts, names, seed=0, warm_start=False):
    """The plain loop: per feature, StandardScaler + LogisticRegression per lambda, on the task's splits.

    ``warm_start=False`` (the loop the issue measured): a fresh fit per lambda. ``warm_start=True``:
    scikit-learn's own warm start from the previous (stronger) lambda, as steb's reference path.
    Returns per feature the chosen lambda, its test accuracy and every lambda's test accuracy.
    """
    out = {}
    for name, y, (tr, va, te) in probing_targets(x, counts, names, seed):
        sc = StandardScaler().fit(x[tr])
        xtr, xva, xte = sc.transform(x[tr]), sc.transform(x[va]), sc.transform(x[te])
        val, test = {}, {}
        model = LogisticRegression(max_iter=probing.MAX_ITER, warm_start=True)  # reused only when warm
        for lam in sorted(probing.STRENGTHS, reverse=True):
            if not warm_start:
                model = LogisticRegression(max_iter=probing.MAX_ITER)
            model.set_params(C=1 / (lam * len(tr)))
            model.fit(xtr, y[tr])
            val[lam], test[lam] = model.score(xva, y[va]), model.score(xte, y[te])
        chosen = probing.select_strength(val, n_val=len(va))
        out[name] = {"strength": chosen, "test": test[chosen], "by_strength": test}
    return out


def steb_test_accuracy_by_strength(x, counts, names, seed=0):
    """Every (feature, lambda) test accuracy of steb's joint solver on the task's splits (untimed)."""
    targets = probing_targets(x, counts, names, seed)
    fits = fit_heads(x, [y for _, y, _ in targets], [split[0] for _, _, split in targets], probing.STRENGTHS)
    return {
        name: {lam: float(np.mean(fit["pred"][split[2], h] == y[split[2]])) for lam, fit in fits.items()}
        for h, (name, y, split) in enumerate(targets)
    }


def bench_probing(args) -> list[dict]:
    n, n_feat = args.probing_texts, args.probing_features
    x, counts, names, records = probing_inputs(n, n_feat, spectrum=args.probing_spectrum)
    rows = []
    results = {}
    for threads in args.probing_threads:  # steb: --threads 1, and its own choice (None)
        ctx = context("feature_texts", records, x)
        ctx.threads = threads
        load = os.getloadavg()[0]
        out = measure(lambda ctx=ctx: probing.SPEC.run(ctx))  # (seconds, peak MiB, metrics)
        chosen = out[2].get("blas_threads", threads or 1)  # probing: one BLAS thread unless --threads
        results[threads] = (*out, chosen, load)
    refs = {}
    peer_threads = args.probing_threads if args.probing_peer_threads is None else args.probing_peer_threads
    for threads in peer_threads:  # the plain loop pinned to one BLAS thread, and at the default
        with threadpool_limits(limits=threads):
            refs[("fresh", threads)] = measure(lambda: sklearn_probe_loop(x, counts, names))
    with threadpool_limits(limits=1):  # the warm-started loop at the plain loop's fastest setting
        refs[("warm", 1)] = measure(lambda: sklearn_probe_loop(x, counts, names, warm_start=True))
    ours_by_strength = steb_test_accuracy_by_strength(x, counts, names)
    fresh = {t: r for (kind, t), r in refs.items() if kind == "fresh"}
    best_fresh = min(fresh, key=lambda t: fresh[t][0])
    timing = "; ".join(f"{kind} loop threads={t or 'default'}: {r[0]:.1f} s" for (kind, t), r in refs.items())
    for threads, (seconds, peak, result, chosen, load) in results.items():
        for kind, ref in (("fresh", refs[("fresh", best_fresh)]), ("warm", refs[("warm", 1)])):
            theirs = ref[2]
            diffs = {k: abs(result["accuracy_by_feature"][k] - theirs[k]["test"]) for k in theirs}
            flips = [k for k in theirs if result["regularisation_by_feature"][k] != theirs[k]["strength"]]
            same = [diffs[k] for k in theirs if k not in flips]
            per_fit = [
                abs(ours_by_strength[k][lam] - theirs[k]["by_strength"][lam])
                for k in theirs
                for lam in probing.STRENGTHS
            ]
            rows.append(
                row(
                    "probing",
                    f"{n:,} texts x {n_feat} features ({args.probing_spectrum}), steb threads={threads or 'auto'} "
                    f"(ran {chosen}) vs {kind} loop",
                    (seconds, peak, result),
                    ref,
                    result["accuracy"],
                    float(np.mean([v["test"] for v in theirs.values()])),
                    note=f"{timing}; per-feature accuracy difference max {max(diffs.values()):.4f}, "
                    f"{sum(d > 0.005 for d in diffs.values())} features over 0.5 points; lambda chosen differently for "
                    f"{len(flips)} features; same lambda: max difference {max(same, default=0.0):.4f}; every "
                    "(feature, lambda) "
                    f"fit: max test-accuracy difference {max(per_fit):.4f}; load before the steb run {load:.2f}, now "
                    f"{os.getloadavg()[0]:.2f}",
                )
            )
    return rows


def bench_threads(args) -> list[dict]:
    """Clustering (batch-32 k-means) with steb's thread choice against the library's default pools."""
    x, y = vectors_with_classes(2800, 14)
    records = [LabelledText(text=f"t{i}", label=str(c)) for i, c in enumerate(y)]
    load = os.getloadavg()[0]
    ours = measure(lambda: clustering.SPEC.run(context("labelled_texts", records, x)))
    default = measure(
        lambda: v_measure_score(
            y, MiniBatchKMeans(n_clusters=14, batch_size=32, n_init="auto", random_state=0).fit(x).labels_
        )
    )
    return [
        row(
            "threads: clustering",
            "2,800 texts, steb's choice vs default pools",
            ours,
            default,
            ours[2]["v_measure"],
            default[2],
            note=f"load {load:.1f}",
        )
    ]


def bench_pair_all_memory(args) -> list[dict]:
    """Peak RSS of the all-to-all task at large n (low dimension so the n^2/2 cosines take minutes, not hours)."""
    rows = []
    for n in args.pair_all_sizes:
        x, y = vectors_with_classes(n, 20, dim=args.pair_all_dim)
        records = [LabelledText(text=f"t{i}", label=str(c)) for i, c in enumerate(y)]
        load = os.getloadavg()[0]
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        ours = measure(lambda records=records, x=x: pair_all.SPEC.run(context("labelled_texts", records, x)))
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        pairs = n * (n - 1) // 2
        rows.append(
            row(
                "pair_all",
                f"{n:,} texts, dim {args.pair_all_dim} ({pairs / 1e9:.2f} G pairs)",
                ours,
                None,
                ours[2]["auroc"],
                None,
                note=f"process peak RSS {rss1:.0f} MiB (before: {rss0:.0f} MiB); arrays of all pairs would need "
                f"{pairs * 33 / 2**30:.0f} GiB; load {load:.1f}",
            )
        )
    return rows


def bench_torch_kernels(args) -> list[dict]:
    """Issue 28 §3: each task's torch kernels on ``--task-device`` (default cpu) against its numpy path.

    The same task, inputs and TaskContext, once with option ``tasks.device=numpy`` and once with the
    torch device; the metrics must agree (identical for retrieval and all-to-all, within the solver
    tolerance for probing). On a CPU the numpy kernels are the default, so this measures what forcing
    torch there costs; on a GPU it is the speed-up the option exists for.
    """
    import torch

    rows = []
    device = args.task_device
    torch_threads = torch.get_num_threads()

    def both(task, scale, spec, shape, data, table, metric):
        load = os.getloadavg()[0]
        results = {}
        for choice in ("numpy", device):
            ctx = context(shape, data, table)
            ctx.options = {"tasks.device": choice}
            if choice != "numpy" and device.startswith("cuda"):
                spec.run(ctx)  # warm-up: CUDA context and kernels
                torch.cuda.synchronize()
            results[choice] = measure(lambda ctx=ctx: spec.run(ctx))
        ours, ref = results[device], results["numpy"]
        out = {
            "task": task,
            "scale": scale,
            "device": device,
            "torch_s": round(ours[0], 2),
            "numpy_s": round(ref[0], 2),
            "torch_vs_numpy": round(ref[0] / ours[0], 2),
            "torch_peak_mib": round(ours[1], 1),
            "numpy_peak_mib": round(ref[1], 1),
            "metric_torch": ours[2][metric],
            "metric_numpy": ref[2][metric],
            "identical_metrics": ours[2] == ref[2],
            "note": f"torch threads {torch_threads}; load before {load:.2f}, after {os.getloadavg()[0]:.2f}",
        }
        print(json.dumps(out), flush=True)
        rows.append(out)

    n = args.torch_retrieval_size
    data, table = retrieval_inputs(n)
    both("retrieval", f"{n:,} x {n:,} x {DIM}", retrieval.SPEC, "retrieval", data, table, "mrr")
    del data, table
    n = args.torch_pair_all_size
    x, y = vectors_with_classes(n, 10)
    records = [LabelledText(text=f"t{i}", label=str(c)) for i, c in enumerate(y)]
    both(
        "pair_all",
        f"{n:,} texts x {DIM} ({n * (n - 1) // 2 / 1e6:.1f} M pairs)",
        pair_all.SPEC,
        "labelled_texts",
        records,
        x,
        "auroc",
    )
    del x, records
    n, n_feat = args.probing_texts, args.probing_features
    x, counts, names, records = probing_inputs(n, n_feat, spectrum=args.probing_spectrum)
    both(
        "probing",
        f"{n:,} texts x {n_feat} features x {DIM} ({args.probing_spectrum})",
        probing.SPEC,
        "feature_texts",
        records,
        x,
        "accuracy",
    )
    return rows


def row(task, scale, ours, ref, metric_ours, metric_ref, note="") -> dict:
    out = {
        "task": task,
        "scale": scale,
        "steb_s": round(ours[0], 2),
        "steb_peak_mib": round(ours[1], 1),
        "metric_steb": round(float(metric_ours), 4),
    }
    if ref is not None:
        out.update(
            sklearn_s=round(ref[0], 2),
            sklearn_peak_mib=round(ref[1], 1),
            speedup=round(ref[0] / ours[0], 2),
            memory_ratio=round(ref[1] / max(ours[1], 1e-9), 2),
            metric_sklearn=round(float(metric_ref), 4),
        )
    if note:
        out["note"] = note
    print(json.dumps(out), flush=True)
    return out


BENCHES = {
    "clustering": bench_clustering,
    "pair_all": bench_pair_all,
    "pair_predefined": bench_pair_predefined,
    "retrieval": bench_retrieval,
    "retrieval_gemm": bench_retrieval_gemm,
    "probing": bench_probing,
    "threads": bench_threads,
    "pair_all_memory": bench_pair_all_memory,
    "torch_kernels": bench_torch_kernels,
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--tasks",
        nargs="*",
        default=[b for b in BENCHES if b not in ("pair_all_memory", "retrieval_gemm", "torch_kernels")],
        choices=list(BENCHES),
    )
    p.add_argument("--retrieval-compare", type=int, default=10_000, help="size timed against plain sklearn")
    p.add_argument("--retrieval-full", type=int, default=100_000, help="size timed for steb alone (0: skip)")
    p.add_argument("--retrieval-gemm-size", type=int, default=20_000, help="retrieval_gemm: n queries x n targets")
    p.add_argument(
        "--retrieval-threads", type=int, default=None, help="retrieval_gemm: steb's threads (default: its own choice)"
    )
    p.add_argument("--repeats", type=int, default=3, help="retrieval_gemm: repeats (best of)")
    p.add_argument("--probing-texts", type=int, default=10_000)
    p.add_argument("--probing-features", type=int, default=46)
    p.add_argument(
        "--probing-threads",
        type=lambda v: None if v == "auto" else int(v),
        nargs="*",
        default=[1, None],
        help="thread settings for both sides (auto/default = library default for sklearn, steb's choice for steb)",
    )
    p.add_argument(
        "--probing-peer-threads",
        type=lambda v: None if v == "auto" else int(v),
        nargs="*",
        default=None,
        help="thread settings for the scikit-learn loops only (default: --probing-threads)",
    )
    p.add_argument("--probing-spectrum", choices=["isotropic", "decay"], default="isotropic")
    p.add_argument("--pair-all-sizes", type=int, nargs="*", default=[20_000, 50_000])
    p.add_argument("--pair-all-dim", type=int, default=16)
    p.add_argument("--task-device", default="cpu", help="torch_kernels: the torch device (cpu, cuda, cuda:N)")
    p.add_argument("--torch-retrieval-size", type=int, default=10_000, help="torch_kernels: n queries x n targets")
    p.add_argument("--torch-pair-all-size", type=int, default=5_000, help="torch_kernels: texts of the all-to-all task")
    args = p.parse_args()
    for name in args.tasks:
        BENCHES[name](args)


if __name__ == "__main__":
    main()
