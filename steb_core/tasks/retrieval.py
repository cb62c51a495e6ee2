"""Authorship retrieval: rank every target collection by cosine for each query; MRR, R@1, R@8.

Two rules (option ``retrieval.rule``):

``reference`` (default) -- the STEB authors' reference code (github.com/rrivera1849/STEB
``steb/tasks/retrieval.py`` @39e4722e ``RetrievalTask.evaluate``, ``steb/metrics.py`` @4b43dda3
``calculate_retrieval_metrics``, ``steb/core.py`` @18c49153 ``extract_features`` with episode size -1):

* a collection is **one text**: all of its texts joined by a space, embedded once (the reference puts all
  texts of ``<author>_query`` in one episode position, which its models embed as the space-joined text);
  an encoder with its own multi-text embedding (LUAR) embeds the collection itself;
* vectors L2-normalised, authors kept only when they have both a query and a target (the reference's
  ``common_labels`` filter); cosine distances as scikit-learn's ``pairwise_distances(metric="cosine")``
  (float32 vectors: float32 distances), per query ``np.argsort`` of its row; the 1-based ranks of the
  query's true targets. Option ``retrieval.products``: ``exact`` (default) rounds each dot product once from
  its exact value and takes a true target's rank in expectation over the orders of the targets at exactly
  its distance (:mod:`._retrieval_ranks`: the same on every CPU; without ties, the reference's ranks);
  ``blas`` calls ``pairwise_distances`` and ``np.argsort`` as the reference does, whose last bits and tie
  order follow this machine's BLAS kernel and numpy's sorting network;
* ``mrr`` = mean over queries of mean(1 / rank), ``mean_rank``, ``recall_at_k`` for k in 1, 8, 16, 32,
  64, 128 = the share of true targets within the first k. Distances are held per block of queries; above
  ``REFERENCE_CELLS`` (queries x targets) the ``counted`` rule is used and ``rule`` says so.

``counted`` -- steb's earlier rule: collection vector = the mean of its texts' vectors, ranks counted
exactly on the tie grid, ties in expectation (below).

For ``counted``: a collection's vector is the encoder's own multi-text embedding when it has one, else the mean of
its texts' vectors (``ctx.embed_collections``). Relevant targets are those by the query's author.

Exact and blocked: the best relevant target's score r* is computed in float64 for every query,
and the rank of the first relevant target is 1 + the number of targets scoring above r*. Counting
replaces a top-k heap: MRR needs the rank however deep it is, and a count costs one comparison per
score. Dense vectors are counted by :func:`._rank_count.dense_counts`: one float32 matrix product
per cache-sized block of queries x targets screens every score, and only the scores within the
product's rounding bound of r*'s grid cell (``screen_margin``) are recomputed in float64, so the
counts equal an all-float64 computation while the time is essentially that of the float32 product
(issue 28 §2). When the encoder runs on a GPU (or option ``tasks.device`` names a torch device,
:mod:`._device`), the same screen runs there in torch (:mod:`._torch_kernels`). Sparse vectors (TF-IDF) are multiplied
as sparse matrices in float64 directly, a
block of queries at a time (``BLOCK_BYTES`` of keys). No n x n matrix is ever held.

Ties follow the grid rule of :mod:`._common` (cosines in float64 snapped to 2**-20; equal keys tie),
so a tie is the same on every CPU.

Ties are resolved in expectation, like order alignment: when t_r relevant and t_i irrelevant
targets share the score r* behind g higher ones, the first relevant target's position is g + X
with X the first relevant position in a uniformly random order of the tied group, and the query
scores E[1/(g + X)] (R@k: P(g + X <= k)). Without ties this is the usual 1/rank.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._context import TaskContext
from .._instances import INSTANCES_KEY
from .._specs import TaskSpec
from ..reference_tree.task_export import RETRIEVAL_EXPORT
from ._common import _float32_unit_rows, option, option_choice, tie_keys, unit_rows
from ._device import kernel_device
from ._rank_count import dense_ranks, screen_margin
from ._retrieval_ranks import cosine_distances_exact, expected_rank_metrics, tied_positions
from ._threads import blas_limits

__all__ = [
    "run_retrieval",
    "collection_vectors",
    "relevant_pairs",
    "first_relevant_ranks",
    "tie_expectations",
    "screen_margin",
    "SPEC",
    "BLOCK_BYTES",
    "reference_retrieval",
    "RULES",
    "DEFAULT_RULE",
    "PRODUCTS",
    "DEFAULT_PRODUCTS",
]

#: bytes of scores (4 a score) per block of the sparse path; the dense path's blocks are cache-sized
#: (``_rank_count.BLOCK_BYTES``)
BLOCK_BYTES = 256 * 2**20
CUTOFFS = (1, 8)
#: the reference's recall cut-offs (``calculate_retrieval_metrics`` ks)
REFERENCE_CUTOFFS = (1, 8, 16, 32, 64, 128)
#: queries x targets up to which the ``reference`` rule runs (an argsort per query); beyond, ``counted``
REFERENCE_CELLS = 2**26
RULES = ("reference", "counted")
#: how the ``reference`` rule's distances and ties are computed (option ``retrieval.products``)
PRODUCTS = ("exact", "blas")
DEFAULT_PRODUCTS = "exact"
#: the rule a run uses unless ``retrieval.rule`` says otherwise (the task's description names it)
DEFAULT_RULE = "reference"


def relevant_pairs(query_authors: np.ndarray, target_authors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (query, target) pair by the same author, sorted by query then target, and each query's first pair.

    Vectorised (a sort of the target authors and two searches), so 100k queries cost no Python loop.
    """
    qa, ta = np.asarray(query_authors), np.asarray(target_authors)
    order = np.argsort(ta, kind="stable")
    lo = np.searchsorted(ta[order], qa, side="left")
    counts = np.searchsorted(ta[order], qa, side="right") - lo
    if np.any(counts == 0):
        raise ValueError("a query has no relevant target")
    starts = np.cumsum(counts) - counts
    rel_q = np.repeat(np.arange(len(qa), dtype=np.int64), counts)
    rel_t = order[np.repeat(lo, counts) + np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts, counts)]
    return rel_q, rel_t.astype(np.int64), starts


