"""Retrieval: MRR / R@k against scikit-learn's ranking metrics and brute-force ranks, ties in expectation."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.metrics import label_ranking_average_precision_score, top_k_accuracy_score
from sklearn.metrics.pairwise import cosine_similarity

from steb_core import RetrievalSet, TextCollection
from steb_core.tasks.retrieval import SPEC, first_relevant_ranks, tie_expectations

#: steb's earlier counted rule (the tests below check it); the reference rule: test_task_retrieval_reference.py
COUNTED = {"retrieval.rule": "counted"}


def _retrieval(seed, n_authors=60, d=12, extra_targets=0, texts_per=2):
    rng = np.random.default_rng(seed)
    style = rng.normal(size=(n_authors, d))
    table = {}
    queries, targets = [], []
    for a in range(n_authors):
        for side, out in (("q", queries), ("t", targets)):
            texts = []
            for k in range(texts_per):
                t = f"{side}{a}-{k}"
                table[t] = style[a] + rng.normal(scale=2.0, size=d)
                texts.append(t)
            out.append(TextCollection(author=f"a{a}", texts_=tuple(texts)))
    for e in range(extra_targets):  # a second target for some authors
        a = e % n_authors
        t = f"x{e}"
        table[t] = style[a] + rng.normal(scale=2.0, size=d)
        targets.append(TextCollection(author=f"a{a}", texts_=(t,)))
    return RetrievalSet(queries=tuple(queries), targets=tuple(targets)), table


def _mean_vectors(collections, table):
    return np.stack([np.mean([table[t] for t in c.texts_], axis=0) for c in collections])


@pytest.mark.parametrize("seed", [0, 1])
def test_single_relevant_target_matches_sklearn(make_ctx, table_encoder, seed):
    data, table = _retrieval(seed)
    got = SPEC.run(make_ctx("retrieval", data, embed=table_encoder(table), options=COUNTED))
    scores = cosine_similarity(_mean_vectors(data.queries, table), _mean_vectors(data.targets, table))
    truth = np.eye(len(data.queries), dtype=int)  # target i is query i's author
    # with one relevant target per query, label-ranking average precision is the MRR
    assert got["mrr"] == pytest.approx(label_ranking_average_precision_score(truth, scores), abs=1e-6)
    y = np.arange(len(data.queries))
    assert got["recall_at_1"] == pytest.approx(top_k_accuracy_score(y, scores, k=1), abs=1e-9)
    assert got["recall_at_8"] == pytest.approx(top_k_accuracy_score(y, scores, k=8), abs=1e-9)
    json.dumps(got)


def test_several_relevant_targets_match_brute_force(make_ctx, table_encoder):
    data, table = _retrieval(2, n_authors=40, extra_targets=30)
    got = SPEC.run(
        make_ctx(
            "retrieval", data, embed=table_encoder(table), options={**COUNTED, "retrieval.block_bytes": 4 * 70 * 3}
        )
    )
    scores = cosine_similarity(_mean_vectors(data.queries, table), _mean_vectors(data.targets, table))
    rr, hit1, hit8 = [], [], []
    for i, q in enumerate(data.queries):
        ranks = rankdata(-scores[i], method="min")  # no ties in random data
        first = min(ranks[j] for j, t in enumerate(data.targets) if t.author == q.author)
        rr.append(1 / first)
        hit1.append(first <= 1)
        hit8.append(first <= 8)
    assert got["mrr"] == pytest.approx(np.mean(rr), abs=1e-6)
    assert got["recall_at_1"] == pytest.approx(np.mean(hit1))
    assert got["recall_at_8"] == pytest.approx(np.mean(hit8))


def test_blocking_does_not_change_the_counts():
    rng = np.random.default_rng(5)
    q, t = rng.normal(size=(37, 9)), rng.normal(size=(53, 9))
    qa, ta = rng.integers(0, 10, size=37), np.arange(53) % 10
    whole = first_relevant_ranks(q, t, qa, ta)
    tiny = first_relevant_ranks(q, t, qa, ta, block_bytes=1)
    for a, b in zip(whole, tiny):
        np.testing.assert_array_equal(a, b)


def _expected_by_enumeration(above, rel, irr, k_cut):
    """Average over every order of the tied group (brute force)."""
    rrs, hits = [], []
    for order in itertools.permutations([1] * rel + [0] * irr):
        pos = above + order.index(1) + 1
        rrs.append(1 / pos)
        hits.append(pos <= k_cut)
    return np.mean(rrs), np.mean(hits)


@pytest.mark.parametrize("above,rel,irr", [(0, 1, 1), (0, 1, 3), (2, 2, 3), (6, 1, 4), (0, 3, 2)])
def test_ties_scored_in_expectation(above, rel, irr):
    out = tie_expectations(np.array([above]), np.array([rel]), np.array([irr]))
    rr, hit8 = _expected_by_enumeration(above, rel, irr, 8)
    _, hit1 = _expected_by_enumeration(above, rel, irr, 1)
    assert out["rr"][0] == pytest.approx(rr)
    assert out["hit@8"][0] == pytest.approx(hit8)
    assert out["hit@1"][0] == pytest.approx(hit1)


def test_constant_encoder_scores_chance(make_ctx):
    # every score ties: 1 relevant among n targets -> E[1/X] with X uniform on 1..n
    data, table = _retrieval(0, n_authors=10)
    const = {k: np.ones(4) for k in table}
    got = SPEC.run(
        make_ctx(
            "retrieval",
            data,
            options=COUNTED,
            embed=lambda texts: np.stack([const[t] for t in texts]).astype(np.float32),
        )
    )
    assert got["mrr"] == pytest.approx(np.mean(1 / np.arange(1, 11)))
    assert got["recall_at_1"] == pytest.approx(0.1)
    assert got["recall_at_8"] == pytest.approx(0.8)
    assert got["n_queries_with_ties"] == 10


def test_encoder_collection_embedding_is_used(make_ctx):
    data, _ = _retrieval(0, n_authors=5)

    def author_vec(c):  # collection -> its author's axis
        return np.eye(5)[int(c[0][1:].split("-")[0])]

    ctx = make_ctx("retrieval", data, embed=lambda texts: np.zeros((len(texts), 5), np.float32), options=COUNTED)
    ctx.collections_fn = lambda cols: np.stack([author_vec(c) for c in cols]).astype(np.float32)
    got = SPEC.run(ctx)
    assert got["mrr"] == 1.0 and got["recall_at_1"] == 1.0


def _reference_counts(q, t, qa, ta):
    """Brute force on the documented rule: float64 cosines (scikit-learn) rounded to the 2**-20 grid."""
    keys = np.round(cosine_similarity(np.asarray(q, np.float64), np.asarray(t, np.float64)) * 2**20)
    above, rel, irr = [], [], []
    for i in range(len(q)):
        is_rel = ta == qa[i]
        best = keys[i][is_rel].max()
        above.append(int(np.sum(keys[i][~is_rel] > best)))
        rel.append(int(np.sum(keys[i][is_rel] == best)))
        irr.append(int(np.sum(keys[i][~is_rel] == best)))
    return np.array(above), np.array(rel), np.array(irr)


@pytest.mark.parametrize("seed", [0, 1])
def test_screened_counts_equal_float64_brute_force_near_ties(seed):
    """Targets a few grid steps from the best relevant score: the float32 screen must not decide them."""
    rng = np.random.default_rng(seed)
    d = 64
    q = rng.normal(size=(12, d))
    qa = np.arange(12) % 4
    t, ta = [], []
    for i in range(12):
        unit_q = q[i] / np.linalg.norm(q[i])
        rel = rng.normal(size=d)
        t.append(rel)
        ta.append(qa[i])
        rel_unit = rel / np.linalg.norm(rel)
        for k in range(-6, 7):  # irrelevant targets whose cosine moves by ~k/3 grid steps
            v = rel_unit + k * 2.0**-21 * unit_q / 1.5
            t.append(v)
            ta.append((qa[i] + 1) % 4)
        perm = rng.permutation(d)  # permuted copies of query and target: same cosine, other summation order
        t.append(rel[perm] * 3.0)
        ta.append((qa[i] + 2) % 4)
    t, ta = np.array(t), np.array(ta)
    got = first_relevant_ranks(q.astype(np.float32), t.astype(np.float32), qa, ta, block_bytes=4 * len(t) * 5)
    ref = _reference_counts(q.astype(np.float32), t.astype(np.float32), qa, ta)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)
    assert ref[2].sum() > 0  # the test holds real ties


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scores_within_float32_error_of_a_cell_edge_are_decided_in_float64(dtype):
    """Irrelevant targets whose float64 cosine lies 1e-10..1e-6 from the edges of r*'s grid cell.

    The float32 screen alone gets many of these wrong (its error is ~1e-7 here); the counts must
    still equal scikit-learn's float64 cosines snapped to the grid.
    """
    rng = np.random.default_rng(7)
    d, nq = 256, 24
    q = rng.normal(size=(nq, d))
    targets, ta = [], []
    for i in range(nq):
        unit_q = q[i] / np.linalg.norm(q[i])
        rel = rng.normal(size=d)
        targets.append(rel)
        ta.append(i)
        r = float(rel @ unit_q / np.linalg.norm(rel))
        key = np.rint(r * 2**20)
        for edge in ((key + 0.5) * 2.0**-20, (key - 0.5) * 2.0**-20):
            for eps in (-1e-6, -1e-7, -3e-8, -1e-8, -1e-9, -1e-10, 1e-10, 1e-9, 1e-8, 3e-8, 1e-7, 1e-6):
                w = rng.normal(size=d)
                w -= (w @ unit_q) * unit_q
                c = edge + eps
                targets.append((c * unit_q + np.sqrt(1 - c * c) * w / np.linalg.norm(w)) * rng.uniform(0.5, 2.0))
                ta.append(nq + i)  # irrelevant to every query
    q, t = q.astype(dtype), np.array(targets).astype(dtype)
    qa, ta = np.arange(nq), np.array(ta)
    ref = _reference_counts(q, t, qa, ta)
    got = first_relevant_ranks(q, t, qa, ta)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)
    assert ref[0].min() > 0 and ref[2].sum() > 0  # targets above r* and ties with it in every run


def test_screen_margin_bounds_float32_error():
    """The screen's product (unit rows in float32 plus the -h / 1 column) errs well within the bound."""
    from steb_core.tasks.retrieval import screen_margin

    rng = np.random.default_rng(0)
    for d in (8, 768):
        a = rng.normal(size=(300, d))
        b = rng.normal(size=(300, d)) + a  # correlated: cosines spread over [-1, 1]
        a64 = a / np.linalg.norm(a, axis=1, keepdims=True)
        b64 = b / np.linalg.norm(b, axis=1, keepdims=True)
        h = rng.uniform(-1, 1, size=300).astype(np.float32)
        a_aug = np.hstack([a64, -h[:, None].astype(np.float64)]).astype(np.float32)
        b_aug = np.hstack([b64, np.ones((300, 1))]).astype(np.float32)
        err = np.abs(a_aug @ b_aug.T - (a64 @ b64.T - h[:, None].astype(np.float64)))
        assert err.max() < screen_margin(d, 1.0) / 2
        assert screen_margin(d, 0.1) < screen_margin(d, 1.0)  # the bound shrinks with |h|


