"""The retrieval reference rule's distances and ranks, the same on every CPU (pure functions of arrays).

The STEB reference ranks targets with scikit-learn's ``pairwise_distances(metric="cosine")`` and
``np.argsort`` (``steb/tasks/retrieval.py`` @39e4722e, ``steb/metrics.py`` @4b43dda3). Both depend on the
CPU: the float32 products are whatever the BLAS kernel rounds them to, and ``1 - S`` in float32 makes
exact ties common (about seven per row of 500 targets with function words), which ``np.argsort`` orders
by the sorting network numpy dispatches (baseline introsort, AVX2 or AVX-512 x86-simd-sort: three
orders, seen). So the reference's own figure moves with the machine (mean rank 224.770 / 224.778 /
224.780 on one synthetic set, issue 50). Here:

* :func:`cosine_distances_exact`: ``1 - S`` as scikit-learn computes it from the unit rows, with ``S`` the
  dot product *correctly rounded* to the vectors' dtype (float32: this CPU's float64 product where a
  rigorous bound proves it rounds to one float32; else the exact sum, by repeated error-free TwoSum
  cascades, :func:`math.fsum` for the rare rest -- with function-word counts the undecided ones are
  mostly exact float32 midpoints; float64: accumulated in a fixed order of elementwise operations).
  Every CPU gives the same bits; they differ from a given BLAS's by at most the float32 rounding of its
  sum (a few units in the last place).
* :func:`tied_positions` / :func:`expected_rank_metrics`: a relevant target's rank is taken in expectation
  over the orders of the targets tied with it (``g`` strictly closer, ``t`` at its distance, itself
  included: uniform over positions ``g + 1 .. g + t``), as steb's other rules take ties; without ties it
  is the usual rank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._reference_products import _round_exact_to_f32, _two_sum

__all__ = ["cosine_distances_exact", "tied_positions", "expected_rank_metrics", "PAIR_CELLS"]

#: distances compared at once when counting (float32 cells of the relevant rows: 16 MiB)
PAIR_CELLS = 2**22
#: float64 products of undecided dot products summed exactly at once (16 MiB)
EXACT_CELLS = 2**21
_U64 = 2.0**-53


def _exact_dot_f32(a: np.ndarray, b: np.ndarray) -> float:
    """The float32 nearest to the exact dot product of two float32 rows (exact sum, one rounding)."""
    products = (a.astype(np.float64) * b.astype(np.float64)).tolist()  # float32 x float32 is exact in float64
    hi = math.fsum(products)  # the float64 nearest to the exact sum
    lo = math.fsum([*products, -hi])  # the rest, rounded: its sign is exact
    rounded: np.ndarray = _round_exact_to_f32(np.asarray([hi]), np.asarray([lo]))
    return float(rounded[0])  # a float32 value, exact in a float


def _products_f32(q: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``q @ t.T`` of float32 rows, each entry the correctly rounded float32 of the exact dot product."""
    q64, t64 = q.astype(np.float64), t.astype(np.float64)
    s64 = q64 @ t64.T
    k = q.shape[1]
    # |s64 - exact| <= gamma_k * sum |q_i t_i| (any order, with or without FMA); widened by 1 % and a subnormal
    # floor for the roundings of the bound and of s64 -/+ e themselves. The sum of |products| is the product itself
    # for non-negative rows (counts, frequencies), else one more float64 product: a bound by the norms alone
    # (Cauchy-Schwarz) is orders too wide for sparse rows, and every element it cannot decide is summed exactly
    gamma = k * _U64 / (1 - k * _U64)
    nonnegative = bool((q64 >= 0).all() and (t64 >= 0).all())
    magnitude = s64 if nonnegative else np.abs(q64) @ np.abs(t64).T
    err = (gamma * 1.01) * magnitude * (1 + 4 * _U64) + 2.0**-1000
    low, high = (s64 - err).astype(np.float32), (s64 + err).astype(np.float32)
    out: np.ndarray = high  # rounding is monotone: one float32 for both ends is the exact sum's
    rows, cols = np.nonzero(low != high)
    step = max(1, EXACT_CELLS // max(1, k))
    for p0 in range(0, len(rows), step):
        r, c = rows[p0 : p0 + step], cols[p0 : p0 + step]
        total, exact = _error_free_sums(q64[r] * t64[c])  # float32 x float32 products are exact in float64
        out[r[exact], c[exact]] = total[exact].astype(np.float32)  # one rounding of the exact sum, ties to even
        for i, j in zip(r[~exact], c[~exact], strict=True):
            out[i, j] = _exact_dot_f32(q[i], t[j])
    return out


def _error_free_sums(terms: np.ndarray, passes: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the sum of ``terms`` where it is one float64 exactly, and whether it is.

    Repeated VecSum (Ogita, Rump and Oishi 2005): a cascade of TwoSums leaves the row's exact sum unchanged,
    moves its float64 sum to the last column and the rounding errors to the others. A row whose other columns
    are then all zero has the last column as its exact sum; the rest (rare) are summed by :func:`math.fsum`.
    """
    x = np.array(terms, dtype=np.float64)
    # a row's sum does not depend on its terms' order: nonzero terms first, the all-zero columns dropped
    x = np.take_along_axis(x, np.argsort(x == 0, axis=1, kind="stable"), axis=1)
    x = x[:, : max(2, int(np.count_nonzero(x, axis=1).max(initial=0)))]
    for _ in range(passes):
        for j in range(1, x.shape[1]):
            x[:, j], x[:, j - 1] = _two_sum(x[:, j], x[:, j - 1])
        if not x[:, :-1].any():
            break
    exact: np.ndarray = np.logical_not(x[:, :-1].any(axis=1))
    return x[:, -1], exact


def _products_fixed_order(q: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``q @ t.T`` summed over k in index order with elementwise operations (each correctly rounded)."""
    out = np.zeros((q.shape[0], t.shape[0]), dtype=q.dtype)
    for k in range(q.shape[1]):
        out += np.multiply.outer(q[:, k], t[:, k])
    return out


def cosine_distances_exact(q_unit: np.ndarray, t_unit: np.ndarray) -> np.ndarray:
    """scikit-learn's cosine distances of rows already scaled to unit length, the same bits on every CPU.

    ``1 - S`` in the rows' dtype, clipped to [0, 2] (``sklearn.metrics.pairwise.cosine_distances``), with
    ``S`` the correctly rounded float32 dot products for float32 rows and a fixed-order sum otherwise
    (module docstring). ``q_unit`` / ``t_unit`` are dense (n, d) and (m, d) arrays of one dtype.
    """
    q, t = np.asarray(q_unit), np.asarray(t_unit)
    if q.dtype == np.float32 and t.dtype == np.float32:
        similarity = _products_f32(q, t)
    else:
        dtype = np.result_type(q.dtype, t.dtype, np.float32)
        similarity = _products_fixed_order(q.astype(dtype), t.astype(dtype))
    distances: np.ndarray = similarity.dtype.type(1) - similarity
    np.clip(distances, 0, 2, out=distances)
    return distances


def tied_positions(distances: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pair ``(rows[p], cols[p])``: targets of that row strictly closer (g) and at the same distance (t, >= 1)."""
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    closer = np.empty(len(rows), dtype=np.int64)
    tied = np.empty(len(rows), dtype=np.int64)
    step = max(1, PAIR_CELLS // max(1, distances.shape[1]))
    for p0 in range(0, len(rows), step):
        block = distances[rows[p0 : p0 + step]]
        own = distances[rows[p0 : p0 + step], cols[p0 : p0 + step]][:, None]
        closer[p0 : p0 + step] = np.count_nonzero(block < own, axis=1)
        tied[p0 : p0 + step] = np.count_nonzero(block == own, axis=1)
    return closer, tied


def expected_rank_metrics(
    closer: np.ndarray, tied: np.ndarray, query_of_pair: np.ndarray, n_queries: int, cutoffs: Sequence[int]
) -> dict[str, np.ndarray]:
    """Per query, the reference's metrics of its relevant targets' ranks, in expectation over tie orders.

    A pair ``p`` sits uniformly at ``closer[p] + 1 .. closer[p] + tied[p]``: E[1 / rank] is the mean of those
    reciprocals, E[rank] = ``closer + (tied + 1) / 2``, P(rank <= k) = ``clip((k - closer) / tied, 0, 1)``.
    Per query (``query_of_pair``, sorted, every query present) the mean over its pairs, as the reference's
    ``np.mean(1 / ranks)``, ``np.mean(ranks)`` and recall share. Returns ``rr``, ``rank`` and ``recall@k``.
    """
    g = np.asarray(closer, dtype=np.float64)
    t = np.asarray(tied, dtype=np.int64)
    rr = 1.0 / (g + 1.0)
    for p in np.flatnonzero(t > 1):
        rr[p] = float(np.mean(1.0 / np.arange(g[p] + 1.0, g[p] + t[p] + 1.0)))
    per_pair = {"rr": rr, "rank": g + (t + 1.0) / 2.0}
    for k in cutoffs:
        per_pair[f"recall@{k}"] = np.clip((k - g) / t, 0.0, 1.0)
    query_of_pair = np.asarray(query_of_pair, dtype=np.int64)
    counts = np.bincount(query_of_pair, minlength=n_queries).astype(np.float64)
    starts = np.concatenate([[0], np.cumsum(counts[:-1])]).astype(np.int64)
    return {name: np.add.reduceat(values, starts) / counts for name, values in per_pair.items()}
