"""Authorship retrieval: rank every target collection by cosine for each query; MRR, R@1, R@8.

A collection's vector is the encoder's own multi-text embedding when it has one, else the mean of
its texts' vectors (``ctx.embed_collections``). Relevant targets are those by the query's author.

Exact and blocked: for a block of queries the cosine block (queries x all targets) is computed,
the best relevant target's score r* is found, and the rank of the first relevant target is 1 + the
number of targets scoring above r*. Counting replaces a top-k heap: MRR needs the rank however deep
it is, and a count costs one comparison per score. The block height is chosen so a block holds about
``BLOCK_BYTES`` of scores, so 100k x 100k never needs more than a few hundred MB.

Ties follow the grid rule of :mod:`._common` (cosines in float64 snapped to 2**-20; equal keys tie),
so a tie is the same on every CPU. Dense vectors are screened with a float32 product (fast BLAS)
and only the scores whose float32 value is within ``screen_margin(d)`` of r*'s grid cell are
recomputed in float64: the margin bounds the float32 rounding error of a d-term dot product of unit
vectors (|error| <= (d + 3) 2**-24, doubled), so every other score lies on a known side of r*
whatever its float64 value; the result equals an all-float64 computation. Sparse vectors (TF-IDF)
are multiplied as sparse matrices in float64 directly.

Ties are resolved in expectation, like order alignment: when t_r relevant and t_i irrelevant
targets share the score r* behind g higher ones, the first relevant target's position is g + X
with X the first relevant position in a uniformly random order of the tied group, and the query
scores E[1/(g + X)] (R@k: P(g + X <= k)). Without ties this is the usual 1/rank.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

from ..context import TaskContext
from ..specs import TaskSpec
from ._common import GATHER_CELLS, TIE_BITS, inverse_norms, option, row_cosines, tie_keys, unit_rows
from ._threads import blas_limits

__all__ = ["run_retrieval", "collection_vectors", "first_relevant_ranks", "tie_expectations", "screen_margin", "SPEC", "BLOCK_BYTES"]

BLOCK_BYTES = 256 * 2**20
CUTOFFS = (1, 8)


def screen_margin(dim: int) -> float:
    """Bound (doubled) on |float32 cosine - float64 cosine| for unit vectors of ``dim`` dimensions.

    Rounding the float64 unit vectors to float32 moves each product by <= 2u|q_i t_i| (u = 2**-24)
    and any float32 summation order adds <= d u sum |q_i t_i|; sum |q_i t_i| <= 1 (Cauchy-Schwarz).
    """
    return 2.0 * (dim + 3) * 2.0**-24


def _unit32(x: np.ndarray, inv: np.ndarray) -> np.ndarray:
    """float32 rows scaled by float64 inverse norms (rounded once), in row chunks."""
    out = np.empty(x.shape, dtype=np.float32)
    step = max(256, GATHER_CELLS // max(1, x.shape[1]))
    for r0 in range(0, len(x), step):
        out[r0 : r0 + step] = np.asarray(x[r0 : r0 + step], dtype=np.float64) * inv[r0 : r0 + step, None]
    return out


def first_relevant_ranks(
    queries: Any,
    targets: Any,
    query_authors: np.ndarray,
    target_authors: np.ndarray,
    *,
    block_bytes: int = BLOCK_BYTES,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: targets strictly above the best relevant score (g), relevant and irrelevant ties at it.

    ``queries`` / ``targets`` are dense arrays or scipy sparse matrices; ``query_authors`` /
    ``target_authors`` are integer author codes; every query needs at least one relevant target.
    Scores are compared by tie key (module docstring).
    """
    sparse = sp.issparse(queries) or sp.issparse(targets)
    if sparse:
        q64 = unit_rows(sp.csr_matrix(queries))
        t64 = unit_rows(sp.csr_matrix(targets))
    else:  # float32 inputs and float64 inverse norms: no float64 copy of either matrix
        queries, targets = np.asarray(queries), np.asarray(targets)
        inv_q, inv_t = inverse_norms(queries), inverse_norms(targets)
    nq, nt = queries.shape[0], targets.shape[0]
    by_author: dict[int, list[int]] = defaultdict(list)
    for j, a in enumerate(np.asarray(target_authors).tolist()):
        by_author[a].append(j)
    relevant = [np.asarray(by_author[a], dtype=np.int64) for a in np.asarray(query_authors).tolist()]
    if any(len(r) == 0 for r in relevant):
        raise ValueError("a query has no relevant target")
    above = np.empty(nq, dtype=np.int64)
    tied_rel = np.empty(nq, dtype=np.int64)
    tied_irr = np.empty(nq, dtype=np.int64)
    if sparse:
        t_t: Any = t64.T.tocsc()
    else:
        q32 = _unit32(queries, inv_q)
        t_t = np.ascontiguousarray(_unit32(targets, inv_t).T)
        margin = screen_margin(queries.shape[1])
    step = 2.0**-TIE_BITS
    rows = max(1, min(nq, block_bytes // (4 * max(nt, 1))))
    for r0 in range(0, nq, rows):
        r1 = min(nq, r0 + rows)
        rel_rows = np.concatenate([np.full(len(relevant[i]), i - r0) for i in range(r0, r1)])
        rel_cols = np.concatenate(relevant[r0:r1])
        starts = np.concatenate([[0], np.cumsum([len(relevant[i]) for i in range(r0, r1)])[:-1]]).astype(np.int64)
        if sparse:
            keys = tie_keys((q64[r0:r1] @ t_t).toarray())
            rel_keys = keys[rel_rows, rel_cols]
            best = np.maximum.reduceat(rel_keys, starts)
            keys[rel_rows, rel_cols] = np.iinfo(np.int64).min  # count irrelevant targets only below
            above[r0:r1] = np.count_nonzero(keys > best[:, None], axis=1)
            tied_irr[r0:r1] = np.count_nonzero(keys == best[:, None], axis=1)
        else:
            rel_keys = tie_keys(row_cosines(queries, inv_q, r0 + rel_rows, targets, inv_t, rel_cols))
            best = np.maximum.reduceat(rel_keys, starts)
            scores = q32[r0:r1] @ t_t
            scores[rel_rows, rel_cols] = -np.inf  # relevant targets are counted from rel_keys
            # float32 score >= hi: key surely > best; < lo: surely < best (bounds rounded outwards)
            hi = np.nextafter(((best + 0.5) * step + margin).astype(np.float32), np.float32(np.inf))[:, None]
            lo = np.nextafter(((best - 0.5) * step - margin).astype(np.float32), np.float32(-np.inf))[:, None]
            sure = np.count_nonzero(scores >= hi, axis=1)
            cand_r, cand_c = np.nonzero((scores >= lo) & (scores < hi))
            cand_keys = tie_keys(row_cosines(queries, inv_q, r0 + cand_r, targets, inv_t, cand_c))
            b = best[cand_r]
            above[r0:r1] = sure + np.bincount(cand_r[cand_keys > b], minlength=r1 - r0)
            tied_irr[r0:r1] = np.bincount(cand_r[cand_keys == b], minlength=r1 - r0)
        tied_rel[r0:r1] = np.add.reduceat((rel_keys == best[rel_rows]).astype(np.int64), starts)
    return above, tied_rel, tied_irr


def tie_expectations(above: np.ndarray, tied_rel: np.ndarray, tied_irr: np.ndarray) -> dict[str, np.ndarray]:
    """Per-query reciprocal rank and hit@k, in expectation over random orders of tied targets."""
    rr = 1.0 / (above + 1.0)
    hits = {k: (above < k).astype(np.float64) for k in CUTOFFS}
    for i in np.flatnonzero(tied_irr > 0):
        g, tr, ti = int(above[i]), int(tied_rel[i]), int(tied_irr[i])
        # P(X > x) = C(ti, x) / C(tr + ti, x): the first x tied positions are all irrelevant
        survive = np.cumprod([1.0] + [(ti - j) / (tr + ti - j) for j in range(ti)])  # x = 0..ti
        p_first = survive[:-1] - survive[1:]  # P(X = x) for x = 1..ti
        p_first = np.append(p_first, survive[-1])  # X = ti + 1: all irrelevant ties come first
        positions = g + np.arange(1, ti + 2)
        rr[i] = float(np.sum(p_first / positions))
        for k in CUTOFFS:
            hits[k][i] = float(np.sum(p_first[positions <= k]))
    return {"rr": rr, **{f"hit@{k}": v for k, v in hits.items()}}


def collection_vectors(ctx: TaskContext, collections: Sequence[Sequence[str]]) -> Any:
    """One vector per collection: the encoder's own, else the mean of its texts' (sparse stays sparse)."""
    if ctx.collections_fn is not None:
        return ctx.collections_fn(collections)
    lengths = np.fromiter((len(c) for c in collections), dtype=np.int64, count=len(collections))
    vectors = ctx.embed([t for c in collections for t in c])
    if not sp.issparse(vectors):
        return _dense_means(np.asarray(vectors, dtype=np.float32), lengths)
    owner = np.repeat(np.arange(len(collections)), lengths)
    averaging = sp.csr_matrix((1.0 / lengths[owner], (owner, np.arange(len(owner)))), shape=(len(collections), len(owner)))
    return averaging @ sp.csr_matrix(vectors, dtype=np.float64)


def _dense_means(vectors: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Mean of consecutive runs of rows (as :meth:`TaskContext.embed_collections`)."""
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    sums = np.add.reduceat(vectors, starts, axis=0) if len(vectors) else np.zeros((0, vectors.shape[1]), np.float32)
    return (sums / lengths[:, None]).astype(np.float32)


def run_retrieval(ctx: TaskContext) -> dict[str, Any]:
    data = ctx.data
    authors: dict[str, int] = {}
    target_codes = np.asarray([authors.setdefault(t.author, len(authors)) for t in data.targets], dtype=np.int64)
    query_codes = np.asarray([authors[q.author] for q in data.queries], dtype=np.int64)
    query_vectors = collection_vectors(ctx, [list(q.texts_) for q in data.queries])
    target_vectors = collection_vectors(ctx, [list(t.texts_) for t in data.targets])
    block_bytes = int(option(ctx, "retrieval", "block_bytes", BLOCK_BYTES))
    work = query_vectors.shape[0] * target_vectors.shape[0] * query_vectors.shape[1]
    with blas_limits(ctx, work):
        counts = first_relevant_ranks(query_vectors, target_vectors, query_codes, target_codes, block_bytes=block_bytes)
    per_query = tie_expectations(*counts)
    return {
        "mrr": float(per_query["rr"].mean()),
        "recall_at_1": float(per_query["hit@1"].mean()),
        "recall_at_8": float(per_query["hit@8"].mean()),
        "n_queries": len(data.queries),
        "n_targets": len(data.targets),
        "n_queries_with_ties": int(np.count_nonzero(counts[2] > 0)),
    }


SPEC = TaskSpec(
    name="retrieval",
    description="Authorship retrieval: rank all targets by cosine per query (exact, blocked); MRR, R@1, R@8.",
    shape="retrieval",
    main_metric="mrr",
    run=run_retrieval,
    accepts_sparse=True,
)