def _ties_and_duplicates(seed, nq=40, nt=70, d=4):
    """Small integer vectors: many exact ties, duplicate rows, a zero row, several relevant targets per query."""
    rng = np.random.default_rng(seed)
    q = rng.integers(-1, 3, size=(nq, d)).astype(np.float32)
    t = rng.integers(-1, 3, size=(nt, d)).astype(np.float32)
    t[5:15] = t[0]  # duplicate targets
    t[20] = 3.0 * q[0]  # a scaled copy of a query: cosine exactly 1
    t[21] = 0.0  # zero vector: cosine 0 with everything
    qa = rng.integers(0, 9, size=nq)
    ta = np.concatenate([np.arange(9), rng.integers(0, 9, size=nt - 9)])
    return q, t, qa, ta


def _argsort_reference(q, t, qa, ta):
    """Counts from scipy's rank of every target (float64 cosines from scikit-learn, snapped to the 2**-20 grid)."""
    keys = np.rint(cosine_similarity(np.asarray(q, np.float64), np.asarray(t, np.float64)) * 2**20)
    above, rel, irr = [], [], []
    for i in range(len(q)):
        is_rel = ta == qa[i]
        top = int(np.argmax(np.where(is_rel, keys[i], -np.inf)))  # a best relevant target
        lo = rankdata(-keys[i], method="min")[top]  # 1 + targets strictly above it
        hi = rankdata(-keys[i], method="max")[top]  # targets at or above it
        n_rel = int(np.sum(keys[i][is_rel] == keys[i][top]))
        above.append(int(lo) - 1)
        rel.append(n_rel)
        irr.append(int(hi - lo + 1) - n_rel)
    return np.array(above), np.array(rel), np.array(irr)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("block_bytes,threads", [(None, 1), (None, 2), (4 * 16 * 3, 2), (1, 1)])
