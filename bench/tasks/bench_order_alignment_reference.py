"""Order alignment as the STEB reference builds and scores it, at the reference's size (issue 37).

One class of N = 200 sequences of k styles (random Gaussian vectors, d = 300): 19,900 pairs, three groups
each (plain, distractor "last", distractor "first"), built by ``order_groups_from_parallel`` (construction
``steb-reference/v1``) and scored by the order-alignment task (``scoring=steb-reference``, cosines by the
task's default ``order_alignment.products``). The third row uses sparse 0/1 vectors, so nearly every
instance is an exact tie and goes to ``scipy.optimize.linear_sum_assignment`` one by one (the worst case).

    .venv/bin/python bench/tasks/bench_order_alignment_reference.py
"""

from __future__ import annotations

import time

import numpy as np

from steb_core import DatasetBundle, DatasetSpec, TaskContext, construction_task_defaults
from steb_core._parallel_corpora import ParallelItem, order_groups_from_parallel
from steb_core.tasks.order_alignment import run_order_alignment


def main() -> None:
    spec = DatasetSpec(
        name="oa-bench", description="bench", tasks=("order_alignment",), loader=lambda ctx: None, needs_data=False
    )
    print("| k | vectors | groups | build | score | ties (plain / distractor) |")
    print("|---|---|---:|---:|---:|---:|")
    for k, sparse in ((2, False), (3, False), (3, True)):
        rng = np.random.default_rng(0)
        n, d = 200, 300
        v = (
            rng.normal(size=(n, k, d))
            if not sparse
            else rng.integers(0, 2, size=(n, k, d)) * (rng.random((n, k, d)) < 0.01)
        )
        table = {f"t{i}.{p}": v[i, p].astype(np.float32) for i in range(n) for p in range(k)}
        items = [ParallelItem(tuple(f"t{i}.{p}" for p in range(k)), id=f"s{i}", style_type="x") for i in range(n)]
        t0 = time.perf_counter()
        groups, info = order_groups_from_parallel(items, seed=0, salt="bench")
        t1 = time.perf_counter()
        ctx = TaskContext(
            dataset=spec,
            bundle=DatasetBundle(
                order_groups=groups, info=info, task_defaults=construction_task_defaults(info["construction"])
            ),
            data=groups,
            embed_fn=lambda texts, table=table: np.stack([table[t] for t in texts]),
        )
        m = run_order_alignment(ctx)
        t2 = time.perf_counter()
        print(
            f"| {k} | {'sparse 0/1' if sparse else 'Gaussian'} | {len(groups):,} | {t1 - t0:.2f} s | {t2 - t1:.2f} s | "
            f"{m['n_tied']:,} / {m['n_distractor_tied']:,} |"
        )


if __name__ == "__main__":
    main()
