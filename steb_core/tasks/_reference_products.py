"""The STEB reference machine's dot products, bit for bit, on every CPU.

Why: the STEB reference figures (github.com/rrivera1849/STEB, run as described in
``shared/data/steb-reference/README.md`` beside the checkout) were computed by numpy 2.4.6, whose bundled OpenBLAS
0.3.31 ran its **Haswell** kernels (AVX2 + FMA) on two threads. Thousands of order-alignment assignments
on function-word vectors tie exactly or to the last bit, and which way a last-bit tie falls -- like the
last bits of the float32 cosines whose ties decide an AUROC -- depends on how the kernel orders its
multiply-adds. Another CPU's kernel (SkylakeX on an AVX-512 machine, Sandybridge without FMA) gives
other last bits and so other figures. This module computes the products **as the Haswell kernels
did**, with numpy *elementwise* IEEE operations only (multiply, add, compare, integer bit tests): no
BLAS call, no reduction whose order depends on the CPU, so the result is the same on every machine.

What is emulated, from the OpenBLAS sources (github.com/OpenMathLib/OpenBLAS; the kernels named in
``kernel/x86_64/KERNEL.HASWELL``), each verified bit for bit against numpy under
``OPENBLAS_CORETYPE=Haswell`` by ``tests/tasks/test_reference_products.py``:

* **fused multiply-add** (:func:`fma64`, :func:`fma32`): float32 ``fma(a, b, c)`` is the exact float64
  product plus ``c`` (TwoSum), rounded once to float32 with the double-rounding midpoint case fixed;
  float64 ``fma`` is Boldo and Melquiond's emulation (2008, "Emulation of FMA and correctly rounded
  sums: proved algorithms using rounding to odd"): exact product (Dekker/Veltkamp), TwoSum with the
  addend, the two error terms added with rounding to odd, one final rounding. Both equal libm's
  ``fma``/``fmaf`` (tested on edge cases); arguments outside the float64 algorithm's proven range
  (tiny or huge magnitudes, never met by unit vectors) are computed exactly with fractions instead.
* **dgemm** (numpy ``A @ B.T``, A (m, K), B (n, K) float64, m, n >= 2; :func:`dgemm_chains`):
  ``dgemm_kernel_4x8_haswell.S`` accumulates each output element in one register lane, a sequential
  FMA chain over k from 0; the level-3 driver (``driver/level3/level3.c``) cuts K into blocks
  (``min_l = K - ls``; ``>= 2 GEMM_Q``: ``GEMM_Q``; ``> GEMM_Q``: ``ceil(min_l / 2)`` rounded up to
  ``GEMM_UNROLL_M``) with ``DGEMM_DEFAULT_Q = 256``, ``DGEMM_DEFAULT_UNROLL_M = 4`` (``param.h``,
  HASWELL), and adds the block results to C in order (``C += alpha * acc`` with alpha = 1, C = 0 first).
* **dgemv_t** (numpy ``a @ B.T`` with a (1, K): numpy's matmul calls ``cblas_dgemv``;
  :func:`dgemv_t_haswell`): ``kernel/x86_64/dgemv_t_4.c``: groups of four columns through
  ``dgemv_kernel_4x4`` (``dgemv_t_microk_haswell-4.c``: four FMA lanes, k mod 4), a pair through
  ``dgemv_kernel_4x2`` (SSE2 ``mulpd`` / ``addpd``, no FMA: two lanes, even and odd k, then ``haddpd``), a
  last odd column through ``dgemv_kernel_4x1`` (four lanes, k mod 4, paired, then added); rows in blocks
  of ``NBMAX = 2048`` (the last one rounded down to a multiple of 4), each block's result added to y;
  the last ``K mod 4`` rows added by the C tail, which the compiler contracted to FMAs:
  ``y + fma(a2, x2, fma(a0, x0, a1 * x1))`` (one row: ``fma(a0, x0, y)``; found by testing the
  candidate contractions against the library).
* **sdot** (numpy ``(1, K) @ (K, 1)`` float32, scikit-learn's ``cosine_similarity`` of two single
  rows; :func:`sdot_haswell`): ``kernel/x86_64/sdot.c`` + ``sdot_microk_haswell-2.c``: 32 lanes of
  float32 FMA chains over ``K & -32`` elements, reduced pairwise (hi/lo halves, then registers, then two
  ``vhaddps``), the tail added in float64 (``double dot += y[i] * x[i]``, each product rounded to
  float32), the sum rounded to float32.
* **ssyrk** (numpy ``X @ X.T`` of one array, as scikit-learn's ``cosine_similarity(X)`` computes it;
  :func:`ssyrk_haswell`): the drivers ``driver/level3/level3_syrk.c`` (one thread) and
  ``level3_syrk_threaded.c`` (the reference machine's two threads; other thread counts are simulated by
  the same code but were only checked against the library for one and two), ``syrk_kernel.c`` and the
  accumulation paths of ``sgemm_kernel_8x4_haswell_2.c``.

The sources were read at OpenBLAS commit 72461f1c8 (0.3.28 + 170, October 2024); the library numpy ships
is 0.3.31, and every emulated shape was checked against it (the tests), which is what counts.

Which reference calls produce these BLAS calls (so which emulation each steb task needs):

* order alignment, ``steb/tasks/order_alignment.py`` @8a036408 ``align_and_score``:
  ``emb_src @ emb_tgt.T`` on float64 unit rows (``steb/core.py`` @18c49153 ``extract_features`` hands
  the task a list of float32 episodes, which ``OrderAlignmentTask.evaluate`` turns into a float64 array
  with ``np.array(embeddings, dtype=float)``; ``steb/metrics.py`` @4b43dda3 ``l2_normalize`` divides by
  ``np.linalg.norm``) -> dgemm for the plain (k, k) groups and the (k - 1, k) distractors with k >= 3,
  dgemv_t for the k = 2 distractors ((1, K) @ (K, 2)); which group goes to which kernel is order
  alignment's part (:func:`steb_core.tasks.order_alignment.products.alignment_products`);
* all-to-all pairs, ``steb/tasks/all_to_all_pair_classification.py`` (index file 62020154535)
  ``_pair_scores_matrix``: ``cosine_similarity(emb, emb)`` on float32 rows -> ssyrk;
* pre-defined pairs, ``steb/tasks/pre_defined_pair_classification.py`` @63f649ce ``_pair_score``:
  ``cosine_similarity(e1.reshape(1, -1), e2.reshape(1, -1))`` on float32 rows -> sdot.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import numpy.typing as npt

__all__ = [
    "fma32",
    "fma64",
    "k_blocks",
    "dgemm_chains",
    "dgemv_t_haswell",
    "gemv_kernel",
    "GEMV_KERNEL_COLUMNS",
    "sdot_haswell",
    "ssyrk_haswell",
    "ssyrk_patterns",
    "ssyrk_haswell_pairs",
    "ssyrk_ranked",
    "ssyrk_intervals",
    "sdot_ranked",
    "DGEMM_Q",
    "DGEMM_UNROLL_M",
    "SGEMM_Q",
    "SGEMM_UNROLL_M",
    "REFERENCE_THREADS",
]

#: ``param.h`` (HASWELL, x86_64, not Windows): the K block of the level-3 driver and the M unroll
DGEMM_Q = 256
DGEMM_UNROLL_M = 4
SGEMM_Q = 320
SGEMM_UNROLL_M = 8
#: ``dgemv_t_4.c``: rows handled per kernel call
_NBMAX = 2048
#: OpenBLAS threads of the machine that made the reference figures (its threaded ssyrk is reproduced)
REFERENCE_THREADS = 2

#: Veltkamp's splitter for float64 (2**27 + 1)
_SPLITTER = 134217729.0
#: float64 fma arguments are handled by the fast path only inside these magnitudes (else exactly, with fractions)
_TINY = 2.0**-900
_HUGE = 2.0**500
#: largest factor of a product chain handled by the fast path (products then stay below 2**400)
_CHAIN_FACTOR = 2.0**200


# --- fused multiply-add ------------------------------------------------------------------------------


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a + b`` rounded and its exact error (Knuth's TwoSum; any magnitudes, no overflow)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of float64 values into two halves of 26 bits (exact for |a| < 2**996)."""
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def _round_to_odd_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x + y`` rounded to odd: exact sums stay, inexact ones take the neighbour whose last bit is 1."""
    s, e = _two_sum(x, y)
    bits = s.view(np.int64)
    even_inexact = (e != 0) & ((bits & 1) == 0)
    # away from zero when the error has the sum's sign, else toward zero: one step of the magnitude bits
    step = np.where((e < 0) == (s < 0), 1, -1).astype(np.int64)
    return (bits + np.where(even_inexact, step, 0)).view(np.float64)


def _fma64_fast(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    a_split: tuple[np.ndarray, np.ndarray] | None = None,
    b_split: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    ah, al = _split(a) if a_split is None else a_split
    bh, bl = _split(b) if b_split is None else b_split
    p = a * b
    pl = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # exact error of the product (Dekker)
    th, tl = _two_sum(c, p)
    z = th + _round_to_odd_sum(tl, pl)
    # an exact zero: IEEE gives -0 only for (-0) + (-0); the product's sign of zero is that of p
    return np.where(z == 0, np.where(p == 0, p + c, 0.0), z)


def _outside(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Where the fast float64 fma is not proven exact: tiny nonzero products/addends, huge or non-finite values."""
    p = np.abs(a * b)
    ac = np.abs(c)
    return np.asarray(
        ((p != 0) & (p < _TINY))
        | ((ac != 0) & (ac < _TINY))
        | (np.abs(a) > _HUGE)
        | (np.abs(b) > _HUGE)
        | (ac > _HUGE)
        | ~np.isfinite(p)
    )


