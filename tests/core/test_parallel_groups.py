"""The shared builder of order-alignment groups from parallel items (STEB §3 and appendix C).

STEB pairs every style-transfer item with every other item of its class (capped by the Table 15
budget), and per pairing builds the plain instance (all k styles on both sides; k = 2: STEL's
quadruple, Wegmann & Nguyen 2021) and the distractor instance (one held-out style h: anchors A \\ h,
alternatives B \\ h, distractor A_h; k = 2: STEL-or-Content). The checks read content and style back
from the texts themselves, and compare the pairings against itertools' enumeration.
"""

from __future__ import annotations

import itertools
import math
import tracemalloc
from collections import Counter

import pytest

from steb_core import DataValidationError
from steb_core._parallel_corpora import (
    ALL_PAIRS_CONSTRUCTION,
    ParallelItem,
    order_groups_from_parallel,
    pair_of_rank,
    parse_budget,
)
from steb_core._specs import STEB_PROTOCOL_VERSION


def all_pairs(*args, **kwargs):
    """steb's earlier construction (steb-all-pairs/v1), which these tests check; the default is the reference's."""
    return order_groups_from_parallel(*args, construction=ALL_PAIRS_CONSTRUCTION, **kwargs)


def _items(n: int, k: int, cls: str = "c") -> list[ParallelItem]:
    # text "<cls>:<content>:<style>" so tests can read content and style back from a text
    return [
        ParallelItem(tuple(f"{cls}:{i}:{s}" for s in range(k)), id=f"{cls}{i}", style_type=cls, source="f.txt")
        for i in range(n)
    ]


def _parts(text: str) -> tuple[str, int]:
    cls, content, style = text.split(":")
    return f"{cls}:{content}", int(style)


def _content(texts) -> str:
    contents = {_parts(t)[0] for t in texts}
    assert len(contents) == 1
    return contents.pop()


def _split(groups):
    return [g for g in groups if g.distractor is None], [g for g in groups if g.distractor is not None]


