"""Authorship retrieval: rank every target collection by cosine for each query; MRR, R@1, R@8.

A collection's vector is the encoder's own multi-text embedding when it has one, else the mean of
its texts' vectors (``ctx.embed_collections``). Relevant targets are those by the query's author.

Exact and blocked: for a block of queries the cosine block (queries x all targets) is computed,
the best relevant target's score r* is read from that very block (so comparisons are bit-exact),
and the rank of the first relevant target is 1 + the number of targets scoring above r*. Counting
replaces a top-k heap: MRR needs the rank however deep it is, and a count costs one comparison per
score. The block height is chosen so a block holds about ``BLOCK_BYTES`` of scores, so 100k x 100k
never needs more than a few hundred MB.

Ties are resolved in expectation, like order alignment: when t_r relevant and t_i irrelevant
targets share the score r* behind g higher ones, the first relevant target's position is g + X
with X the first relevant position in a uniformly random order of the tied group, and the query
scores E[1/(g + X)] (R@k: P(g + X <= k)). Without ties this is the usual 1/rank.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from ..context import TaskContext
from ..encoders import l2_normalise
from ..specs import TaskSpec
from ._common import option

__all__ = ["run_retrieval", "first_relevant_ranks", "tie_expectations", "SPEC", "BLOCK_BYTES"]

BLOCK_BYTES = 256 * 2**20
CUTOFFS = (1, 8)


def first_relevant_ranks(
    queries: np.ndarray,
    targets: np.ndarray,
    query_authors: np.ndarray,
    target_authors: np.ndarray,
    *,
    block_bytes: int = BLOCK_BYTES,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: targets strictly above the best relevant score (g), relevant and irrelevant ties at it.

    ``query_authors`` / ``target_authors`` are integer author codes; every query needs at least one
    relevant target.
    """
    q = l2_normalise(np.ascontiguousarray(queries, dtype=np.float32))
    t_t = np.ascontiguousarray(l2_normalise(np.ascontiguousarray(targets, dtype=np.float32)).T)
    nq, nt = len(q), t_t.shape[1]
    by_author: dict[int, list[int]] = defaultdict(list)
    for j, a in enumerate(target_authors.tolist()):
        by_author[a].append(j)
    relevant = [np.asarray(by_author[a], dtype=np.int64) for a in query_authors.tolist()]
    if any(len(r) == 0 for r in relevant):
        raise ValueError("a query has no relevant target")
    above = np.empty(nq, dtype=np.int64)
    tied_rel = np.empty(nq, dtype=np.int64)
    tied_irr = np.empty(nq, dtype=np.int64)
    rows = max(1, min(nq, block_bytes // (4 * max(nt, 1))))
    for r0 in range(0, nq, rows):
        r1 = min(nq, r0 + rows)
        scores = q[r0:r1] @ t_t
        rel_rows = np.concatenate([np.full(len(relevant[i]), i - r0) for i in range(r0, r1)])
        rel_cols = np.concatenate(relevant[r0:r1])
        rel_scores = scores[rel_rows, rel_cols]
        starts = np.concatenate([[0], np.cumsum([len(relevant[i]) for i in range(r0, r1)])[:-1]])
        best = np.maximum.reduceat(rel_scores, starts)
        above[r0:r1] = np.count_nonzero(scores > best[:, None], axis=1)
        equal = np.count_nonzero(scores == best[:, None], axis=1)
        rel_equal = np.add.reduceat((rel_scores == best[rel_rows]).astype(np.int64), starts)
        tied_rel[r0:r1] = rel_equal
        tied_irr[r0:r1] = equal - rel_equal
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


def run_retrieval(ctx: TaskContext) -> dict[str, Any]:
    data = ctx.data
    authors: dict[str, int] = {}
    target_codes = np.asarray([authors.setdefault(t.author, len(authors)) for t in data.targets], dtype=np.int64)
    query_codes = np.asarray([authors[q.author] for q in data.queries], dtype=np.int64)
    query_vectors = ctx.embed_collections([list(q.texts_) for q in data.queries])
    target_vectors = ctx.embed_collections([list(t.texts_) for t in data.targets])
    block_bytes = int(option(ctx, "retrieval", "block_bytes", BLOCK_BYTES))
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
)
