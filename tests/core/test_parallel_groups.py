"""The shared builder of order-alignment groups from parallel items."""

from __future__ import annotations

from collections import Counter

import pytest

from steb_core import DataValidationError
from steb_core.parallel import ParallelItem, order_groups_from_parallel, parse_budget


def _items(n: int, k: int, cls: str = "c") -> list[ParallelItem]:
    # text "<cls>:<content>:<style>" so tests can read content and style back from a text
    return [ParallelItem(tuple(f"{cls}:{i}:{s}" for s in range(k)), id=f"{cls}{i}", style_type=cls, source="f.txt") for i in range(n)]


def _parts(text: str) -> tuple[str, int]:
    cls, content, style = text.split(":")
    return f"{cls}:{content}", int(style)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_without_distractors_answers_pick_same_style_other_content(k):
    groups, info = order_groups_from_parallel(_items(7, k), seed=3, salt="d", distractors=False)
    assert len(groups) == 7 and info["classes"] == {"c": {"items": 7, "groups": 7}}
    for g in groups:
        assert len(g.anchors) == k and len(g.alternatives) == k and g.distractor is None
        assert [_parts(a)[1] for a in g.anchors] == list(range(k))  # axis order kept
        anchor_content = {_parts(a)[0] for a in g.anchors}
        alt_content = {_parts(b)[0] for b in g.alternatives}
        assert len(anchor_content) == 1 and len(alt_content) == 1 and anchor_content != alt_content
        for a, j in zip(g.anchors, g.answer):
            assert _parts(g.alternatives[j])[1] == _parts(a)[1]
    # every item is anchors once and alternatives once
    assert Counter(_parts(g.anchors[0])[0] for g in groups) == Counter({f"c:{i}": 1 for i in range(7)})
    assert Counter(_parts(g.alternatives[0])[0] for g in groups) == Counter({f"c:{i}": 1 for i in range(7)})


@pytest.mark.parametrize("k", [2, 3])
def test_distractor_is_same_content_held_out_style(k):
    groups, _ = order_groups_from_parallel(_items(9, k), seed=0, salt="d")
    held = Counter()
    for g in groups:
        assert len(g.anchors) == k - 1 and len(g.alternatives) == k
        d_content, d_style = _parts(g.distractor)
        assert {_parts(a)[0] for a in g.anchors} == {d_content}
        assert d_style not in {_parts(a)[1] for a in g.anchors}
        for a, j in zip(g.anchors, g.answer):
            assert _parts(g.alternatives[j])[1] == _parts(a)[1] and _parts(g.alternatives[j])[0] != d_content
        held[d_style] += 1
    assert len(held) == k  # the held-out style varies


def test_alternative_positions_are_shuffled_and_balanced():
    groups, _ = order_groups_from_parallel(_items(400, 2), seed=5, salt="d", distractors=False)
    first = sum(g.answer == (0, 1) for g in groups)
    assert 150 < first < 250


def test_seeded_and_salted():
    a, _ = order_groups_from_parallel(_items(20, 3), seed=1, salt="x")
    b, _ = order_groups_from_parallel(_items(20, 3), seed=1, salt="x")
    c, _ = order_groups_from_parallel(_items(20, 3), seed=1, salt="y")
    assert a == b and a != c


def test_budget_per_class_and_skipped_classes():
    items = _items(30, 2, "big") + _items(5, 2, "small") + _items(1, 2, "single")
    groups, info = order_groups_from_parallel(items, seed=0, salt="d", per_class=10)
    counts = Counter(g.style_type for g in groups)
    assert counts == {"big": 10, "small": 5}
    assert info["classes"]["big"] == {"items": 30, "groups": 10}
    assert info["skipped_classes_with_fewer_than_2_items"] == ["single"]


def test_inconsistent_arity_names_source_item_field():
    items = _items(3, 2) + [ParallelItem(("x", "y", "z"), id="odd", style_type="c", source="corpus/file.tsv")]
    with pytest.raises(DataValidationError) as err:
        order_groups_from_parallel(items, seed=0, salt="d")
    assert err.value.path == "corpus/file.tsv" and err.value.record == "odd" and err.value.field == "texts"
    with pytest.raises(DataValidationError) as err:
        order_groups_from_parallel([ParallelItem(("x", " "), id="e", source="g.txt")], seed=0, salt="d")
    assert err.value.field == "texts[1]" and err.value.record == "e"


def test_parse_budget():
    assert parse_budget({}, 7) == 7
    assert parse_budget({"per_class": "all"}, 7) is None
    assert parse_budget({"per_class": "12"}, 7) == 12
    with pytest.raises(DataValidationError):
        parse_budget({"per_class": "many"}, 7)