def test_pair_of_rank_is_colex_order_of_all_pairs():
    # colex: pairs sorted by (j, i); the ranks of n items are exactly 0 .. n(n-1)/2 - 1
    colex = sorted(itertools.combinations(range(80), 2), key=lambda p: (p[1], p[0]))
    assert [pair_of_rank(r) for r in range(len(colex))] == colex
    # exact far beyond float precision: rank of (i, j) is j(j-1)/2 + i
    for j in (10**9, 10**15 + 7, 2**70 + 3):
        for i in (0, 1, j - 1):
            assert pair_of_rank(j * (j - 1) // 2 + i) == (i, j)
    with pytest.raises(ValueError):
        pair_of_rank(-1)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_plain_groups_cover_every_unordered_pair_once(k):
    n = 7
    groups, info = all_pairs(_items(n, k), seed=3, salt="d", distractors=False)
    assert all(g.distractor is None for g in groups)
    assert len(groups) == math.comb(n, 2)
    assert info["classes"]["c"] == {
        "items": n,
        "distinct_items": n,
        "pairings_possible": 21,
        "pairings": 21,
        "groups": 21,
    }
    pairs = Counter(frozenset((_content(g.anchors), _content(g.alternatives))) for g in groups)
    assert set(pairs) == {frozenset((f"c:{i}", f"c:{j}")) for i, j in itertools.combinations(range(n), 2)}
    assert set(pairs.values()) == {1}
    for g in groups:
        assert len(g.anchors) == k and len(g.alternatives) == k
        assert [_parts(a)[1] for a in g.anchors] == list(range(k))  # axis order kept
        assert _content(g.anchors) != _content(g.alternatives)
        assert sorted(_parts(b)[1] for b in g.alternatives) == list(range(k))
        for a, j in zip(g.anchors, g.answer):
            assert _parts(g.alternatives[j])[1] == _parts(a)[1]


@pytest.mark.parametrize("k", [2, 3, 5])
def test_each_pairing_gives_a_plain_and_a_held_out_distractor_group(k):
    groups, _ = all_pairs(_items(9, k), seed=0, salt="d")
    plain, with_d = _split(groups)
    assert len(plain) == len(with_d) == math.comb(9, 2)
    by_pairing = {(_content(g.anchors), _content(g.alternatives)): g for g in plain}
    held = Counter()
    for g in with_d:
        a_content, b_content = _content(g.anchors), _content(g.alternatives)
        assert (a_content, b_content) in by_pairing  # same pairing, same roles as its plain group
        d_content, h = _parts(g.distractor)
        assert d_content == a_content  # the distractor is A_h: the anchors' own content
        assert [_parts(a)[1] for a in g.anchors] == [s for s in range(k) if s != h]  # A \ h, axis order
        assert sorted(_parts(b)[1] for b in g.alternatives) == [s for s in range(k) if s != h]  # B \ h
        assert len(g.alternatives) + 1 == k  # k candidates with the distractor
        for a, j in zip(g.anchors, g.answer):
            assert _parts(g.alternatives[j]) == (b_content, _parts(a)[1])
        held[h] += 1
    assert set(held) == set(range(k))  # the held-out style varies


def test_k2_groups_are_stel_quadruple_and_stel_or_content():
    groups, _ = all_pairs(_items(5, 2), seed=1, salt="d")
    plain, with_d = _split(groups)
    for g in plain:  # STEL quadruple: (A1, A2), (S1, S2) shuffled, answer (0, 1) or (1, 0)
        assert len(g.anchors) == 2 and len(g.alternatives) == 2 and g.answer in {(0, 1), (1, 0)}
    for g in with_d:  # STEL-or-Content: anchor, same-style other-content alternative, same-content distractor
        (anchor,), (alternative,) = g.anchors, g.alternatives
        assert g.answer == (0,)
        assert _parts(alternative)[1] == _parts(anchor)[1] and _parts(alternative)[0] != _parts(anchor)[0]
        assert _parts(g.distractor)[0] == _parts(anchor)[0] and _parts(g.distractor)[1] != _parts(anchor)[1]


def test_positions_roles_and_held_out_styles_are_balanced():
    # 2,000 pairings; each count is binomial with p = 1/2 (or 1/3): 5 standard errors is about +-112 (+-105)
    groups, _ = all_pairs(_items(400, 3), seed=5, salt="d", per_class=2000)
    plain, with_d = _split(groups)
    assert len(plain) == 2000
    identity = sum(g.answer == (0, 1, 2) for g in plain)
    assert abs(identity - 2000 / 6) < 5 * math.sqrt(2000 * (1 / 6) * (5 / 6))
    lower_is_anchor = sum(
        int(_content(g.anchors).split(":")[1]) < int(_content(g.alternatives).split(":")[1]) for g in plain
    )
    assert abs(lower_is_anchor - 1000) < 5 * math.sqrt(2000 / 4)
    held = Counter(_parts(g.distractor)[1] for g in with_d)
    assert all(abs(held[h] - 2000 / 3) < 5 * math.sqrt(2000 * (1 / 3) * (2 / 3)) for h in range(3))


def test_budget_caps_pairings_per_class_and_skips_small_classes():
    items = _items(30, 2, "big") + _items(5, 2, "small") + _items(1, 2, "single")
    groups, info = all_pairs(items, seed=0, salt="d", per_class=12)
    plain, with_d = _split(groups)
    assert Counter(g.style_type for g in plain) == {"big": 12, "small": 10}  # small: all C(5, 2) = 10 pairings
    assert Counter(g.style_type for g in with_d) == {"big": 12, "small": 10}
    assert info["classes"]["big"] == {
        "items": 30,
        "distinct_items": 30,
        "pairings_possible": 435,
        "pairings": 12,
        "groups": 24,
    }
    assert info["classes"]["single"]["pairings"] == 0
    assert info["skipped_classes_with_fewer_than_2_items"] == ["single"]
    big = [frozenset((_content(g.anchors), _content(g.alternatives))) for g in plain if g.style_type == "big"]
    assert len(set(big)) == 12  # drawn without replacement


def test_budget_draws_pairings_uniformly():
    # 5 items -> 10 pairings, 3 drawn per seed; over 1,500 seeds each pairing is drawn Binomial(1500, 0.3)
    # times: 450 +- 17.7; 5 standard errors allowed
    counts = Counter()
    for seed in range(1500):
        groups, _ = all_pairs(_items(5, 2), seed=seed, salt="u", per_class=3, distractors=False)
        counts.update(frozenset((_content(g.anchors), _content(g.alternatives))) for g in groups)
    assert len(counts) == 10
    assert all(abs(c - 450) < 5 * math.sqrt(1500 * 0.3 * 0.7) for c in counts.values()), counts


def test_big_class_is_sampled_without_listing_its_pairs():
    # 10,000 items: 5e7 pairings. Listing them would take gigabytes of Python ints; the draw stays small.
    items = _items(10_000, 2)
    tracemalloc.start()
    try:
        groups, info = all_pairs(items, seed=2, salt="big", per_class=500)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info["classes"]["c"]["pairings_possible"] == 10_000 * 9_999 // 2
    assert len(groups) == 1000 and peak < 64 * 2**20
    assert len({frozenset((_content(g.anchors), _content(g.alternatives))) for g in groups}) == 500


def test_duplicate_items_are_kept_once():
    items = _items(4, 2) + [ParallelItem(("c:0:0", "c:0:1"), id="again", style_type="c")]
    groups, info = all_pairs(items, seed=0, salt="d", distractors=False)
    assert len(groups) == 6 and info["duplicate_items_skipped"] == {"c": 1}
    assert info["classes"]["c"]["items"] == 5 and info["classes"]["c"]["distinct_items"] == 4


def test_info_records_construction_and_protocol():
    _, info = all_pairs(_items(3, 2), seed=9, salt="d", per_class=2)
    assert info["construction"] == ALL_PAIRS_CONSTRUCTION and info["protocol"] == STEB_PROTOCOL_VERSION
    assert info["per_class"] == 2 and info["seed"] == 9 and info["distractors"] is True
    assert "pairings" in info["per_class_counts"]


def test_seeded_and_salted():
    a, _ = all_pairs(_items(20, 3), seed=1, salt="x")
    b, _ = all_pairs(_items(20, 3), seed=1, salt="x")
    c, _ = all_pairs(_items(20, 3), seed=1, salt="y")
    d, _ = all_pairs(_items(20, 3), seed=2, salt="x")
    assert a == b and a != c and a != d


def test_ids_are_unique_and_name_the_pairing():
    groups, _ = all_pairs(_items(6, 3), seed=0, salt="d")
    assert len({g.id for g in groups}) == len(groups)
    for g in groups:
        a_id, b_id = g.id.split("|")[:2]
        assert _content(g.anchors) == f"c:{a_id[1:]}" and _content(g.alternatives) == f"c:{b_id[1:]}"


def test_inconsistent_arity_names_source_item_field():
    items = _items(3, 2) + [ParallelItem(("x", "y", "z"), id="odd", style_type="c", source="corpus/file.tsv")]
    with pytest.raises(DataValidationError) as err:
        all_pairs(items, seed=0, salt="d")
    assert err.value.path == "corpus/file.tsv" and err.value.record == "odd" and err.value.field == "texts"
    with pytest.raises(DataValidationError) as err:
        all_pairs([ParallelItem(("x", " "), id="e", source="g.txt")], seed=0, salt="d")
    assert err.value.field == "texts[1]" and err.value.record == "e"


def test_parse_budget():
    assert parse_budget({}, 7) == 7
    assert parse_budget({"per_class": "all"}, 7) is None
    assert parse_budget({"per_class": "12"}, 7) == 12
    with pytest.raises(DataValidationError):
        parse_budget({"per_class": "many"}, 7)


def test_order_groups_from_options_reads_construction_budget_distractors_and_sampling():
    from steb_core._parallel_corpora import REFERENCE_CONSTRUCTION, order_groups_from_options

    items = _items(30, 2) + _items(26, 2, cls="e")
    groups, info = order_groups_from_options(items, {}, seed=0, salt="d", legacy_budget=7)
    assert info["construction"] == REFERENCE_CONSTRUCTION and info["per_class"] == 26  # auto: max(25, min(26, 200))
    assert len(groups) == 2 * 3 * 26 * 25 // 2
    groups, info = order_groups_from_options(items, {"per_class": "all", "distractors": "false"}, seed=0, salt="d")
    assert len(groups) == 30 * 29 // 2 + 26 * 25 // 2 and info["per_class"] is None
    groups, info = order_groups_from_options(
        items, {"construction": ALL_PAIRS_CONSTRUCTION}, seed=0, salt="d", legacy_budget=7
    )
    assert info["construction"] == ALL_PAIRS_CONSTRUCTION and len(groups) == 2 * 2 * 7
    _, info = order_groups_from_options(items, {"sampling": "random", "per_class": "10"}, seed=0, salt="d")
    assert info["sampling"] == "random" and info["per_class"] == 10
    # the sequences per class, for the reference's folder name 1_<N>; the earlier construction's budget counts
    # pairings, which name no reference folder
    assert order_groups_from_options(items, {}, seed=0, salt="d")[1]["reference_n_per_class"] == 26
    assert (
        "reference_n_per_class"
        not in order_groups_from_options(
            items, {"construction": ALL_PAIRS_CONSTRUCTION}, seed=0, salt="d", legacy_budget=7
        )[1]
    )
    assert parse_budget({"per_class": "auto"}, 5) == "auto"
    with pytest.raises(DataValidationError, match="construction"):
        order_groups_from_options(items, {"construction": "v0"}, seed=0, salt="d")
