"""Counting, per query, the targets whose tie key is above / equal to a given key (retrieval's core).

Retrieval needs, for every query i and its best relevant key b_i, how many irrelevant targets have a
key above b_i and how many tie with it (keys: cosines in float64 snapped to the 2**-20 grid,
:mod:`._ties`). Exact float64 cosines for every pair would cost a float64 product of the whole
score matrix; instead a float32 matrix product screens every pair and only the pairs it cannot
decide are recomputed in float64 (the arithmetic of :func:`._common.row_cosines`; 0.04 % of the pairs
in the 20k x 20k benchmark). The result is the all-float64 one.

The screen is written so that almost all its time is the float32 matrix product itself (issue 28
§2: a 20k x 20k x 768 retrieval within 1.2x of that product):

- **The threshold is a coordinate.** Query rows get the extra coordinate ``-h_i`` and target rows
  ``1``, so one product gives ``s = q.t - h_i`` with ``h_i`` the float32 nearest to the upper edge
  of b_i's grid cell. Both comparisons are then against scalars (``s >= tau_hi``: surely above;
  ``s < tau_lo``: surely below; between: recompute), which numpy does about 3x faster than a
  comparison against a per-row column.
- **Bounded blocks.** Queries x targets are cut into blocks of ``block_bytes`` of scores (16 MiB:
  large enough that the product repacks the targets rarely, small enough that the comparisons read
  it mostly from cache), each computed by one float32 GEMM into a preallocated buffer (``matmul(out=)``).
  Memory is a few such buffers per worker, whatever the number of queries and targets.
- **Counts without a sum over booleans.** A row of comparison results is read as 64-bit words and
  the words summed (each byte lane counts its own booleans, at most 255 words per sum, so no lane
  overflows); summing booleans along an axis would cast every element to an integer first.
- **Threads as workers.** With ``threads`` > 1, that many workers each take row blocks and run
  their product on one BLAS thread, so the comparisons and the float64 recomputation run in
  parallel too instead of on one core while the other waits (interleaved runs on the 2-core VM:
  one worker with a 2-thread product 7.6 s, two workers 5.6 s, at the same load).

Error bound (why the screen is exact). ``q``, ``t`` are the float64 unit rows rounded to float32
(relative error <= u = 2**-24 each, plus the float64 norm's ~d 2**-53), and any float32 summation
order of the d + 1 products errs by at most gamma_(d+1) (sum |q_i t_i| + |h|) with
gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability of Numerical Algorithms, sec. 3.1; FMA
only removes roundings). So ``|s - (cos64 - h)| <= screen_margin(d, max |h|)``, and with the
offsets ``delta_i = edge_i - h_i`` (exact in float64) a score ``s >= tau_hi`` has cos64 above the
cell's upper edge (key > b_i) and ``s < tau_lo`` below its lower edge (key < b_i).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from ._ties import TIE_BITS, tie_keys

__all__ = ["screen_margin", "dense_ranks", "unit_rows_into", "row_counts", "BLOCK_BYTES", "BLOCK_COLS"]

#: bytes of float32 scores per block and worker (2,056 queries x 2,040 targets): best of the sizes tried
#: on the 2-core VM (8 MiB slower in every interleaved sweep, the product repacks the targets more often;
#: 32 MiB no faster)
BLOCK_BYTES = 16 * 2**20
#: targets per block: 8 * 255, so a row's mask is 255 words (one word sum per row, see row_counts)
BLOCK_COLS = 2040
_U = 2.0**-24  # float32 unit roundoff
_CHUNK_CELLS = 2**16  # float64 cells scaled at a time by unit_rows_into (512 KiB)
_GATHER_ROWS = 512  # row pairs gathered at a time for the float64 recomputation
_TARGET_CHUNK = 4096  # target rows per set-up task (the workers scale the targets in parallel)


def screen_margin(dim: int, h_max: float = 1.0) -> float:
    """Bound on |fl32(q . t - h) - (cos64 - h)| for the screen's product (``dim`` + 1 terms, |h| <= h_max).

    Terms (first order in 2**-53, valid for dim < 10**6): the float32 summation, gamma_(dim+1)
    (sum |q_i t_i| + |h|) with sum |q_i t_i| <= ||q|| ||t|| <= 1 + 3u for the rounded unit rows;
    rounding the float64 unit rows to float32 and their own float64 error (norm and scaling),
    2u + u^2 + (dim + 8) 2**-53; the float64 cosine's error against the exact one, (dim + 4) 2**-52.
    """
    n = dim + 1
    gamma = n * _U / (1.0 - n * _U)
    return gamma * (1.0 + 3 * _U + float(h_max)) + 2 * _U + (3 * dim + 32) * 2.0**-52


def _f32_up(x: float) -> np.float32:
    """Smallest float32 >= x."""
    f: np.float32 = np.float32(x)
    if float(f) >= x:
        return f
    up: np.float32 = np.float32(np.nextafter(f, np.float32(np.inf)))
    return up


def _f32_down(x: float) -> np.float32:
    """Largest float32 <= x."""
    f: np.float32 = np.float32(x)
    if float(f) <= x:
        return f
    down: np.float32 = np.float32(np.nextafter(f, np.float32(-np.inf)))
    return down


def row_counts(mask: np.ndarray) -> np.ndarray:
    """Number of True per row of a C-contiguous 2-d boolean array (int64), summing 64-bit words."""
    m, n = mask.shape
    if n % 8 or not mask.flags.c_contiguous:
        return np.asarray(np.count_nonzero(mask, axis=1), dtype=np.int64)
    words = mask.view(np.uint64)
    out = np.zeros(m, dtype=np.int64)
    for a in range(0, words.shape[1], 255):  # <= 255 words per sum: every byte lane stays <= 255
        lanes = np.add.reduce(words[:, a : a + 255], axis=1)
        out += lanes.view(np.uint8).reshape(m, 8).sum(axis=1, dtype=np.int64)
    return out


def _set_positions(mask: np.ndarray) -> np.ndarray:
    """Flat indices of the True entries of a C-contiguous boolean array (few expected).

    Nonzero 64-bit words are found first (a comparison over an eighth of the elements), then the
    bytes inside those words: about 5x faster than ``flatnonzero`` over every byte.
    """
    flat = mask.reshape(-1)
    if flat.size % 8:
        return np.flatnonzero(flat)
    words = np.flatnonzero(flat.view(np.uint64) != 0)
    w, b = np.nonzero(flat.reshape(-1, 8)[words])
    return words[w] * 8 + b


def unit_rows_into(x: np.ndarray, out: np.ndarray, inv: np.ndarray, scratch: np.ndarray) -> None:
    """Write 1 / ||row|| of ``x`` into ``inv`` and the unit rows, rounded to float32, into ``out[:, :d]``.

    The float64 arithmetic of :func:`._common.inverse_norms` (sum of squares of the upcast row,
    square root, reciprocal; 0 for a zero row) and of the scaling, in one pass through ``scratch``
    (a few float64 rows that stay in cache): no float64 copy of ``x``, no allocation per chunk.
    """
    n, d = x.shape
    step = scratch.shape[0]
    for r0 in range(0, n, step):
        r1 = min(n, r0 + step)
        chunk = scratch[: r1 - r0]
        np.copyto(chunk, x[r0:r1])
        norms = np.sqrt(np.einsum("ij,ij->i", chunk, chunk))
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        inv[r0:r1] = scale
        chunk *= scale[:, None]
        out[r0:r1, :d] = chunk


def _scratch(d: int) -> np.ndarray:
    return np.empty((max(1, _CHUNK_CELLS // max(1, d)), d), dtype=np.float64)


@dataclass
class _Screen:
    """What every worker reads (inputs, scaled targets, relevant pairs) and writes (disjoint row slices)."""

    queries: np.ndarray  # the caller's rows: the float64 recomputation reads these
    targets: np.ndarray
    ta: np.ndarray  # float32 unit target rows with a last column of 1
    inv_q: np.ndarray  # float64 inverse norms (queries: filled block by block)
    inv_t: np.ndarray
    rel_q: np.ndarray  # relevant (query, target) pairs, sorted by query
    rel_t: np.ndarray
    starts: np.ndarray  # each query's first pair
    ends: np.ndarray
    rows: int
    cols: int
    above: np.ndarray
    tied_rel: np.ndarray
    tied_irr: np.ndarray


def dense_ranks(
    queries: np.ndarray,
    targets: np.ndarray,
    rel_q: np.ndarray,
    rel_t: np.ndarray,
    starts: np.ndarray,
    *,
    block_bytes: int = BLOCK_BYTES,
    threads: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: irrelevant targets above its best relevant key, relevant and irrelevant targets tied with it.

    ``queries`` / ``targets`` are dense rows; ``rel_q`` / ``rel_t`` every relevant pair sorted by
    query, ``starts`` each query's first pair (every query has one). Keys are ``tie_keys`` of the
    float64 cosines. Blocks hold about ``block_bytes`` of float32 scores; ``threads`` workers
    (module docstring) scale the targets, then share the blocks of queries.
    """
    nq, d = queries.shape
    nt = targets.shape[0]
    cells = max(1, int(block_bytes) // 4)
    cols = max(1, min(nt, BLOCK_COLS, cells))
    workers = max(1, min(int(threads), nq))
    # equal row blocks, a multiple of the workers in number, so no worker waits alone at the end
    n_blocks = max(1, workers * -(-nq // (workers * max(1, cells // cols))))
    rows = max(1, -(-nq // n_blocks))
    screen = _Screen(
        queries=queries,
        targets=targets,
        ta=np.empty((nt, d + 1), dtype=np.float32),
        inv_q=np.empty(nq, dtype=np.float64),
        inv_t=np.empty(nt, dtype=np.float64),
        rel_q=np.asarray(rel_q, dtype=np.int64),
        rel_t=np.asarray(rel_t, dtype=np.int64),
        starts=np.asarray(starts, dtype=np.int64),
        ends=np.append(np.asarray(starts, dtype=np.int64)[1:], len(rel_q)),
        rows=rows,
        cols=cols,
        above=np.zeros(nq, dtype=np.int64),
        tied_rel=np.zeros(nq, dtype=np.int64),
        tied_irr=np.zeros(nq, dtype=np.int64),
    )
    chunks = [(a, min(nt, a + _TARGET_CHUNK)) for a in range(0, nt, _TARGET_CHUNK)]
    blocks = list(range(0, nq, rows))
    workers = min(workers, len(blocks)) if _concurrent_blas_ok() else 1
    if workers <= 1:
        for a, b in chunks:
            _scale_targets(screen, a, b)
        _work(screen, iter(blocks), threading.Lock())
    else:
        queue, lock = iter(blocks), threading.Lock()
        with threadpool_limits(limits=1), ThreadPoolExecutor(max_workers=workers) as pool:
            for future in [pool.submit(_scale_targets, screen, a, b) for a, b in chunks]:
                future.result()
            for future in [pool.submit(_work, screen, queue, lock) for _ in range(workers)]:
                future.result()
    return screen.above, screen.tied_rel, screen.tied_irr


def _scale_targets(screen: _Screen, a: int, b: int) -> None:
    """Unit rows a:b of the targets into ``screen.ta`` (last column 1) and their inverse norms."""
    d = screen.targets.shape[1]
    unit_rows_into(screen.targets[a:b], screen.ta[a:b], screen.inv_t[a:b], _scratch(d))
    screen.ta[a:b, d] = 1.0


def _concurrent_blas_ok() -> bool:
    """False when a loaded BLAS is built without threading: such builds may not take concurrent calls."""
    return all(
        info.get("threading_layer") != "disabled" for info in threadpool_info() if info.get("user_api") == "blas"
    )


@dataclass
class _Buffers:
    """One worker's preallocated arrays: a block's query rows, scores and masks, float64 gathered rows."""

    qa: np.ndarray
    scratch: np.ndarray
    scores: np.ndarray
    hi: np.ndarray
    lo: np.ndarray
    q_rows: np.ndarray
    t_rows: np.ndarray

    @classmethod
    def for_screen(cls, screen: _Screen) -> _Buffers:
        size = screen.rows * screen.cols
        d = screen.queries.shape[1]
        return cls(
            qa=np.empty((screen.rows, d + 1), np.float32),
            scratch=_scratch(d),
            scores=np.empty(size, np.float32),
            hi=np.empty(size, bool),
            lo=np.empty(size, bool),
            q_rows=np.empty((_GATHER_ROWS, d), np.float64),
            t_rows=np.empty((_GATHER_ROWS, d), np.float64),
        )


def _float64_cosines(screen: _Screen, rows: np.ndarray, cols: np.ndarray, buffers: _Buffers) -> np.ndarray:
    """float64 cosines of (queries[rows], targets[cols]), computed as :func:`._common.row_cosines` does.

    Same arithmetic (rows upcast to float64, one float64 sum of products per pair, then the two
    inverse norms), but the rows are upcast into the worker's preallocated float64 buffers.
    """
    dots = np.empty(len(rows), dtype=np.float64)
    step = buffers.q_rows.shape[0]
    for a in range(0, len(rows), step):
        b = min(len(rows), a + step)
        x, y = buffers.q_rows[: b - a], buffers.t_rows[: b - a]
        np.copyto(x, screen.queries[rows[a:b]])
        np.copyto(y, screen.targets[cols[a:b]])
        dots[a:b] = np.einsum("ij,ij->i", x, y)
    return np.asarray(dots * screen.inv_q[rows] * screen.inv_t[cols])


def _work(screen: _Screen, starts: Iterator[int], lock: threading.Lock) -> None:
    """One worker: take row blocks from the shared iterator until none is left."""
    buffers = _Buffers.for_screen(screen)
    while True:
        with lock:
            r0 = next(starts, None)
        if r0 is None:
            return
        _row_block(screen, r0, min(len(screen.above), r0 + screen.rows), buffers)


def _row_block(screen: _Screen, r0: int, r1: int, buffers: _Buffers) -> None:
    """Counts for queries r0:r1 against every target, one column block at a time."""
    m, d = r1 - r0, screen.queries.shape[1]
    qa = buffers.qa[:m]
    unit_rows_into(screen.queries[r0:r1], qa, screen.inv_q[r0:r1], buffers.scratch)
    # the best relevant key of each query, in float64 (as every key)
    p0, p1 = screen.starts[r0], screen.ends[r1 - 1]
    rel_r, rel_c = screen.rel_q[p0:p1] - r0, screen.rel_t[p0:p1]
    rel_keys = tie_keys(_float64_cosines(screen, rel_r + r0, rel_c, buffers))
    first = screen.starts[r0:r1] - p0
    best = np.maximum.reduceat(rel_keys, first)
    screen.tied_rel[r0:r1] = np.add.reduceat((rel_keys == best[rel_r]).astype(np.int64), first)
    # the threshold column and the screen's bounds (module docstring)
    edge = (best + 0.5) * 2.0**-TIE_BITS  # upper edge of each best key's cell (exact in float64)
    h = edge.astype(np.float32)
    qa[:, d] = -h
    delta = edge - h.astype(np.float64)  # exact
    margin = screen_margin(d, float(np.abs(h).max()))
    tau_hi = np.nextafter(_f32_up(margin + float(delta.max())), np.float32(np.inf))
    tau_lo = _f32_down(-(2.0**-TIE_BITS) - margin + float(delta.min()))
    order = np.argsort(rel_c, kind="stable")  # relevant pairs by target, to find each column block's
    ex_r, ex_c = rel_r[order], rel_c[order]
    above, tied = np.zeros(m, np.int64), np.zeros(m, np.int64)
    nt = screen.ta.shape[0]
    for c0 in range(0, nt, screen.cols):
        c1 = min(nt, c0 + screen.cols)
        n = c1 - c0
        s = buffers.scores[: m * n].reshape(m, n)
        np.matmul(qa, screen.ta[c0:c1].T, out=s)
        e0, e1 = np.searchsorted(ex_c, [c0, c1])
        s[ex_r[e0:e1], ex_c[e0:e1] - c0] = -np.inf  # relevant targets are not counted here
        hi, lo = buffers.hi[: m * n].reshape(m, n), buffers.lo[: m * n].reshape(m, n)
        np.greater_equal(s, tau_hi, out=hi)
        np.greater_equal(s, tau_lo, out=lo)
        n_hi = row_counts(hi)
        above += n_hi
        if not np.any(row_counts(lo) > n_hi):
            continue
        np.not_equal(lo, hi, out=lo)  # the undecided band: tau_lo <= s < tau_hi
        br, bc = np.divmod(_set_positions(lo), n)
        keys = tie_keys(_float64_cosines(screen, r0 + br, c0 + bc, buffers))
        b = best[br]
        above += np.bincount(br[keys > b], minlength=m)
        tied += np.bincount(br[keys == b], minlength=m)
    screen.above[r0:r1] = above
    screen.tied_irr[r0:r1] = tied
