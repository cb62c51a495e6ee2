"""The cosines the reference rule decides on: the reference machine's products, correctly rounded ones, or BLAS's.

Why not simply a BLAS product: on vectors with many rational cosines (function words: counts over lengths)
thousands of assignments tie exactly or to the last bit, and which way a last-bit tie falls depends on how a
BLAS kernel orders its sums -- the reference's figures are those of OpenBLAS's Haswell kernel; the SkylakeX
kernel of an AVX-512 CPU moves ASSET's acc_mean by 2e-4. The reference's own computation (``align_and_score``
in github.com/rrivera1849/STEB ``steb/tasks/order_alignment.py`` @8a036408): float64 unit rows
(``np.linalg.norm``, as its ``l2_normalize``), one ``anchors @ candidates.T`` per group. Three ways
(:data:`PRODUCTS`, option ``order_alignment.products``):

* ``reference`` (default): those products as the reference machine's OpenBLAS Haswell kernels computed them,
  emulated with elementwise operations (:func:`alignment_products` on the kernels of
  :mod:`steb_core.tasks._reference_products`): the reference's figures, the same on every CPU. With
  ``prefilter`` (the task's way) only the groups whose decision the products' last bits could change are
  emulated; the others keep this CPU's BLAS products, which provably decide them the same
  (:func:`emulated_where_undecided`);
* ``exact``: every cosine correctly rounded (:func:`compensated_dots`, a fixed-order dot product: the same on
  every CPU, but not the reference's last bits);
* ``blas``: this CPU's BLAS as the reference called it (its figures only on a Haswell kernel).

Pure functions of arrays: unit rows, row indices of each group's anchors and candidates; no TaskContext.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .._reference_products import GEMV_KERNEL_COLUMNS, dgemm_chains, dgemv_t_haswell, gemv_kernel
from .reference_rule import REFERENCE_TIE_WINDOW, assignment_margins

__all__ = [
    "PRODUCTS",
    "compensated_dots",
    "exact_unit_rows",
    "alignment_products",
    "emulated_where_undecided",
    "reference_cosines",
    "scored_once",
]

#: how the reference rule computes the similarities: ``reference`` (default: the reference machine's products,
#: emulated, the same on every CPU), ``exact`` (correctly rounded, the same on every CPU) or ``blas`` (this CPU's BLAS)
PRODUCTS = ("reference", "exact", "blas")
#: Veltkamp's splitter for float64 (2**27 + 1): splits a double into two halves whose products are exact
_SPLITTER = 134217729.0
#: text pairs whose similarity is computed per block of the compensated dot product (bounds memory: two
#: float64 blocks of this many rows, 128 MiB at 512 dimensions)
DOT_PAIRS = 16384
#: the most texts whose float64 Gram matrix the undecided-group filter computes whole (128 MiB); above, per group
GRAM_TEXTS = 4096
#: pairs whose products are emulated at once (bounds memory: six float64 arrays of this many x K values)
_PAIR_CHUNK = 4096


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


def exact_unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their norm, the norm from :func:`compensated_dots` (zero rows unchanged)."""
    x = np.asarray(vectors, dtype=np.float64)
    norms = np.sqrt(
        np.concatenate(
            [compensated_dots(x[i : i + DOT_PAIRS], x[i : i + DOT_PAIRS]) for i in range(0, len(x), DOT_PAIRS)]
            or [np.zeros(0)]
        )
    )
    return x / np.where(norms == 0, 1.0, norms)[:, None]


