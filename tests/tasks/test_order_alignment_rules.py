"""The order-alignment package's pure functions on hand-computed arrays: no TaskContext, no dataset.

Each expected value is worked out in the comment beside it from the rule as written: STEL's (Wegmann & Nguyen
2021, section 2: the quadruple compares norm(1-s11, 1-s22) with norm(1-s12, 1-s21), the triple compares
similarities, a tie scores 1/t), the STEB reference's (github.com/rrivera1849/STEB ``steb/tasks/order_alignment.py``
@8a036408 ``align_and_score``: cost 1 - max(s, 0), ``linear_sum_assignment``, credit = share of anchors right;
``OrderAlignmentTask.evaluate``: ``distractor_acc_mean`` over the "last" list followed by the "first" list).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from steb_core._instances import INSTANCES_KEY
from steb_core.tasks.order_alignment.assignments import assignments, chance_level, near_optimal
from steb_core.tasks.order_alignment.metrics import order_alignment_metrics
from steb_core.tasks.order_alignment.products import compensated_dots, exact_unit_rows, reference_cosines
from steb_core.tasks.order_alignment.reference_rule import assignment_margins, reference_credits
from steb_core.tasks.order_alignment.stel_rule import alignment_credit, alignment_credits, stel_credits

# --- what both rules share ------------------------------------------------------------------------------------


def test_assignments_and_chance_levels():
    # 2 anchors into 3 candidates: 3 * 2 = 6 injective maps, lexicographic
    assert assignments(3, 2).tolist() == [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]
    # (c - m)! / c!: STEL's quadruple 1/2!, a triple 1/2, STEB's k = 3 plain 1/3! and its distractor (2 of 3) 1/6
    assert chance_level(2, 2) == 0.5 and chance_level(1, 2) == 0.5
    assert chance_level(3, 3) == pytest.approx(1 / 6) and chance_level(2, 3) == pytest.approx(1 / 6)


def test_near_optimal_lists_every_assignment_within_the_bound():
    # costs [[0, 1], [1, 0]]: identity sums 0, the swap 2; bound 1 keeps the identity, bound 2 both
    cost = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert near_optimal(cost, 1.0) == [(0, 1)]
    assert sorted(near_optimal(cost, 2.0) or []) == [(0, 1), (1, 0)]


# --- STEL's rule ------------------------------------------------------------------------------------------------


def test_stel_quadruple_prefers_the_smaller_distance_norm():
    # s = [[0.9, 0.2], [0.3, 0.8]]: identity distances (0.1, 0.2), squares sum 0.05; the swap (0.8, 0.7): 1.13
    sim = np.array([[0.9, 0.2], [0.3, 0.8]])
    assert alignment_credit(sim, (0, 1)) == (1.0, 1)
    assert alignment_credit(sim, (1, 0)) == (0.0, 1)


def test_stel_quadruple_follows_the_norm_not_the_sum_of_similarities():
    # s = [[1.0, 0.45], [0.45, 0.0]]: identity sums the larger similarity (1.0 > 0.9) but its distances (0, 1)
    # square to 1, the swap's (0.55, 0.55) to 0.605: the swap wins
    sim = np.array([[1.0, 0.45], [0.45, 0.0]])
    assert alignment_credit(sim, (0, 1))[0] == 0.0 and alignment_credit(sim, (1, 0))[0] == 1.0


def test_stel_exact_tie_scores_one_over_t():
    # s11 = s21 = 0.9, s12 = s22 = 0.1: identity (0.1, 0.9) and swap (0.9, 0.1) are the same squares: a tie of 2
    assert alignment_credit(np.array([[0.9, 0.1], [0.9, 0.1]]), (0, 1)) == (0.5, 2)
    # two anchors, three equal candidates: all 3 * 2 = 6 assignments tie, credit 1/6
    credit, tied = alignment_credit(np.full((2, 3), 0.5), (0, 1))
    assert tied == 6 and credit == pytest.approx(1 / 6)


def test_stel_triple_compares_similarities_and_tolerance_widens_ties():
    # one anchor: the highest similarity wins; 0.7 twice is a tie of 2 (credit 1/2 when the answer is among them)
    assert alignment_credit(np.array([[0.4, 0.7, 0.7]]), (1,)) == (0.5, 2)
    assert alignment_credit(np.array([[0.4, 0.7, 0.7]]), (0,)) == (0.0, 2)
    # 0.70 against 0.69: 0.70 alone; with tie_tolerance 0.02 the 0.69 is within it: a tie of 2
    assert alignment_credit(np.array([[0.70, 0.69]]), (0,)) == (1.0, 1)
    assert alignment_credit(np.array([[0.70, 0.69]]), (0,), tie_tolerance=0.02) == (0.5, 2)


def test_stel_batch_equals_one_by_one_and_the_solver_path():
    sims = np.array([[[0.9, 0.2], [0.3, 0.8]], [[0.9, 0.1], [0.9, 0.1]], [[1.0, 0.45], [0.45, 0.0]]])
    answers = np.array([[0, 1], [0, 1], [0, 1]])
    credits, ties = alignment_credits(sims, answers)
    assert credits.tolist() == [1.0, 0.5, 0.0] and ties.tolist() == [1, 2, 1]  # the three cases above
    # exhaustive_limit 1: every instance through linear_sum_assignment and the near-optimal search, same credits
    solver, _ = alignment_credits(sims, answers, exhaustive_limit=1)
    assert solver.tolist() == [1.0, 0.5, 0.0]


def test_stel_does_not_score_a_plain_instance_with_one_alternative_per_anchor():
    # (1 anchor, 1 alternative): one assignment, nothing to decide: NaN, not 1
    credits, ties = stel_credits(np.array([[[0.3]]]), np.array([[0]]), has_distractor=False)
    assert np.isnan(credits).all() and ties.tolist() == [0]
    # a distractor instance of the same anchor: 0.3 for the answer against 0.6 for the distractor: wrong
    credits, ties = stel_credits(np.array([[[0.3, 0.6]]]), np.array([[0]]), has_distractor=True)
    assert credits.tolist() == [0.0] and ties.tolist() == [1]


# --- the reference's rule ---------------------------------------------------------------------------------------


def test_reference_credit_is_the_share_of_anchors_right():
    # cost = 1 - s: [[0.1, 0.9, 0.9], [0.9, 0.9, 0.2], [0.9, 0.2, 0.9]]; identity sums 1.9, (0, 2, 1) 0.5 (the
    # optimum), every other at least 2.0. Expected (0, 1, 2): anchor 0 right, anchors 1 and 2 wrong: credit 1/3
    sims = np.array([[[0.9, 0.1, 0.1], [0.1, 0.1, 0.8], [0.1, 0.8, 0.1]]])
    credits, tied = reference_credits(sims, np.array([[0, 1, 2]]))
    assert credits[0] == pytest.approx(1 / 3) and tied.tolist() == [1]
    # the same through the solver path (more assignments than the limit): same credit, ties not counted
    credits, tied = reference_credits(sims, np.array([[0, 1, 2]]), exhaustive_limit=1)
    assert credits[0] == pytest.approx(1 / 3) and tied.tolist() == [0]
    # the margin between the best (0.5) and second-best (1.9) cost sums: 1.4
    assert assignment_margins(sims)[0] == pytest.approx(1.4)


def test_reference_clamps_negative_cosines_and_ties_go_as_the_solver_returns():
    # every cosine negative: clamped to 0, every cost 1, both assignments sum to 2: an exact tie of 2.
    # linear_sum_assignment returns the identity on a constant matrix: credit 1 for the expected identity;
    # ties="split" averages the two assignments' credits: (1 + 0) / 2
    sims = np.array([[[-0.5, -0.2], [-0.1, -0.9]]])
    assert reference_credits(sims, np.array([[0, 1]]))[0].tolist() == [1.0]
    credits, tied = reference_credits(sims, np.array([[0, 1]]), ties="split")
    assert credits.tolist() == [0.5] and tied.tolist() == [2]
    with pytest.raises(ValueError, match="ties"):
        reference_credits(sims, np.array([[0, 1]]), ties="coin")


def test_reference_scores_fewer_than_two_candidates_zero():
    # the reference's ``n_tgt < 2`` guard: one candidate scores 0 even when it is the answer
    assert reference_credits(np.array([[[0.9]]]), np.array([[0]]))[0].tolist() == [0.0]
    # one anchor, two candidates: the higher cosine (0.6, column 1) is chosen; the answer is column 0: 0
    assert reference_credits(np.array([[[0.3, 0.6]]]), np.array([[0]]))[0].tolist() == [0.0]


# --- the reference rule's cosines --------------------------------------------------------------------------------


def test_compensated_dots_keep_what_a_plain_sum_loses():
    # 1e16 + 1 rounds back to 1e16 in float64 (the spacing there is 2), so a left-to-right sum of the products
    # (1e16, 1, -1e16) gives 0; the exact dot product is 1
    left, right = np.array([[1e16, 1.0, -1e16]]), np.array([[1.0, 1.0, 1.0]])
    assert (1e16 + 1.0) - 1e16 == 0.0
    assert compensated_dots(left, right).tolist() == [1.0]


def test_exact_unit_rows_and_cosines():
    # (3, 4) has norm 5: (0.6, 0.8); a zero row stays zero
    assert exact_unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist() == [[0.6, 0.8], [0.0, 0.0]]
    # texts (1, 0), (0, 1), (1, 1); one group: anchor 0, candidates 1 and 2: cosines 0 and 1 / sqrt(2)
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    for products in ("exact", "blas", "reference"):
        got = reference_cosines(vectors, {(1, 2): (np.array([[0]]), np.array([[1, 2]]))}, products)
        assert got[(1, 2)].shape == (1, 1, 2) and got[(1, 2)][0, 0, 0] == 0.0
        assert got[(1, 2)][0, 0, 1] == pytest.approx(1 / math.sqrt(2), abs=1e-16), products
    with pytest.raises(ValueError, match="products"):
        reference_cosines(vectors, {(1, 2): (np.array([[0]]), np.array([[1, 2]]))}, "fast")


# --- one metric assembly ----------------------------------------------------------------------------------------


def test_metrics_from_credits_by_hand():
    # g0 plain "a" 1.0; g1 plain "b" 0.0 (tied); g2 distractor "first" "a" 0.5; g3 distractor "last" "a" 1.0 (tied);
    # g4 plain, no style, not scored (NaN): left out of every figure
    credit = np.array([1.0, 0.0, 0.5, 1.0, np.nan])
    chance = np.array([0.5, 0.5, 0.25, 0.25, 1.0])
    tied = np.array([1, 2, 1, 3, 0])
    distractor = np.array([False, False, True, True, False])
    first = np.array([False, False, True, False, False])
    got = order_alignment_metrics(
        credit, chance, tied, distractor, ["a", "b", "a", "a", None], first, by_variant=True, details={"scoring": "x"}
    )
    assert got["accuracy"] == 0.5  # (1 + 0) / 2
    assert got["accuracy_by_style_type"] == {"a": 1.0, "b": 0.0}
    assert got["chance_accuracy"] == 0.5
    assert got["distractor_accuracy"] == 0.75  # (1 + 0.5) / 2
    assert got["distractor_accuracy_by_style_type"] == {"a": 0.75}
    assert got["distractor_accuracy_by_variant"] == {"last": 1.0, "first": 0.5}
    assert got["chance_distractor_accuracy"] == 0.25
    assert (got["n_instances"], got["n_distractor_instances"], got["n_tied"], got["n_distractor_tied"]) == (2, 2, 1, 1)
    assert got["scoring"] == "x"
    assert got[INSTANCES_KEY] == {"accuracy": [1.0, 0.0], "distractor_accuracy": [0.5, 1.0]}  # data order
    plain_only = order_alignment_metrics(credit[:2], chance[:2], tied[:2], distractor[:2], ["a", "b"], first[:2])
    assert "distractor_accuracy" not in plain_only and "distractor_accuracy_by_variant" not in plain_only


def test_unscored_groups_and_unnamed_styles():
    # only NaN credits: no accuracy at all; a scored group without a style type is "unspecified"
    got = order_alignment_metrics(
        np.array([np.nan, 1.0]), np.array([1.0, 0.5]), np.array([0, 1]), np.array([False, False]), ["a", None],
        np.array([False, False]),
    )  # fmt: skip
    assert got["accuracy_by_style_type"] == {"unspecified": 1.0} and got["n_instances"] == 1


def test_the_distractor_accuracy_pools_the_last_list_then_the_first_list():
    # data order: first 1/3, last 1/3, first 1/3, last 1/2. The reference's list is last + first =
    # [1/3, 1/2, 1/3, 1/3]: 1/3 + 1/2 = 0.8333333333333333, + 1/3 = 1.1666666666666665, + 1/3 = 1.4999999999999998,
    # / 4 = 0.37499999999999994; in data order the sum would be 1/3 + 1/3 + 1/3 = 1.0, + 1/2 = 1.5: 0.375
    third = 1 / 3
    got = order_alignment_metrics(
        np.array([third, third, third, 0.5]),
        np.full(4, 0.5),
        np.ones(4, dtype=np.int64),
        np.ones(4, dtype=bool),
        ["s"] * 4,
        np.array([True, False, True, False]),
    )
    assert got["distractor_accuracy"] == 0.37499999999999994
