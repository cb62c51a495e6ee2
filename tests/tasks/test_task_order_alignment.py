"""Order alignment: STEL's quadruple/triple rules on hand-computed instances, n > 2 against brute force."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from steb_core import OrderGroup
from steb_core.tasks.order_alignment import SPEC, alignment_credit


def brute_force_credit(sim, answer, triple_rule=True):
    """Independent reference: enumerate assignments with plain Python math; ties give 1/k."""
    m, k = len(sim), len(sim[0])
    if m == 1 and triple_rule:
        best = max(sim[0])
        tied = [j for j in range(k) if sim[0][j] == best]
        return (1 / len(tied) if answer[0] in tied else 0.0), len(tied)
    norms = {}
    for p in itertools.permutations(range(k), m):
        norms[p] = math.sqrt(sum((1 - sim[i][p[i]]) ** 2 for i in range(m)))
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
    """STEL's rule written out: 1 (S1-S2), 2 (S2-S1) or None (tie)."""
    a = math.sqrt((1 - s11) ** 2 + (1 - s22) ** 2)
    b = math.sqrt((1 - s12) ** 2 + (1 - s21) ** 2)
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


def _group(anchors, alternatives, answer, distractor=None, style=None):
    return OrderGroup(anchors=anchors, alternatives=alternatives, answer=answer, distractor=distractor, style_type=style)


def test_run_with_similarity_only_encoder_and_style_breakdown(make_ctx):
    # similarity table keyed by (anchor, candidate)
    table = {
        ("A1", "S1"): 0.9, ("A1", "S2"): 0.2, ("A2", "S1"): 0.3, ("A2", "S2"): 0.8,  # correct (0,1)
        ("A1", "D"): 0.1, ("A2", "D"): 0.1,
        ("B1", "T1"): 0.5, ("B1", "T2"): 0.5, ("B2", "T1"): 0.5, ("B2", "T2"): 0.5,  # tie -> 0.5
        ("B1", "E"): 0.99, ("B2", "E"): 0.2,  # distractor wins for B1 -> 0
        ("C1", "U1"): 0.3, ("C1", "U2"): 0.7,  # triple, answer 0 -> wrong
    }
    sim = lambda a, b: np.array([table[(x, y)] for x, y in zip(a, b)])
    groups = [
        _group(("A1", "A2"), ("S1", "S2"), (0, 1), distractor="D", style="formality"),
        _group(("B1", "B2"), ("T1", "T2"), (1, 0), distractor="E", style="formality"),
        _group(("C1",), ("U1", "U2"), (0,), style="contraction"),
    ]
    got = SPEC.run(make_ctx("order_groups", groups, similarity=sim))
    assert got["accuracy"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert got["accuracy_by_style_type"] == {"contraction": 0.0, "formality": 0.75}
    assert got["distractor_accuracy"] == pytest.approx(0.5)
    assert got["distractor_accuracy_by_style_type"] == {"formality": 0.5}
    assert got["n_instances"] == 3 and got["n_distractor_instances"] == 2 and got["n_tied"] == 1
    json.dumps(got)


def test_run_with_vectors_uses_cosine(make_ctx, table_encoder):
    vecs = {"A1": [1, 0], "A2": [0, 1], "S1": [1, 0.1], "S2": [0.1, 1], "D": [0.7, 0.7]}
    groups = [_group(("A1", "A2"), ("S2", "S1"), (1, 0), distractor="D")]
    enc = table_encoder(vecs)
    got = SPEC.run(make_ctx("order_groups", groups, embed=enc))
    assert got["accuracy"] == 1.0 and got["distractor_accuracy"] == 1.0
    assert enc.calls == [5]


def test_stel_or_content_only_groups(make_ctx):
    sims = {("A", "S"): 0.8, ("A", "D"): 0.6, ("B", "T"): 0.1, ("B", "E"): 0.6}
    sim = lambda a, b: np.array([sims[(x, y)] for x, y in zip(a, b)])
    groups = [_group(("A",), ("S",), (0,), distractor="D"), _group(("B",), ("T",), (0,), distractor="E")]
    got = SPEC.run(make_ctx("order_groups", groups, similarity=sim))
    assert got["distractor_accuracy"] == 0.5 and got["accuracy"] == 0.5
    assert got["accuracy_is_distractor_accuracy"] == 1 and got["n_trivial_without_distractor"] == 2


def test_partial_tie_scores_one_half():
    # anchor 2 must take column 2; anchors 0 and 1 tie over columns 0 and 1: two best of six -> 1/2
    sim = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.0, 0.0, 1.0]])
    credit, ties = alignment_credit(sim, (0, 1, 2))
    assert ties == 2 and Fraction(credit).limit_denominator(10) == Fraction(1, 2)
