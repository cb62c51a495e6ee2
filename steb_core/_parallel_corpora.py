"""Order-alignment groups from parallel corpora (the same content written in several styles).

Why a shared builder: every parallel corpus in STEB (SynthSTEL, GYAFC, StylePTB, Shakespeare,
OneStopEnglish, ASSET, graded formality, Twitter AAE/SAE, Corpus of Diverse Styles) becomes order
alignment the same way, and the pairing and held-out styles must not differ between loaders. It is
part of the core's public API so dataset plugins share one implementation. Every :class:`ParallelItem`
holds one content in ``k >= 2`` styles, ``texts[s]`` being style ``s`` along the axis (most to least
of the style, as the reference orders its sequences); all items of a class have the same ``k``.

Two constructions, named in the returned info (``construction``):

**``steb-reference/v1`` (the default)** -- the STEB authors' reference code (github.com/rrivera1849/STEB):
the items a class contributes are chosen by ``steb/dataset_loader.py`` (index file 62147402711; see
:mod:`steb_core._sampling`: ``N = max(25, min(smallest class, 200))`` sequences per class, the first N in
loader order, smaller classes dropped, classes in order of first appearance), and the instances are
those of ``steb/tasks/order_alignment.py`` @8a036408 ``OrderAlignmentTask.evaluate``:

1. Within a class, every unordered pair ``(i, j)`` of its N items in ``itertools.combinations`` order
   (``(0, 1), (0, 2), ..., (1, 2), ...``); the earlier item ``i`` is always the anchor side. No
   de-duplication and no random choice. ``N (N - 1) / 2`` pairs: 19,900 for N = 200.
2. Per pair, three groups, in this order:

   * **plain**: anchors = the k texts of ``i`` in axis order, alternatives = the k texts of ``j`` in
     axis order (``answer = (0, ..., k - 1)``);
   * **distractor "last"**: anchors = ``i`` without its last text; candidates = ``j``'s texts with its
     last one replaced by ``i``'s last (``distractor_at=None``: the distractor in the last column);
   * **distractor "first"**: anchors = ``i`` without its first text; candidates = ``j``'s texts with its
     first one replaced by ``i``'s first (``distractor_at=0``, expected columns ``1 .. k - 1``).

   The candidate order is the reference's column order, which decides exact ties under its solver.
3. Scoring (the task default ``order_alignment.scoring = "steb-reference"``,
   :func:`construction_task_defaults`): cost ``1 - max(cos, 0)``, ``scipy.optimize.linear_sum_assignment``,
   credit = the fraction of anchors assigned to their own position (:mod:`steb_core.tasks.order_alignment`).

``sampling="random"`` draws the N items of a class with the run seed instead of taking the first N
(same classes, same N, same pairs among the drawn items). The groups come back as a
:class:`steb_core._paired_groups.PairedOrderGroups`: the kept items and the pair indices, each group built when
asked for, equal to the list of these groups record for record (the loader's worker no longer builds, hashes and
pickles up to 115,000 groups).

**``steb-all-pairs/v1``** -- steb's earlier construction, kept as an option: items of a class with
exactly the same texts kept once; every unordered pair of distinct items, ``per_class`` of them drawn
with a seeded RNG (pairs unranked from ranks, :func:`pair_of_rank`, so a class of 10^5 items costs
memory in the budget, not in n^2); a seeded coin flip picks the anchor item; plain group = the anchor
item's k texts vs. the other item's k texts in a seeded order; distractor group (``distractors=True``)
= one seeded held-out style ``h``: anchors ``A \\ h``, alternatives ``B \\ h``, distractor ``A_h``
(STEL-or-Content for k = 2). Scored by STEL's rule (task default ``order_alignment.scoring = "stel"``). Chance
level with exchangeable similarities: ``(c - m)! / c! = 1 / k!`` for both variants.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._errors import DataValidationError
from ._io import located, seeded_rng
from ._paired_groups import PairedOrderGroups
from ._records import OrderGroup
from ._sampling import AUTO, DEFAULT_SAMPLING, sample_classes, sampling_mode
from ._specs import STEB_PROTOCOL_VERSION

__all__ = [
    "ParallelItem",
    "order_groups_from_parallel",
    "order_groups_from_options",
    "parse_budget",
    "pair_of_rank",
    "BUDGET_ALL",
    "CONSTRUCTION",
    "REFERENCE_CONSTRUCTION",
    "ALL_PAIRS_CONSTRUCTION",
    "CONSTRUCTIONS",
    "CONSTRUCTION_SCORING",
    "construction_task_defaults",
]

#: Option values that switch the per-class budget off.
BUDGET_ALL = ("all", "none", "", "0", "-1")

#: The STEB reference's construction (module docstring), the default.
REFERENCE_CONSTRUCTION = "steb-reference/v1"
#: steb's earlier seeded construction (module docstring), kept as an option.
ALL_PAIRS_CONSTRUCTION = "steb-all-pairs/v1"
CONSTRUCTIONS = (REFERENCE_CONSTRUCTION, ALL_PAIRS_CONSTRUCTION)
#: The default construction (bump the name when the groups it gives change).
CONSTRUCTION = REFERENCE_CONSTRUCTION
#: The order-alignment rule each construction's groups are meant for (:mod:`steb_core.tasks.order_alignment`).
CONSTRUCTION_SCORING = {REFERENCE_CONSTRUCTION: "steb-reference", ALL_PAIRS_CONSTRUCTION: "stel"}


def construction_task_defaults(construction: str = CONSTRUCTION) -> dict[str, dict[str, str]]:
    """The task defaults of groups built by ``construction``: ``{"order_alignment": {"scoring": rule}}``.

    Why a dataset declares them (issue 48): the rule is a fact of how the groups were built, not a run
    option to repeat. A dataset plugin gives the default construction's on its spec
    (``DatasetSpec(task_defaults=construction_task_defaults())``) and the one its loader built on the
    bundle (``DatasetBundle(..., task_defaults=construction_task_defaults(info["construction"]))``), which
    comes first: ``--dataset-option construction=steb-all-pairs/v1`` then scores by STEL's rule, as it
    always did. ``--task-option order_alignment.scoring=...`` overrides both.
    """
    if construction not in CONSTRUCTION_SCORING:
        raise DataValidationError(
            f"construction {construction!r}", field="construction", expected=" or ".join(CONSTRUCTIONS)
        )
    return {"order_alignment": {"scoring": CONSTRUCTION_SCORING[construction]}}


@dataclass(frozen=True)
class ParallelItem:
    """One content in several styles; ``texts[s]`` is the content in style ``s`` (axis order).

    ``source`` (a file) and ``id`` locate the item in error messages; ``style_type`` is the class the
    item belongs to (groups never mix classes) and becomes :attr:`OrderGroup.style_type`.
    """

    texts: tuple[str, ...]
    id: str
    style_type: str = "default"
    source: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "texts", tuple(self.texts))


def parse_budget(options: Mapping[str, Any], default: int | str | None, key: str = "per_class") -> int | str | None:
    """The per-class budget from loader options: an int, ``auto`` (the reference's rule, :data:`AUTO`), or
    ``all``/``none`` for no cap; else ``default``."""
    if key not in options:
        return default
    value = options[key]
    if isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO
    if value is None or str(value).strip().lower() in BUDGET_ALL:
        return None
    try:
        budget = int(value)
    except (TypeError, ValueError):
        raise DataValidationError(
            f"option {key}={value!r} is not a number", field=key, expected="a positive integer, 'auto' or 'all'"
        ) from None
    if budget < 1:
        raise DataValidationError(
            f"option {key}={budget} is not positive", field=key, expected="a positive integer, 'auto' or 'all'"
        )
    return budget


def pair_of_rank(rank: int) -> tuple[int, int]:
    """The unordered pair ``(i, j)``, ``i < j``, of rank ``rank`` in colexicographic order.

    Colex order lists (0, 1), (0, 2), (1, 2), (0, 3), ...: pair ``(i, j)`` has rank ``j (j - 1) / 2 + i``,
    so the pairs of ``n`` items are the ranks ``0 .. n (n - 1) / 2 - 1`` for every ``n``. Exact (integer
    square root), for ranks of any size.
    """
    if rank < 0:
        raise ValueError(f"negative rank {rank}")
    j = (1 + math.isqrt(1 + 8 * rank)) // 2
    while j * (j - 1) // 2 > rank:  # isqrt is exact; these loops only guard the boundary
        j -= 1
    while (j + 1) * j // 2 <= rank:
        j += 1
    return rank - j * (j - 1) // 2, j


def _check_item(item: ParallelItem, k: int | None) -> None:
    with located(item.source, item.id):
        if len(item.texts) < 2:
            raise DataValidationError(
                f"has {len(item.texts)} style version(s)",
                field="texts",
                expected="the same content in 2 or more styles",
            )
        if k is not None and len(item.texts) != k:
            raise DataValidationError(
                f"has {len(item.texts)} style versions, other items of class '{item.style_type}' have {k}",
                field="texts",
                expected=f"{k} versions",
            )
        for s, text in enumerate(item.texts):
            if not isinstance(text, str) or not text.strip():
                raise DataValidationError("is empty", field=f"texts[{s}]", expected="non-empty text")


def order_groups_from_parallel(
    items: Iterable[ParallelItem],
    *,
    seed: int,
    salt: str,
    per_class: int | str | None = AUTO,
    distractors: bool = True,
    construction: str = CONSTRUCTION,
    sampling: str = DEFAULT_SAMPLING,
) -> tuple[Sequence[OrderGroup], dict[str, Any]]:
    """Order-alignment groups from parallel items by ``construction`` (see the module docstring).

    ``steb-reference/v1`` (default): ``per_class`` is the number of *items* (sequences) per class,
    ``"auto"`` for the reference's rule, an int, or None for all; ``sampling`` is ``first`` (the
    reference) or ``random`` (seeded by ``seed`` and ``salt``). ``steb-all-pairs/v1``: ``per_class``
    caps the *pairings* per class (``"auto"`` or None: all of them) and ``sampling`` is ignored.
    ``salt`` (normally the dataset name) keeps datasets' random streams apart under one run seed. The
    info records the construction and :data:`steb_core._specs.STEB_PROTOCOL_VERSION`; the rule the groups
    are scored by is the construction's task default (:func:`construction_task_defaults`), which the
    loader puts on its bundle.
    """
    if construction == REFERENCE_CONSTRUCTION:
        return _reference_groups(
            list(items), seed=seed, salt=salt, per_class=per_class, distractors=distractors, sampling=sampling
        )
    if construction != ALL_PAIRS_CONSTRUCTION:
        raise DataValidationError(
            f"construction {construction!r}", field="construction", expected=" or ".join(CONSTRUCTIONS)
        )
    budget = None if per_class == AUTO else per_class
    if isinstance(budget, str):
        raise DataValidationError(
            f"per_class={budget!r}", field="per_class", expected="a positive integer, 'auto' or None"
        )
    return _all_pairs_groups(items, seed=seed, salt=salt, per_class=budget, distractors=distractors)


def order_groups_from_options(
    items: Iterable[ParallelItem], options: Mapping[str, Any], *, seed: int, salt: str, legacy_budget: int | None = None
) -> tuple[Sequence[OrderGroup], dict[str, Any]]:
    """:func:`order_groups_from_parallel` with its settings read from loader options, so every plugin reads them alike.

    Options: ``construction`` (``steb-reference/v1``, default, or ``steb-all-pairs/v1``), ``per_class``
    (``auto``, an int or ``all``; for the reference construction items per class, default ``auto``; for
    ``steb-all-pairs/v1`` pairings per class, default ``legacy_budget``), ``distractors`` (true/false,
    default true) and ``sampling`` (``first``/``random``, :func:`steb_core._sampling.sampling_mode`).
    """
    construction = str(options.get("construction", CONSTRUCTION)).strip()
    if construction not in CONSTRUCTIONS:
        raise DataValidationError(
            f"option construction={construction!r}", field="construction", expected=" or ".join(CONSTRUCTIONS)
        )
    raw = options.get("distractors", True)
    text = str(raw).strip().lower()
    if isinstance(raw, bool):
        distractors = raw
    elif text in ("1", "true", "yes", "on"):
        distractors = True
    elif text in ("0", "false", "no", "off"):
        distractors = False
    else:
        raise DataValidationError(f"option distractors={raw!r}", field="distractors", expected="true or false")
    default = AUTO if construction == REFERENCE_CONSTRUCTION else legacy_budget
    return order_groups_from_parallel(
        items,
        seed=seed,
        salt=salt,
        per_class=parse_budget(options, default),
        distractors=distractors,
        construction=construction,
        sampling=sampling_mode(options),
    )


def _reference_groups(
    items: list[ParallelItem], *, seed: int, salt: str, per_class: int | str | None, distractors: bool, sampling: str
) -> tuple[PairedOrderGroups, dict[str, Any]]:
    """``steb-reference/v1``: all ``itertools.combinations`` pairs of the first N items per class, three groups each.

    Follows ``steb/tasks/order_alignment.py`` @8a036408 ``OrderAlignmentTask.evaluate`` (pairs, the two
    distractor variants and their column order) on the items ``steb/dataset_loader.py`` (index file
    62147402711) keeps.
    """
    arity: dict[str, int] = {}
    for item in items:
        _check_item(item, arity.get(item.style_type))
        arity.setdefault(item.style_type, len(item.texts))
    kept, sample_info = sample_classes(
        items, lambda it: it.style_type, per_class, sampling=sampling, seed=seed, salt=salt
    )
    by_class: dict[str, list[ParallelItem]] = {}
    for item in kept:
        by_class.setdefault(item.style_type, []).append(item)
    ordered: list[ParallelItem] = []  # class by class, in first-appearance order, as the reference's label dict
    pairs: list[tuple[int, int]] = []
    classes: dict[str, dict[str, int]] = {}
    for cls, members in by_class.items():
        n, offset = len(members), len(ordered)
        ordered.extend(members)
        pairs.extend((offset + i, offset + j) for i, j in itertools.combinations(range(n), 2))
        classes[cls] = {
            "items": sample_info["class_counts_available"][cls],
            "sequences": n,
            "pairs": n * (n - 1) // 2,
            "groups": n * (n - 1) // 2 * (3 if distractors else 1),
        }
    groups = PairedOrderGroups(
        [it.id for it in ordered], [it.style_type for it in ordered], [it.texts for it in ordered], pairs, distractors
    )
    info: dict[str, Any] = {
        "construction": REFERENCE_CONSTRUCTION,
        "construction_description": (
            "STEB reference (rrivera1849/STEB steb/tasks/order_alignment.py @8a036408): per class the first N "
            "sequences (N = max(25, min(smallest class, 200)), steb/dataset_loader.py), every itertools.combinations "
            "pair with the earlier sequence as anchor; plain group = both sequences in axis order"
            + (
                "; distractor groups 'last' and 'first' = the anchor sequence without its last / first text, the other "
                "sequence with that text of the anchor put in its place"
                if distractors
                else ""
            )
        ),
        "protocol": STEB_PROTOCOL_VERSION,
        "distractors": distractors,
        "per_class_counts": "sequences (parallel items) per class",
        "classes": classes,
        **{key: value for key, value in sample_info.items() if key != "class_counts"},
    }
    return groups, info


def _all_pairs_groups(
    items: Iterable[ParallelItem],
    *,
    seed: int,
    salt: str,
    per_class: int | None = None,
    distractors: bool = True,
) -> tuple[list[OrderGroup], dict[str, Any]]:
    """``steb-all-pairs/v1`` (module docstring): seeded pairings, seeded anchor side, one held-out style."""
    by_class: dict[str, list[ParallelItem]] = defaultdict(list)
    seen: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    arity: dict[str, int] = {}
    received: dict[str, int] = defaultdict(int)
    for item in items:
        _check_item(item, arity.get(item.style_type))
        arity.setdefault(item.style_type, len(item.texts))
        received[item.style_type] += 1
        if item.texts not in seen[item.style_type]:
            seen[item.style_type].add(item.texts)
            by_class[item.style_type].append(item)

    groups: list[OrderGroup] = []
    classes: dict[str, dict[str, int]] = {}
    skipped: list[str] = []
    for cls, members in by_class.items():  # first-appearance order: deterministic for a given release
        rng = seeded_rng(seed, "parallel-order-groups", ALL_PAIRS_CONSTRUCTION, salt, cls)
        n, k = len(members), arity[cls]
        n_pairs = n * (n - 1) // 2
        if per_class is not None and n_pairs > per_class:
            ranks: Sequence[int] = sorted(rng.sample(range(n_pairs), per_class))
        else:
            ranks = range(n_pairs)
        stats = classes[cls] = {
            "items": received[cls],
            "distinct_items": n,
            "pairings_possible": n_pairs,
            "pairings": len(ranks),
            "groups": 0,
        }
        if n < 2:
            skipped.append(cls)
            continue
        for rank in ranks:
            i, j = pair_of_rank(rank)
            a_item, b_item = (members[i], members[j]) if rng.random() < 0.5 else (members[j], members[i])
            perm = rng.sample(range(k), k)  # perm[p] = style of B shown at alternative position p
            with located(a_item.source, a_item.id):
                groups.append(
                    OrderGroup(
                        anchors=a_item.texts,
                        alternatives=tuple(b_item.texts[p] for p in perm),
                        answer=tuple(perm.index(s) for s in range(k)),
                        id=f"{a_item.id}|{b_item.id}",
                        style_type=cls,
                    )
                )
                stats["groups"] += 1
                if not distractors:
                    continue
                h = rng.randrange(k)
                kept = [s for s in range(k) if s != h]
                shown = [p for p in perm if p != h]  # B without h, in the (seeded) shuffled order
                groups.append(
                    OrderGroup(
                        anchors=tuple(a_item.texts[s] for s in kept),
                        alternatives=tuple(b_item.texts[p] for p in shown),
                        answer=tuple(shown.index(s) for s in kept),
                        distractor=a_item.texts[h],
                        id=f"{a_item.id}|{b_item.id}|held-out:{h}",
                        style_type=cls,
                    )
                )
                stats["groups"] += 1
    info: dict[str, Any] = {
        "construction": ALL_PAIRS_CONSTRUCTION,
        "construction_description": (
            "steb's earlier order alignment: every unordered pair of distinct items of a class (seeded sample of "
            "per_class pairings), seeded choice of the anchor item; plain group = all k styles of the anchor "
            "item vs. the other item's k styles shuffled"
            + (
                "; distractor group = one seeded held-out style h: anchors A without h, alternatives B without "
                "h, distractor A_h (STEL-or-Content for k = 2)"
                if distractors
                else ""
            )
        ),
        "protocol": STEB_PROTOCOL_VERSION,
        "distractors": distractors,
        "per_class": per_class,
        "per_class_counts": "pairings (unordered pairs of distinct items)",
        "seed": seed,
        "classes": classes,
    }
    duplicates = {cls: received[cls] - len(by_class[cls]) for cls in by_class if received[cls] > len(by_class[cls])}
    if duplicates:
        info["duplicate_items_skipped"] = duplicates
    if skipped:
        info["skipped_classes_with_fewer_than_2_items"] = skipped
    return groups, info
