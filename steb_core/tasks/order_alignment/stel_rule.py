"""STEL's decision rule on similarity matrices (arrays in, credits out; no TaskContext).

STEL: Wegmann & Nguyen (2021), "Does It Capture STEL?", section 2 (quadruple and triple tasks);
STEL-or-Content: Wegmann et al. (2022). The rule for STEL's own instances and for groups of steb's
earlier construction ``steb-all-pairs/v1``. For the similarity matrix ``s[i, j] = sim(anchor i, candidate j)``:

* one anchor (STEL's *triple*, STEL-or-Content): pick the candidate with the highest similarity
  (STEL compares s11 with s12 directly, so we do too rather than comparing 1 - s, which differs for
  similarities > 1). Comparing two floats involves no arithmetic: exact on every CPU.
* two or more anchors: pick the injective assignment p (anchor i -> candidate p(i)) that minimises
  the Euclidean norm of the distance vector ``d_p = (1 - s[0, p(0)], ..., 1 - s[m-1, p(m-1)])``. For
  two anchors and two alternatives this is STEL's quadruple rule: norm(1-s11, 1-s22) against
  norm(1-s12, 1-s21).

Exact ties (why not ``np.linalg.norm``): the norm of the same numbers in another order can differ
by one ulp (``np.linalg.norm`` of a vector is a BLAS dot product, and OpenBLAS's SkylakeX kernels
fuse multiply-adds in another order than the Haswell ones), which turns STEL's ties -- e.g.
s11 = s21 and s12 = s22 -- into CPU-dependent wins. So norms are never compared: sqrt is monotone, and
the decision compares **exact sums of squares** of the distances. Each distance ``1 - s`` is one
correctly rounded double (the same on every CPU); the sum of their squares is compared in exact
rational arithmetic (:class:`fractions.Fraction`). A float pre-filter finds the candidates first: per
assignment, the squares are sorted and added in ascending order (so any reordering of the same
terms gives the same float), and assignments within a relative ``PREFILTER_RTOL`` (1e-12, far above
the rounding error of a sum of m squares, about m * 1.1e-16) of the smallest are decided exactly.
Two assignments tie exactly when their distances' squares sum to the same rational number, for
instance when they are the same distances in another order.

Ties are never broken by a random draw: an instance whose true assignment is among the t tied best
assignments scores 1/t (its expected accuracy under a fair coin); STEL's 0.5 for a tied quadruple is
the case t = 2. ``tie_tolerance`` (option ``order_alignment.tie_tolerance``, default 0 = exact) widens
what counts as a tie: assignments whose norm (square root of the sorted-terms float sum, again the
same on every CPU) is within the tolerance of the best norm.

How the best assignment is searched: when the number of injective assignments c!/(c-m)! is at most
``EXHAUSTIVE_LIMIT`` (8! = 40,320; e.g. 8 anchors, or 7 anchors plus a distractor) every assignment
is scored in one vectorised step. Beyond that, minimising the norm is the same as minimising its
square, a sum of per-edge costs (1 - s)^2, so ``scipy.optimize.linear_sum_assignment`` finds an
optimum; the near-optimal assignments (within a relative ``HUNGARIAN_RTOL`` = 1e-9 of the cost scale,
which absorbs the solver's rounding) are then enumerated by fixing anchor 0 to each candidate whose
restricted optimum stays near the optimum, recursively, stopping after ``TIE_COUNT_CAP`` of them, and
decided exactly as above (credit below 1e-4 is reported as 0 and counted in ``n_tie_count_capped``).

A distractor instance is correct only if the chosen injective assignment equals the answer (the
distractor is chosen for no anchor). A plain instance with one alternative per anchor has nothing to
decide and is not scored (:func:`stel_credits` gives it NaN).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .assignments import (
    BATCH_ELEMENTS,
    EXHAUSTIVE_LIMIT,
    HUNGARIAN_RTOL,
    PREFILTER_ATOL,
    assignment_rows,
    assignments,
    near_optimal,
)

__all__ = [
    "PREFILTER_RTOL",
    "exact_square_sum",
    "sorted_square_sums",
    "alignment_credit",
    "alignment_credits",
    "stel_credits",
]

#: relative window of the float pre-filter; assignments inside it are decided in exact arithmetic.
PREFILTER_RTOL = 1e-12


def exact_square_sum(distances: Sequence[float]) -> Fraction:
    """The exact rational sum of the squares of the given doubles (independent of their order)."""
    return sum((Fraction(float(d)) ** 2 for d in distances), Fraction(0))


def sorted_square_sums(dist: np.ndarray) -> np.ndarray:
    """Per row, the squares sorted ascending and added left to right: the same float for any term order.

    Only elementwise IEEE operations (multiply, add) are used, one column at a time, so no SIMD
    reduction or BLAS kernel can reassociate the sum: the result is identical on every CPU.
    """
    squares = np.sort(dist * dist, axis=1)
    total = squares[:, 0].copy()
    for j in range(1, squares.shape[1]):
        total += squares[:, j]
    return np.asarray(total)


def _window(best: float) -> float:
    return best + best * PREFILTER_RTOL + PREFILTER_ATOL


def _exact_best(dist_rows: Sequence[Sequence[float]] | np.ndarray) -> list[int]:
    """Indices of the rows whose exact sum of squares is minimal (rows: distance vectors)."""
    cache: dict[tuple[float, ...], Fraction] = {}
    exact = []
    for row in dist_rows:
        key = tuple(sorted(abs(float(d)) for d in row))  # same multiset of |d|: same exact sum
        if key not in cache:
            cache[key] = exact_square_sum(key)
        exact.append(cache[key])
    best = min(exact)
    return [i for i, v in enumerate(exact) if v == best]


def alignment_credit(
    sim: np.ndarray,
    answer: Sequence[int],
    *,
    tie_tolerance: float = 0.0,
    exhaustive_limit: int = EXHAUSTIVE_LIMIT,
) -> tuple[float, int]:
    """Credit in [0, 1] for one instance and the number of tied best assignments.

    ``sim`` is (anchors x candidates); ``answer[i]`` is the candidate that matches anchor i.
    Credit is 1/t when the true assignment is among t tied best ones, else 0. The tie count is 0
    when the search stopped at ``TIE_COUNT_CAP`` and -1 when the Hungarian path found the true
    assignment suboptimal (then the ties among the best ones are not counted).
    """
    sim = np.asarray(sim, dtype=np.float64)
    m, k = sim.shape
    answer = tuple(int(a) for a in answer)
    if m == 1:  # STEL triple / STEL-or-Content: the highest similarity wins (no arithmetic: exact)
        row = sim[0]
        top = float(row.max())
        tied = row >= top - tie_tolerance if tie_tolerance > 0 else row == top
        n_tied = int(np.count_nonzero(tied))
        return (1.0 / n_tied if tied[answer[0]] else 0.0), n_tied
    dist = 1.0 - sim
    if math.perm(k, m) <= exhaustive_limit:
        every = assignments(k, m)
        rows = dist[np.arange(m), every]  # (assignments, m) distance vectors
        keys = sorted_square_sums(rows)
        true_row = int(np.flatnonzero((every == np.asarray(answer)).all(axis=1))[0])
        best = float(keys.min())
        if tie_tolerance > 0:
            norms = np.sqrt(keys)
            tied = set(np.flatnonzero(norms <= math.sqrt(best) + tie_tolerance).tolist())
        else:
            near = np.flatnonzero(keys <= _window(best))
            tied = set(near.tolist()) if len(near) == 1 else {int(near[i]) for i in _exact_best(rows[near])}
        return (1.0 / len(tied) if true_row in tied else 0.0), len(tied)
    return _hungarian_credit(dist, answer, tie_tolerance)


def _hungarian_credit(dist: np.ndarray, answer: tuple[int, ...], tie_tolerance: float) -> tuple[float, int]:
    from scipy.optimize import linear_sum_assignment

    m = dist.shape[0]
    cost = dist * dist
    _, cols = linear_sum_assignment(cost)
    optimum = float(sorted_square_sums(dist[np.arange(m), cols][None, :])[0])
    true_key = float(sorted_square_sums(dist[np.arange(m), list(answer)][None, :])[0])
    # the solver's rounding is relative to the size of the costs it adds, not to the optimum
    slack = HUNGARIAN_RTOL * (optimum + float(cost.max())) + PREFILTER_ATOL
    if tie_tolerance > 0:  # a norm tolerance t is (sqrt(opt) + t)^2 - opt on the sum of squares
        slack += 2.0 * tie_tolerance * math.sqrt(optimum) + tie_tolerance**2
    optimum = min(optimum, true_key)
    if true_key > optimum + slack:
        return 0.0, -1  # ties among the (wrong) best assignments are not counted: the credit is 0 anyway
    near = near_optimal(cost, optimum + slack)
    if near is None:
        return 0.0, 0
    rows = np.asarray([dist[np.arange(m), list(p)] for p in near])
    if tie_tolerance > 0:
        norms = np.sqrt(sorted_square_sums(rows))
        tied = [near[i] for i in np.flatnonzero(norms <= float(norms.min()) + tie_tolerance)]
    else:
        tied = [near[i] for i in _exact_best(rows)]
    return (1.0 / len(tied) if answer in tied else 0.0), len(tied)


def alignment_credits(
    sims: np.ndarray,
    answers: np.ndarray,
    *,
    tie_tolerance: float = 0.0,
    exhaustive_limit: int = EXHAUSTIVE_LIMIT,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`alignment_credit` for a batch of same-shape instances: ``sims`` (n, m, c), ``answers`` (n, m).

    The float keys of every assignment are computed for the whole batch; an instance whose best
    key is alone in the pre-filter window is decided there (no tie is possible), any other one is
    handed to :func:`alignment_credit`, which decides it exactly. Same results, far fewer Python steps.
    """
    sims = np.asarray(sims, dtype=np.float64)
    answers = np.asarray(answers, dtype=np.int64)
    n, m, k = sims.shape
    credits = np.zeros(n, dtype=np.float64)
    ties = np.zeros(n, dtype=np.int64)
    if n == 0:
        return credits, ties
    if m == 1 and tie_tolerance == 0:  # triple rule, vectorised: exact float comparisons
        rows = sims[:, 0, :]
        tied = rows == rows.max(axis=1, keepdims=True)
        ties[:] = tied.sum(axis=1)
        credits[:] = np.where(tied[np.arange(n), answers[:, 0]], 1.0 / ties, 0.0)
        return credits, ties
    if m == 1 or tie_tolerance > 0 or math.perm(k, m) > exhaustive_limit:
        for g in range(n):
            credits[g], ties[g] = alignment_credit(
                sims[g], answers[g], tie_tolerance=tie_tolerance, exhaustive_limit=exhaustive_limit
            )
        return credits, ties
    every = assignments(k, m)
    lookup = assignment_rows(k, m)
    true_rows = np.fromiter((lookup[tuple(a)] for a in answers.tolist()), dtype=np.int64, count=n)
    step = max(1, BATCH_ELEMENTS // (len(every) * m))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        dist = 1.0 - sims[lo:hi]
        rows = dist[:, np.arange(m), every]  # (batch, assignments, m)
        squares = np.sort(rows * rows, axis=2)
        keys = squares[:, :, 0].copy()
        for j in range(1, m):  # ascending terms, left to right: as sorted_square_sums
            keys += squares[:, :, j]
        best = keys.min(axis=1)
        near = keys <= (best + best * PREFILTER_RTOL + PREFILTER_ATOL)[:, None]
        alone = near.sum(axis=1) == 1
        idx = np.arange(lo, hi)
        credits[idx[alone]] = near[alone, true_rows[idx[alone]]].astype(np.float64)
        ties[idx[alone]] = 1
        for g in idx[~alone]:
            credits[g], ties[g] = alignment_credit(sims[g], answers[g], exhaustive_limit=exhaustive_limit)
    return credits, ties


def stel_credits(
    sims: np.ndarray,
    answers: np.ndarray,
    has_distractor: bool,
    *,
    tie_tolerance: float = 0.0,
    exhaustive_limit: int = EXHAUSTIVE_LIMIT,
) -> tuple[np.ndarray, np.ndarray]:
    """STEL's credits of same-shape, same-kind instances: ``sims`` (n, m, c), ``answers`` (n, m).

    As :func:`alignment_credits`, except that plain instances (``has_distractor`` False) with one
    alternative per anchor (c!/(c-m)! = 1 assignment) are not scored: credit NaN, tie count 0.
    """
    sims = np.asarray(sims, dtype=np.float64)
    n, m, c = sims.shape
    if not has_distractor and math.perm(c, m) == 1:  # one alternative per anchor: nothing to decide
        return np.full(n, np.nan), np.zeros(n, dtype=np.int64)
    return alignment_credits(sims, answers, tie_tolerance=tie_tolerance, exhaustive_limit=exhaustive_limit)
