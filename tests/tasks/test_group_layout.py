"""The arrays of pair-built groups (computed from items and pair indices) equal those read group by group.

``group_layout`` of a list of :class:`OrderGroup` reads each group's own API (``anchors``, ``candidates()``,
``candidate_answer()``); that of :class:`PairedOrderGroups` never builds a group. Both must agree on every array,
for the reference construction and for pairs given in any order (the texts' first-seen order follows the pairs).
"""

from __future__ import annotations

import numpy as np
import pytest

from steb_core import ParallelItem
from steb_core._paired_groups import PairedOrderGroups
from steb_core._parallel_corpora import order_groups_from_parallel
from steb_core.tasks.order_alignment.layout import GroupLayout, group_layout


def _same(fast: GroupLayout, slow: GroupLayout) -> None:
    assert fast.texts == slow.texts
    assert list(fast.members) == list(slow.members)  # shapes in the order of their first group
    for shape in slow.members:
        for name in ("members", "anchors", "candidates", "expected"):
            got, want = getattr(fast, name)[shape], getattr(slow, name)[shape]
            assert got.shape == want.shape and np.array_equal(got, want), (name, shape)
    for name in ("distractor", "first", "chance"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert fast.chance.dtype == slow.chance.dtype == np.float64
    assert fast.style == slow.style


@pytest.mark.parametrize("distractors", [True, False])
def test_layout_of_the_reference_construction(distractors):
    items = [ParallelItem(texts=(f"a{n}", f"b{n}", "shared" if n % 2 else f"c{n}"), id=f"P{n}") for n in range(6)]
    items += [ParallelItem(texts=(f"x{n}", f"a{n}"), id=f"Q{n}", style_type="two") for n in range(4)]
    groups, _ = order_groups_from_parallel(items, seed=0, salt="s", per_class=None, distractors=distractors)
    assert isinstance(groups, PairedOrderGroups)
    fast, slow = group_layout(groups), group_layout(list(groups))
    _same(fast, slow)
    # by hand: the first plain group of class "two" is items Q0 against Q1, whose texts are seen after P's
    shape = (2, 2)
    assert [fast.texts[t] for t in fast.anchors[shape][0]] == ["x0", "a0"]
    assert [fast.texts[t] for t in fast.candidates[shape][0]] == ["x1", "a1"]
    if distractors:  # pair (P0, P1)'s "first" group: P0's first text before P1's last two, columns 1 and 2 expected
        assert [fast.texts[t] for t in fast.candidates[(2, 3)][1]] == ["a0", "b1", "shared"]
        assert fast.expected[(2, 3)][1].tolist() == [1, 2] and fast.first.tolist()[:3] == [False, False, True]


def test_layout_follows_pairs_in_any_order():
    texts = [(f"t{n}", f"u{n}", f"v{n}") for n in range(5)]
    pairs = [(3, 1), (0, 4), (1, 0), (4, 2), (2, 3)]
    groups = PairedOrderGroups([f"i{n}" for n in range(5)], ["s"] * 5, texts, pairs, True)
    _same(group_layout(groups), group_layout(list(groups)))
    assert group_layout(groups).texts[:3] == ["t3", "u3", "v3"]
