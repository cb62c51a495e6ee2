"""The reference construction's compact groups are the list of groups the construction documents, record for record.

The expected list is built here from the construction's description (``steb_core._parallel_corpora``'s module
docstring: per class every ``itertools.combinations`` pair of its items, three groups each), not by the code under
test; the compact sequence must equal it as records, in the data fingerprint, in the texts a run embeds (their
order decides the encoding batches) and after the trip through the prefetch pipe (pickle).
"""

from __future__ import annotations

import itertools
import pickle

import pytest

from steb_core import DatasetBundle, DataValidationError, OrderGroup, ParallelItem, RecordSequence
from steb_core._paired_groups import PairedOrderGroups
from steb_core._parallel_corpora import order_groups_from_parallel
from steb_core._records import data_fingerprint


def _items() -> list[ParallelItem]:
    """Two classes of different arity, interleaved in the release; a text two items share; a lone class."""
    items = []
    for n in range(5):
        items.append(ParallelItem(texts=(f"a{n} formal", f"a{n} neutral", f"a{n} casual"), id=f"A{n}", style_type="A"))
        if n < 4:
            shared = "the same words" if n in (1, 3) else f"b{n} old"
            items.append(ParallelItem(texts=(shared, f"b{n} new"), id=f"B{n}", style_type="B"))
    items.append(ParallelItem(texts=("c0 x", "c0 y"), id="C0", style_type="C"))
    return items


def _documented(items: list[ParallelItem], distractors: bool = True) -> list[OrderGroup]:
    """The construction as its docstring states it, every group an OrderGroup."""
    by_class: dict[str, list[ParallelItem]] = {}
    for item in items:
        by_class.setdefault(item.style_type, []).append(item)
    out = []
    for cls, members in by_class.items():
        for a, b in itertools.combinations(members, 2):
            k, pid = len(a.texts), f"{a.id}|{b.id}"
            out.append(OrderGroup(a.texts, b.texts, tuple(range(k)), id=pid, style_type=cls))
            if distractors:
                out.append(
                    OrderGroup(
                        a.texts[: k - 1],
                        b.texts[: k - 1],
                        tuple(range(k - 1)),
                        distractor=a.texts[k - 1],
                        id=f"{pid}|distractor:last",
                        style_type=cls,
                    )
                )
                out.append(
                    OrderGroup(
                        a.texts[1:],
                        b.texts[1:],
                        tuple(range(k - 1)),
                        distractor=a.texts[0],
                        distractor_at=0,
                        id=f"{pid}|distractor:first",
                        style_type=cls,
                    )
                )
    return out


@pytest.mark.parametrize("distractors", [True, False])
def test_compact_groups_are_the_documented_list(distractors):
    items = _items()
    groups, info = order_groups_from_parallel(items, seed=1, salt="x", per_class=None, distractors=distractors)
    expected = _documented(items, distractors)
    assert isinstance(groups, PairedOrderGroups) and isinstance(groups, RecordSequence)
    assert len(groups) == len(expected) == (10 + 6) * (3 if distractors else 1)
    assert list(groups) == expected and groups == expected
    assert [groups[i] for i in range(len(groups))] == expected
    assert groups[-1] == expected[-1] and groups[3:9] == expected[3:9] and groups[::-4] == expected[::-4]
    with pytest.raises(IndexError):
        groups[len(groups)]
    assert info["classes"]["A"]["groups"] == 10 * (3 if distractors else 1)
    # the same fingerprint, texts (in order) and records after pickling, compact on both sides
    assert data_fingerprint(["order_groups", groups]) == data_fingerprint(["order_groups", expected])
    assert data_fingerprint(groups) != data_fingerprint(expected[:-1])
    compact, listed = DatasetBundle(order_groups=groups), DatasetBundle(order_groups=expected)
    assert compact.order_groups is groups
    assert list(compact.iter_texts()) == list(listed.iter_texts())
    assert compact.fingerprint("order_groups") == listed.fingerprint("order_groups")
    back = pickle.loads(pickle.dumps(groups))  # noqa: S301 - the test's own records
    assert type(back) is PairedOrderGroups and back == expected
    assert len(pickle.dumps(groups)) < len(pickle.dumps(expected)) / (3 if distractors else 1)


def test_compact_groups_check_their_texts_once_and_refuse_mixed_pairs():
    with pytest.raises(DataValidationError, match="texts\\[1\\]"):
        PairedOrderGroups(["x", "y"], ["s", "s"], [("a", " \n"), ("b", "c")], [(0, 1)], True)
    with pytest.raises(ValueError, match="two classes"):
        PairedOrderGroups(["x", "y"], ["s", "t"], [("a", "b"), ("c", "d")], [(0, 1)], True)
    with pytest.raises(ValueError, match="outside"):
        PairedOrderGroups(["x", "y"], ["s", "s"], [("a", "b"), ("c", "d")], [(0, 2)], True)
    empty = PairedOrderGroups(["x"], ["s"], [("a", "b")], [], True)
    assert len(empty) == 0 and data_fingerprint(empty) == data_fingerprint([])
    with pytest.raises(DataValidationError, match="empty"):
        DatasetBundle(order_groups=empty)
