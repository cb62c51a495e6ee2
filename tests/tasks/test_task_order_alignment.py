"""Order alignment: STEL's quadruple/triple rules on hand-computed instances, n > 2 against brute force.

References (STEB §3 and appendix C; STEL, Wegmann & Nguyen 2021, section 2): the quadruple rule compares
the norms of (1-s11, 1-s22) and (1-s12, 1-s21); the triple rule compares similarities; a tie scores 1/t.
The brute-force reference compares *exact* sums of squares (``fractions.Fraction`` of the doubles
``1 - s``), written here independently of the task's pre-filter, so its ties are mathematical ties.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from steb_core import OrderGroup
from steb_core.tasks.order_alignment import SPEC, alignment_credit, alignment_credits


def exact_sq_norm(distances):
    """Exact squared norm of a vector of doubles (order of the terms cannot matter)."""
    return sum(Fraction(d) ** 2 for d in distances)


def brute_force_credit(sim, answer, triple_rule=True):
    """Independent reference: enumerate assignments in plain Python, exact sums of squares; ties give 1/t."""
    m, k = len(sim), len(sim[0])
    if m == 1 and triple_rule:
        best = max(sim[0])
        tied = [j for j in range(k) if sim[0][j] == best]
        return (1 / len(tied) if answer[0] in tied else 0.0), len(tied)
    norms = {p: exact_sq_norm([1 - sim[i][p[i]] for i in range(m)]) for p in itertools.permutations(range(k), m)}
    best = min(norms.values())
    tied = [p for p, v in norms.items() if v == best]
    return (1 / len(tied) if tuple(answer) in tied else 0.0), len(tied)


# --- STEL quadruple: (s11, s12, s21, s22), correct alternative, expected credit -------------------
QUADS = [
    ((0.9, 0.2, 0.3, 0.8), 1, 1.0),  # norm(.1,.2) < norm(.8,.7)
    ((0.9, 0.2, 0.3, 0.8), 2, 0.0),
    ((0.5, 0.5, 0.5, 0.5), 1, 0.5),  # all equal: coin flip
    ((0.9, 0.1, 0.9, 0.1), 2, 0.5),  # norm(.1,.9) == norm(.9,.1): tie
    ((1.0, 0.45, 0.45, 0.0), 1, 0.0),  # sum of sims prefers S1-S2 (1.0 > .9) but the norm prefers S2-S1
    ((1.0, 0.45, 0.45, 0.0), 2, 1.0),
    ((0.2, 0.6, 0.7, 0.1), 2, 1.0),
]


def stel_quadruple(s11, s12, s21, s22):
    """STEL's rule written out: 1 (S1-S2), 2 (S2-S1) or None (tie), on exact squared norms."""
    a = exact_sq_norm([1 - s11, 1 - s22])
    b = exact_sq_norm([1 - s12, 1 - s21])
    return 1 if a < b else 2 if a > b else None


@pytest.mark.parametrize("sims,correct,expected", QUADS)
def test_quadruple_hand_computed(sims, correct, expected):
    s11, s12, s21, s22 = sims
    answer = (0, 1) if correct == 1 else (1, 0)
    credit, _ = alignment_credit(np.array([[s11, s12], [s21, s22]]), answer)
    assert credit == expected
    pred = stel_quadruple(*sims)
    assert credit == (0.5 if pred is None else float(pred == correct))


@pytest.mark.parametrize(
    "row,answer,expected",
    [((0.3, 0.7), 1, 1.0), ((0.3, 0.7), 0, 0.0), ((0.3, 0.3), 0, 0.5), ((1.5, 0.9), 0, 1.0), ((0.2, 0.5, 0.5), 1, 0.5)],
)
def test_triple_compares_similarities(row, answer, expected):
    # (1.5, 0.9): the highest similarity wins as in STEL, although |1 - 0.9| < |1 - 1.5|
    assert alignment_credit(np.array([row]), (answer,))[0] == expected


