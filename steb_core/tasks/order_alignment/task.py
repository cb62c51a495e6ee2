"""The order-alignment task's plumbing: the TaskSpec, the rule chosen for a run, groups to arrays and back.

What happens to a run (STEB §3, appendix C; the rules themselves are pure functions elsewhere in the package):

1. the rule (:func:`scoring_of`): the run's ``--task-option order_alignment.scoring``, else the task default the
   dataset declares (``task_defaults={"order_alignment": {"scoring": ...}}`` on its bundle or its spec), else
   ``stel``; a bundle that still names its rule in ``info["order_alignment_scoring"]`` (the spelling before
   issue 48) is read with a DeprecationWarning;
2. the groups' similarity matrices, bucketed by shape (anchors, candidates): each distinct text embedded once and
   each distinct (anchor, candidate) pair scored once (:func:`score_pairs`); the reference rule's cosines the
   ``order_alignment.products`` way (:func:`reference_matrices`, :mod:`.products`);
3. each bucket's credits from the rule (:func:`.reference_rule.reference_credits`,
   :func:`.stel_rule.stel_credits`);
4. the metrics from the credits (:func:`.metrics.order_alignment_metrics`), the rule's settings beside them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._context import TaskContext
from ..._errors import DataValidationError
from ..._specs import TaskSpec
from ...reference_tree.task_export import ORDER_ALIGNMENT_EXPORT
from .._common import option, option_choice, pair_similarities
from .assignments import EXHAUSTIVE_LIMIT, chance_level
from .layout import GroupLayout, group_layout
from .metrics import order_alignment_metrics
from .products import PRODUCTS, reference_cosines, scored_once
from .reference_rule import TIES, reference_credits
from .stel_rule import stel_credits

__all__ = [
    "SCORINGS",
    "FALLBACK_SCORING",
    "LEGACY_SCORING_KEY",
    "scoring_of",
    "score_pairs",
    "reference_matrices",
    "run_reference",
    "run_stel",
    "run_order_alignment",
    "SPEC",
]

#: scoring rules: the STEB reference's (:mod:`.reference_rule`) and STEL's (:mod:`.stel_rule`)
SCORINGS = ("steb-reference", "stel")
#: the rule of groups whose dataset declares none
FALLBACK_SCORING = "stel"
#: where a bundle named its rule before issue 48 (read with a DeprecationWarning)
LEGACY_SCORING_KEY = "order_alignment_scoring"

Buckets = tuple[dict[tuple[int, int], list[int]], dict[tuple[int, int], np.ndarray]]


def scoring_of(ctx: TaskContext) -> str:
    """The scoring rule for this run: option ``order_alignment.scoring``, else the dataset's task default, else
    the bundle's deprecated ``info["order_alignment_scoring"]``, else ``stel``."""
    missing = object()
    if ctx.option("order_alignment", "scoring", missing) is missing:
        legacy = (ctx.bundle.info or {}).get(LEGACY_SCORING_KEY) if ctx.bundle is not None else None
        if legacy:
            warnings.warn(
                f"dataset '{ctx.dataset.name}' names its order-alignment rule in info[{LEGACY_SCORING_KEY!r}]; "
                f'declare it as a task default instead: DatasetSpec(task_defaults={{"order_alignment": '
                f'{{"scoring": {str(legacy)!r}}}}}) (issue 48)',
                DeprecationWarning,
                stacklevel=2,
            )
            return option_choice(ctx, "order_alignment", "scoring", SCORINGS, str(legacy))
    return option_choice(ctx, "order_alignment", "scoring", SCORINGS, FALLBACK_SCORING)


def score_pairs(ctx: TaskContext, groups: Sequence[Any], layout: GroupLayout | None = None) -> Buckets:
    """Similarity matrices of all groups, bucketed by shape (anchors, candidates).

    Each distinct (anchor, candidate) pair is scored once: a plain group and the distractor group of
    the same pairing share most of their pairs, which matters for slow similarity-only methods.
    ``layout``: the groups' :func:`.layout.group_layout`, if the caller has it.
    """
    layout = layout if layout is not None else group_layout(groups)
    members = {shape: index.tolist() for shape, index in layout.members.items()}
    texts = layout.texts
    matrices = scored_once(
        layout.rows(),
        len(texts),
        lambda left, right: pair_similarities(
            ctx, [texts[i] for i in left.tolist()], [texts[i] for i in right.tolist()]
        ),
    )
    return members, matrices


def reference_matrices(
    ctx: TaskContext,
    groups: Sequence[Any],
    products: str = "reference",
    *,
    prefilter: bool = True,
    layout: GroupLayout | None = None,
) -> Buckets:
    """The cosine matrices the reference rule decides on, bucketed by shape (anchors, candidates).

    Each distinct text is embedded once; the cosines are computed the ``products`` way
    (:func:`.products.reference_cosines`; ``prefilter=False`` emulates the reference's products for every
    group, not only the undecided ones). Sparse vectors and similarity-only encoders use the float64 pair
    similarities of :func:`score_pairs`. ``layout``: the groups' :func:`.layout.group_layout`, if the caller has it.
    """
    if products not in PRODUCTS:
        raise DataValidationError(
            f"order_alignment.products={products!r}", field="order_alignment.products", expected=" or ".join(PRODUCTS)
        )
    layout = layout if layout is not None else group_layout(groups)
    if not ctx.has_vectors or ctx.similarity_fn is not None:
        return score_pairs(ctx, groups, layout)
    vectors = ctx.embed(layout.texts)
    if hasattr(vectors, "tocsr"):
        return score_pairs(ctx, groups, layout)
    members = {shape: index.tolist() for shape, index in layout.members.items()}
    return members, reference_cosines(vectors, layout.rows(), products, prefilter=prefilter)


