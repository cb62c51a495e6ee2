"""The reference construction's order groups held as their parallel items and pair indices.

Why: ``steb-reference/v1`` (:mod:`steb_core._parallel_corpora`) makes three groups of every pair of a class's N
items: 59,700 groups from ASSET's 200 sequences, 114,660 from STEL_register's 2 x 196. As a list of
:class:`OrderGroup` records each was built, validated, fingerprinted, pickled to the runner and unpickled there,
while all they hold is the N items' texts and the pair indices. :class:`PairedOrderGroups` holds only those
(validated once per text); a group is built when asked for, and the data fingerprint, the texts to embed and
the order-alignment task read the items and indices directly
(:func:`steb_core.tasks.order_alignment.layout.group_layout`). It equals the list the construction made before,
record for record, so the fingerprint, the texts (in their order) and the figures are the same
(``tests/core/test_paired_groups.py``).

Group ``g`` of a sequence with distractors is pair ``g // 3``'s variant ``g % 3``: plain, distractor "last",
distractor "first" (without distractors, group ``g`` is pair ``g``'s plain group).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ._records import OrderGroup, RecordSequence, _check_text, _restore

__all__ = ["PairedOrderGroups", "PLAIN", "LAST", "FIRST"]

#: the variants of a pair, in the order the construction makes them (``g % 3``)
PLAIN, LAST, FIRST = 0, 1, 2


class PairedOrderGroups(RecordSequence):
    """Order groups of item pairs: item ``i``'s texts as anchors against item ``j``'s, for each ``(i, j)`` of ``pairs``.

    ``ids``, ``styles``, ``texts``: per item its id, class and texts in axis order (k >= 2 texts, the same k
    within a class); ``pairs``: (P, 2) item indices, the anchor item first, both of one class; ``distractors``:
    each pair also gives its "last" and "first" distractor groups. The values are checked here, once per item.
    """

    record_type = OrderGroup

    def __init__(
        self,
        ids: Sequence[str],
        styles: Sequence[str],
        texts: Sequence[Sequence[str]],
        pairs: np.ndarray | Sequence[tuple[int, int]],
        distractors: bool,
    ) -> None:
        self.ids = tuple(str(i) for i in ids)
        self.styles = tuple(styles)
        self.item_texts = tuple(tuple(t) for t in texts)
        self.pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        self.pairs.setflags(write=False)
        self.distractors = bool(distractors)
        self.per_pair = 3 if self.distractors else 1
        # each item's texts without its last and without its first: one tuple object each, shared by its groups
        self._cuts = tuple((t[:-1], t[1:]) for t in self.item_texts)
        if not len(self.ids) == len(self.styles) == len(self.item_texts):
            raise ValueError(f"{len(self.ids)} ids, {len(self.styles)} styles, {len(self.item_texts)} text tuples")
        for n, item in enumerate(self.item_texts):
            if len(item) < 2:
                raise ValueError(f"item {self.ids[n]!r} has {len(item)} texts; a pair's groups need 2 or more")
            for s, text in enumerate(item):
                _check_text(text, f"item {self.ids[n]!r} texts[{s}]")
        if len(self.pairs) and (self.pairs.min() < 0 or self.pairs.max() >= len(self.ids)):
            raise ValueError(f"pair indices outside 0..{len(self.ids) - 1}")
        i, j = self.pairs[:, 0].tolist(), self.pairs[:, 1].tolist()
        mixed = [(a, b) for a, b in zip(i, j) if self.styles[a] != self.styles[b]]
        mixed += [(a, b) for a, b in zip(i, j) if len(self.item_texts[a]) != len(self.item_texts[b])]
        if mixed:
            raise ValueError(f"pair {mixed[0]} joins items of two classes or lengths")

    def __len__(self) -> int:
        return len(self.pairs) * self.per_pair

    def __reduce__(self) -> tuple[Any, ...]:
        return (PairedOrderGroups, (self.ids, self.styles, self.item_texts, self.pairs, self.distractors))

    def __repr__(self) -> str:
        return f"PairedOrderGroups({len(self.pairs)} pairs of {len(self.ids)} items, {len(self)} groups)"

    def record(self, index: int) -> OrderGroup:
        p, variant = divmod(index, self.per_pair)
        i, j = self.pairs[p].tolist()
        group: OrderGroup = _restore(OrderGroup, self._rows(i, j)[variant])
        return group

    def __iter__(self) -> Iterator[OrderGroup]:
        for row in self.field_rows():
            yield _restore(OrderGroup, row)

    def field_rows(self) -> Iterator[tuple[Any, ...]]:
        for i, j in self.pairs.tolist():
            yield from self._rows(i, j)

    def texts(self) -> Iterator[str]:
        """Each group's anchors, alternatives and distractor, as :meth:`OrderGroup.texts` gives them."""
        for anchors, alternatives, _, distractor, *_ in self.field_rows():
            yield from anchors
            yield from alternatives
            if distractor is not None:
                yield distractor

    def _rows(self, i: int, j: int) -> list[tuple[Any, ...]]:
        """The field values (anchors, alternatives, answer, distractor, id, style_type, distractor_at) of pair
        ``(i, j)``'s groups, in variant order."""
        a, b, cut_a, cut_b = self.item_texts[i], self.item_texts[j], self._cuts[i], self._cuts[j]
        pair_id, style, k = f"{self.ids[i]}|{self.ids[j]}", self.styles[i], len(a)
        plain = (a, b, _RANGES[k] if k < len(_RANGES) else tuple(range(k)), None, pair_id, style, None)
        if not self.distractors:
            return [plain]
        answer = _RANGES[k - 1] if k - 1 < len(_RANGES) else tuple(range(k - 1))
        return [
            plain,
            (cut_a[0], cut_b[0], answer, a[-1], f"{pair_id}|distractor:last", style, None),
            (cut_a[1], cut_b[1], answer, a[0], f"{pair_id}|distractor:first", style, 0),
        ]


#: ``tuple(range(k))`` for the usual k (shared: an answer tuple per group would be 115,000 equal tuples)
_RANGES = tuple(tuple(range(k)) for k in range(16))
