"""What the emulated reference products cost (``steb_core.tasks._reference_products``), at STEB's sizes.

Why a bench: the emulation replaces one BLAS call by a few dozen elementwise numpy operations per
multiply-add, so its cost is the price of CPU-independent reference figures; this measures it against
the alternatives each task offers, on data shaped like STEB's largest instances:

* order alignment: N = 200 sequences of one class, every ``itertools.combinations`` pair (19,900) with
  its plain group and two distractor groups, k = 2 (ASSET, Shakespeare) and k = 3 (OneStop), function-word-
  like vectors (K = 458): ``order_alignment.products`` = ``reference`` / ``exact`` / ``blas``;
* all-to-all pairs: 1,500 texts x 459 dimensions (eWAVE, bible_versions): ``pair_all.scores`` =
  ``reference`` (ssyrk emulated) / ``blas`` (scikit-learn's ``cosine_similarity``);
* pre-defined pairs: 20,000 pairs x 459: ``reference`` (sdot emulated) / ``blas`` (one sdot per pair).

Usage: ``.venv/bin/python bench/steb_reference/bench_products.py [--repeat 1]`` (prints a markdown table).
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sklearn.preprocessing import normalize

from steb_core import DatasetBundle, DatasetSpec, TaskContext, construction_task_defaults
from steb_core._parallel_corpora import ParallelItem, order_groups_from_parallel
from steb_core.tasks import _reference_products as rp
from steb_core.tasks._common import reference_all_pair_scores, reference_pair_scores
from steb_core.tasks.order_alignment.products import PRODUCTS
from steb_core.tasks.order_alignment.reference_rule import assignment_margins
from steb_core.tasks.order_alignment.task import reference_matrices


def words_like(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """Function-word-like float32 rows: small counts over a text length, word j used with probability
    ~3 / (j + 1) (a few frequent words in most sentences, ~18 distinct words a sentence)."""
    used = rng.random((n, k)) < np.minimum(0.9, 3.0 / (np.arange(k) + 1.0))
    counts = rng.integers(1, 4, size=(n, k)) * used
    return (counts / rng.integers(10, 60, size=(n, 1))).astype(np.float32)


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def order_alignment_rows(repeat: int) -> list[tuple[str, str, float]]:
    rng = np.random.default_rng(0)
    rows = []
    for k in (2, 3):
        vectors = words_like(rng, 200 * k, 458).reshape(200, k, 458)
        same = rng.random(200) < 0.2  # some sequences repeat a text (ASSET: a simplification equal to the original)
        vectors[same, 1] = vectors[same, 0]
        vectors = vectors.reshape(200 * k, 458)
        texts = [f"t{i}" for i in range(len(vectors))]
        table = dict(zip(texts, vectors))
        items = [ParallelItem(tuple(texts[i * k : (i + 1) * k]), id=f"s{i}", style_type="x") for i in range(200)]
        groups, info = order_groups_from_parallel(items, seed=0, salt="d", per_class=None)
        spec = DatasetSpec(
            name="b", description="b", tasks=("order_alignment",), loader=lambda c: None, needs_data=False
        )
        ctx = TaskContext(
            dataset=spec,
            bundle=DatasetBundle(
                order_groups=groups, info=info, task_defaults=construction_task_defaults(info["construction"])
            ),
            data=groups,
            embed_fn=lambda ts, table=table: np.stack([table[t] for t in ts]),
        )
        what = f"order alignment, 19,900 pairs x 3 groups, k = {k}, K = 458"
        for products in PRODUCTS:
            seconds = timed(partial(reference_matrices, ctx, groups, products), repeat)
            note = " (the task's: emulated where undecided)" if products == "reference" else ""
            rows.append((what, products + note, seconds))
        seconds = timed(partial(reference_matrices, ctx, groups, "reference", prefilter=False), repeat)
        rows.append((what, "reference, every group emulated", seconds))
        _, every = reference_matrices(ctx, groups, "reference", prefilter=False)
        for shape, m in every.items():
            ties = int(np.count_nonzero(assignment_margins(m) == 0))
            print(f"k = {k}, groups {shape}: {len(m)}, exact ties: {ties}", file=sys.stderr)
    return rows


def pair_rows(repeat: int) -> list[tuple[str, str, float]]:
    rng = np.random.default_rng(1)
    vectors = words_like(rng, 1500, 459)
    rows = []
    unit = normalize(vectors)
    for products in ("reference", "blas"):
        seconds = timed(partial(reference_all_pair_scores, vectors, "cosine", products=products), repeat)
        rows.append(("all-to-all, 1,500 texts x 459", products + note(products), seconds))
    seconds = timed(partial(reference_all_pair_scores, vectors, "cosine", prefilter=False), repeat)
    rows.append(("all-to-all, 1,500 texts x 459", "reference, every score emulated (tile by tile)", seconds))
    a, b = np.triu_indices(1500, 1)
    pattern = rp.ssyrk_patterns(1500, 459)
    seconds = timed(partial(rp.ssyrk_haswell_pairs, unit, b, a, pattern[b, a]), repeat)
    rows.append(("all-to-all, 1,500 texts x 459", "reference, every score emulated (pair-wise)", seconds))
    _, emulated = rp.ssyrk_ranked(unit)
    print(f"all-to-all: {emulated} of {len(a)} scores (distinct keys) emulated", file=sys.stderr)
    ia = rng.integers(0, 1500, 20000)
    ib = rng.integers(0, 1500, 20000)
    for products in ("reference", "blas"):
        seconds = timed(partial(reference_pair_scores, vectors, ia, ib, "cosine", products=products), repeat)
        rows.append(("pre-defined pairs, 20,000 x 459", products + note(products), seconds))
    seconds = timed(partial(reference_pair_scores, vectors, ia, ib, "cosine", prefilter=False), repeat)
    rows.append(("pre-defined pairs, 20,000 x 459", "reference, every score emulated", seconds))
    _, emulated = rp.sdot_ranked(unit, ia, ib)
    print(f"pre-defined: {emulated} of {len(ia)} scores emulated", file=sys.stderr)
    return rows


def note(products: str) -> str:
    return " (the task's: emulated where a rank is undecided)" if products == "reference" else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    args = ap.parse_args(argv)
    print("| work | products | seconds |")
    print("|---|---|---:|")
    for what, products, seconds in order_alignment_rows(args.repeat) + pair_rows(args.repeat):
        print(f"| {what} | {products} | {seconds:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
