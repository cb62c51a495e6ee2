"""Records cross the prefetch worker's pipe pickled as their field values (``steb_core._records._pickled_by_fields``).

Every record type comes back equal, field by field and in type, through pickle and deepcopy, and a group's texts
stay shared objects (pickle's memo: a text in a hundred groups is written once).
"""

from __future__ import annotations

import copy
import pickle

import pytest

from steb_core import FeatureText, LabelledText, OrderGroup, TextCollection, TextPair

RECORDS = [
    LabelledText("a text", "label", id="1"),
    TextPair("first", "second", True, id="p"),
    OrderGroup(("a1", "a2"), ("s1", "s2"), (1, 0), distractor="d", id="g", style_type="formal", distractor_at=0),
    OrderGroup(("a1",), ("s1", "s2"), (0,)),
    TextCollection("author", ("x", "y"), id="c"),
    FeatureText("t", {"length": 1.5}, id="f"),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_record_survives_pickle_and_deepcopy(record: object) -> None:
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        back = pickle.loads(pickle.dumps(record, protocol=protocol))  # noqa: S301 - the test's own records
        assert type(back) is type(record) and back == record
    assert copy.deepcopy(record) == record
    with pytest.raises(AttributeError):  # still frozen
        back.id = "other"  # type: ignore[misc]


def test_texts_shared_by_groups_stay_shared() -> None:
    text = "shared " * 50
    groups = [OrderGroup((text,), (f"s{i}", text), (1,)) for i in range(100)]
    payload = pickle.dumps(groups, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(payload) < 100 * len(text)  # the text is written once
    back = pickle.loads(payload)  # noqa: S301 - the test's own records
    assert back == groups and back[0].anchors[0] is back[99].anchors[0]