def test_counts_match_a_rank_reference_with_ties_and_duplicates(seed, block_bytes, threads):
    q, t, qa, ta = _ties_and_duplicates(seed)
    ref = _argsort_reference(q, t, qa, ta)
    got = first_relevant_ranks(q, t, qa, ta, block_bytes=block_bytes, threads=threads)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)
    assert ref[2].sum() > 0 and ref[1].max() > 1  # irrelevant and relevant ties both occur


def _expected_rr_by_placement(above, n_rel, n_irr):
    """Mean of 1 / position of the first relevant target over every placement of the relevant ones in the tie."""
    size = n_rel + n_irr
    rr = [1.0 / (above + 1 + min(spots)) for spots in itertools.combinations(range(size), n_rel)]
    return float(np.mean(rr))


def test_mrr_with_ties_matches_placement_enumeration(make_ctx, table_encoder):
    q, t, qa, ta = _ties_and_duplicates(3, nq=25, nt=40, d=3)
    table = {f"q{i}": v for i, v in enumerate(q)} | {f"t{j}": v for j, v in enumerate(t)}
    data = RetrievalSet(
        queries=tuple(TextCollection(author=f"a{a}", texts_=(f"q{i}",)) for i, a in enumerate(qa)),
        targets=tuple(TextCollection(author=f"a{a}", texts_=(f"t{j}",)) for j, a in enumerate(ta)),
    )
    got = SPEC.run(
        make_ctx("retrieval", data, embed=table_encoder(table), options={**COUNTED, "retrieval.block_bytes": 4 * 8 * 5})
    )
    above, rel, irr = _argsort_reference(q, t, qa, ta)
    expected = np.mean([_expected_rr_by_placement(a, r, i) for a, r, i in zip(above, rel, irr)])
    assert got["mrr"] == pytest.approx(expected, abs=1e-12)
    assert got["n_queries_with_ties"] == int(np.count_nonzero(irr)) > 0