def _fma64_exact(a: float, b: float, c: float) -> float:
    """One float64 fma in exact rational arithmetic (correctly rounded by ``Fraction.__float__``)."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c  # inf / nan propagate as the hardware would (no rounding question)
    value = Fraction(a) * Fraction(b) + Fraction(c)
    if value == 0:
        p_zero_sign = math.copysign(1.0, a) * math.copysign(1.0, b)
        if a * b == 0 and c == 0:
            return math.copysign(0.0, p_zero_sign) + c
        return 0.0
    return float(value)


def fma64(a: npt.ArrayLike, b: npt.ArrayLike, c: npt.ArrayLike) -> np.ndarray:
    """``a * b + c`` for float64 arrays (broadcast), rounded once, as the hardware FMA (module docstring)."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, c)))
    out = _fma64_fast(a, b, c)
    odd = _outside(a, b, c)
    if odd.any():
        out = np.array(out, copy=True)
        for idx in zip(*np.nonzero(odd)):
            out[idx] = _fma64_exact(float(a[idx]), float(b[idx]), float(c[idx]))
    return out


def _round_exact_to_f32(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The float32 nearest to the exact ``s + e`` (float64 pair from TwoSum, ``|e| <= ulp(s) / 2``).

    Rounding ``s`` alone is right unless ``s`` is exactly halfway between two float32 neighbours and
    ``e != 0``: then the true value lies on ``e``'s side of the midpoint.
    """
    r = s.astype(np.float32)
    r64 = r.astype(np.float64)
    # a float64 halfway between two float32 has its last 28 mantissa bits zero (more for subnormal float32)
    maybe = (r64 != s) & ((s.view(np.int64) & 0x0FFFFFFF) == 0) & (e != 0)
    if not maybe.any():
        return r
    up = np.nextafter(r, np.float32(np.inf))
    dn = np.nextafter(r, np.float32(-np.inf))
    mid_up = (r64 + up.astype(np.float64)) / 2  # exact: float32 neighbours need one more bit
    mid_dn = (r64 + dn.astype(np.float64)) / 2
    r = np.where(maybe & (s == mid_up) & (e > 0), up, r)
    return np.where(maybe & (s == mid_dn) & (e < 0), dn, r)


def fma32(a: npt.ArrayLike, b: npt.ArrayLike, c: npt.ArrayLike) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (the product of two float32 is exact in float64)."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    c = np.asarray(c, dtype=np.float32)
    s, e = _two_sum(a.astype(np.float64) * b.astype(np.float64), c.astype(np.float64))
    return _round_exact_to_f32(s, e)


# --- level-3 K blocks --------------------------------------------------------------------------------


def k_blocks(k: int, q: int, unroll: int | None) -> list[tuple[int, int]]:
    """The K blocks ``[lo, hi)`` of OpenBLAS's level-3 drivers, in the order their results are added.

    ``driver/level3/level3.c`` (gemm, one thread): a remainder between Q and 2Q is halved and rounded up
    to ``unroll`` (GEMM_UNROLL_M); ``level3_syrk.c`` / ``level3_syrk_threaded.c`` halve it rounding up
    to an integer (``unroll=None``).
    """
    out = []
    ls = 0
    while ls < k:
        size = k - ls
        if size >= 2 * q:
            size = q
        elif size > q:
            size = ((size // 2 + unroll - 1) // unroll) * unroll if unroll else (size + 1) // 2
        out.append((ls, ls + size))
        ls += size
    return out


# --- float64: the order-alignment kernels --------------------------------------------------------------

#: pairs whose products are emulated at once (bounds memory: six float64 arrays of this many x K values)
_PAIR_CHUNK = 4096


def _columns(rows: np.ndarray) -> np.ndarray:
    """(P, K) rows as a contiguous (K, P) array: one k at a time is then a contiguous slice."""
    return np.ascontiguousarray(np.asarray(rows, dtype=np.float64).T)


def _chain_in_range(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per column: every product is 0 or at least 2**-900 in magnitude and no factor exceeds 2**200.

    Then every value of the chain is a multiple of 2**-1004 below 2**420: no underflow or overflow, the
    range in which :func:`_fma64_fast` is exact. Unit vectors always qualify.
    """
    p = np.abs(a * b)
    tiny = ((p != 0) & (p < _TINY)).any(axis=0)
    big = (np.abs(a) > _CHAIN_FACTOR).any(axis=0) | (np.abs(b) > _CHAIN_FACTOR).any(axis=0)
    return np.asarray(~(tiny | big | ~np.isfinite(p).all(axis=0)))


def _chain64(a: np.ndarray, b: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Per column p: ``acc = fma(a[k, p], b[k, p], acc)`` for k in [lo, hi), from acc = +0 (one FMA lane)."""
    acc = np.zeros(a.shape[1])
    if lo >= hi:
        return acc
    ah, al = _split(a[lo:hi])
    bh, bl = _split(b[lo:hi])
    for i, k in enumerate(range(lo, hi)):
        acc = _fma64_fast(a[k], b[k], acc, (ah[i], al[i]), (bh[i], bl[i]))
    for p in np.flatnonzero(~_chain_in_range(a[lo:hi], b[lo:hi])).tolist():  # never for unit vectors
        value = 0.0
        for k in range(lo, hi):
            value = _fma64_exact(float(a[k, p]), float(b[k, p]), value)
        acc[p] = value
    return acc


def _dgemm_chains_sparse(left: np.ndarray, right: np.ndarray, blocks: list[tuple[int, int]]) -> np.ndarray:
    """:func:`dgemm_chains` over the nonzero products only (every chain in the fast FMA's range).

    A zero product leaves the float64 accumulator unchanged (as in :func:`_chain64`), so each K block's
    chain takes only its nonzero products, in order; the chains are sorted by length and step s is one
    vector operation over those longer than s.
    """
    n_pairs = left.shape[0]
    block_lo = np.asarray([lo for lo, _ in blocks])
    out = np.empty(n_pairs)
    step = max(1, _PAIR_CELLS // max(1, left.shape[1]))
    for start in range(0, n_pairs, step):
        a_rows, b_rows = left[start : start + step], right[start : start + step]
        n = len(a_rows)
        pair, col = np.nonzero(a_rows * b_rows)  # pair by pair, k ascending
        seq = pair * len(blocks) + np.searchsorted(block_lo, col, side="right") - 1
        n_seq = n * len(blocks)
        acc = np.zeros(n_seq)
        if len(seq):
            counts = np.bincount(seq, minlength=n_seq)
            order = np.argsort(-counts, kind="stable")
            place = np.empty(n_seq, dtype=np.int64)
            place[order] = np.arange(n_seq)
            rank = np.arange(len(seq)) - (np.cumsum(counts) - counts)[seq]
            steps = int(counts[order[0]])
            a = np.zeros((steps, n_seq))
            b = np.zeros((steps, n_seq))
            a[rank, place[seq]] = a_rows[pair, col]
            b[rank, place[seq]] = b_rows[pair, col]
            active = n_seq - np.cumsum(np.bincount(counts, minlength=steps + 1))
            ah, al = _split(a)
            bh, bl = _split(b)
            chains = np.zeros(n_seq)
            for i in range(steps):
                m = int(active[i])
                chains[:m] = _fma64_fast(a[i, :m], b[i, :m], chains[:m], (ah[i, :m], al[i, :m]), (bh[i, :m], bl[i, :m]))
            acc[order] = chains
        per_block = acc.reshape(n, len(blocks))
        c = np.zeros(n)
        for j in range(len(blocks)):
            c = c + per_block[:, j]
        out[start : start + n] = c
    return out


def dgemm_chains(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Element ``(i, j)`` of numpy's ``A @ B.T`` (float64, both at least 2 rows) on the Haswell dgemm kernel.

    ``left[p]`` and ``right[p]`` are the two rows (length K) of one output element; returns the P
    values. Each K block of :func:`k_blocks` (Q = 256, unroll 4) is one FMA chain from +0; the blocks
    are added to C = +0 in order.
    """
    left = np.asarray(left, dtype=np.float64)
    right = np.asarray(right, dtype=np.float64)
    n_pairs, k = left.shape
    out = np.empty(n_pairs)
    blocks = k_blocks(k, DGEMM_Q, DGEMM_UNROLL_M)
    if n_pairs and _chain_in_range(left.T, right.T).all() and np.count_nonzero(left * right) < left.size / 2:
        return _dgemm_chains_sparse(left, right, blocks)
    for start in range(0, n_pairs, _PAIR_CHUNK):
        a = _columns(left[start : start + _PAIR_CHUNK])
        b = _columns(right[start : start + _PAIR_CHUNK])
        c = np.zeros(a.shape[1])
        for lo, hi in blocks:
            c = c + _chain64(a, b, lo, hi)
        out[start : start + _PAIR_CHUNK] = c
    return out


def _gemv_tail(y: np.ndarray, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dgemv_t_4.c``'s last ``K mod 4`` rows (a, x: (t, P)), as compiled with FMA contraction."""
    t = a.shape[0]
    if t == 0:
        return y
    if t == 1:
        return fma64(a[0], x[0], y)
    s = fma64(a[0], x[0], a[1] * x[1])
    if t == 3:
        s = fma64(a[2], x[2], s)
    return np.asarray(y + s)


def _gemv_4x2(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dgemv_kernel_4x2`` for one column: lanes of even and odd rows (mulpd, addpd), then ``haddpd``."""
    even = np.zeros(a.shape[1])
    odd = np.zeros(a.shape[1])
    for i in range(0, a.shape[0], 2):
        even = even + a[i] * x[i]
        odd = odd + a[i + 1] * x[i + 1]
    return even + odd


def _gemv_4x1(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dgemv_kernel_4x1``: rows k mod 4 in four lanes (a leading pair when the count is 2 mod 4), summed."""
    zero = np.zeros(a.shape[1])
    l0, l1, l2, l3 = zero, zero, zero, zero
    i = 0
    if a.shape[0] & 2:
        l0 = l0 + a[0] * x[0]
        l1 = l1 + a[1] * x[1]
        i = 2
    while i < a.shape[0]:
        l0 = l0 + a[i] * x[i]
        l1 = l1 + a[i + 1] * x[i + 1]
        l2 = l2 + a[i + 2] * x[i + 2]
        l3 = l3 + a[i + 3] * x[i + 3]
        i += 4
    return (l0 + l2) + (l1 + l3)


def _gemv_4x4(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dgemv_kernel_4x4`` (``dgemv_t_microk_haswell-4.c``): FMA lanes k mod 4, then ``(l0 + l2) + (l1 + l3)``."""
    lanes = [np.zeros(a.shape[1]) for _ in range(4)]
    for i in range(a.shape[0]):
        lanes[i & 3] = fma64(a[i], x[i], lanes[i & 3])
    return (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])


def dgemv_t_haswell(vector: np.ndarray, rows: np.ndarray, column: int, n_columns: int) -> np.ndarray:
    """Entry ``column`` of numpy's ``x @ B.T`` for x (1, K), B (n_columns, K) float64, on Haswell's dgemv_t.

    ``vector[p]`` is x and ``rows[p]`` row ``column`` of B for the P products. The column's place picks
    the kernel (``dgemv_t_4.c``): groups of four columns ``dgemv_kernel_4x4``, then a pair
    ``dgemv_kernel_4x2``, then a last odd column ``dgemv_kernel_4x1``.
    """
    fours = n_columns - (n_columns & 3)
    kernel = _gemv_4x4 if column < fours else _gemv_4x2 if column < fours + (n_columns & 2) else _gemv_4x1
    vector = np.asarray(vector, dtype=np.float64)
    rows = np.asarray(rows, dtype=np.float64)
    n_pairs, k = vector.shape
    body = k - (k & 3)
    out = np.empty(n_pairs)
    for start in range(0, n_pairs, _PAIR_CHUNK):
        x = _columns(vector[start : start + _PAIR_CHUNK])
        a = _columns(rows[start : start + _PAIR_CHUNK])
        y = np.zeros(x.shape[1])
        for lo in range(0, body, _NBMAX):
            hi = min(body, lo + _NBMAX)
            y = y + kernel(a[lo:hi], x[lo:hi])
        out[start : start + _PAIR_CHUNK] = _gemv_tail(y, a[body:], x[body:])
    return out


def gemv_kernel(column: int, n_columns: int) -> int:
    """Which ``dgemv_t_4.c`` kernel serves a column: 0 (4x4), 1 (4x2) or 2 (4x1)."""
    fours = n_columns - (n_columns & 3)
    return 0 if column < fours else 1 if column < fours + (n_columns & 2) else 2


#: per :func:`gemv_kernel` result, a (column, n_columns) of :func:`dgemv_t_haswell` that selects that kernel
GEMV_KERNEL_COLUMNS = {0: (0, 4), 1: (0, 2), 2: (0, 1)}


# --- float32: pair scores ----------------------------------------------------------------------------

#: float32 FMA lanes of ``sdot_microk_haswell-2.c`` (four ymm registers of eight)
_SDOT_LANES = 32


def _add32(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float32 addition, exactly as the hardware's (the float64 sum of two float32 is exact, one rounding)."""
    return (x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)


def sdot_haswell(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``cblas_sdot(left[p], right[p])`` on Haswell for each row pair (float32 (P, K) -> float32 (P,)).

    ``K & -32`` elements in 32 float32 FMA lanes (lane = k mod 32), reduced as the kernel does: each
    register's high half added to its low half, registers (0 + 1) + (2 + 3), then two horizontal adds;
    the remaining ``K mod 32`` products rounded to float32 and added in float64, the float32 result
    added last, the total rounded to float32 (``kernel/x86_64/sdot.c``).
    """
    left = np.asarray(left, dtype=np.float32)
    right = np.asarray(right, dtype=np.float32)
    n_pairs, k = left.shape
    body = k - (k % _SDOT_LANES)
    out = np.empty(n_pairs, dtype=np.float32)
    for start in range(0, n_pairs, _PAIR_CHUNK):
        a = np.ascontiguousarray(left[start : start + _PAIR_CHUNK].T)
        b = np.ascontiguousarray(right[start : start + _PAIR_CHUNK].T)
        lanes = np.zeros((_SDOT_LANES, a.shape[1]), dtype=np.float32)
        for lo in range(0, body, _SDOT_LANES):
            lanes = fma32(a[lo : lo + _SDOT_LANES], b[lo : lo + _SDOT_LANES], lanes)
        regs = [_add32(lanes[8 * r : 8 * r + 4], lanes[8 * r + 4 : 8 * r + 8]) for r in range(4)]
        x = _add32(_add32(regs[0], regs[1]), _add32(regs[2], regs[3]))
        kernel = _add32(_add32(x[0], x[1]), _add32(x[2], x[3])) if body else np.zeros(a.shape[1], np.float32)
        tail = np.zeros(a.shape[1])
        for i in range(body, k):
            tail = tail + (a[i] * b[i]).astype(np.float64)  # float32 product, float64 sum
        out[start : start + _PAIR_CHUNK] = (tail + kernel.astype(np.float64)).astype(np.float32)
    return out


# --- float32: ssyrk, the all-to-all score matrix -----------------------------------------------------

#: ``param.h`` HASWELL (single precision): GEMM_P, and GEMM_UNROLL_MN = max(unroll M 8, unroll N 4)
SGEMM_P = 320
_UNROLL_MN = 8
#: ``interface/syrk.c``: one thread when (n + 1) n k is at most this (SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD)
_SYRK_SMP_MIN = 109944.0 * 4
#: ``param.h`` HASWELL SWITCH_RATIO (single precision): the threaded driver needs n >= threads * this
_SWITCH_RATIO = 8
#: ``level3_syrk_threaded.c`` DIVIDE_RATE
_DIVIDE_RATE = 2
#: pattern codes of :func:`_kernel_patterns`
_CHAIN, _SPLIT = 0, 1


def _kernel_patterns(m: int, n: int) -> np.ndarray:
    """How ``sgemm_kernel_8x4_haswell_2.c`` accumulates each element of an m x n call: chain or split.

    ``_CHAIN``: one FMA chain over the call's k. ``_SPLIT``: two chains, the even and the odd k of
    every run of eight (``KERNEL_k2m8n4``, ``KERNEL_L/R_k2m8n6``: the second k of a pair goes to other
    registers), the last ``k mod 8`` k on the even chain, then even + odd (``SAVE_m8n4``,
    ``SAVE_L/R_m8n6``). Columns go 12 at a time, then 8, 4, 2, 1 (``CNAME``); in a 12-column group with
    at least 16 rows, the left six columns (L) and the right six (R) are covered by 16-row chains
    (``COMPUTE_L/R_m16n6``) staggered by 8 rows, whose 8-row ends are split (``COMPUTE_H_m8n6`` for L's
    first 8 rows, ``COMPUTE_T_m8n6`` for the side that ends 8 rows short); in a 4-column group every
    full 8-row group is split (``COMPUTE_m8n4``); all other paths are chains.
    """
    out = np.full((m, n), _CHAIN, dtype=np.int8)
    col = 0
    left = n
    while left > 11:
        if m >= 16:
            out[0:8, col : col + 6] = _SPLIT  # H: rows 0-7, L columns
            c = 0
            rows = m
            while True:  # R16 at c; then either T(L) and stop, or L16 at c + 8 and go on / T(R)
                c += 8
                rows -= 8
                if rows < 16:
                    out[c : c + 8, col : col + 6] = _SPLIT
                    break
                c += 8
                rows -= 8
                if rows < 16:
                    out[c : c + 8, col + 6 : col + 12] = _SPLIT
                    break
        col += 12
        left -= 12
    while left > 7:
        col += 8
        left -= 8
    while left > 3:
        full = m - m % 8
        out[0:full, col : col + 4] = _SPLIT
        col += 4
        left -= 4
    return out


class _Coverage:
    """Pattern per (row, column) of the lower triangle for one K block, filled by the simulated calls."""

    def __init__(self, n: int) -> None:
        self.code = np.full((n, n), -1, dtype=np.int8)

    def gemm(self, m: int, n: int, x: int, y: int, lower_only: bool = False) -> None:
        if m <= 0 or n <= 0:
            return
        pat = _kernel_patterns(m, n)
        block = self.code[x : x + m, y : y + n]
        if lower_only:  # a diagonal block: only its lower part reaches C (``syrk_kernel.c``)
            keep = np.tril(np.ones((m, n), dtype=bool), x - y)
            if (block[keep] != -1).any():
                raise AssertionError("ssyrk simulation: an element computed twice")
            block[keep] = pat[keep]
        else:
            if (block != -1).any():
                raise AssertionError("ssyrk simulation: an element computed twice")
            block[...] = pat

    def syrk_kernel(self, m: int, n: int, x: int, y: int) -> None:
        """``driver/level3/syrk_kernel.c`` (LOWER) for rows [x, x + m) and columns [y, y + n)."""
        offset = x - y
        if m + offset < 0:
            return
        if n < offset:
            self.gemm(m, n, x, y)
            return
        if offset > 0:
            self.gemm(m, offset, x, y)
            y += offset
            n -= offset
            offset = 0
            if n <= 0:
                return
        if n > m + offset:
            n = m + offset
            if n <= 0:
                return
        if offset < 0:
            x -= offset
            m += offset
            offset = 0
            if m <= 0:
                return
        if m > n:
            self.gemm(m - n, n, x + n, y)
            m = n
        for loop in range(0, n, _UNROLL_MN):
            nn = min(_UNROLL_MN, n - loop)
            self.gemm(nn, nn, x + loop, y + loop, lower_only=True)
            self.gemm(m - loop - nn, nn, x + loop + nn, y + loop)


def _round_up(value: int, unit: int) -> int:
    return ((value + unit - 1) // unit) * unit


def _syrk_threads(n: int, k: int, threads: int) -> int:
    """Threads ``interface/syrk.c`` and ``level3_syrk_threaded.c`` use for an n x k ssyrk."""
    if (n + 1) * n * k <= _SYRK_SMP_MIN or threads == 1 or n < threads * _SWITCH_RATIO:
        return 1
    return threads


def _thread_ranges(n: int, threads: int) -> list[int]:
    """``level3_syrk_threaded.c`` CNAME (LOWER): column ranges of equal triangle area, multiples of 8."""
    mask = _UNROLL_MN - 1
    ranges = [0]
    dnum = float(n) * float(n) / float(threads)
    i = 0
    while i < n:
        if threads - (len(ranges) - 1) > 1:
            di = float(i)
            dinum = di * di + dnum
            width = (
                (int((math.sqrt(dinum) - di) + mask) // (mask + 1)) * (mask + 1)
                if dinum > 0
                else ((int(-di + mask) // (mask + 1)) * (mask + 1))
            )
            if width > n - i or width < mask:
                width = n - i
        else:
            width = n - i
        ranges.append(ranges[-1] + width)
        i += width
    return ranges


def _p_block(size: int, half_up: bool) -> int:
    if size >= 2 * SGEMM_P:
        return SGEMM_P
    if size > SGEMM_P:
        return _round_up((size + 1) // 2 if half_up else size // 2, _UNROLL_MN)
    return size


def _single_thread_patterns(n: int) -> np.ndarray:
    """``driver/level3/level3_syrk.c`` (LOWER, TRANS; one column block: n is below GEMM_R)."""
    cov = _Coverage(n)
    min_i = _p_block(n, False)
    cov.syrk_kernel(min_i, min_i, 0, 0)
    start = min_i
    while start < n:
        min_i = _p_block(n - start, False)
        cov.syrk_kernel(min_i, min(min_i, n - start), start, start)
        cov.syrk_kernel(min_i, start, start, 0)
        start += min_i
    return cov.code


def _threaded_patterns(n: int, threads: int) -> np.ndarray:
    """``driver/level3/level3_syrk_threaded.c`` ``inner_thread`` (LOWER) of every thread."""
    ranges = _thread_ranges(n, threads)
    cov = _Coverage(n)

    def div(c: int) -> int:
        return _round_up((ranges[c + 1] - ranges[c] + _DIVIDE_RATE - 1) // _DIVIDE_RATE, _UNROLL_MN)

    for me in range(len(ranges) - 1):
        m_from, m_to = ranges[me], ranges[me + 1]
        min_i = _p_block(m_to - m_from, False)
        extra = (m_to - m_from - min_i) % SGEMM_P
        if extra:
            min_i -= SGEMM_P - extra
        for xxx in range(m_from, m_to, div(me)):
            end = min(m_to, xxx + div(me))
            for jjs in range(xxx, end, _UNROLL_MN):
                cov.syrk_kernel(min_i, min(_UNROLL_MN, end - jjs), m_to - min_i, jjs)
        for cur in range(me - 1, -1, -1):
            for xxx in range(ranges[cur], ranges[cur + 1], div(cur)):
                cov.syrk_kernel(min_i, min(ranges[cur + 1] - xxx, div(cur)), m_to - min_i, xxx)
        start_i = min_i
        is_ = m_from
        while is_ < m_to - start_i:
            min_i = _p_block(m_to - start_i - is_, True)
            for cur in range(me, -1, -1):
                for xxx in range(ranges[cur], ranges[cur + 1], div(cur)):
                    cov.syrk_kernel(min_i, min(ranges[cur + 1] - xxx, div(cur)), is_, xxx)
            is_ += min_i
    return cov.code


def ssyrk_patterns(n: int, k: int, threads: int = REFERENCE_THREADS) -> np.ndarray:
    """Per element (row >= column) of ``X @ X.T`` (X: n x k float32): the kernel's pattern (same for every K block)."""
    used = _syrk_threads(n, k, threads)
    code = _single_thread_patterns(n) if used == 1 else _threaded_patterns(n, used)
    lower = np.tril(np.ones((n, n), dtype=bool))
    if (code[lower] == -1).any():
        raise AssertionError("ssyrk simulation: an element of the lower triangle was not computed")
    return code


#: float64 bits of a value exactly halfway between two normal float32 (bit 28 set, bits 0-27 clear)
_MID_MASK = np.int64(0x1FFFFFFF)
_MID_BITS = np.int64(0x10000000)
#: rows (and columns) of one tile of the score matrix emulated at once
_TILE = 256
_F32_MIN_NORMAL = 2.0**-126


def _no_subnormal_sums(x: np.ndarray) -> bool:
    """True when no FMA chain over products of these float32 values can reach float32's subnormal range.

    With every nonzero |x| in [2**-40, 2**40], every product is a multiple of 2**-126 and below 2**80,
    every float32 rounding of a sum of such multiples is again one (it is exact below 2**-102 and rounds
    to a grid of at least 2**-126 above), so a nonzero partial sum is at least 2**-126: normal.
    """
    a = np.abs(x[x != 0])
    return bool(a.size == 0 or (a.min() >= 2.0**-40 and a.max() <= 2.0**40))


def _fma32_step(p: np.ndarray, acc: np.ndarray, normal: bool = False) -> np.ndarray:
    """float32 ``fma`` with the exact float64 product ``p`` and a float32 accumulator held in float64.

    ``p + acc`` is rounded to float64 and then to float32; that is the correctly rounded float32 sum
    unless the float64 sum fell exactly on a float32 midpoint (or in float32's subnormal range), which
    the few such elements settle with the exact error of the float64 sum (:func:`_round_exact_to_f32`).
    ``normal``: the caller knows no nonzero sum can be subnormal (:func:`_no_subnormal_sums`).
    """
    s = p + acc
    r = s.astype(np.float32)
    odd = (s.view(np.int64) & _MID_MASK) == _MID_BITS
    if not normal:
        odd |= (s != 0) & (np.abs(s) < _F32_MIN_NORMAL)
    if odd.any():
        idx = np.nonzero(odd)
        s_odd, e_odd = _two_sum(p[idx], acc[idx])
        r[idx] = _round_exact_to_f32(s_odd, e_odd)
    return np.asarray(r, dtype=np.float64)


def _tile_block(xr: np.ndarray, xc: np.ndarray, lo: int, hi: int, split: np.ndarray | None, normal: bool) -> np.ndarray:
    """One K block of a tile: rows' and columns' values (K, R) and (K, C) float64, returns float32 values (R, C)."""
    acc = np.zeros((xr.shape[1], xc.shape[1]))
    if split is None:
        for k in range(lo, hi):
            acc = _fma32_step(xr[k][:, None] * xc[k][None, :], acc, normal)
        return acc.astype(np.float32)
    odd_acc = np.zeros_like(acc)
    paired_end = lo + ((hi - lo) // 8) * 8  # the k2 loop runs over whole groups of eight
    for k in range(lo, hi):
        p = xr[k][:, None] * xc[k][None, :]
        if k < paired_end and (k - lo) & 1:
            both = _fma32_step(p, np.where(split, odd_acc, acc), normal)
            odd_acc = np.where(split, both, odd_acc)
            acc = np.where(split, acc, both)
        else:
            acc = _fma32_step(p, acc, normal)
    total = np.where(split, (acc + odd_acc).astype(np.float32), acc.astype(np.float32))
    return total


def ssyrk_haswell(x: np.ndarray, threads: int = REFERENCE_THREADS) -> np.ndarray:
    """Scores ``x[a] . x[b]`` for every a < b (row-major, as ``np.triu_indices(n, 1)``) of numpy's ``x @ x.T``.

    numpy computes ``X @ X.T`` of one float32 array with ``cblas_ssyrk(RowMajor, Upper, NoTrans)``,
    which OpenBLAS runs as the lower-triangle, transposed variant: ``level3_syrk_threaded.c`` on
    ``threads`` threads (the reference machine's 2; one thread when ``interface/syrk.c`` finds the
    problem small or ``level3_syrk.c`` alone). The drivers cut K into blocks (:func:`k_blocks`, Q = 320,
    halved remainders), split the rows among threads (equal triangle areas) and into panels of
    GEMM_P = 320, and call ``syrk_kernel.c``, which hands rectangles and 8 x 8 diagonal blocks to the
    sgemm kernel; where each element falls in those calls decides whether it is one FMA chain or the
    sum of two (:func:`_kernel_patterns`); the driver is simulated to know which
    (:func:`ssyrk_patterns`, checked to compute every element exactly once). Block results are added
    to C (= 0) in order: ``C + acc`` in float32 (the kernel's ``vfmadd213ps`` with alpha = 1).
    """
    x = np.asarray(x, dtype=np.float32)
    n, k = x.shape
    out = np.empty(n * (n - 1) // 2, dtype=np.float32)
    if n < 2:
        return out
    pattern = ssyrk_patterns(n, k, threads)
    normal = _no_subnormal_sums(x)
    cols64 = np.ascontiguousarray(x.T.astype(np.float64))  # (K, n): one k is a contiguous row
    blocks = k_blocks(k, SGEMM_Q, None)
    starts = np.concatenate([[0], np.cumsum(np.arange(n - 1, 0, -1))])  # flat index of pair (a, a + 1)
    for r0 in range(0, n, _TILE):
        r1 = min(n, r0 + _TILE)
        for c0 in range(0, r1 - 1, _TILE):  # columns c < row r: the strict lower triangle
            c1 = min(n, c0 + _TILE, r1 - 1)
            if c0 >= c1:
                continue
            code = pattern[r0:r1, c0:c1]
            split = code == _SPLIT
            c = np.zeros((r1 - r0, c1 - c0), dtype=np.float32)
            for lo, hi in blocks:
                part = _tile_block(cols64[:, r0:r1], cols64[:, c0:c1], lo, hi, split if split.any() else None, normal)
                c = _add32(c, part)
            rows, cols = np.nonzero(np.arange(r0, r1)[:, None] > np.arange(c0, c1)[None, :])
            a = cols + c0  # row-major upper (a < b) is the lower (b, a)
            b = rows + r0
            out[starts[a] + (b - a - 1)] = c[rows, cols]
    return out


# --- array-speed emulation of chosen pairs -----------------------------------------------------------

#: float64 product cells gathered at once by the pair-wise emulations and the intervals (2 MiB): chunks this small
#: reuse the same memory, where 32 MiB ones (2**22) were fresh pages each time -- a first call on bible_versions'
#: 1,600 rows took 1.2-1.8 s instead of 0.45-0.5 s (this project's 2-core VM, 2026-12-06)
_PAIR_CELLS = 2**18
#: the pair-wise emulation's cost per product over the tile-wise one's (sorting the sparse products into chains):
#: 29.1 s vs 1.8 s for all 1.18 M pairs of 1,537 dense 384-d rows, this project's 2-core VM, 2026-12-06
PAIR_CELL_COST = 16


def _chains32(seq: np.ndarray, values: np.ndarray, n_seq: int, normal: bool) -> np.ndarray:
    """float32 FMA chains from +0: chain ``seq[e]`` takes the exact product ``values[e]``, in the entries' order.

    Only nonzero products are given (a zero product leaves a float32 accumulator unchanged: ``acc + 0`` is
    exact, and from +0 the sum stays +0). The chains are sorted by length, so step s is one vector
    operation over the chains longer than s: the work is the number of products, not chains x K.
    """
    out = np.zeros(n_seq, dtype=np.float32)
    if len(seq) == 0:
        return out
    by_seq = np.argsort(seq, kind="stable")  # within a chain the entries keep their order
    seq, values = seq[by_seq], values[by_seq]
    counts = np.bincount(seq, minlength=n_seq)
    order = np.argsort(-counts, kind="stable")  # chains, longest first
    place = np.empty(n_seq, dtype=np.int64)
    place[order] = np.arange(n_seq)
    starts = np.cumsum(counts) - counts
    rank = np.arange(len(seq)) - starts[seq]
    steps = int(counts[order[0]])
    compact = np.zeros((steps, n_seq))
    compact[rank, place[seq]] = values
    active = n_seq - np.cumsum(np.bincount(counts, minlength=steps + 1))  # chains with more than s products
    acc = np.zeros(n_seq)
    for step in range(steps):
        m = int(active[step])
        acc[:m] = _fma32_step(compact[step, :m], acc[:m], normal)
    out[order] = acc.astype(np.float32)
    return out


def ssyrk_haswell_pairs(
    x: np.ndarray, rows: np.ndarray, cols: np.ndarray, codes: np.ndarray, normal: bool | None = None
) -> np.ndarray:
    """Elements ``(rows[p], cols[p])`` of numpy's ``x @ x.T`` as :func:`ssyrk_haswell` computes them, pair by pair.

    ``codes[p]``: the element's kernel pattern (:func:`ssyrk_patterns`, ``_CHAIN`` or ``_SPLIT``). The same
    arithmetic as the tile-wise emulation -- per K block one chain, or for ``_SPLIT`` a chain of the odd k
    of the block's whole groups of eight and one of the others, added; the blocks added to C in float32
    -- vectorised over all the chosen pairs' nonzero products at once (:func:`_chains32`; the products of
    two rows are taken sparse), so emulating a few pairs costs a few vector operations per product.
    """
    import scipy.sparse as sp

    x = np.asarray(x, dtype=np.float32)
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    split_all = np.asarray(codes) == _SPLIT
    k = x.shape[1]
    if normal is None:
        normal = _no_subnormal_sums(x)
    blocks = k_blocks(k, SGEMM_Q, None)
    block_lo = np.asarray([lo for lo, _ in blocks])
    paired_end = np.asarray([lo + ((hi - lo) // 8) * 8 for lo, hi in blocks])
    n_chains = 2 * len(blocks)  # per block: the (even) chain and the odd one
    sparse = sp.csr_matrix(x.astype(np.float64))
    per_row = np.diff(sparse.indptr)
    out = np.empty(len(rows), dtype=np.float32)
    cells = np.cumsum(np.minimum(per_row[rows], per_row[cols]))  # products up to each pair, at most
    start = 0
    while start < len(rows):  # chunks of about _PAIR_CELLS products
        before = int(cells[start - 1]) if start else 0
        stop = max(start + 1, int(np.searchsorted(cells, before + _PAIR_CELLS, side="right")))
        products = sparse[rows[start:stop]].multiply(sparse[cols[start:stop]]).tocsr()
        products.sort_indices()
        n = stop - start
        pair = np.repeat(np.arange(n), np.diff(products.indptr))
        col = products.indices.astype(np.int64)
        block = np.searchsorted(block_lo, col, side="right") - 1
        offset = col - block_lo[block]
        odd = split_all[start:stop][pair] & (col < paired_end[block]) & ((offset & 1) == 1)
        chains = _chains32(pair * n_chains + 2 * block + odd, products.data, n * n_chains, normal)
        chains = chains.reshape(n, len(blocks), 2)
        c = np.zeros(n, dtype=np.float32)
        for b in range(len(blocks)):
            c = _add32(c, _add32(chains[:, b, 0], chains[:, b, 1]))  # a chain element's odd part is +0
        out[start:stop] = c
        start = stop
    return out


# --- which products can decide a ranking -------------------------------------------------------------

#: unit roundoff of float32 and float64 (round to nearest: |fl(v) - v| <= u |fl(v)| for normal results)
_U32 = 2.0**-24
_U64 = 2.0**-53
#: the largest rounding error of one operation whose result is subnormal in float32
_SUBNORMAL_ERROR32 = 2.0**-150


def _meets_another(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per closed interval ``[lo[i], hi[i]]``: whether it meets any other interval of the arrays."""
    order = np.argsort(lo, kind="stable")
    low, high = lo[order], hi[order]
    meets = np.zeros(len(lo), dtype=bool)
    if len(lo) > 1:
        meets[1:] |= low[1:] <= np.maximum.accumulate(high)[:-1]  # an earlier one reaches it
        meets[:-1] |= high[:-1] >= low[1:]  # it reaches the next lower end (the least of the later ones)
    out = np.empty(len(lo), dtype=bool)
    out[order] = meets
    return out


def _rounding_bound(approx_error: np.ndarray, roundings: np.ndarray, abs_sum: np.ndarray) -> np.ndarray:
    """A rigorous bound on ``|reference - approx|`` for float32 sums of exact products.

    Any evaluation of a sum of products (any order, any tree, with or without FMA) ends at the exact sum
    plus the local errors of its rounding operations; each is at most ``u`` times that operation's
    computed result, whose magnitude is at most ``abs_sum`` plus the errors so far, or ``2**-150`` when
    the result is subnormal. ``roundings`` bounds the operations that can round (an operation with an
    exactly zero operand cannot); so ``E <= r u S / (1 - r u) + r 2**-150``. ``approx_error`` bounds the
    float64 approximation's own error; the sum is widened by 2**-30 of itself for the rounding of this
    arithmetic.
    """
    ru = roundings * _U32
    reference = ru * abs_sum / (1.0 - ru) + roundings * _SUBNORMAL_ERROR32
    return np.asarray((reference + approx_error) * (1.0 + 2.0**-30))


def _rank_preserving_scores(
    approx: np.ndarray, bound: np.ndarray, key: np.ndarray, emulate: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, int]:
    """float32 scores ordered and tied exactly as the reference's, emulating only the undecided ones.

    ``approx[p]``: a float64 approximation of pair p's reference score, ``bound[p]`` a rigorous bound on
    their distance; ``key[p]``: pairs of one key have the same reference score (same rows, same kernel
    path); ``emulate(pairs)`` computes the reference scores of those pairs. Each key's interval
    ``approx +- bound`` holds its reference score. A key whose interval meets no other key's interval is
    ranked against every other score by the interval alone: it keeps ``float32(approx)``, which lies in
    the interval too (the reference score is a float32 in it, and rounding picks the nearest). The
    others (near-ties, exact ties above all) are emulated. Then every pair of scores compares (``<``,
    ``==``) as the reference's do, so every figure computed from the ranking (AUROC, ROC curve, EER,
    partial AUCs: the counts per distinct score) is the reference's, bit for bit.
    """
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    centre = approx[first]
    radius = bound[first]
    undecided = np.flatnonzero(_meets_another(centre - radius, centre + radius))
    values = centre.astype(np.float32)
    if undecided.size:
        values[undecided] = emulate(first[undecided])
    return values[inverse.reshape(-1)], int(undecided.size)


def _row_ids(x: np.ndarray) -> np.ndarray:
    """Per row: the index of the first row with the same bits (equal rows give equal products)."""
    _, first, inverse = np.unique(
        np.ascontiguousarray(x).view(np.int32), axis=0, return_index=True, return_inverse=True
    )
    return np.asarray(first[inverse.reshape(-1)], dtype=np.int64)


def ssyrk_intervals(
    x: np.ndarray, threads: int = REFERENCE_THREADS
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pair a < b (row-major) of ``x @ x.T``: this CPU's float64 cosine, a bound on its distance to the reference's.

    This CPU's BLAS gives every product in float64 (float32 factors multiply exactly there; the float64
    sum's error is below ``(2 n + 2) u64 S``), and the Haswell ssyrk rounds once per FMA with a nonzero
    product (``n`` of them: ``(x != 0) @ (x != 0).T``), once where an element's even and odd chains are
    added and once per K block added to C (:func:`_rounding_bound`, ``S = |x| @ |x|.T``). Pairs without a
    common nonzero are exactly +0 in the reference (bound 0, key -1). Returns ``approx, bound, key, rows,
    cols, pattern``: ``key`` is the same for pairs of the same two rows' values and kernel pattern (equal
    reference scores), ``(rows[p], cols[p])`` the pair's element of the lower triangle and ``pattern``
    :func:`ssyrk_patterns`.
    """
    x = np.asarray(x, dtype=np.float32)
    n, k = x.shape
    n_pairs = n * (n - 1) // 2
    pattern = ssyrk_patterns(n, k, threads) if n >= 2 else np.zeros((n, n), dtype=np.int8)
    ids = _row_ids(x) if n else np.zeros(0, dtype=np.int64)
    x64 = x.astype(np.float64)
    abs64 = np.abs(x64) if (x < 0).any() else None
    nonzero = (x != 0).astype(np.float32)  # counts below 2**24: exact in any order
    extra = len(k_blocks(k, SGEMM_Q, None)) + 1
    approx = np.empty(n_pairs)
    bound = np.empty(n_pairs)
    key = np.empty(n_pairs, dtype=np.int64)
    rows_of = np.empty(n_pairs, dtype=np.int64)
    cols_of = np.empty(n_pairs, dtype=np.int64)
    step = max(1, _PAIR_CELLS // max(1, n))
    pos = 0
    for r0 in range(0, n - 1, step):
        r1 = min(n - 1, r0 + step)
        # the chunk's pairs a < b as flat positions of its (rows, n) products: taken, not masked (no mask temporaries)
        flat = np.flatnonzero(np.arange(n)[None, :] > np.arange(r0, r1)[:, None])
        a, b = np.divmod(flat, n)
        a += r0
        dots = (x64[r0:r1] @ x64.T).ravel().take(flat)
        sums = dots if abs64 is None else (abs64[r0:r1] @ abs64.T).ravel().take(flat)
        count = (nonzero[r0:r1] @ nonzero.T).ravel().take(flat).astype(np.float64)
        err = _rounding_bound((2 * count + 2) * _U64 * sums, count + extra, sums)
        code = np.ascontiguousarray(pattern[:, r0:r1].T).ravel().take(flat).astype(np.int64)  # element (b, a)
        id_a, id_b = ids[a], ids[b]
        chunk_key = (np.minimum(id_a, id_b) * n + np.maximum(id_a, id_b)) * 2 + code
        none = count == 0
        if none.any():
            dots = np.where(none, 0.0, dots)
            err[none] = 0.0
            chunk_key[none] = -1
        stop = pos + len(a)
        approx[pos:stop] = dots
        bound[pos:stop] = err
        key[pos:stop] = chunk_key
        rows_of[pos:stop] = b
        cols_of[pos:stop] = a
        pos = stop
    return approx, bound, key, rows_of, cols_of, pattern


def ssyrk_ranked(x: np.ndarray, threads: int = REFERENCE_THREADS) -> tuple[np.ndarray, int]:
    """Scores of every pair a < b (row-major) ranked and tied as :func:`ssyrk_haswell`'s; how many keys were emulated.

    Only the keys whose interval (:func:`ssyrk_intervals`) meets another's are emulated
    (:func:`_rank_preserving_scores`, :func:`ssyrk_haswell_pairs`). Returned values of decided pairs are
    within the bound of the reference's, not equal to it. Where those pairs' products outweigh the whole
    matrix's by :data:`PAIR_CELL_COST` (dense float32 vectors, e.g. a sentence encoder's, leave nearly every
    rank undecided), the whole matrix is emulated tile by tile (:func:`ssyrk_haswell`): the same values for
    the emulated pairs, at a sixteenth of the cost.
    """
    x = np.asarray(x, dtype=np.float32)
    if x.shape[0] < 2:
        return np.empty(0, dtype=np.float32), 0
    approx, bound, key, rows_of, cols_of, pattern = ssyrk_intervals(x, threads)
    normal = _no_subnormal_sums(x)
    per_row = np.count_nonzero(x, axis=1)

    def emulate(pairs: np.ndarray) -> np.ndarray:
        rows, cols = rows_of[pairs], cols_of[pairs]
        pair_cells = int(np.minimum(per_row[rows], per_row[cols]).sum())
        if pair_cells * PAIR_CELL_COST > len(approx) * x.shape[1]:  # dense near-ties: every tile is cheaper
            return np.asarray(ssyrk_haswell(x, threads)[pairs])
        return ssyrk_haswell_pairs(x, rows, cols, pattern[rows, cols], normal)

    return _rank_preserving_scores(approx, bound, key, emulate)


def sdot_ranked(unit: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, int]:
    """Scores ``unit[ia[p]] . unit[ib[p]]`` ranked and tied as :func:`sdot_haswell`'s, and how many were emulated.

    As :func:`ssyrk_ranked`, with float64 row-wise dots of this CPU and the bound of any float32 evaluation
    (the sdot kernel's lanes, reductions and float64 tail: at most ``2 n + 2`` roundings for ``n``
    nonzero products); equal row pairs share a key.
    """
    unit = np.asarray(unit, dtype=np.float32)
    ia = np.asarray(ia, dtype=np.int64)
    ib = np.asarray(ib, dtype=np.int64)
    n_rows, k = unit.shape
    ids = _row_ids(unit) if n_rows else np.zeros(0, dtype=np.int64)
    approx = np.empty(len(ia))
    bound = np.empty(len(ia))
    zero = np.empty(len(ia), dtype=bool)
    step = max(256, _PAIR_CELLS // max(1, k))
    for start in range(0, len(ia), step):
        a = unit[ia[start : start + step]].astype(np.float64)
        b = unit[ib[start : start + step]].astype(np.float64)
        dots = np.einsum("ij,ij->i", a, b)
        sums = np.einsum("ij,ij->i", np.abs(a), np.abs(b))
        count = np.count_nonzero(a * b, axis=1).astype(np.float64)
        none = count == 0
        err = _rounding_bound((2 * count + 2) * _U64 * sums, 2 * count + 2, sums)
        approx[start : start + step] = np.where(none, 0.0, dots)
        bound[start : start + step] = np.where(none, 0.0, err)
        zero[start : start + step] = none
    lo_id, hi_id = np.minimum(ids[ia], ids[ib]), np.maximum(ids[ia], ids[ib])
    key = np.where(zero, -1, lo_id * max(1, n_rows) + hi_id)

    def emulate(pairs: np.ndarray) -> np.ndarray:
        return sdot_haswell(unit[ia[pairs]], unit[ib[pairs]])

    return _rank_preserving_scores(approx, bound, key, emulate)
