"""Order alignment (STEL generalised): match set B's texts to set A's style order.

STEB §3 (order alignment) and appendix C; STEL: Wegmann & Nguyen (2021), "Does It Capture STEL?".

Two scoring rules; the bundle's ``info["order_alignment_scoring"]`` (set by the construction,
:mod:`steb_core.parallel`) chooses, the run option ``order_alignment.scoring`` overrides it:

**``steb-reference``** -- the STEB authors' reference code, github.com/rrivera1849/STEB
``steb/tasks/order_alignment.py`` @8a036408 ``align_and_score`` and ``OrderAlignmentTask.evaluate``
(the default of every STEB order-alignment dataset built by :func:`steb_core.order_groups_from_parallel`):

* vectors L2-normalised in float64 (zero vectors unchanged), similarity = cosine, negatives clamped to
  0, cost = ``1 - max(cos, 0)``; the cosines are the reference's ``anchors @ candidates.T`` as the
  reference machine's OpenBLAS Haswell kernels computed them, emulated, the same on every CPU
  (``order_alignment.products=reference``; ``=exact``: correctly rounded cosines; ``=blas``: this CPU's
  BLAS, whose last-bit ties depend on the kernel: :func:`_reference_matrices`); the anchors are assigned
  to the candidates (in :meth:`OrderGroup.candidates` order, the reference's column order) by
  ``scipy.optimize.linear_sum_assignment``;
* credit = the fraction of anchors assigned to their own candidate (k = 2: 0 or 1; k = 3 plain: 0, 1/3,
  2/3, 1; a distractor instance with two anchors: 0, 1/2, 1); a group with fewer than two candidates
  scores 0, as the reference's ``n_tgt < 2`` guard;
* ``accuracy`` = the reference's ``acc_mean`` (mean over every plain group of every class, pooled);
  ``distractor_accuracy`` = ``distractor_acc_mean`` (mean over the list of every "last" score followed
  by every "first" score, pooled); per style type as its ``_per_label``;
* exact ties (``ties=solver``, default): the assignment the solver returns. Instances whose best
  assignment (by the float sum of its costs, every injective assignment enumerated at once, vectorised)
  is ahead of every other by more than ``REFERENCE_TIE_WINDOW`` are decided by that sum: the solver
  returns an optimum, so it returns that one. The others -- exact ties above all, e.g. identical
  vectors or similarities clamped to 0 -- are handed to ``linear_sum_assignment`` itself on the same
  cost matrix, so its tie behaviour (the identity, which is the expected answer as the reference lays
  it out) is reproduced by construction, not imitated. ``ties=split`` is the fair variant (not the
  reference's): the credit is the mean credit of all assignments whose exact (rational) cost sum is
  minimal, so an exact tie counts as a fair coin would.

**``stel``** -- STEL's rule, for STEL's own instances (quadruples, triples, STEL-or-Content; the ``stel``
suite) and for groups of steb's earlier construction ``steb-all-pairs/v1``; described below.

Instances (:class:`steb_core.OrderGroup`; built for parallel corpora by
:func:`steb_core.parallel.order_groups_from_parallel`):

* a **plain** instance is a group without distractor: the anchors (set A, ordered) are aligned with
  the alternatives (set B). Two anchors and two alternatives are STEL's quadruple; one anchor and two
  alternatives STEL's triple.
* a **distractor** instance is a group with a distractor: its candidates are ``alternatives +
  (distractor,)``. One anchor, one alternative and the distractor is STEL-or-Content (Wegmann et al.,
  2022); STEB's distractor variant holds one style out (``k - 1`` anchors, ``k`` candidates).

Metrics: ``accuracy`` is the plain order-alignment accuracy, over plain instances only (absent when
the data has none, e.g. STEL-or-Content datasets); ``distractor_accuracy`` is the content-independence
variant, over distractor instances only (absent when the data has none, e.g. ``distractors=false``).
The main score is ``distractor_accuracy``, falling back to ``accuracy`` (see :data:`SPEC`), so that
``steb run``, ``summary.scores()`` and the aggregates read the same number; ``accuracy`` is shown
beside it. ``chance_accuracy`` / ``chance_distractor_accuracy`` are the analytic chance levels of the
instances scored, the mean of ``(c - m)! / c!`` for ``m`` anchors and ``c`` candidates (exchangeable
similarities make every injective assignment equally likely to be best): ``1 / k!`` for STEB's
construction with ``k`` styles, 0.5 for STEL's quadruple and for STEL-or-Content.

STEL's decision rule, for the similarity matrix ``s[i, j] = sim(anchor i, candidate j)``:

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
optimum; the near-optimal assignments (within a relative ``_HUNGARIAN_RTOL`` = 1e-9 of the cost scale,
which absorbs the solver's rounding) are then enumerated by fixing anchor 0 to each candidate whose
restricted optimum stays near the optimum, recursively, stopping after ``TIE_COUNT_CAP`` of them, and
decided exactly as above (credit below 1e-4 is reported as 0 and counted in ``n_tie_count_capped``).

A distractor instance is correct only if the chosen injective assignment equals the answer (the
distractor is chosen for no anchor).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ..context import TaskContext
from ..errors import DataValidationError
from ..instances import INSTANCES_KEY
from ..reference_tree.task_export import ORDER_ALIGNMENT_EXPORT
from ..specs import TaskSpec
from ._common import option, option_choice, pair_similarities
from ._reference_products import alignment_products

__all__ = [
    "reference_credits",
    "SCORINGS",
    "TIES",
    "REFERENCE_TIE_WINDOW",
    "alignment_credit",
    "alignment_credits",
    "chance_level",
    "exact_square_sum",
    "run_order_alignment",
    "SPEC",
    "EXHAUSTIVE_LIMIT",
    "TIE_COUNT_CAP",
    "PREFILTER_RTOL",
]

EXHAUSTIVE_LIMIT = 40_320
TIE_COUNT_CAP = 10_000
#: relative window of the float pre-filter; assignments inside it are decided in exact arithmetic.
PREFILTER_RTOL = 1e-12
#: absolute part of the window: squares of tiny distances underflow (a sum of m subnormals is far below it).
_PREFILTER_ATOL = 1e-300
_HUNGARIAN_RTOL = 1e-9
UNSPECIFIED = "unspecified"
#: scoring rules (module docstring); groups whose bundle names none are scored by STEL's rule
SCORINGS = ("steb-reference", "stel")
#: the rule of groups whose bundle declares none
FALLBACK_SCORING = "stel"
#: exact-tie handling of the reference rule: as the solver returns (the reference) or split fairly
TIES = ("solver", "split")
#: best assignment cost sums closer than this (absolute; the sums are at most k) are decided by the solver
REFERENCE_TIE_WINDOW = 1e-12


@lru_cache(maxsize=64)
def _assignments(k: int, m: int) -> np.ndarray:
    """All injective maps of m anchors into k candidates, one per row (lexicographic order)."""
    return np.asarray(list(itertools.permutations(range(k), m)), dtype=np.int64).reshape(-1, m)


def chance_level(anchors: int, candidates: int) -> float:
    """Probability that a uniformly random injective assignment is the true one: (c - m)! / c!."""
    return 1.0 / math.perm(candidates, anchors)


def exact_square_sum(distances: Sequence[float]) -> Fraction:
    """The exact rational sum of the squares of the given doubles (independent of their order)."""
    return sum((Fraction(float(d)) ** 2 for d in distances), Fraction(0))


def _sorted_square_sums(dist: np.ndarray) -> np.ndarray:
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
    return best + best * PREFILTER_RTOL + _PREFILTER_ATOL


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
        assignments = _assignments(k, m)
        rows = dist[np.arange(m), assignments]  # (assignments, m) distance vectors
        keys = _sorted_square_sums(rows)
        true_row = int(np.flatnonzero((assignments == np.asarray(answer)).all(axis=1))[0])
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
    optimum = float(_sorted_square_sums(dist[np.arange(m), cols][None, :])[0])
    true_key = float(_sorted_square_sums(dist[np.arange(m), list(answer)][None, :])[0])
    # the solver's rounding is relative to the size of the costs it adds, not to the optimum
    slack = _HUNGARIAN_RTOL * (optimum + float(cost.max())) + _PREFILTER_ATOL
    if tie_tolerance > 0:  # a norm tolerance t is (sqrt(opt) + t)^2 - opt on the sum of squares
        slack += 2.0 * tie_tolerance * math.sqrt(optimum) + tie_tolerance**2
    optimum = min(optimum, true_key)
    if true_key > optimum + slack:
        return 0.0, -1  # ties among the (wrong) best assignments are not counted: the credit is 0 anyway
    near = _near_optimal(cost, optimum + slack)
    if near is None:
        return 0.0, 0
    rows = np.asarray([dist[np.arange(m), list(p)] for p in near])
    if tie_tolerance > 0:
        norms = np.sqrt(_sorted_square_sums(rows))
        tied = [near[i] for i in np.flatnonzero(norms <= float(norms.min()) + tie_tolerance)]
    else:
        tied = [near[i] for i in _exact_best(rows)]
    return (1.0 / len(tied) if answer in tied else 0.0), len(tied)


def _near_optimal(cost: np.ndarray, limit: float) -> list[tuple[int, ...]] | None:
    from scipy.optimize import linear_sum_assignment

    """Every injective assignment whose cost sum is at most ``limit`` (None when over TIE_COUNT_CAP)."""

    def rest_optimum(sub: np.ndarray) -> float:
        if sub.shape[0] == 0:
            return 0.0
        r, c = linear_sum_assignment(sub)
        return float(sub[r, c].sum())

    found: list[tuple[int, ...]] = []

    def walk(sub: np.ndarray, columns: list[int], budget: float, prefix: tuple[int, ...]) -> bool:
        if sub.shape[0] == 0:
            found.append(prefix)
            return len(found) <= TIE_COUNT_CAP
        for j, col in enumerate(columns):
            rest = np.delete(sub[1:], j, axis=1)
            if sub[0, j] + rest_optimum(rest) <= budget:
                if not walk(rest, columns[:j] + columns[j + 1 :], budget - sub[0, j], prefix + (col,)):
                    return False
        return True

    complete = walk(cost, list(range(cost.shape[1])), limit, ())
    return found if complete else None


def _candidates(group: Any) -> tuple[str, ...]:
    return tuple(group.candidates())


def _mean_by(values: dict[str, list[float]]) -> dict[str, float]:
    return {key: float(np.mean(v)) for key, v in sorted(values.items())}


@lru_cache(maxsize=64)
def _assignment_rows(k: int, m: int) -> dict[tuple[int, ...], int]:
    return {tuple(int(v) for v in row): i for i, row in enumerate(_assignments(k, m))}


#: elements of the (instances x assignments x anchors) block scored at once (bounds memory, ~16 MB)
_BATCH_ELEMENTS = 2_000_000


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
    assignments = _assignments(k, m)
    lookup = _assignment_rows(k, m)
    true_rows = np.fromiter((lookup[tuple(a)] for a in answers.tolist()), dtype=np.int64, count=n)
    step = max(1, _BATCH_ELEMENTS // (len(assignments) * m))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        dist = 1.0 - sims[lo:hi]
        rows = dist[:, np.arange(m), assignments]  # (batch, assignments, m)
        squares = np.sort(rows * rows, axis=2)
        keys = squares[:, :, 0].copy()
        for j in range(1, m):  # ascending terms, left to right: as _sorted_square_sums
            keys += squares[:, :, j]
        best = keys.min(axis=1)
        near = keys <= (best + best * PREFILTER_RTOL + _PREFILTER_ATOL)[:, None]
        alone = near.sum(axis=1) == 1
        idx = np.arange(lo, hi)
        credits[idx[alone]] = near[alone, true_rows[idx[alone]]].astype(np.float64)
        ties[idx[alone]] = 1
        for g in idx[~alone]:
            credits[g], ties[g] = alignment_credit(sims[g], answers[g], exhaustive_limit=exhaustive_limit)
    return credits, ties


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
    assignments = _assignments(c, m)  # (P, m), lexicographic
    step = max(1, _BATCH_ELEMENTS // (len(assignments) * m))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        terms = cost[lo:hi][:, np.arange(m), assignments]  # (batch, P, m)
        sums = terms[:, :, 0].copy()
        for j in range(1, m):  # left to right, elementwise: the same float on every CPU
            sums += terms[:, :, j]
        right = (assignments[None, :, :] == expected[lo:hi, None, :]).mean(axis=2)  # (batch, P) credit of each
        best = sums.min(axis=1)
        near = sums <= (best + REFERENCE_TIE_WINDOW)[:, None]
        alone = near.sum(axis=1) == 1
        idx = np.arange(lo, hi)
        credits[idx[alone]] = right[alone, sums[alone].argmin(axis=1)]
        n_tied[idx[alone]] = 1
        for b in np.flatnonzero(~alone).tolist():
            g = lo + b
            candidates = np.flatnonzero(near[b])
            exact = [_exact_sum(terms[b, p]) for p in candidates.tolist()]
            low = min(exact)
            tied = [int(p) for p, v in zip(candidates.tolist(), exact) if v == low]
            n_tied[g] = len(tied)
            if ties == "split":
                credits[g] = float(np.mean(right[b, tied]))
            else:
                credits[g] = float(np.mean(_solver_columns(cost[g]) == expected[g]))
    return credits, n_tied


def _split_large(cost: np.ndarray, expected: np.ndarray, cols: np.ndarray) -> tuple[float, int]:
    """``ties="split"`` beyond the enumeration limit: mean credit of the exactly optimal assignments."""
    m = cost.shape[0]
    optimum = float(cost[np.arange(m), cols].sum())
    near = _near_optimal(cost, optimum + _HUNGARIAN_RTOL * (optimum + float(cost.max())) + _PREFILTER_ATOL)
    if near is None:  # more than TIE_COUNT_CAP near-optimal assignments: the solver's answer
        return float(np.mean(cols == expected)), 0
    exact = [_exact_sum(cost[np.arange(m), list(p)]) for p in near]
    low = min(exact)
    tied = [p for p, v in zip(near, exact) if v == low]
    return float(np.mean([np.mean(np.asarray(p) == expected) for p in tied])), len(tied)


def _score_pairs(
    ctx: TaskContext, groups: Sequence[Any]
) -> tuple[dict[tuple[int, int], list[int]], dict[tuple[int, int], np.ndarray]]:
    """Similarity matrices of all groups, bucketed by shape (anchors, candidates).

    Each distinct (anchor, candidate) pair is scored once: a plain group and the distractor group of
    the same pairing share most of their pairs, which matters for slow similarity-only methods.
    """
    text_id: dict[str, int] = {}
    members: dict[tuple[int, int], list[int]] = defaultdict(list)
    anchor_ids: dict[tuple[int, int], list[list[int]]] = defaultdict(list)
    cand_ids: dict[tuple[int, int], list[list[int]]] = defaultdict(list)
    for gi, g in enumerate(groups):
        cands = _candidates(g)
        shape = (len(g.anchors), len(cands))
        members[shape].append(gi)
        anchor_ids[shape].append([text_id.setdefault(t, len(text_id)) for t in g.anchors])
        cand_ids[shape].append([text_id.setdefault(t, len(text_id)) for t in cands])
    n_texts = max(len(text_id), 1)
    codes = {
        shape: np.asarray(anchor_ids[shape], dtype=np.int64)[:, :, None] * n_texts
        + np.asarray(cand_ids[shape], dtype=np.int64)[:, None, :]
        for shape in members
    }
    flat = np.concatenate([c.ravel() for c in codes.values()]) if codes else np.zeros(0, dtype=np.int64)
    unique, inverse = np.unique(flat, return_inverse=True)
    texts = list(text_id)
    sims = pair_similarities(
        ctx, [texts[c // n_texts] for c in unique.tolist()], [texts[c % n_texts] for c in unique.tolist()]
    )
    matrices: dict[tuple[int, int], np.ndarray] = {}
    pos = 0
    for shape, c in codes.items():
        matrices[shape] = sims[inverse[pos : pos + c.size]].reshape(c.shape)
        pos += c.size
    return members, matrices


#: Veltkamp's splitter for float64 (2**27 + 1): splits a double into two halves whose products are exact
_SPLITTER = 134217729.0
#: text pairs whose similarity is computed per block of the compensated dot product (bounds memory: two
#: float64 blocks of this many rows, 128 MiB at 512 dimensions)
_DOT_PAIRS = 16384
#: how the reference rule computes the similarities: ``reference`` (default: the reference machine's products,
#: emulated, the same on every CPU), ``exact`` (correctly rounded, the same on every CPU) or ``blas`` (this CPU's BLAS)
PRODUCTS = ("reference", "exact", "blas")


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b`` and its rounding error, exactly (Dekker's product with Veltkamp's split; elementwise IEEE only)."""
    p = a * b
    t = _SPLITTER * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLITTER * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def compensated_dots(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Row ``i`` of ``left`` dotted with row ``i`` of ``right`` (float64), as if summed in twice the precision.

    Ogita, Rump and Oishi's Dot2 (2005): every product split exactly into value + error, the values summed
    with TwoSum, all errors carried, in a fixed order over the columns, with elementwise IEEE operations
    only -- no BLAS kernel, SIMD reduction or fused multiply-add decides a digit, so the result is the same
    on every CPU, and it is the correctly rounded dot product except for sums within ~1e-32 of a rounding
    boundary (the error bound is eps + n eps**2 cond).
    """
    left = np.ascontiguousarray(np.asarray(left, dtype=np.float64).T)
    right = np.ascontiguousarray(np.asarray(right, dtype=np.float64).T)
    total = np.zeros(left.shape[1])
    carry = np.zeros(left.shape[1])
    for k in range(left.shape[0]):  # columns of the inputs, rows of the transposed copies: contiguous
        p, e = _two_product(left[k], right[k])
        t = total + p
        z = t - total
        carry += ((total - (t - z)) + (p - z)) + e
        total = t
    return total + carry


def _exact_unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their norm, the norm from :func:`compensated_dots` (zero rows unchanged)."""
    x = np.asarray(vectors, dtype=np.float64)
    norms = np.sqrt(
        np.concatenate(
            [compensated_dots(x[i : i + _DOT_PAIRS], x[i : i + _DOT_PAIRS]) for i in range(0, len(x), _DOT_PAIRS)]
            or [np.zeros(0)]
        )
    )
    return x / np.where(norms == 0, 1.0, norms)[:, None]


def _assignment_margins(sims: np.ndarray, exhaustive_limit: int = EXHAUSTIVE_LIMIT) -> np.ndarray:
    """Per group (n, m, c): how far the second-best assignment's cost sum is above the best one's.

    The sums are those :func:`reference_credits` compares (``1 - max(s, 0)`` added left to right over
    the anchors, every injective assignment); 0 where the assignments are too many to enumerate.
    """
    n, m, c = sims.shape
    margins = np.zeros(n)
    if n == 0 or c < 2 or math.perm(c, m) > exhaustive_limit or math.perm(c, m) < 2:
        return margins
    assignments = _assignments(c, m)
    cost = 1.0 - np.maximum(sims, 0.0)
    step = max(1, _BATCH_ELEMENTS // (len(assignments) * m))
    for lo in range(0, n, step):
        terms = cost[lo : lo + step][:, np.arange(m), assignments]
        sums = terms[:, :, 0].copy()
        for j in range(1, m):
            sums += terms[:, :, j]
        two = np.partition(sums, 1, axis=1)
        margins[lo : lo + step] = two[:, 1] - two[:, 0]
    return margins


def _emulated_where_undecided(unit: np.ndarray, anchors: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Cosines that decide every group exactly as the emulated reference products do, emulating few of them.

    Any float64 dot product of two rows, in any order, with or without FMA, is within
    ``gamma_K * sum |a_k c_k| <= gamma_K |a| |c|`` of the exact one (Higham, Accuracy and Stability of
    Numerical Algorithms, 2nd ed., Thm 3.1; ``gamma_K = K u / (1 - K u)``), so this CPU's BLAS product and
    the emulated one differ by at most ``beta = 2 gamma_K |a| |c|``; a cost ``1 - max(s, 0)`` then by
    ``beta + 2u (1 + beta)`` and a left-to-right sum of m of them by ``delta`` below. A group whose best
    assignment leads by more than ``REFERENCE_TIE_WINDOW + 2 delta`` with the BLAS products leads by more
    than ``REFERENCE_TIE_WINDOW`` with the emulated ones, with the same assignment, so
    :func:`reference_credits` gives it the same credit (and one tied assignment) either way: those groups
    keep the fast products, all others (ties above all) get the emulated ones. On ASSET with function words
    a third of the plain groups and 1 % of the distractor groups are emulated.
    """
    n_groups, m, c = len(anchors), anchors.shape[1], candidates.shape[1]
    fast = np.empty((n_groups, m, c))
    for lo in range(0, n_groups, _DOT_PAIRS // max(1, m * c)):
        hi = lo + _DOT_PAIRS // max(1, m * c)
        fast[lo:hi] = np.matmul(unit[anchors[lo:hi]], unit[candidates[lo:hi]].transpose(0, 2, 1))
    k = unit.shape[1]
    u = 2.0**-53
    norm = float(np.sqrt(np.max(np.einsum("ij,ij->i", unit, unit), initial=0.0))) * (1 + 1e-9)
    beta = 2 * (k * u / (1 - k * u)) * norm * norm
    gamma_m = m * u / (1 - m * u)
    delta = m * (beta + 2 * u * (1 + beta)) + 2 * gamma_m * m * (1 + beta)
    undecided = np.flatnonzero(~(_assignment_margins(fast) > REFERENCE_TIE_WINDOW + 2 * delta))
    fast[undecided] = alignment_products(unit, anchors[undecided], candidates[undecided])
    return fast


def _reference_matrices(
    ctx: TaskContext, groups: Sequence[Any], products: str = "reference", *, prefilter: bool = True
) -> tuple[dict[tuple[int, int], list[int]], dict[tuple[int, int], np.ndarray]]:
    """The cosine matrices the reference rule decides on, bucketed by shape (anchors, candidates).

    Why not a BLAS product: on vectors with many rational cosines (function words: counts over lengths)
    thousands of assignments tie exactly or to the last bit, and which way a last-bit tie falls depends
    on how a BLAS kernel orders its sums -- the reference's figures are those of OpenBLAS's Haswell
    kernel; the SkylakeX kernel of an AVX-512 CPU moves ASSET's acc_mean by 2e-4. The reference's own
    computation (``align_and_score`` in steb/tasks/order_alignment.py @8a036408): float64 unit rows
    (``np.linalg.norm``, as its ``l2_normalize``), one ``anchors @ candidates.T`` per group. By default
    (``order_alignment.products=reference``) those products are computed as the reference machine's
    OpenBLAS Haswell kernels did, emulated with elementwise operations
    (:func:`._reference_products.alignment_products`): the reference's figures, the same on every CPU.
    ``prefilter`` (the task's way) emulates only the groups whose decision the products' last bits
    could change and keeps this CPU's BLAS products for the others, which provably decide them the same
    (:func:`_emulated_where_undecided`); ``prefilter=False`` returns the emulated products everywhere.
    ``products=exact`` is every cosine correctly rounded (:func:`compensated_dots`, a fixed-order dot
    product: the same on every CPU, but not the reference's last bits); ``products=blas`` calls this
    CPU's BLAS as the reference did (its figures only on a Haswell kernel). Sparse vectors and
    similarity-only encoders use the float64 pair similarities of :func:`_score_pairs`.
    """
    if products not in PRODUCTS:
        raise DataValidationError(
            f"order_alignment.products={products!r}", field="order_alignment.products", expected=" or ".join(PRODUCTS)
        )
    if not ctx.has_vectors or ctx.similarity_fn is not None:
        return _score_pairs(ctx, groups)
    text_id: dict[str, int] = {}
    rows = [
        (
            [text_id.setdefault(t, len(text_id)) for t in g.anchors],
            [text_id.setdefault(t, len(text_id)) for t in _candidates(g)],
        )
        for g in groups
    ]
    vectors = ctx.embed(list(text_id))
    if hasattr(vectors, "tocsr"):
        return _score_pairs(ctx, groups)
    members: dict[tuple[int, int], list[int]] = defaultdict(list)
    for gi, (anchor_ids, candidate_ids) in enumerate(rows):
        members[(len(anchor_ids), len(candidate_ids))].append(gi)
    matrices: dict[tuple[int, int], np.ndarray] = {}
    if products in ("blas", "reference"):
        unit = np.asarray(vectors, dtype=np.float64)
        norms = np.linalg.norm(unit, axis=-1, keepdims=True)
        unit = unit / np.where(norms == 0, 1.0, norms)
    if products == "reference":
        for (m, k), index in members.items():
            if k < 2:  # scored 0 without a product (the reference's ``n_tgt < 2`` guard)
                matrices[(m, k)] = np.zeros((len(index), m, k))
                continue
            anchors = np.asarray([rows[gi][0] for gi in index], dtype=np.int64).reshape(len(index), m)
            candidates = np.asarray([rows[gi][1] for gi in index], dtype=np.int64).reshape(len(index), k)
            if prefilter:
                matrices[(m, k)] = _emulated_where_undecided(unit, anchors, candidates)
            else:
                matrices[(m, k)] = alignment_products(unit, anchors, candidates)
        return members, matrices
    if products == "blas":
        for shape, index in members.items():
            out = np.empty((len(index), *shape), dtype=np.float64)
            for n, gi in enumerate(index):
                anchor_ids, candidate_ids = rows[gi]
                out[n] = unit[anchor_ids] @ unit[candidate_ids].T
            matrices[shape] = out
        return members, matrices
    unit = _exact_unit_rows(vectors)
    n_texts = max(len(text_id), 1)
    codes = {
        shape: np.asarray(
            [[[a * n_texts + c for c in rows[gi][1]] for a in rows[gi][0]] for gi in index], dtype=np.int64
        ).reshape(len(index), *shape)
        for shape, index in members.items()
    }
    unique, inverse = np.unique(np.concatenate([c.ravel() for c in codes.values()]), return_inverse=True)
    cos = np.empty(len(unique))
    for i in range(0, len(unique), _DOT_PAIRS):
        block = unique[i : i + _DOT_PAIRS]
        cos[i : i + _DOT_PAIRS] = compensated_dots(unit[block // n_texts], unit[block % n_texts])
    pos = 0
    for shape, code in codes.items():
        matrices[shape] = cos[inverse[pos : pos + code.size]].reshape(code.shape)
        pos += code.size
    return members, matrices


def scoring_of(ctx: TaskContext) -> str:
    """The scoring rule for this run: option ``order_alignment.scoring``, else the bundle's, else ``stel``."""
    declared = (ctx.bundle.info or {}).get("order_alignment_scoring") if ctx.bundle is not None else None
    return option_choice(ctx, "order_alignment", "scoring", SCORINGS, declared or FALLBACK_SCORING)


def run_order_alignment(ctx: TaskContext) -> dict[str, Any]:
    if scoring_of(ctx) == "steb-reference":
        return run_reference(ctx)
    return run_stel(ctx)


def run_reference(ctx: TaskContext) -> dict[str, Any]:
    """The reference rule over every group (module docstring); metrics named as steb's, the reference's beside."""
    groups = ctx.data
    ties = option_choice(ctx, "order_alignment", "ties", TIES, "solver")
    limit = int(option(ctx, "order_alignment", "exhaustive_limit", EXHAUSTIVE_LIMIT))
    products = option_choice(ctx, "order_alignment", "products", PRODUCTS, "reference")
    members, matrices = _reference_matrices(ctx, groups, products)
    credit = np.zeros(len(groups), dtype=np.float64)
    tied = np.zeros(len(groups), dtype=np.int64)
    for (m, kc), index in members.items():
        expected = np.asarray([groups[gi].candidate_answer() for gi in index], dtype=np.int64).reshape(len(index), m)
        credit[index], tied[index] = reference_credits(matrices[(m, kc)], expected, ties=ties, exhaustive_limit=limit)
    plain: dict[str, list[float]] = defaultdict(list)
    distractor: dict[str, list[float]] = defaultdict(list)
    plain_all: list[float] = []
    last: list[float] = []  # distractor in the last column (the reference's "last" variant)
    first: list[float] = []  # distractor elsewhere (the reference's "first" variant puts it in column 0)
    chance_plain: list[float] = []
    chance_distractor: list[float] = []
    n_tied = n_distractor_tied = 0
    for gi, g in enumerate(groups):
        style = g.style_type or UNSPECIFIED
        value = float(credit[gi])
        n_candidates = len(g.alternatives) + (g.distractor is not None)
        if g.distractor is None:
            plain_all.append(value)
            plain[style].append(value)
            chance_plain.append(1.0 / n_candidates)
            n_tied += int(tied[gi] > 1)
        else:
            (last if g.distractor_at is None or g.distractor_at == len(g.alternatives) else first).append(value)
            distractor[style].append(value)
            chance_distractor.append(1.0 / n_candidates)
            n_distractor_tied += int(tied[gi] > 1)
    metrics: dict[str, Any] = {}
    if plain_all:
        metrics["accuracy"] = float(np.mean(plain_all))
        metrics["accuracy_by_style_type"] = _mean_by(plain)
        metrics["chance_accuracy"] = float(np.mean(chance_plain))
    if last or first:
        metrics["distractor_accuracy"] = float(np.mean(last + first))
        metrics["distractor_accuracy_by_style_type"] = _mean_by(distractor)
        variants = (("last", last), ("first", first))
        metrics["distractor_accuracy_by_variant"] = {k: float(np.mean(v)) for k, v in variants if v}
        metrics["chance_distractor_accuracy"] = float(np.mean(chance_distractor))
    metrics.update(
        n_instances=len(plain_all),
        n_distractor_instances=len(last) + len(first),
        n_tied=n_tied,
        n_distractor_tied=n_distractor_tied,
        scoring="steb-reference",
        ties=ties,
        products=products,
        reference_metric={"accuracy": "acc_mean", "distractor_accuracy": "distractor_acc_mean"},
    )
    plain_mask = np.fromiter((g.distractor is None for g in groups), dtype=bool, count=len(groups))
    metrics[INSTANCES_KEY] = _instance_credits(credit, plain_mask)
    return metrics


def run_stel(ctx: TaskContext) -> dict[str, Any]:
    """STEL's rule (quadruple/triple, STEL-or-Content; exact ties 1/t), see the module docstring."""
    groups = ctx.data
    tolerance = float(option(ctx, "order_alignment", "tie_tolerance", 0.0))
    limit = int(option(ctx, "order_alignment", "exhaustive_limit", EXHAUSTIVE_LIMIT))
    members, matrices = _score_pairs(ctx, groups)

    plain: dict[str, list[float]] = defaultdict(list)
    with_distractor: dict[str, list[float]] = defaultdict(list)
    chance_plain: list[float] = []
    chance_distractor: list[float] = []
    n_tied = n_distractor_tied = n_capped = n_trivial = 0
    by_group = np.full(len(groups), np.nan)  # each scored group's credit in data order (trivial ones stay NaN)
    for (m, kc), index in members.items():
        kinds = np.fromiter((groups[gi].distractor is not None for gi in index), dtype=bool, count=len(index))
        for has_distractor in (False, True):
            chosen = np.flatnonzero(kinds == has_distractor)
            if len(chosen) == 0:
                continue
            if not has_distractor and math.perm(kc, m) == 1:
                n_trivial += len(chosen)  # one alternative per anchor: nothing to decide
                continue
            answers = np.asarray([groups[index[i]].candidate_answer() for i in chosen], dtype=np.int64).reshape(
                len(chosen), m
            )
            credits, ties = alignment_credits(
                matrices[(m, kc)][chosen], answers, tie_tolerance=tolerance, exhaustive_limit=limit
            )
            n_capped += int(np.count_nonzero(ties == 0))
            target = with_distractor if has_distractor else plain
            for i, credit in zip(chosen.tolist(), credits.tolist()):
                target[groups[index[i]].style_type or UNSPECIFIED].append(credit)
                by_group[index[i]] = credit
            (chance_distractor if has_distractor else chance_plain).extend([chance_level(m, kc)] * len(chosen))
            if has_distractor:
                n_distractor_tied += int(np.count_nonzero(ties > 1))
            else:
                n_tied += int(np.count_nonzero(ties > 1))

    metrics: dict[str, Any] = {}
    all_plain = [c for v in plain.values() for c in v]
    all_distractor = [c for v in with_distractor.values() for c in v]
    if all_plain:
        metrics["accuracy"] = float(np.mean(all_plain))
        metrics["accuracy_by_style_type"] = _mean_by(plain)
        metrics["chance_accuracy"] = float(np.mean(chance_plain))
    if all_distractor:
        metrics["distractor_accuracy"] = float(np.mean(all_distractor))
        metrics["distractor_accuracy_by_style_type"] = _mean_by(with_distractor)
        metrics["chance_distractor_accuracy"] = float(np.mean(chance_distractor))
    metrics.update(
        n_instances=len(all_plain),
        n_distractor_instances=len(all_distractor),
        n_trivial_plain=n_trivial,
        n_tied=n_tied,
        n_distractor_tied=n_distractor_tied,
        n_tie_count_capped=n_capped,
        scoring="stel",
    )
    scored = ~np.isnan(by_group)
    plain_mask = np.fromiter((g.distractor is None for g in groups), dtype=bool, count=len(groups))
    metrics[INSTANCES_KEY] = _instance_credits(by_group[scored], plain_mask[scored])
    return metrics


def _instance_credits(credit: np.ndarray, plain: np.ndarray) -> dict[str, list[float]]:
    """Each scored instance's credit in data order, plain and distractor instances apart (the two metrics), for
    paired tests (``steb compare``: McNemar; kept beside the record, :mod:`steb_core.instances`)."""
    out = {"accuracy": credit[plain].tolist(), "distractor_accuracy": credit[~plain].tolist()}
    return {name: values for name, values in out.items() if values}


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
    # 2: issue 37, the STEB reference's rules (see the module docstring); 3: the reference machine's products,
    # emulated (``order_alignment.products=reference``, :mod:`._reference_products`)
    version="3",
    options=("scoring", "ties", "exhaustive_limit", "products", "tie_tolerance"),
    # the distractor accuracy is the content-independence column; the object-of-study, feature and application
    # columns read plain accuracy, else (every instance has a distractor) the distractor accuracy
    column_metrics={"definitional": ("accuracy", "distractor_accuracy"), "content-independence": "distractor_accuracy"},
    cheap_to_score=True,  # a few cosines per group
    default_for_shape=True,
    tree_export=ORDER_ALIGNMENT_EXPORT,
)