def test_worker_threads_and_block_shapes_give_identical_counts():
    rng = np.random.default_rng(11)
    style = rng.normal(size=(30, 48))
    qa, ta = rng.integers(0, 30, size=300), np.arange(500) % 30
    q = (style[qa] + 2.5 * rng.normal(size=(300, 48))).astype(np.float32)
    t = (style[ta] + 2.5 * rng.normal(size=(500, 48))).astype(np.float32)
    ref = _reference_counts(q, t, qa, ta)
    for block_bytes, threads in [(None, 1), (None, 3), (4 * 64 * 8, 2), (4 * 500 * 7, 2), (4 * 37, 1)]:
        got = first_relevant_ranks(q, t, qa, ta, block_bytes=block_bytes, threads=threads)
        for a, b in zip(got, ref):
            np.testing.assert_array_equal(a, b)
    assert ref[0].max() > 20  # deep ranks: the counts are not all zero


def test_relevant_pairs_are_every_same_author_pair():
    from steb_core.tasks.retrieval import relevant_pairs

    rng = np.random.default_rng(4)
    qa, ta = rng.integers(0, 7, size=50), rng.integers(0, 7, size=80)
    ta[:7] = np.arange(7)
    rel_q, rel_t, starts = relevant_pairs(qa, ta)
    expected = [(i, j) for i in range(50) for j in range(80) if qa[i] == ta[j]]
    assert list(zip(rel_q.tolist(), rel_t.tolist())) == expected
    np.testing.assert_array_equal(
        starts, [next(k for k, (i, _) in enumerate(expected) if i == row) for row in range(50)]
    )
    with pytest.raises(ValueError, match="no relevant target"):
        relevant_pairs(np.array([0, 9]), np.array([0, 1]))


@pytest.mark.parametrize("shape", [(3, 8), (5, 2040), (4, 8 * 600), (7, 13), (1, 1)])
@pytest.mark.parametrize("density", [0.0, 0.003, 0.5, 1.0])
def test_row_counts_and_positions_match_numpy(shape, density):
    from steb_core.tasks._rank_count import _set_positions, row_counts

    rng = np.random.default_rng(shape[1])
    mask = rng.random(shape) < density
    np.testing.assert_array_equal(row_counts(mask), mask.sum(axis=1))  # 600 words of all-True: no lane overflow
    np.testing.assert_array_equal(_set_positions(mask), np.flatnonzero(mask))


def test_sparse_vectors_give_the_dense_numbers(make_ctx, table_encoder):
    import scipy.sparse as sp

    data, table = _retrieval(3, n_authors=30, extra_targets=10)
    table = {k: np.where(np.abs(v) > 1.5, v, 0.0) for k, v in table.items()}
    enc = table_encoder(table)
    dense = SPEC.run(make_ctx("retrieval", data, embed=enc, options=COUNTED))
    sparse = SPEC.run(make_ctx("retrieval", data, embed=lambda texts: sp.csr_matrix(enc(texts)), options=COUNTED))
    assert SPEC.accepts_sparse
    for key in ("mrr", "recall_at_1", "recall_at_8"):
        assert sparse[key] == pytest.approx(dense[key], abs=1e-12)
    q = np.stack([np.mean([table[t] for t in c.texts_], axis=0) for c in data.queries]).astype(np.float32)
    tt = np.stack([np.mean([table[t] for t in c.texts_], axis=0) for c in data.targets]).astype(np.float32)
    codes = {a: i for i, a in enumerate(sorted({c.author for c in data.targets}))}
    qa = np.array([codes[c.author] for c in data.queries])
    ta = np.array([codes[c.author] for c in data.targets])
    got = first_relevant_ranks(sp.csr_matrix(q), sp.csr_matrix(tt), qa, ta, block_bytes=4 * len(tt) * 3)
    for a, b in zip(got, _reference_counts(q, tt, qa, ta)):
        np.testing.assert_array_equal(a, b)
