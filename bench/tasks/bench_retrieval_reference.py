"""What retrieval's CPU-independent reference rule costs against the reference's own calls (issue 46).

``retrieval.products=exact`` (the default: each dot product rounded once from its exact value, ties in
expectation, :mod:`steb_core.tasks._retrieval_ranks`) against ``products=blas`` (scikit-learn's
``pairwise_distances`` and one ``np.argsort`` per query, as the STEB authors' code) on the same random
float32 vectors, in one process, alternating, best of ``--repeats``; both through
:func:`steb_core.tasks.retrieval.reference_retrieval`. Prints one markdown row per size with both times, the
ratio, the queries whose true target ties, and the two MRRs (equal where nothing ties).

    .venv/bin/python bench/tasks/bench_retrieval_reference.py --sizes 1000 4000 --dim 384 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from steb_core.tasks.retrieval import reference_retrieval


def vectors(n: int, dim: int, seed: int, counts: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queries, targets (one per author, the query's author shuffled) and authors; ``counts``: small word counts
    (function-word-like, many ties) instead of Gaussian embeddings (none)."""
    rng = np.random.default_rng(seed)
    base = rng.random((n, dim)) if counts else rng.normal(size=(n, dim))
    if counts:
        q = rng.poisson(0.3 * base).astype(np.float32) / 50
        t = rng.poisson(0.3 * base).astype(np.float32) / 50
    else:
        q = (base + 3.0 * rng.normal(size=(n, dim))).astype(np.float32)
        t = (base + 3.0 * rng.normal(size=(n, dim))).astype(np.float32)
    order = rng.permutation(n)
    return q, t[order], order


def best_of(
    repeats: int, q: np.ndarray, t: np.ndarray, qa: np.ndarray, ta: np.ndarray, products: str
) -> tuple[float, dict]:
    """The fastest of ``repeats`` calls of the reference rule with ``products``, and its metrics."""
    best, out = float("inf"), {}
    for _ in range(repeats):
        start = time.perf_counter()
        out = reference_retrieval(q, t, qa, ta, products=products)
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000])
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f}")
    print(
        "| queries x targets x dim | vectors | exact (default) | blas (reference's calls) | ratio "
        "| queries with ties | MRR exact / blas |"
    )
    print("|---|---|---:|---:|---:|---:|---|")
    for n in args.sizes:
        for counts in (False, True):
            q, t, order = vectors(n, args.dim, n, counts)
            authors = np.arange(n).astype(str)
            exact_s, exact = best_of(args.repeats, q, t, authors, authors[order], "exact")
            blas_s, blas = best_of(args.repeats, q, t, authors, authors[order], "blas")
            print(
                f"| {n} x {n} x {args.dim} | {'counts' if counts else 'gaussian'} | {exact_s:.2f} s | {blas_s:.2f} s "
                f"| {exact_s / blas_s:.2f}x | {exact['n_queries_with_ties']} | {exact['mrr']:.6f} / {blas['mrr']:.6f} |"
            )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