def test_stel_or_content_and_distractor_in_larger_groups():
    # one anchor, one alternative + distractor (last column)
    assert alignment_credit(np.array([[0.6, 0.8]]), (0,))[0] == 0.0
    assert alignment_credit(np.array([[0.8, 0.6]]), (0,))[0] == 1.0
    assert alignment_credit(np.array([[0.7, 0.7]]), (0,))[0] == 0.5
    # two anchors: plain decision right, but anchor 0 -> distractor (col 2) beats the true assignment
    sim = np.array([[0.9, 0.2, 0.95], [0.1, 0.8, 0.0]])
    assert alignment_credit(sim[:, :2], (0, 1))[0] == 1.0
    assert alignment_credit(sim, (0, 1))[0] == 0.0


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("m,k", [(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)])
def test_exhaustive_matches_brute_force(seed, m, k):
    rng = np.random.default_rng(seed)
    sim = np.round(rng.random((m, k)), 1)  # rounding creates ties now and then
    answer = tuple(rng.permutation(k)[:m])
    assert alignment_credit(sim, answer) == pytest.approx(brute_force_credit(sim.tolist(), answer))


def test_total_tie_scores_one_over_the_number_of_assignments():
    credit, ties = alignment_credit(np.full((3, 3), 0.4), (2, 0, 1))
    assert ties == 6 and credit == pytest.approx(1 / 6)
    credit, ties = alignment_credit(np.full((2, 3), 0.4), (2, 0))
    assert ties == 6 and credit == pytest.approx(1 / 6)


@pytest.mark.parametrize("seed", range(8))
def test_hungarian_path_agrees_with_exhaustive(seed):
    rng = np.random.default_rng(seed)
    m, k = 4, 5
    sim = np.round(rng.random((m, k)), 1)
    best = min(itertools.permutations(range(k), m), key=lambda p: sum((1 - sim[i, p[i]]) ** 2 for i in range(m)))
    for answer in [tuple(rng.permutation(k)[:m]), best]:
        exhaustive = alignment_credit(sim, answer)
        hungarian = alignment_credit(sim, answer, exhaustive_limit=1)
        assert hungarian[0] == pytest.approx(exhaustive[0])
        if hungarian[0] > 0:
            assert hungarian[1] == exhaustive[1]


def test_hungarian_path_counts_ties():
    assert alignment_credit(np.full((4, 4), 0.3), (0, 1, 2, 3), exhaustive_limit=1) == (pytest.approx(1 / 24), 24)
    # a 9 x 9 identity-like matrix: unique optimum, decided by Hungarian (9! > limit)
    sim = np.eye(9) * 0.9
    assert alignment_credit(sim, tuple(range(9))) == (1.0, 1)
    assert alignment_credit(sim, (1, 0, *range(2, 9)))[0] == 0.0


def test_partial_tie_scores_one_half():
    # anchor 2 must take column 2; anchors 0 and 1 tie over columns 0 and 1: two best of six -> 1/2
    sim = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.0, 0.0, 1.0]])
    credit, ties = alignment_credit(sim, (0, 1, 2))
    assert ties == 2 and Fraction(credit).limit_denominator(10) == Fraction(1, 2)


# --- exact ties under reordering (issue 14 §2) --------------------------------------------------------