def first_relevant_ranks(
    queries: Any,
    targets: Any,
    query_authors: np.ndarray,
    target_authors: np.ndarray,
    *,
    block_bytes: int | None = None,
    threads: int = 1,
    device: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: targets strictly above the best relevant score (g), relevant and irrelevant ties at it.

    ``queries`` / ``targets`` are dense arrays or scipy sparse matrices; ``query_authors`` /
    ``target_authors`` are integer author codes; every query needs at least one relevant target.
    Scores are compared by tie key (module docstring). ``block_bytes`` bounds the scores held at
    once (default: ``BLOCK_BYTES`` sparse, ``_rank_count.BLOCK_BYTES`` dense); ``threads`` is the
    number of workers of the dense path. ``device`` (a torch device) runs the dense path there
    (:func:`._torch_kernels.dense_ranks_torch`: same counts, see its module for the one caveat).
    """
    rel_q, rel_t, starts = relevant_pairs(query_authors, target_authors)
    nq = queries.shape[0]
    if nq == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    if sp.issparse(queries) or sp.issparse(targets):
        return _sparse_ranks(
            sp.csr_matrix(queries), sp.csr_matrix(targets), rel_q, rel_t, starts, block_bytes or BLOCK_BYTES
        )
    if device is not None:
        from ._torch_kernels import dense_ranks_torch  # torch only when asked for

        return dense_ranks_torch(np.asarray(queries), np.asarray(targets), rel_q, rel_t, starts, device)
    kwargs = {} if block_bytes is None else {"block_bytes": block_bytes}
    return dense_ranks(np.asarray(queries), np.asarray(targets), rel_q, rel_t, starts, threads=threads, **kwargs)


def _sparse_ranks(
    queries: sp.csr_matrix,
    targets: sp.csr_matrix,
    rel_q: np.ndarray,
    rel_t: np.ndarray,
    starts: np.ndarray,
    block_bytes: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sparse rows: float64 cosines of a block of queries against all targets, compared by key."""
    q64, t_t = unit_rows(queries), unit_rows(targets).T.tocsc()
    nq, nt = queries.shape[0], targets.shape[0]
    above, tied_rel, tied_irr = (np.empty(nq, dtype=np.int64) for _ in range(3))
    ends = np.append(starts[1:], len(rel_q))
    rows = max(1, min(nq, block_bytes // (4 * max(nt, 1))))
    for r0 in range(0, nq, rows):
        r1 = min(nq, r0 + rows)
        p0, p1 = starts[r0], ends[r1 - 1]
        block_q, block_t = rel_q[p0:p1] - r0, rel_t[p0:p1]
        block_starts = starts[r0:r1] - p0
        keys = tie_keys((q64[r0:r1] @ t_t).toarray())
        rel_keys = keys[block_q, block_t]
        best = np.maximum.reduceat(rel_keys, block_starts)
        keys[block_q, block_t] = np.iinfo(np.int64).min  # count irrelevant targets only below
        above[r0:r1] = np.count_nonzero(keys > best[:, None], axis=1)
        tied_irr[r0:r1] = np.count_nonzero(keys == best[:, None], axis=1)
        tied_rel[r0:r1] = np.add.reduceat((rel_keys == best[block_q]).astype(np.int64), block_starts)
    return above, tied_rel, tied_irr


def tie_expectations(above: np.ndarray, tied_rel: np.ndarray, tied_irr: np.ndarray) -> dict[str, np.ndarray]:
    """Per-query reciprocal rank and hit@k, in expectation over random orders of tied targets."""
    rr = 1.0 / (above + 1.0)
    hits = {k: (above < k).astype(np.float64) for k in CUTOFFS}
    first_position: dict[tuple[int, int], np.ndarray] = {}  # one distribution per (relevant, irrelevant) tie size
    for i in np.flatnonzero(tied_irr > 0):
        g, tr, ti = int(above[i]), int(tied_rel[i]), int(tied_irr[i])
        p_first = first_position.get((tr, ti))
        if p_first is None:
            # P(X > x) = C(ti, x) / C(tr + ti, x): the first x tied positions are all irrelevant
            survive = np.cumprod([1.0] + [(ti - j) / (tr + ti - j) for j in range(ti)])  # x = 0..ti
            p_first = survive[:-1] - survive[1:]  # P(X = x) for x = 1..ti
            p_first = first_position[(tr, ti)] = np.append(p_first, survive[-1])  # X = ti + 1: all irrelevant first
        positions = g + np.arange(1, ti + 2)
        rr[i] = float(np.sum(p_first / positions))
        for k in CUTOFFS:
            if g < k:  # else no tied position is within the cut-off: hit@k stays 0
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
    averaging = sp.csr_matrix(
        (1.0 / lengths[owner], (owner, np.arange(len(owner)))), shape=(len(collections), len(owner))
    )
    return averaging @ sp.csr_matrix(vectors, dtype=np.float64)


def _dense_means(vectors: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Mean of consecutive runs of rows (as :meth:`TaskContext.embed_collections`).

    One text per collection (the usual retrieval split) returns the rows themselves: dividing by 1
    changes nothing, and the reduction would cost a pass over every vector.
    """
    if np.all(lengths == 1):
        return vectors
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    sums = np.add.reduceat(vectors, starts, axis=0) if len(vectors) else np.zeros((0, vectors.shape[1]), np.float32)
    return np.asarray(sums / lengths[:, None], dtype=np.float32)


def reference_retrieval(
    query_vectors: Any,
    target_vectors: Any,
    query_authors: Sequence[str],
    target_authors: Sequence[str],
    products: str = DEFAULT_PRODUCTS,
) -> dict[str, Any]:
    """The reference's metrics (module docstring) for one vector per query and per target collection.

    ``products="exact"`` (default): the distances and tie rule of :mod:`._retrieval_ranks`, the same on every
    CPU; ``"blas"``: the reference's own calls on this CPU (``pairwise_distances`` and an ``np.argsort`` per
    query), whose near-ties follow this machine's BLAS kernel and sorting network.
    """
    qa, ta = np.asarray(query_authors), np.asarray(target_authors)
    common = np.intersect1d(qa, ta)
    keep_q, keep_t = np.isin(qa, common), np.isin(ta, common)
    q = _reference_unit(query_vectors)[keep_q]
    t = _reference_unit(target_vectors)[keep_t]
    qa, ta = qa[keep_q], ta[keep_t]
    if products == "blas":
        per_query = _argsort_metrics(q, t, qa, ta)
    else:
        per_query = _expected_metrics(q, t, qa, ta)
    rr = per_query["rr"]
    out: dict[str, Any] = {"mrr": float(rr.mean()), "mean_rank": float(per_query["rank"].mean())}
    out.update({f"recall_at_{k}": float(per_query[f"recall@{k}"].mean()) for k in REFERENCE_CUTOFFS})
    out.update(n_queries_scored=int(len(qa)), n_targets_scored=int(len(ta)))
    if products != "blas":
        out["n_queries_with_ties"] = int(per_query["with_ties"])
    out[INSTANCES_KEY] = {"reciprocal_rank": rr.tolist()}  # per query, for paired tests (steb_core._instances)
    return out


def _expected_metrics(q: np.ndarray, t: np.ndarray, qa: np.ndarray, ta: np.ndarray) -> dict[str, Any]:
    """Per query: exact distances, each true target's rank in expectation over tie orders (:mod:`._retrieval_ranks`)."""
    qn, tn = np.asarray(_float32_unit_rows(q)), np.asarray(_float32_unit_rows(t))  # as cosine_distances does
    per_query: dict[str, Any] = {"rr": np.zeros(len(qa)), "rank": np.zeros(len(qa))}
    per_query.update({f"recall@{k}": np.zeros(len(qa)) for k in REFERENCE_CUTOFFS})
    with_ties = 0
    rows = max(1, REFERENCE_CELLS // 8 // max(1, len(ta)))
    for r0 in range(0, len(qa), rows):
        dist = cosine_distances_exact(qn[r0 : r0 + rows], tn)
        pair_q, pair_t = np.nonzero(qa[r0 : r0 + rows, None] == ta[None, :])  # row-major: sorted by query
        closer, tied = tied_positions(dist, pair_q, pair_t)
        with_ties += len(np.unique(pair_q[tied > 1]))
        block = expected_rank_metrics(closer, tied, pair_q, dist.shape[0], REFERENCE_CUTOFFS)
        for name, values in block.items():
            per_query[name][r0 : r0 + len(values)] = values
    per_query["with_ties"] = with_ties
    return per_query


def _argsort_metrics(q: np.ndarray, t: np.ndarray, qa: np.ndarray, ta: np.ndarray) -> dict[str, Any]:
    """Per query, as the reference's own code on this CPU: ``pairwise_distances`` and ``np.argsort``."""
    from sklearn.metrics import pairwise_distances

    per_query = {"rr": np.zeros(len(qa)), "rank": np.zeros(len(qa))}
    per_query.update({f"recall@{k}": np.zeros(len(qa)) for k in REFERENCE_CUTOFFS})
    rows = max(1, REFERENCE_CELLS // 8 // max(1, len(ta)))
    for r0 in range(0, len(qa), rows):
        dist = pairwise_distances(q[r0 : r0 + rows], t, metric="cosine")
        for i in range(dist.shape[0]):
            ranks = np.where(qa[r0 + i] == ta[np.argsort(dist[i])])[0] + 1
            per_query["rr"][r0 + i] = np.mean(1.0 / ranks)
            per_query["rank"][r0 + i] = np.mean(ranks)
            for k in REFERENCE_CUTOFFS:
                per_query[f"recall@{k}"][r0 + i] = np.count_nonzero(ranks <= k) / ranks.size
    return per_query


def _reference_unit(vectors: Any) -> Any:
    """Rows divided by their L2 norm in their own dtype, zero rows unchanged (the reference's ``l2_normalize``)."""
    if sp.issparse(vectors):
        vectors = vectors.toarray()
    vectors = np.asarray(vectors)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms).astype(vectors.dtype)


def _joined_vectors(ctx: TaskContext, collections: Sequence[Sequence[str]]) -> Any:
    """One vector per collection as the reference makes it: the encoder's own multi-text embedding, else the
    embedding of the collection's texts joined by a space."""
    if ctx.collections_fn is not None:
        return ctx.collections_fn(collections)
    return ctx.embed([" ".join(c) for c in collections])


def joined_texts(data: Any, options: Mapping[str, Any]) -> list[str]:
    """The texts the ``reference`` rule embeds: every collection joined by a space (the runner encodes them)."""
    nested = options.get("retrieval")
    default = nested.get("rule", DEFAULT_RULE) if isinstance(nested, Mapping) else DEFAULT_RULE
    rule = options.get("retrieval.rule", default)
    if str(rule).strip().lower() != "reference":
        return []
    return [" ".join(c.texts_) for c in (*data.queries, *data.targets)]


def run_retrieval(ctx: TaskContext) -> dict[str, Any]:
    data = ctx.data
    rule = option_choice(ctx, "retrieval", "rule", RULES, DEFAULT_RULE)
    if rule == "reference" and len(data.queries) * len(data.targets) <= REFERENCE_CELLS:
        products = option_choice(ctx, "retrieval", "products", PRODUCTS, DEFAULT_PRODUCTS)
        metrics = reference_retrieval(
            _joined_vectors(ctx, [q.texts_ for q in data.queries]),
            _joined_vectors(ctx, [t.texts_ for t in data.targets]),
            [q.author for q in data.queries],
            [t.author for t in data.targets],
            products=products,
        )
        metrics.update(
            n_queries=len(data.queries),
            n_targets=len(data.targets),
            rule="reference" if ctx.collections_fn is None else "reference (the encoder's own collection vectors)",
        )
        return metrics
    metrics = _run_counted(ctx)
    metrics["rule"] = "counted" if rule == "counted" else f"counted (over {REFERENCE_CELLS} query x target cells)"
    return metrics


def _run_counted(ctx: TaskContext) -> dict[str, Any]:
    data = ctx.data
    authors: dict[str, int] = {}
    target_codes = np.asarray([authors.setdefault(t.author, len(authors)) for t in data.targets], dtype=np.int64)
    query_codes = np.asarray([authors[q.author] for q in data.queries], dtype=np.int64)
    query_vectors = collection_vectors(ctx, [q.texts_ for q in data.queries])
    target_vectors = collection_vectors(ctx, [t.texts_ for t in data.targets])
    block_bytes = option(ctx, "retrieval", "block_bytes", None)
    work = query_vectors.shape[0] * target_vectors.shape[0] * query_vectors.shape[1]
    sparse = sp.issparse(query_vectors) or sp.issparse(target_vectors)
    device = None if sparse else kernel_device(ctx)
    with blas_limits(ctx, work) as threads:
        counts = first_relevant_ranks(
            query_vectors,
            target_vectors,
            query_codes,
            target_codes,
            block_bytes=None if block_bytes is None else int(block_bytes),
            threads=threads,
            device=device,
        )
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
    description=(
        f"Authorship retrieval, rule={DEFAULT_RULE} by default (the STEB reference's): each collection's texts "
        "joined into one text and embedded once, targets ranked by cosine distance per query (distances rounded "
        "from their exact values, exact ties in expectation: the same on every CPU; products=blas: the "
        "reference's own argsort); MRR, recall@1/8/16/32/64/128. rule=counted: mean vectors, ranks counted "
        "exactly, blocked."
    ),
    shape="retrieval",
    main_metric="mrr",
    run=run_retrieval,
    extra_texts=joined_texts,
    accepts_sparse=True,
    warm_imports=("sklearn.metrics",),
    # 2, issue 37: the STEB reference's rule (joined collections, argsort ranks) by default; 3: its distances
    # correctly rounded and exact ties in expectation, the same on every CPU (products=blas: the reference's calls)
    version="3",
    options=("rule", "block_bytes", "products"),
    default_for_shape=True,
    tree_export=RETRIEVAL_EXPORT,
)