def run_order_alignment(ctx: TaskContext) -> dict[str, Any]:
    if scoring_of(ctx) == "steb-reference":
        return run_reference(ctx)
    return run_stel(ctx)


def run_reference(ctx: TaskContext) -> dict[str, Any]:
    """The reference rule over every group (:mod:`.reference_rule`); metrics named as steb's, the reference's beside."""
    groups = ctx.data
    ties = option_choice(ctx, "order_alignment", "ties", TIES, "solver")
    limit = int(option(ctx, "order_alignment", "exhaustive_limit", EXHAUSTIVE_LIMIT))
    products = option_choice(ctx, "order_alignment", "products", PRODUCTS, "reference")
    layout = group_layout(groups)
    members, matrices = reference_matrices(ctx, groups, products, layout=layout)
    credit = np.zeros(len(groups), dtype=np.float64)
    tied = np.zeros(len(groups), dtype=np.int64)
    for shape, index in members.items():
        expected = layout.expected[shape]
        credit[index], tied[index] = reference_credits(matrices[shape], expected, ties=ties, exhaustive_limit=limit)
    # the reference's chance: the expected share of anchors right, 1 / candidates
    chance, distractor, style, first = layout.chance, layout.distractor, layout.style, layout.first
    return order_alignment_metrics(
        credit,
        chance,
        tied,
        distractor,
        style,
        first,
        by_variant=True,
        details={
            "scoring": "steb-reference",
            "ties": ties,
            "products": products,
            "reference_metric": {"accuracy": "acc_mean", "distractor_accuracy": "distractor_acc_mean"},
        },
    )


def run_stel(ctx: TaskContext) -> dict[str, Any]:
    """STEL's rule (:mod:`.stel_rule`: quadruple/triple, STEL-or-Content; exact ties 1/t)."""
    groups = ctx.data
    tolerance = float(option(ctx, "order_alignment", "tie_tolerance", 0.0))
    limit = int(option(ctx, "order_alignment", "exhaustive_limit", EXHAUSTIVE_LIMIT))
    layout = group_layout(groups)
    members, matrices = score_pairs(ctx, groups, layout)
    distractor, style, first = layout.distractor, layout.style, layout.first
    credit = np.full(len(groups), np.nan)  # each scored group's credit in data order (trivial ones stay NaN)
    tied = np.zeros(len(groups), dtype=np.int64)
    chance = np.zeros(len(groups), dtype=np.float64)
    n_capped = n_trivial = 0
    for (m, kc), index in members.items():
        rows = np.asarray(index, dtype=np.int64)
        for has_distractor in (False, True):
            chosen = rows[distractor[rows] == has_distractor]
            if len(chosen) == 0:
                continue
            position = np.flatnonzero(distractor[rows] == has_distractor)
            answers = layout.expected[(m, kc)][position]
            credits, ties = stel_credits(
                matrices[(m, kc)][position], answers, has_distractor, tie_tolerance=tolerance, exhaustive_limit=limit
            )
            if np.isnan(credits).all():
                n_trivial += len(chosen)
                continue
            n_capped += int(np.count_nonzero(ties == 0))
            credit[chosen], tied[chosen], chance[chosen] = credits, ties, chance_level(m, kc)
    return order_alignment_metrics(
        credit,
        chance,
        tied,
        distractor,
        style,
        first,
        details={"n_trivial_plain": n_trivial, "n_tie_count_capped": n_capped, "scoring": "stel"},
    )


SPEC = TaskSpec(
    name="order_alignment",
    description=(
        f"Order alignment (STEL generalised), scored by the rule the dataset declares: {SCORINGS[0]} (STEB's datasets:"
        " cosines clamped at 0, anchors assigned by linear_sum_assignment, exact ties as the solver returns them) or "
        f"{FALLBACK_SCORING} (STEL's instances and undeclared data: STEL's quadruple/triple rules, exact ties 1/t); "
        "main score the distractor (content-independence) accuracy, plain accuracy beside it."
    ),
    shape="order_groups",
    main_metric="distractor_accuracy",
    fallback_metrics=("accuracy",),
    companion_metrics=("accuracy",),
    run=run_order_alignment,
    needs_vectors=False,
    # 2: issue 37, the STEB reference's rules (see the package docstring); 3: the reference machine's products,
    # emulated (``order_alignment.products=reference``, :mod:`.products`)
    version="3",
    options=("scoring", "ties", "exhaustive_limit", "products", "tie_tolerance"),
    # the distractor accuracy is the content-independence column; the object-of-study, feature and application
    # columns read plain accuracy, else (every instance has a distractor) the distractor accuracy
    column_metrics={"definitional": ("accuracy", "distractor_accuracy"), "content-independence": "distractor_accuracy"},
    cheap_to_score=True,  # a few cosines per group
    default_for_shape=True,
    warm_imports=("scipy.optimize",),  # linear_sum_assignment
    tree_export=ORDER_ALIGNMENT_EXPORT,
)
