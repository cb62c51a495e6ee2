"""The STEB reference's decision rule on similarity matrices (arrays in, credits out; no TaskContext).

The STEB authors' reference code, github.com/rrivera1849/STEB ``steb/tasks/order_alignment.py`` @8a036408
``align_and_score`` and ``OrderAlignmentTask.evaluate`` (the default of every STEB order-alignment dataset
built by :func:`steb_core.order_groups_from_parallel`):

* similarity = cosine (the products: :mod:`.products`), negatives clamped to 0, cost = ``1 - max(cos, 0)``;
  the anchors are assigned to the candidates (in :meth:`OrderGroup.candidates` order, the reference's
  column order) by ``scipy.optimize.linear_sum_assignment``;
* credit = the fraction of anchors assigned to their own candidate (k = 2: 0 or 1; k = 3 plain: 0, 1/3,
  2/3, 1; a distractor instance with two anchors: 0, 1/2, 1); a group with fewer than two candidates
  scores 0, as the reference's ``n_tgt < 2`` guard;
* exact ties (``ties=solver``, default): the assignment the solver returns. Instances whose best
  assignment (by the float sum of its costs, every injective assignment enumerated at once, vectorised)
  is ahead of every other by more than ``REFERENCE_TIE_WINDOW`` are decided by that sum: the solver
  returns an optimum, so it returns that one. The others -- exact ties above all, e.g. identical
  vectors or similarities clamped to 0 -- are handed to ``linear_sum_assignment`` itself on the same
  cost matrix, so its tie behaviour (the identity, which is the expected answer as the reference lays
  it out) is reproduced by construction, not imitated. ``ties=split`` is the fair variant (not the
  reference's): the credit is the mean credit of all assignments whose exact (rational) cost sum is
  minimal, so an exact tie counts as a fair coin would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .assignments import BATCH_ELEMENTS, EXHAUSTIVE_LIMIT, HUNGARIAN_RTOL, PREFILTER_ATOL, assignments, near_optimal

__all__ = ["TIES", "REFERENCE_TIE_WINDOW", "reference_credits", "assignment_margins"]

#: exact-tie handling of the reference rule: as the solver returns (the reference) or split fairly
TIES = ("solver", "split")
#: best assignment cost sums closer than this (absolute; the sums are at most k) are decided by the solver
REFERENCE_TIE_WINDOW = 1e-12


def _exact_sum(values: Sequence[float] | np.ndarray) -> Fraction:
    return sum((Fraction(float(v)) for v in values), Fraction(0))


def _solver_columns(cost: np.ndarray) -> np.ndarray:
    """The columns ``linear_sum_assignment`` gives anchors 0..m-1 (rows come back sorted)."""
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    return np.asarray(cols[np.argsort(rows)])


def reference_credits(
    sims: np.ndarray, expected: np.ndarray, *, ties: str = "solver", exhaustive_limit: int = EXHAUSTIVE_LIMIT
) -> tuple[np.ndarray, np.ndarray]:
    """Credits of the reference rule for same-shape instances: ``sims`` (n, m, c), ``expected`` (n, m) columns.

    Returns (credit per instance, number of exactly tied optimal assignments per instance; 0 when not
    counted, i.e. beyond ``exhaustive_limit`` assignments). See the module docstring for the rule and
    ``ties``. Equal to ``linear_sum_assignment`` on ``1 - max(sims, 0)`` instance by instance (ties
    included) for ``ties="solver"``; the tests check this against scipy on random and tied inputs.
    """
    if ties not in TIES:
        raise ValueError(f"ties={ties!r}; choose one of {', '.join(TIES)}")
    sims = np.asarray(sims, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.int64)
    n, m, c = sims.shape
    credits = np.zeros(n, dtype=np.float64)
    n_tied = np.zeros(n, dtype=np.int64)
    if n == 0 or c < 2:  # the reference scores a target with fewer than two positions 0
        return credits, n_tied
    cost = 1.0 - np.maximum(sims, 0.0)
    if math.perm(c, m) > exhaustive_limit:
        for g in range(n):
            cols = _solver_columns(cost[g])
            if ties == "split":
                credits[g], n_tied[g] = _split_large(cost[g], expected[g], cols)
            else:
                credits[g] = float(np.mean(cols == expected[g]))
        return credits, n_tied
    every = assignments(c, m)  # (P, m), lexicographic
    step = max(1, BATCH_ELEMENTS // (len(every) * m))
    # an undecided cost matrix's tied optima and the solver's columns, by its bytes: a function of the matrix
    # alone, and undecided matrices repeat (identical or all-clamped vectors give the same matrix in many groups)
    decided: dict[bytes, tuple[list[int], np.ndarray | None]] = {}
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        terms = cost[lo:hi][:, np.arange(m), every]  # (batch, P, m)
        sums = terms[:, :, 0].copy()
        for j in range(1, m):  # left to right, elementwise: the same float on every CPU
            sums += terms[:, :, j]
        right = (every[None, :, :] == expected[lo:hi, None, :]).mean(axis=2)  # (batch, P) credit of each
        best = sums.min(axis=1)
        near = sums <= (best + REFERENCE_TIE_WINDOW)[:, None]
        alone = near.sum(axis=1) == 1
        idx = np.arange(lo, hi)
        credits[idx[alone]] = right[alone, sums[alone].argmin(axis=1)]
        n_tied[idx[alone]] = 1
        for b in np.flatnonzero(~alone).tolist():
            g = lo + b
            key = cost[g].tobytes()
            known = decided.get(key)
            if known is None:
                candidates = np.flatnonzero(near[b])
                exact = [_exact_sum(terms[b, p]) for p in candidates.tolist()]
                low = min(exact)
                tied = [int(p) for p, v in zip(candidates.tolist(), exact) if v == low]
                known = decided[key] = (tied, _solver_columns(cost[g]) if ties == "solver" else None)
            tied, solver_cols = known
            n_tied[g] = len(tied)
            if solver_cols is None:
                credits[g] = float(np.mean(right[b, tied]))
            else:
                credits[g] = float(np.mean(solver_cols == expected[g]))
    return credits, n_tied


def _split_large(cost: np.ndarray, expected: np.ndarray, cols: np.ndarray) -> tuple[float, int]:
    """``ties="split"`` beyond the enumeration limit: mean credit of the exactly optimal assignments."""
    m = cost.shape[0]
    optimum = float(cost[np.arange(m), cols].sum())
    near = near_optimal(cost, optimum + HUNGARIAN_RTOL * (optimum + float(cost.max())) + PREFILTER_ATOL)
    if near is None:  # more than TIE_COUNT_CAP near-optimal assignments: the solver's answer
        return float(np.mean(cols == expected)), 0
    exact = [_exact_sum(cost[np.arange(m), list(p)]) for p in near]
    low = min(exact)
    tied = [p for p, v in zip(near, exact) if v == low]
    return float(np.mean([np.mean(np.asarray(p) == expected) for p in tied])), len(tied)


def assignment_margins(sims: np.ndarray, exhaustive_limit: int = EXHAUSTIVE_LIMIT) -> np.ndarray:
    """Per group (n, m, c): how far the second-best assignment's cost sum is above the best one's.

    The sums are those :func:`reference_credits` compares (``1 - max(s, 0)`` added left to right over
    the anchors, every injective assignment); 0 where the assignments are too many to enumerate.
    """
    n, m, c = sims.shape
    margins = np.zeros(n)
    if n == 0 or c < 2 or math.perm(c, m) > exhaustive_limit or math.perm(c, m) < 2:
        return margins
    every = assignments(c, m)
    cost = 1.0 - np.maximum(sims, 0.0)
    step = max(1, BATCH_ELEMENTS // (len(every) * m))
    for lo in range(0, n, step):
        terms = cost[lo : lo + step][:, np.arange(m), every]
        sums = terms[:, :, 0].copy()
        for j in range(1, m):
            sums += terms[:, :, j]
        two = np.partition(sums, 1, axis=1)
        margins[lo : lo + step] = two[:, 1] - two[:, 0]
    return margins
