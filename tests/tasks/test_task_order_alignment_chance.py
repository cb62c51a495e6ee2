"""Chance levels of STEB's order alignment with unrelated (random) similarities, k = 2, 3, 5.

STEB §3 / appendix C: the plain instance aligns k ordered anchors with k shuffled alternatives; the
distractor instance holds one style out (k - 1 anchors; k - 1 alternatives plus the distractor). With
exchangeable similarities every injective assignment of m anchors to c candidates is equally likely to
be the best one, so the chance accuracy is (c - m)! / c!:

* plain: m = k, c = k -> 1 / k!         (k = 2: 1/2, STEL's quadruple; k = 3: 1/6; k = 5: 1/120)
* distractor: m = k - 1, c = k -> 1 / k! (k = 2: 1/2, STEL-or-Content; k = 3: 1/6; k = 5: 1/120)

The construction this replaced (k - 1 anchors against all k alternatives plus the distractor) had
chance 2 / (k + 1)! for the distractor variant (1/3, 1/12, 1/360): the tolerances below separate the two.

Independence: each class holds exactly two items, so it yields one pairing and no text is shared
between pairings. (With many pairings per item, the distractor instances of one anchor item and held-out
style would share the anchor-distractor similarities and their errors would be correlated.) Each
accuracy is then a mean of N independent Bernoulli(p) draws, standard error sqrt(p (1 - p) / N); we allow
4 standard errors (a correct implementation fails with probability below 1e-4; the seed is fixed, so the
test is not flaky), and N is large enough that the replaced construction's chance lies more than 6
standard errors away.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from steb_core._parallel_corpora import ALL_PAIRS_CONSTRUCTION, ParallelItem, order_groups_from_parallel
from steb_core.tasks.order_alignment import SPEC

# k -> independent pairings (one per two-item class)
CASES = {2: 3000, 3: 4000, 5: 12000}


def all_pairs(*args, **kwargs):
    """steb's earlier construction (steb-all-pairs/v1), which these tests check; the default is the reference's."""
    return order_groups_from_parallel(*args, construction=ALL_PAIRS_CONSTRUCTION, **kwargs)


def random_similarity(seed: int):
    """i.i.d. uniform similarities, one per ordered (text, text) pair: a keyed hash (splitmix64) of the pair."""
    codes: dict[str, int] = {}

    def sim(a, b):
        x = np.array([codes.setdefault(t, len(codes)) for t in a], dtype=np.uint64)
        y = np.array([codes.setdefault(t, len(codes)) for t in b], dtype=np.uint64)
        z = (x << np.uint64(32)) ^ y ^ np.uint64(seed * 0x9E3779B97F4A7C15 % 2**64)
        for shift, mult in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
            z = (z ^ (z >> np.uint64(shift))) * np.uint64(mult)
        z ^= z >> np.uint64(31)
        return (z >> np.uint64(11)).astype(np.float64) / 2.0**53

    return sim


@pytest.mark.parametrize("k", sorted(CASES))
def test_chance_levels_of_plain_and_distractor_variants(make_ctx, k):
    pairings = CASES[k]
    items = [
        ParallelItem(tuple(f"{i}:{s}" for s in range(k)), id=str(i), style_type=f"c{i // 2}")
        for i in range(2 * pairings)
    ]
    groups, info = all_pairs(items, seed=k, salt="chance")
    assert sum(c["pairings"] for c in info["classes"].values()) == pairings
    got = SPEC.run(make_ctx("order_groups", groups, similarity=random_similarity(seed=10 + k)))
    p = 1 / math.factorial(k)
    stderr = math.sqrt(p * (1 - p) / pairings)
    assert got["n_instances"] == got["n_distractor_instances"] == pairings
    assert got["chance_accuracy"] == pytest.approx(p) and got["chance_distractor_accuracy"] == pytest.approx(p)
    assert abs(got["accuracy"] - p) < 4 * stderr, (got["accuracy"], p)
    assert abs(got["distractor_accuracy"] - p) < 4 * stderr, (got["distractor_accuracy"], p)
    old = 2 / math.factorial(k + 1)  # the replaced construction's distractor chance
    assert abs(old - p) > 6 * stderr  # so the check above would have caught it
