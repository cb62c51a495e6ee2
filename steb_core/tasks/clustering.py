"""Clustering: mini-batch k-means on the embeddings, scored by V-measure against the gold labels.

Follows MTEB's clustering evaluator: ``MiniBatchKMeans`` with batch size 32 and k = number of gold
labels, on the raw (un-normalised) vectors, ``n_init="auto"``; we also fix ``random_state`` to the
run seed so a number can be reproduced. ARI and NMI are reported as extras.

Threads: k-means with batch 32 is thousands of tiny steps; OpenMP/BLAS threads only add
synchronisation (measured 0.11 s quiet -> 5.4 s under load with the default pools, 0.058 s with one
thread), so the fit runs single-threaded unless the run sets ``--threads`` (:mod:`._threads`).
Sparse vectors (TF-IDF) are clustered as sparse matrices (scikit-learn's sparse k-means path).
"""

from __future__ import annotations

from typing import Any


from ..context import TaskContext
from ..errors import DataValidationError
from ..specs import TaskSpec
from ._common import encode_labels, option, unique_index
from ._threads import blas_limits

__all__ = ["run_clustering", "SPEC"]

BATCH_SIZE = 32


def run_clustering(ctx: TaskContext) -> dict[str, Any]:
    records = ctx.data
    codes, classes = encode_labels([r.label for r in records])
    k = len(classes)
    if k < 2:
        raise DataValidationError(f"holds a single label ({classes[0]!r})", field="label", expected="two or more classes to cluster")
    if k > len(records):
        raise DataValidationError(f"{k} labels for {len(records)} texts", field="label", expected="more texts than labels")
    uniques, index = unique_index(r.text for r in records)
    vectors = ctx.embed(uniques)[index]
    from sklearn.cluster import MiniBatchKMeans  # noqa: PLC0415 - imported when the task runs, not at start-up
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score, v_measure_score  # noqa: PLC0415

    model = MiniBatchKMeans(
        n_clusters=k,
        batch_size=int(option(ctx, "clustering", "batch_size", BATCH_SIZE)),
        n_init="auto",
        random_state=ctx.seed,
    )
    with blas_limits(ctx, 0):  # batch-32 steps: never worth a second thread (module docstring)
        predicted = model.fit_predict(vectors)
    return {
        "v_measure": float(v_measure_score(codes, predicted)),
        "ari": float(adjusted_rand_score(codes, predicted)),
        "nmi": float(normalized_mutual_info_score(codes, predicted)),
        "n_texts": len(records),
        "n_clusters": k,
    }


SPEC = TaskSpec(
    name="clustering",
    description="Mini-batch k-means (batch 32, k = number of gold labels, fixed seed); V-measure (MTEB protocol).",
    shape="labelled_texts",
    main_metric="v_measure",
    run=run_clustering,
    accepts_sparse=True,
)
