"""Order alignment (STEL generalised): match set B's shuffled texts to set A's style order.

Decision rule, for the similarity matrix ``s[i, j] = sim(anchor i, candidate j)``:

* one anchor (STEL's *triple*): pick the candidate with the highest similarity (STEL compares s11
  with s12 directly, so we do too rather than comparing 1 - s, which differs for similarities > 1);
* two or more anchors: pick the injective assignment p (anchor i -> candidate p(i)) that minimises
  the Euclidean norm of the distance vector ``(1 - s[0, p(0)], ..., 1 - s[m-1, p(m-1)])``. For two
  anchors and two alternatives this is exactly STEL's quadruple rule: the norm of (1-s11, 1-s22)
  against the norm of (1-s12, 1-s21), computed the same way (square root of the sum of squares in
  anchor order, as ``np.linalg.norm``) and compared exactly.

Ties are never broken by a random draw: an instance whose true assignment is among the k tied best
assignments scores 1/k (its expected accuracy under a fair coin); STEL's 0.5 for a tied quadruple is
the case k = 2. ``tie_tolerance`` (option ``order_alignment.tie_tolerance``, default 0 = STEL's
exact comparison) widens what counts as a tie.

How the best assignment is searched: when the number of injective assignments k!/(k-m)! is at most
``EXHAUSTIVE_LIMIT`` (8! = 40,320; e.g. 8 anchors, or 7 anchors plus a distractor) every assignment
is scored in one vectorised step and ties are read off exactly. Beyond that, minimising the norm is
the same as minimising its square, a sum of per-edge costs (1 - s)^2, so
``scipy.optimize.linear_sum_assignment`` on the squared distances finds an optimum exactly; ties are
then counted by fixing anchor 0 to each candidate whose restricted optimum (that edge plus the
assignment optimum of the rest) equals the global optimum, recursively (relative tolerance 1e-9,
since the sums are taken in different orders), stopping at ``TIE_COUNT_CAP`` tied assignments
(credit below 1e-4 is reported as 0 and counted in ``n_tie_count_capped``).

Distractor variant: the distractor joins set B as one more candidate; the instance is correct only
if the chosen injective assignment equals the answer (the distractor is chosen for no anchor). With
one anchor, one alternative and a distractor this is STEL-or-Content.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from functools import lru_cache
from typing import Any, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..context import TaskContext
from ..specs import TaskSpec
from ._common import option, pair_similarities

__all__ = ["alignment_credit", "run_order_alignment", "SPEC", "EXHAUSTIVE_LIMIT", "TIE_COUNT_CAP"]

EXHAUSTIVE_LIMIT = 40_320
TIE_COUNT_CAP = 10_000
_HUNGARIAN_RTOL = 1e-9
UNSPECIFIED = "unspecified"


@lru_cache(maxsize=64)
def _assignments(k: int, m: int) -> np.ndarray:
    """All injective maps of m anchors into k candidates, one per row (lexicographic order)."""
    return np.asarray(list(itertools.permutations(range(k), m)), dtype=np.int64).reshape(-1, m)


def _tied(values: np.ndarray, best: float, tolerance: float) -> np.ndarray:
    return values <= best + tolerance if tolerance > 0 else values == best


def alignment_credit(
    sim: np.ndarray,
    answer: Sequence[int],
    *,
    tie_tolerance: float = 0.0,
    exhaustive_limit: int = EXHAUSTIVE_LIMIT,
) -> tuple[float, int]:
    """Credit in [0, 1] for one instance and the number of tied best assignments.

    ``sim`` is (anchors x candidates); ``answer[i]`` is the candidate that matches anchor i.
    Credit is 1/k when the true assignment is among k tied best ones, else 0. The tie count is 0
    when the search stopped at ``TIE_COUNT_CAP`` and -1 when the Hungarian path found the true
    assignment suboptimal (then the ties among the best ones are not counted).
    """
    sim = np.asarray(sim, dtype=np.float64)
    m, k = sim.shape
    answer = tuple(int(a) for a in answer)
    if m == 1:  # STEL triple: the highest similarity wins
        row = sim[0]
        tied = _tied(-row, -float(row.max()), tie_tolerance)
        n_tied = int(np.count_nonzero(tied))
        return (1.0 / n_tied if tied[answer[0]] else 0.0), n_tied
    if math.perm(k, m) <= exhaustive_limit:
        assignments = _assignments(k, m)
        norms = np.linalg.norm(1.0 - sim[np.arange(m), assignments], axis=1)
        tied = _tied(norms, float(norms.min()), tie_tolerance)
        n_tied = int(np.count_nonzero(tied))
        true_row = int(np.flatnonzero((assignments == np.asarray(answer)).all(axis=1))[0])
        return (1.0 / n_tied if tied[true_row] else 0.0), n_tied
    return _hungarian_credit(sim, answer, tie_tolerance)


def _hungarian_credit(sim: np.ndarray, answer: tuple[int, ...], tie_tolerance: float) -> tuple[float, int]:
    m = sim.shape[0]
    cost = (1.0 - sim) ** 2
    _, cols = linear_sum_assignment(cost)
    best_norm = float(np.linalg.norm(1.0 - sim[np.arange(m), cols]))
    true_norm = float(np.linalg.norm(1.0 - sim[np.arange(m), list(answer)]))
    slack = tie_tolerance + _HUNGARIAN_RTOL * max(best_norm, 1e-300)
    if true_norm > best_norm + slack:
        return 0.0, -1  # ties among the (wrong) best assignments are not counted: the credit is 0 anyway
    optimum = min(float(cost[np.arange(m), cols].sum()), float(cost[np.arange(m), list(answer)].sum()))
    n_tied = _count_optimal(cost, optimum, tie_tolerance)
    return (1.0 / n_tied if n_tied else 0.0), n_tied


def _count_optimal(cost: np.ndarray, optimum: float, tie_tolerance: float) -> int:
    """Number of injective assignments with the optimal sum of costs (0 when above TIE_COUNT_CAP)."""
    # a norm tolerance t on sqrt(sum) is about 2 * t * sqrt(optimum) on the sum of squares
    slack = 2.0 * tie_tolerance * math.sqrt(optimum) + tie_tolerance**2 + _HUNGARIAN_RTOL * max(optimum, 1e-300)

    def rest_optimum(sub: np.ndarray) -> float:
        if sub.shape[0] == 0:
            return 0.0
        r, c = linear_sum_assignment(sub)
        return float(sub[r, c].sum())

    def count(sub: np.ndarray, target: float, budget: int) -> int:
        if sub.shape[0] == 0:
            return 1
        found = 0
        for j in range(sub.shape[1]):
            rest = np.delete(sub[1:], j, axis=1)
            if sub[0, j] + rest_optimum(rest) <= target + slack:
                found += count(rest, target - sub[0, j], budget - found)
                if found > budget:
                    return found
        return found

    n = count(cost, optimum, TIE_COUNT_CAP)
    return n if n <= TIE_COUNT_CAP else 0


def _candidates(group: Any) -> tuple[str, ...]:
    return group.alternatives + ((group.distractor,) if group.distractor is not None else ())


def _mean_by(values: dict[str, list[float]]) -> dict[str, float]:
    return {key: float(np.mean(v)) for key, v in sorted(values.items())}


def run_order_alignment(ctx: TaskContext) -> dict[str, Any]:
    groups = ctx.data
    tolerance = float(option(ctx, "order_alignment", "tie_tolerance", 0.0))
    limit = int(option(ctx, "order_alignment", "exhaustive_limit", EXHAUSTIVE_LIMIT))
    anchors_flat: list[str] = []
    candidates_flat: list[str] = []
    for g in groups:
        cands = _candidates(g)
        for a in g.anchors:
            anchors_flat.extend([a] * len(cands))
            candidates_flat.extend(cands)
    sims = pair_similarities(ctx, anchors_flat, candidates_flat)

    plain: dict[str, list[float]] = defaultdict(list)
    with_distractor: dict[str, list[float]] = defaultdict(list)
    n_tied = n_capped = n_trivial = 0
    pos = 0
    for g in groups:
        m, kc = len(g.anchors), len(_candidates(g))
        matrix = sims[pos : pos + m * kc].reshape(m, kc)
        pos += m * kc
        style = g.style_type or UNSPECIFIED
        k = len(g.alternatives)
        if math.perm(k, m) > 1:
            credit, ties = alignment_credit(matrix[:, :k], g.answer, tie_tolerance=tolerance, exhaustive_limit=limit)
            plain[style].append(credit)
            n_tied += ties > 1
            n_capped += ties == 0
        else:
            n_trivial += 1  # one alternative per anchor: nothing to decide without the distractor
        if g.distractor is not None:
            credit, ties = alignment_credit(matrix, g.answer, tie_tolerance=tolerance, exhaustive_limit=limit)
            with_distractor[style].append(credit)
            n_capped += ties == 0

    metrics: dict[str, Any] = {}
    all_plain = [c for v in plain.values() for c in v]
    all_distractor = [c for v in with_distractor.values() for c in v]
    if all_plain:
        metrics["accuracy"] = float(np.mean(all_plain))
        metrics["accuracy_by_style_type"] = _mean_by(plain)
    if all_distractor:
        metrics["distractor_accuracy"] = float(np.mean(all_distractor))
        metrics["distractor_accuracy_by_style_type"] = _mean_by(with_distractor)
        if not all_plain:  # only STEL-or-Content-style groups: their task *is* the distractor decision
            metrics["accuracy"] = metrics["distractor_accuracy"]
            metrics["accuracy_by_style_type"] = dict(metrics["distractor_accuracy_by_style_type"])
            metrics["accuracy_is_distractor_accuracy"] = 1
    metrics.update(
        n_instances=len(all_plain),
        n_distractor_instances=len(all_distractor),
        n_trivial_without_distractor=n_trivial,
        n_tied=n_tied,
        n_tie_count_capped=n_capped,
    )
    return metrics


SPEC = TaskSpec(
    name="order_alignment",
    description="Order alignment (STEL generalised, exact quadruple/triple rules, ties score 1/k) with distractor variant.",
    shape="order_groups",
    main_metric="accuracy",
    run=run_order_alignment,
    needs_vectors=False,
)
