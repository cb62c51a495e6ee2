"""The reference's first-N-per-class rule and the seeded ``sampling=random`` option (steb_core._sampling).

Expected values are written out by hand from the rule in the STEB reference code
(``steb/dataset_loader.py``, index file 62147402711: auto N, pass 1 / pass 2, label order of first
appearance), not computed by the module under test.
"""

from __future__ import annotations

import pytest

from steb_core import DataValidationError, sample_per_class
from steb_core._sampling import (
    REFERENCE_N_KEY,
    first_n_per_class,
    random_n_per_class,
    reference_per_class,
    sample_classes,
    sampling_mode,
)


def test_reference_per_class_is_smallest_class_clamped_to_25_200():
    assert reference_per_class({"a": 1000, "b": 700}) == 200
    assert reference_per_class({"a": 1000, "b": 29}) == 29  # eWAVE: the smallest variety
    assert reference_per_class({"a": 1000, "b": 10}) == 25  # floor; b is then dropped
    assert reference_per_class({"a": 100, "b": 100, "c": 200}) == 100  # STEL_feature
    assert reference_per_class({"a": 60}, episode_size=2) == 30
    assert reference_per_class({"a": 3}, episode_size=-1) == 1  # retrieval: one episode per label
    assert reference_per_class({"a": 500}, cap=50, floor=5) == 50


def test_first_n_keeps_loader_order_within_class_and_first_appearance_order_of_classes():
    # (label, id) in loader order; classes interleaved
    items = [("b", 0), ("a", 1), ("b", 2), ("c", 3), ("a", 4), ("b", 5), ("a", 6), ("b", 7), ("c", 8)]
    kept, info = first_n_per_class(items, key=lambda x: x[0], n=3)
    # c has 2 < 3 items: dropped; b first seen before a
    assert kept == [("b", 0), ("b", 2), ("b", 5), ("a", 1), ("a", 4), ("a", 6)]
    assert info["dropped_classes"] == {"c": 2}
    assert info["class_order"] == ["b", "a"]
    assert info["class_counts"] == {"b": 3, "a": 3}
    assert info["sampling"] == "first" and info["per_class"] == 3


def test_first_n_none_keeps_everything_grouped():
    items = [("b", 0), ("a", 1), ("b", 2)]
    kept, info = first_n_per_class(items, key=lambda x: x[0], n=None)
    assert kept == [("b", 0), ("b", 2), ("a", 1)]
    assert "dropped_classes" not in info


def test_sample_classes_auto_resolves_n_and_drops_small_classes():
    items = [("x", i) for i in range(300)] + [("y", i) for i in range(40)] + [("z", i) for i in range(10)]
    kept, info = sample_classes(items, key=lambda x: x[0])
    assert info["per_class"] == 25  # smallest is 10 -> floor 25
    assert [x for x in kept if x[0] == "x"] == [("x", i) for i in range(25)]
    assert [x for x in kept if x[0] == "y"] == [("y", i) for i in range(25)]
    assert info["dropped_classes"] == {"z": 10}


def test_random_draws_same_items_as_sample_per_class_for_kept_classes_and_groups_them():
    items = [(lab, i) for i in range(40) for lab in ("p", "q")] + [("r", 99)]
    kept, info = random_n_per_class(items, key=lambda x: x[0], n=7, seed=3, salt="ds")
    old = sample_per_class([x for x in items if x[0] != "r"], key=lambda x: x[0], per_class=7, seed=3, salt="ds")
    assert sorted(kept) == sorted(old)
    assert [x[0] for x in kept] == ["p"] * 7 + ["q"] * 7  # grouped, first-appearance order
    assert info["dropped_classes"] == {"r": 1}
    assert info["seed"] == 3
    other, _ = random_n_per_class(items, key=lambda x: x[0], n=7, seed=4, salt="ds")
    assert other != kept
    first, _ = first_n_per_class(items, key=lambda x: x[0], n=7)
    assert first != kept


def test_sampling_mode_option():
    assert sampling_mode({}) == "first"
    assert sampling_mode({"sampling": "Random"}) == "random"
    with pytest.raises(DataValidationError, match="sampling"):
        sampling_mode({"sampling": "shuffle"})
    with pytest.raises(DataValidationError):
        sample_classes([("a", 1)], key=lambda x: x[0], n=0)


def test_the_resolved_n_is_recorded_for_the_reference_folder_name():
    """steb export names the folder 1_<N> from this key (the reference's resolved n_episodes_per_class)."""
    items = [("x", i) for i in range(300)] + [("y", i) for i in range(29)]
    assert REFERENCE_N_KEY == "reference_n_per_class"
    assert sample_classes(items, key=lambda x: x[0])[1][REFERENCE_N_KEY] == 29  # auto: eWAVE's 1_29
    assert sample_classes(items, key=lambda x: x[0], n=50)[1][REFERENCE_N_KEY] == 50  # y dropped, N as given
    assert sample_classes(items, key=lambda x: x[0], n=7, sampling="random", seed=1)[1][REFERENCE_N_KEY] == 7
    assert REFERENCE_N_KEY not in sample_classes(items, key=lambda x: x[0], n=None)[1]  # everything: no such folder
