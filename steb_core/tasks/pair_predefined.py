"""Predefined pair classification: given trials (e.g. authorship verification), AUROC of the similarity.

Each distinct text is embedded once even when it appears in many trials (style-change pairs share
sentences); the score is the cosine of the two vectors (float64, sparse vectors kept sparse), or the
encoder's own similarity. Ties follow the grid rule of :mod:`._common` (cosines on scale 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..context import TaskContext
from ..specs import TaskSpec
from ._common import binary_ranking_metrics, pair_similarities, uses_cosine

__all__ = ["run_pair_predefined", "SPEC"]


def run_pair_predefined(ctx: TaskContext) -> dict[str, Any]:
    pairs = ctx.data
    # row-wise dot products (einsum / sparse multiply): no BLAS or OpenMP pool involved
    scores = pair_similarities(ctx, [p.text_a for p in pairs], [p.text_b for p in pairs])
    same = np.fromiter((p.same for p in pairs), dtype=bool, count=len(pairs))
    scale = 1.0 if uses_cosine(ctx) else None
    metrics: dict[str, Any] = binary_ranking_metrics(scores, same, what="same", scale=scale)
    metrics.update(n_pairs=len(pairs), n_positive_pairs=int(np.count_nonzero(same)))
    return metrics


SPEC = TaskSpec(
    name="pair_predefined",
    description="Predefined pair classification (e.g. authorship-verification trials): AUROC of the similarity.",
    shape="pairs",
    main_metric="auroc",
    run=run_pair_predefined,
    needs_vectors=False,
    accepts_sparse=True,
)
