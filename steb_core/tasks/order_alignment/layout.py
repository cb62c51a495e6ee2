"""Order groups as the arrays both rules read: distinct texts, per shape the rows, per group the facts.

Why a module of its own: both rules (the reference's and STEL's, :mod:`.task`) read every group's anchor and
candidate rows, expected columns and distractor facts -- 115,000 groups for STEL_register -- so they are read
from the groups once, here. For the reference construction's
:class:`steb_core._paired_groups.PairedOrderGroups` the arrays come from the items' texts and the pair indices
with array operations (no group is built); for any other sequence of :class:`steb_core.OrderGroup` from the
groups one by one. Both give the same arrays (``tests/tasks/test_group_layout.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._paired_groups import FIRST, LAST, PairedOrderGroups

__all__ = ["Shape", "GroupLayout", "group_layout"]

#: a bucket of same-shape groups: (anchors, candidates)
Shape = tuple[int, int]


@dataclass(frozen=True)
class GroupLayout:
    """``texts``: the distinct texts, first seen in group order (a group's anchors, then its candidates in
    :meth:`OrderGroup.candidates` order); per shape, in order of its first group: ``members`` (group indices,
    ascending), ``anchors`` and ``candidates`` (rows of ``texts``), ``expected`` (each anchor's candidate column,
    :meth:`OrderGroup.candidate_answer`); per group: ``distractor`` (has one), ``first`` (it stands elsewhere than
    after the alternatives), ``chance`` (1 / candidates) and ``style`` (its style type)."""

    texts: list[str]
    members: dict[Shape, np.ndarray]
    anchors: dict[Shape, np.ndarray]
    candidates: dict[Shape, np.ndarray]
    expected: dict[Shape, np.ndarray]
    distractor: np.ndarray
    first: np.ndarray
    chance: np.ndarray
    style: list[str | None]

    def rows(self) -> dict[Shape, tuple[np.ndarray, np.ndarray]]:
        """Per shape its groups' anchor and candidate rows of :attr:`texts` (what the products take)."""
        return {shape: (self.anchors[shape], self.candidates[shape]) for shape in self.members}


def group_layout(groups: Sequence[Any]) -> GroupLayout:
    """The arrays of ``groups`` (see :class:`GroupLayout`): from the items for :class:`PairedOrderGroups`."""
    if isinstance(groups, PairedOrderGroups):
        return _paired_layout(groups)
    text_id: dict[str, int] = {}
    rows: dict[Shape, tuple[list[int], list[list[int]], list[list[int]], list[tuple[int, ...]]]] = {}
    n = len(groups)
    distractor = np.zeros(n, dtype=bool)
    first = np.zeros(n, dtype=bool)
    chance = np.zeros(n, dtype=np.float64)
    style: list[str | None] = []
    for gi, g in enumerate(groups):
        candidates = tuple(g.candidates())
        anchor_ids = [text_id.setdefault(t, len(text_id)) for t in g.anchors]
        candidate_ids = [text_id.setdefault(t, len(text_id)) for t in candidates]
        members, anchors, cands, expected = rows.setdefault((len(anchor_ids), len(candidate_ids)), ([], [], [], []))
        members.append(gi)
        anchors.append(anchor_ids)
        cands.append(candidate_ids)
        expected.append(g.candidate_answer())
        distractor[gi] = g.distractor is not None
        first[gi] = g.distractor is not None and g.distractor_at is not None and g.distractor_at != len(g.alternatives)
        chance[gi] = 1.0 / (len(g.alternatives) + (g.distractor is not None))
        style.append(g.style_type)

    def array(values: list[Any], shape: tuple[int, ...]) -> np.ndarray:
        return np.asarray(values, dtype=np.int64).reshape(shape)

    return GroupLayout(
        texts=list(text_id),
        members={s: array(r[0], (len(r[0]),)) for s, r in rows.items()},
        anchors={s: array(r[1], (len(r[0]), s[0])) for s, r in rows.items()},
        candidates={s: array(r[2], (len(r[0]), s[1])) for s, r in rows.items()},
        expected={s: array(r[3], (len(r[0]), s[0])) for s, r in rows.items()},
        distractor=distractor,
        first=first,
        chance=chance,
        style=style,
    )


def _interleave(last: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Rows ``last[0], first[0], last[1], first[1], ...``."""
    return np.stack([last, first], axis=1).reshape(2 * len(last), *last.shape[1:])


def _paired_layout(groups: PairedOrderGroups) -> GroupLayout:
    """:func:`group_layout` of pair-built groups, from the item texts and pair indices.

    A pair's plain group shows item ``i``'s texts, then ``j``'s; its distractor groups show no new text. So the
    texts are first seen item by item, in the order the items first appear in the pairs (``i`` before ``j``).
    """
    pairs, per_pair = groups.pairs, groups.per_pair
    flat = pairs.ravel()
    _, first_at = np.unique(flat, return_index=True)
    text_id: dict[str, int] = {}
    item_rows: dict[int, list[int]] = {}
    for item in flat[np.sort(first_at)].tolist():
        item_rows[item] = [text_id.setdefault(t, len(text_id)) for t in groups.item_texts[item]]
    lengths = np.asarray([len(t) for t in groups.item_texts], dtype=np.int64)
    pair_k = lengths[pairs[:, 0]] if len(pairs) else np.zeros(0, dtype=np.int64)
    variant = np.tile(np.arange(per_pair), len(pairs))
    buckets: list[tuple[int, Shape, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for k in dict.fromkeys(pair_k.tolist()):
        chosen = np.flatnonzero(pair_k == k)
        rows = np.zeros((len(groups.item_texts), k), dtype=np.int64)
        for item in np.unique(pairs[chosen]).tolist():
            rows[item] = item_rows[item]
        a, b = rows[pairs[chosen, 0]], rows[pairs[chosen, 1]]
        plain = chosen * per_pair
        buckets.append((int(plain[0]), (k, k), plain, a, b, np.broadcast_to(np.arange(k), (len(chosen), k))))
        if per_pair == 3:  # "last" then "first" of each pair, interleaved as the groups stand
            g = len(chosen)
            members = _interleave(plain + LAST, plain + FIRST)
            anchors = _interleave(a[:, :-1], a[:, 1:])
            candidates = _interleave(
                np.concatenate([b[:, :-1], a[:, -1:]], axis=1), np.concatenate([a[:, :1], b[:, 1:]], axis=1)
            )
            expected = _interleave(
                np.broadcast_to(np.arange(k - 1), (g, k - 1)), np.broadcast_to(np.arange(1, k), (g, k - 1))
            )
            buckets.append((int(plain[0]) + LAST, (k - 1, k), members, anchors, candidates, expected))
    buckets.sort(key=lambda bucket: bucket[0])
    style = [groups.styles[i] for i in pairs[:, 0].tolist() for _ in range(per_pair)]
    return GroupLayout(
        texts=list(text_id),
        members={shape: m for _, shape, m, _, _, _ in buckets},
        anchors={shape: np.ascontiguousarray(a) for _, shape, _, a, _, _ in buckets},
        candidates={shape: np.ascontiguousarray(c) for _, shape, _, _, c, _ in buckets},
        expected={shape: np.ascontiguousarray(e, dtype=np.int64) for _, shape, _, _, _, e in buckets},
        distractor=variant != 0,
        first=variant == FIRST,
        chance=np.repeat(1.0 / pair_k, per_pair),
        style=style,
    )