def _fma(a, b, c):
    """a * b + c rounded once (what a fused multiply-add kernel computes), emulated exactly."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def test_quadruple_tie_that_differs_by_one_ulp_in_the_two_fused_orders_scores_one_half():
    # s11 = s21 and s12 = s22: the two distance vectors are (x, y) and (y, x), an exact tie. A dot-product
    # kernel with fused multiply-adds (OpenBLAS SkylakeX behind np.linalg.norm) computes x*x + y*y as
    # fma(y, y, x*x) for one vector and fma(x, x, y*y) for the other: one ulp apart for these numbers.
    p, q = 0.22, 0.46
    x, y = 1 - p, 1 - q
    assert math.sqrt(_fma(y, y, x * x)) != math.sqrt(_fma(x, x, y * y))  # an ulp-tie in the two orders
    sim = np.array([[p, q], [p, q]])  # rows anchors, columns S1, S2
    assert stel_quadruple(p, q, p, q) is None
    for answer in [(0, 1), (1, 0)]:
        assert alignment_credit(sim, answer) == (0.5, 2)
        assert alignment_credit(sim.T.copy(), answer) == (0.5, 2)
        assert alignment_credit(sim, answer, exhaustive_limit=1) == (0.5, 2)  # the Hungarian path too


def test_three_anchor_tie_whose_naive_sums_differ_by_one_ulp_scores_one_half():
    # identity and the cyclic shift (1, 2, 0) have the same distances (a, b, c) and (b, c, a); every
    # other assignment pays a distance of 2. Norms from left-to-right sums of the squares (what
    # np.linalg.norm(..., axis=1) computes) differ by one ulp.
    s = (0.03, 0.84, 0.43)
    a, b, c = (1 - v for v in s)
    assert math.sqrt((a * a + b * b) + c * c) != math.sqrt((b * b + c * c) + a * a)
    sim = np.full((3, 3), -1.0)
    sim[0, 0], sim[1, 1], sim[2, 2] = s
    sim[0, 1], sim[1, 2], sim[2, 0] = s[1], s[2], s[0]
    for answer in [(0, 1, 2), (1, 2, 0)]:
        assert brute_force_credit(sim.tolist(), answer) == (0.5, 2)
        assert alignment_credit(sim, answer) == (0.5, 2)
        assert alignment_credit(sim, answer, exhaustive_limit=1) == (0.5, 2)
    assert alignment_credit(sim, (0, 2, 1)) == (0.0, 2)


def test_ulp_tie_on_the_hungarian_path_with_nine_anchors():
    # 9 anchors (9! > EXHAUSTIVE_LIMIT): anchors 0-2 carry the three-anchor ulp-tie, anchors 3-8 are
    # forced onto their own column. Exactly two optimal assignments.
    s = (0.03, 0.84, 0.43)
    sim = np.full((9, 9), -1.0)
    sim[0, 0], sim[1, 1], sim[2, 2] = s
    sim[0, 1], sim[1, 2], sim[2, 0] = s[1], s[2], s[0]
    for i in range(3, 9):
        sim[i, i] = 0.9
    rest = tuple(range(3, 9))
    assert alignment_credit(sim, (0, 1, 2) + rest) == (0.5, 2)
    assert alignment_credit(sim, (1, 2, 0) + rest) == (0.5, 2)
    assert alignment_credit(sim, (0, 2, 1) + rest)[0] == 0.0


def test_near_tie_one_ulp_apart_is_decided_not_tied():
    # distances (x, y) against (y, x') with x' one ulp above x: a real (tiny) difference, inside the float
    # pre-filter's window, so the exact comparison decides it: keeping the order wins.
    p, q = 0.22, 0.46
    x = 1 - p
    s21 = 1 - np.nextafter(x, 2.0)
    assert 1 - s21 == np.nextafter(x, 2.0)
    sim = np.array([[p, q], [s21, q]])
    assert stel_quadruple(p, q, s21, q) == 1
    assert alignment_credit(sim, (0, 1)) == (1.0, 1)
    assert alignment_credit(sim, (1, 0)) == (0.0, 1)
    assert alignment_credit(sim, (0, 1), exhaustive_limit=1) == (1.0, 1)


@pytest.mark.parametrize("seed", range(20))
def test_random_ties_by_repeated_values_match_exact_brute_force(seed):
    # values drawn from a small set, so permuted distance vectors (exact ties) are common
    rng = np.random.default_rng(100 + seed)
    m = int(rng.integers(2, 5))
    k = int(rng.integers(m, 6))
    sim = rng.choice([0.1, 0.22, 0.26, 0.45, 0.46, 0.5, 0.7], size=(m, k))
    for answer in {tuple(rng.permutation(k)[:m]) for _ in range(4)}:
        assert alignment_credit(sim, answer) == pytest.approx(brute_force_credit(sim.tolist(), answer))


@pytest.mark.parametrize("m,k", [(1, 3), (2, 2), (2, 3), (3, 3), (3, 4), (4, 5)])
def test_batch_scoring_matches_exact_brute_force(m, k):
    # many instances with values from a small set: exact ties (permuted distances) are frequent
    rng = np.random.default_rng(m * 10 + k)
    n = 300
    sims = rng.choice([0.03, 0.22, 0.43, 0.46, 0.84, 1.2], size=(n, m, k))
    answers = np.stack([rng.permutation(k)[:m] for _ in range(n)])
    credits, ties = alignment_credits(sims, answers)
    expected = [brute_force_credit(sims[g].tolist(), answers[g].tolist()) for g in range(n)]
    assert credits.tolist() == pytest.approx([c for c, _ in expected])
    assert ties.tolist() == [t for _, t in expected]
    assert any(t > 1 for _, t in expected) and any(t == 1 for _, t in expected)


def test_tie_tolerance_widens_ties_on_the_norm():
    # keep: distances (0.1, 0.2001), norm 0.2237; swap: (0.2, 0.2), norm 0.2828 -- 0.059 apart
    sim = np.array([[0.9, 0.8], [0.8, 0.7999]])
    keep, swap = math.hypot(0.1, 0.2001), math.hypot(0.2, 0.2)
    assert keep < swap and swap - keep > 1e-3
    assert alignment_credit(sim, (0, 1)) == (1.0, 1)
    assert alignment_credit(sim, (0, 1), tie_tolerance=1e-4) == (1.0, 1)
    assert alignment_credit(sim, (0, 1), tie_tolerance=0.1) == (0.5, 2)
    assert alignment_credit(sim, (1, 0), tie_tolerance=0.1) == (0.5, 2)
    assert alignment_credit(sim, (1, 0), tie_tolerance=0.1, exhaustive_limit=1) == (0.5, 2)
    batch, ties = alignment_credits(sim[None], np.array([[1, 0]]), tie_tolerance=0.1)
    assert batch.tolist() == [0.5] and ties.tolist() == [2]
    assert alignment_credit(np.array([[0.5, 0.55]]), (0,), tie_tolerance=0.1) == (0.5, 2)


def _group(anchors, alternatives, answer, distractor=None, style=None):
    return OrderGroup(
        anchors=anchors, alternatives=alternatives, answer=answer, distractor=distractor, style_type=style
    )


def test_run_plain_and_distractor_instances_are_scored_separately(make_ctx):
    # similarity table keyed by (anchor, candidate)
    table = {
        ("A1", "S1"): 0.9,
        ("A1", "S2"): 0.2,
        ("A2", "S1"): 0.3,
        ("A2", "S2"): 0.8,  # plain quadruple, correct
        ("B1", "T1"): 0.5,
        ("B1", "T2"): 0.5,
        ("B2", "T1"): 0.5,
        ("B2", "T2"): 0.5,  # plain quadruple, tie -> 0.5
        ("C1", "U1"): 0.3,
        ("C1", "U2"): 0.7,  # plain triple, answer 0 -> wrong
        ("A1", "A2"): 0.95,  # STEL-or-Content from A: the distractor A2 lures A1 away from S1 -> 0
        ("B1", "B2"): 0.1,  # STEL-or-Content from B: T1 (0.5) beats B2 -> 1
    }

    def sim(a, b):
        return np.array([table[(x, y)] for x, y in zip(a, b)])

    groups = [
        _group(("A1", "A2"), ("S1", "S2"), (0, 1), style="formality"),
        _group(("A1",), ("S1",), (0,), distractor="A2", style="formality"),
        _group(("B1", "B2"), ("T1", "T2"), (1, 0), style="formality"),
        _group(("B1",), ("T1",), (0,), distractor="B2", style="simplicity"),
        _group(("C1",), ("U1", "U2"), (0,), style="contraction"),
    ]
    got = SPEC.run(make_ctx("order_groups", groups, similarity=sim))
    assert got["accuracy"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert got["accuracy_by_style_type"] == {"contraction": 0.0, "formality": 0.75}
    assert got["distractor_accuracy"] == pytest.approx(0.5)
    assert got["distractor_accuracy_by_style_type"] == {"formality": 0.0, "simplicity": 1.0}
    assert got["n_instances"] == 3 and got["n_distractor_instances"] == 2
    assert got["n_tied"] == 1 and got["n_distractor_tied"] == 0
    # chance: quadruple 1/2, quadruple 1/2, triple 1/2; STEL-or-Content 1/2 each
    assert got["chance_accuracy"] == 0.5 and got["chance_distractor_accuracy"] == 0.5
    assert SPEC.main_metric_of(got) == "distractor_accuracy"
    json.dumps(got)


def test_main_metric_is_distractor_accuracy_with_plain_accuracy_beside_it():
    assert SPEC.main_metric == "distractor_accuracy"
    assert SPEC.fallback_metrics == ("accuracy",) and SPEC.companion_metrics == ("accuracy",)
    assert SPEC.main_metric_of({"accuracy": 1.0, "distractor_accuracy": 0.0}) == "distractor_accuracy"
    assert SPEC.main_metric_of({"accuracy": 1.0}) == "accuracy"


def test_plain_only_data_has_no_distractor_accuracy(make_ctx):
    sims = {("A1", "S1"): 0.9, ("A1", "S2"): 0.2, ("A2", "S1"): 0.3, ("A2", "S2"): 0.8}

    def sim(a, b):
        return np.array([sims[(x, y)] for x, y in zip(a, b)])

    got = SPEC.run(make_ctx("order_groups", [_group(("A1", "A2"), ("S2", "S1"), (1, 0))], similarity=sim))
    assert got["accuracy"] == 1.0 and "distractor_accuracy" not in got
    assert SPEC.main_metric_of(got) == "accuracy"


def test_run_with_vectors_uses_cosine(make_ctx, table_encoder):
    vecs = {"A1": [1, 0], "A2": [0, 1], "S1": [1, 0.1], "S2": [0.1, 1], "D": [0.7, 0.7]}
    groups = [_group(("A1", "A2"), ("S2", "S1"), (1, 0)), _group(("A2",), ("S2",), (0,), distractor="A1")]
    enc = table_encoder(vecs)
    got = SPEC.run(make_ctx("order_groups", groups, embed=enc))
    # cos(A2, S2) = 1/sqrt(1.01) ~ 0.995 > cos(A2, A1) = 0: content-independent for this pair
    assert got["accuracy"] == 1.0 and got["distractor_accuracy"] == 1.0
    assert enc.calls == [4]  # each distinct text embedded once


def test_each_distinct_pair_is_scored_once(make_ctx):
    calls = []

    def sim(a, b):
        calls.extend(zip(a, b))
        return np.array([0.9 if x[-1] == y[-1] else 0.1 for x, y in zip(a, b)])

    groups = [_group(("A1", "A2"), ("S2", "S1"), (1, 0)), _group(("A1",), ("S1",), (0,), distractor="A2")]
    got = SPEC.run(make_ctx("order_groups", groups, similarity=sim))
    assert sorted(calls) == sorted({*calls}) and len(calls) == 5  # 4 plain pairs + (A1, A2)
    assert got["accuracy"] == 1.0 and got["distractor_accuracy"] == 1.0


def test_stel_or_content_only_groups(make_ctx):
    # accuracy is the plain accuracy: STEL-or-Content data has no plain instance, so it has none
    sims = {("A", "S"): 0.8, ("A", "D"): 0.6, ("B", "T"): 0.1, ("B", "E"): 0.6}

    def sim(a, b):
        return np.array([sims[(x, y)] for x, y in zip(a, b)])

    groups = [_group(("A",), ("S",), (0,), distractor="D"), _group(("B",), ("T",), (0,), distractor="E")]
    got = SPEC.run(make_ctx("order_groups", groups, similarity=sim))
    assert got["distractor_accuracy"] == 0.5 and "accuracy" not in got
    assert got["n_instances"] == 0 and got["n_distractor_instances"] == 2
    assert SPEC.main_metric_of(got) == "distractor_accuracy"


def test_trivial_plain_groups_are_counted_not_scored(make_ctx):
    def sim(a, b):
        return np.full(len(a), 0.3)

    groups = [_group(("A",), ("S",), (0,)), _group(("A1", "A2"), ("S1", "S2"), (0, 1))]
    got = SPEC.run(make_ctx("order_groups", groups, similarity=sim))
    assert got["n_trivial_plain"] == 1 and got["n_instances"] == 1 and got["accuracy"] == 0.5