def alignment_products(unit: np.ndarray, anchors: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Every group's ``unit[anchors] @ unit[candidates].T`` (float64) as the reference machine computed it.

    ``unit``: (texts, K) float64 unit rows; ``anchors`` (G, m) and ``candidates`` (G, c): row indices of
    G groups of one shape. numpy's matmul sends a (1, K) @ (K, c) product to dgemv (the k = 2 distractor
    variants) and the others (m >= 2) to dgemm. A product's value depends only on its two rows and on
    that kernel (both are symmetric in the two rows: every FMA's product is commutative), so each
    distinct (kernel, pair of texts) is emulated once.
    """
    anchors = np.asarray(anchors, dtype=np.int64)
    candidates = np.asarray(candidates, dtype=np.int64)
    n_groups, m = anchors.shape
    c = candidates.shape[1]
    out = np.empty((n_groups, m, c))
    if n_groups == 0:
        return out
    if c < 2:
        raise NotImplementedError("a single candidate (numpy's matrix-vector gemv) is not emulated")
    left = np.broadcast_to(anchors[:, :, None], (n_groups, m, c))
    right = np.broadcast_to(candidates[:, None, :], (n_groups, m, c))
    kind = np.zeros(c, dtype=np.int64) if m >= 2 else 1 + np.asarray([gemv_kernel(j, c) for j in range(c)])
    n = max(int(unit.shape[0]), 1)
    lo = np.minimum(left, right)
    hi = np.maximum(left, right)
    codes = (np.broadcast_to(kind[None, None, :], (n_groups, m, c)) * n + lo) * n + hi
    unique, inverse = np.unique(codes.ravel(), return_inverse=True)
    values = np.empty(len(unique))
    kinds, rest = np.divmod(unique, n * n)
    rows_a, rows_b = np.divmod(rest, n)
    for kd in np.unique(kinds).tolist():
        sel = np.flatnonzero(kinds == kd)
        for start in range(0, len(sel), _PAIR_CHUNK):
            part = sel[start : start + _PAIR_CHUNK]
            a, b = unit[rows_a[part]], unit[rows_b[part]]
            values[part] = dgemm_chains(a, b) if kd == 0 else dgemv_t_haswell(a, b, *GEMV_KERNEL_COLUMNS[kd - 1])
    return values[inverse].reshape(n_groups, m, c)


def emulated_where_undecided(unit: np.ndarray, anchors: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Cosines that decide every group exactly as the emulated reference products do, emulating few of them.

    Any float64 dot product of two rows, in any order, with or without FMA, is within
    ``gamma_K * sum |a_k c_k| <= gamma_K |a| |c|`` of the exact one (Higham, Accuracy and Stability of
    Numerical Algorithms, 2nd ed., Thm 3.1; ``gamma_K = K u / (1 - K u)``), so this CPU's BLAS product and
    the emulated one differ by at most ``beta = 2 gamma_K |a| |c|``; a cost ``1 - max(s, 0)`` then by
    ``beta + 2u (1 + beta)`` and a left-to-right sum of m of them by ``delta`` below. A group whose best
    assignment leads by more than ``REFERENCE_TIE_WINDOW + 2 delta`` with the BLAS products leads by more
    than ``REFERENCE_TIE_WINDOW`` with the emulated ones, with the same assignment, so
    :func:`.reference_rule.reference_credits` gives it the same credit (and one tied assignment) either way:
    those groups keep the fast products, all others (ties above all) get the emulated ones. On ASSET with
    function words a third of the plain groups and 1 % of the distractor groups are emulated. The fast
    products come from one BLAS Gram matrix of the texts where it fits (:data:`GRAM_TEXTS`): any evaluation
    is within the bound, so which one does not change a credit.
    """
    n_groups, m, c = len(anchors), anchors.shape[1], candidates.shape[1]
    if unit.shape[0] <= GRAM_TEXTS:  # every pair's product once (a set's texts recur in ~100 groups), then gathered
        gram = unit @ unit.T
        fast: np.ndarray = gram[anchors[:, :, None], candidates[:, None, :]]
    else:
        fast = np.empty((n_groups, m, c))
        for lo in range(0, n_groups, DOT_PAIRS // max(1, m * c)):
            hi = lo + DOT_PAIRS // max(1, m * c)
            fast[lo:hi] = np.matmul(unit[anchors[lo:hi]], unit[candidates[lo:hi]].transpose(0, 2, 1))
    k = unit.shape[1]
    u = 2.0**-53
    norm = float(np.sqrt(np.max(np.einsum("ij,ij->i", unit, unit), initial=0.0))) * (1 + 1e-9)
    beta = 2 * (k * u / (1 - k * u)) * norm * norm
    gamma_m = m * u / (1 - m * u)
    delta = m * (beta + 2 * u * (1 + beta)) + 2 * gamma_m * m * (1 + beta)
    undecided = np.flatnonzero(~(assignment_margins(fast) > REFERENCE_TIE_WINDOW + 2 * delta))
    fast[undecided] = alignment_products(unit, anchors[undecided], candidates[undecided])
    return fast


def reference_cosines(
    vectors: np.ndarray,
    shapes: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]],
    products: str = "reference",
    *,
    prefilter: bool = True,
) -> dict[tuple[int, int], np.ndarray]:
    """Each shape's (groups, anchors, candidates) cosine matrices, computed the ``products`` way.

    ``vectors``: one dense row per text; ``shapes``: shape (anchors m, candidates c) -> the rows of ``vectors``
    of its groups' anchors (G, m) and candidates (G, c), in the order of the matrices' first axis.
    ``prefilter=False`` (``products=reference`` only) emulates every group, not only the undecided ones.
    ``products`` must be one of :data:`PRODUCTS` (the task checks it first).
    """
    if products not in PRODUCTS:
        raise ValueError(f"products={products!r}; choose one of {', '.join(PRODUCTS)}")
    matrices: dict[tuple[int, int], np.ndarray] = {}
    rows = {
        shape: (
            np.asarray(a, dtype=np.int64).reshape(-1, shape[0]),
            np.asarray(c, dtype=np.int64).reshape(-1, shape[1]),
        )
        for shape, (a, c) in shapes.items()
    }
    if products in ("blas", "reference"):
        unit = np.asarray(vectors, dtype=np.float64)
        norms = np.linalg.norm(unit, axis=-1, keepdims=True)
        unit = unit / np.where(norms == 0, 1.0, norms)
    if products == "reference":
        for (m, k), (anchors, candidates) in rows.items():
            if k < 2:  # scored 0 without a product (the reference's ``n_tgt < 2`` guard)
                matrices[(m, k)] = np.zeros((len(anchors), m, k))
            elif prefilter:
                matrices[(m, k)] = emulated_where_undecided(unit, anchors, candidates)
            else:
                matrices[(m, k)] = alignment_products(unit, anchors, candidates)
        return matrices
    if products == "blas":
        for shape, (anchors, candidates) in rows.items():
            out = np.empty((len(anchors), *shape), dtype=np.float64)
            for n in range(len(anchors)):  # one product per group, as the reference called it
                out[n] = unit[anchors[n]] @ unit[candidates[n]].T
            matrices[shape] = out
        return matrices
    unit = exact_unit_rows(vectors)

    def exact(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        cos = np.empty(len(left))
        for i in range(0, len(left), DOT_PAIRS):
            cos[i : i + DOT_PAIRS] = compensated_dots(unit[left[i : i + DOT_PAIRS]], unit[right[i : i + DOT_PAIRS]])
        return cos

    return scored_once(rows, len(unit), exact)


def scored_once(
    shapes: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]],
    n_texts: int,
    score: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> dict[tuple[int, int], np.ndarray]:
    """Each shape's (groups, anchors, candidates) matrices with every distinct (anchor, candidate) pair scored once.

    ``shapes``: shape -> anchor rows (G, m) and candidate rows (G, c) among ``n_texts`` texts; ``score(left,
    right)``: the values of the pairs of rows ``(left[p], right[p])`` (a plain group and the distractor groups of
    the same pairing share most of their pairs).
    """
    n = max(n_texts, 1)
    codes = {shape: a[:, :, None] * n + c[:, None, :] for shape, (a, c) in shapes.items()}
    unique, inverse = np.unique(
        np.concatenate([c.ravel() for c in codes.values()] or [np.zeros(0, dtype=np.int64)]), return_inverse=True
    )
    values = np.asarray(score(unique // n, unique % n))
    matrices: dict[tuple[int, int], np.ndarray] = {}
    pos = 0
    for shape, code in codes.items():
        matrices[shape] = values[inverse[pos : pos + code.size]].reshape(code.shape)
        pos += code.size
    return matrices
