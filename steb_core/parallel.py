"""Order-alignment groups from parallel corpora (the same content written in several styles).

Why a shared builder: every parallel corpus in STEB (SynthSTEL, GYAFC, StylePTB, Shakespeare,
OneStopEnglish, ASSET, graded formality, Twitter AAE/SAE, Corpus of Diverse Styles) becomes order
alignment the same way, and the seeded pairing, shuffling and held-out style must not differ between
loaders. It is part of the core's public API so dataset plugins share one implementation.

Construction (STEB §3, order alignment, and appendix C; STEL: Wegmann & Nguyen, 2021), per class
(e.g. per SynthSTEL feature or StylePTB transformation):

1. Every :class:`ParallelItem` holds one content in ``k >= 2`` styles, ``texts[s]`` being style ``s``
   along the axis (e.g. informal, formal). All items of a class must have the same ``k``. Items of a
   class with exactly the same texts are kept once (STEL reuses a sentence pair across instances, so
   a loader that turns instances into items sees it several times); the count is in the info.
2. **Pairing.** STEB pairs each style-transfer item with every other item of the same class. A
   pairing is an *unordered* pair ``{i, j}`` of distinct items, so a class of ``n`` items has
   ``n (n - 1) / 2`` pairings. Unordered, because the ordered pair ``(j, i)`` would repeat ``(i, j)``:
   for a symmetric similarity, the plain decision of ``(j, i)`` uses the same ``k^2`` similarities,
   transposed, and STEL's rule gives the same result. Which of the two items gives the ordered set is
   a seeded coin flip per pairing.
3. **Budget.** ``per_class`` caps the number of pairings per class (STEB Table 15's budget): that
   many are drawn with a seeded RNG, without replacement, from the ``n (n - 1) / 2`` pairings. The
   pairings are never listed: ``random.Random.sample(range(N), per_class)`` draws distinct *ranks*
   (it stores only the draws, not the population) and each rank is unranked into its pair with exact
   integer arithmetic (:func:`pair_of_rank`), so a class of 10^5 items costs memory in the budget,
   not in n^2. ``per_class=None`` takes every pairing (grows quadratically: use a budget on big classes).
4. **Plain instance** (one :class:`OrderGroup` without distractor): the ordered set A is the ``k`` texts
   of the anchor item in axis order, the unordered set B the ``k`` texts of the other item in a seeded
   random order; ``answer[s]`` is the position in B of style ``s``. For ``k = 2`` this is exactly the
   STEL quadruple (A1, A2; S1, S2). Chance level with unrelated similarities: ``1 / k!``.
5. **Distractor instance** (with ``distractors=True``; one more group, the content-independence variant,
   STEL-or-Content generalised): one style ``h`` is held out (seeded, uniformly). The ordered set is A
   without ``h`` (``k - 1`` anchors, axis order), the alternatives are B without ``h`` (seeded order),
   and the distractor is ``A_h`` -- the anchors' own content in the style none of them has. The
   order-alignment task adds the distractor to the candidates (``k`` candidates for ``k - 1``
   anchors), so an encoder driven by content is lured to it. For ``k = 2`` this is exactly
   STEL-or-Content: anchor ``A1``, candidates ``S1`` (same style, other content) and ``A2`` (same
   content, other style). Chance level: ``(k - (k - 1))! / k! = 1 / k!`` (0.5 for ``k = 2``).

Chance levels: with exchangeable similarities every injective assignment of ``m`` anchors to ``c``
candidates is equally likely to be the best one (the candidates' permutations act transitively on
the assignments), so chance is ``(c - m)! / c!``; both variants have ``c = k``, hence ``1 / k!``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .errors import DataValidationError
from .io import located, seeded_rng
from .records import OrderGroup
from .specs import STEB_PROTOCOL_VERSION

__all__ = ["ParallelItem", "order_groups_from_parallel", "parse_budget", "pair_of_rank", "BUDGET_ALL", "CONSTRUCTION"]

#: Option values that switch the per-class budget off.
BUDGET_ALL = ("all", "none", "", "0", "-1")

#: Name of the construction recorded in the returned info (bump when the groups a seed gives change).
CONSTRUCTION = "steb-all-pairs/v1"


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


def parse_budget(options: Mapping[str, Any], default: int | None, key: str = "per_class") -> int | None:
    """The per-class budget from loader options: an int, or ``all``/``none`` for no cap; else ``default``."""
    if key not in options:
        return default
    value = options[key]
    if value is None or str(value).strip().lower() in BUDGET_ALL:
        return None
    try:
        budget = int(value)
    except (TypeError, ValueError):
        raise DataValidationError(f"option {key}={value!r} is not a number", field=key, expected="a positive integer or 'all'") from None
    if budget < 1:
        raise DataValidationError(f"option {key}={budget} is not positive", field=key, expected="a positive integer or 'all'")
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
            raise DataValidationError(f"has {len(item.texts)} style version(s)", field="texts", expected="the same content in 2 or more styles")
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
    per_class: int | None = None,
    distractors: bool = True,
) -> tuple[list[OrderGroup], dict[str, Any]]:
    """Order-alignment groups from parallel items (STEB's construction, see the module docstring).

    Per drawn pairing: one plain group (all ``k`` styles both sides, no distractor) and, when
    ``distractors`` is true, one distractor group (held-out style ``h``: anchors ``A \\ h``,
    alternatives ``B \\ h``, distractor ``A_h``). ``per_class`` caps the *pairings* per class (so a
    class yields at most ``2 * per_class`` groups with distractors). ``salt`` (normally the dataset
    name) keeps datasets' random streams apart under one run seed. Classes with fewer than two
    distinct items cannot form a pairing; they are listed in the returned info, which also records
    the construction and :data:`steb_core.specs.STEB_PROTOCOL_VERSION`.
    """
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
        rng = seeded_rng(seed, "parallel-order-groups", CONSTRUCTION, salt, cls)
        n, k = len(members), arity[cls]
        n_pairs = n * (n - 1) // 2
        if per_class is not None and n_pairs > per_class:
            ranks = sorted(rng.sample(range(n_pairs), per_class))
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
        "construction": CONSTRUCTION,
        "construction_description": (
            "STEB order alignment: every unordered pair of distinct items of a class (seeded sample of "
            "per_class pairings), seeded choice of the anchor item; plain group = all k styles of the anchor "
            "item vs. the other item's k styles shuffled"
            + ("; distractor group = one seeded held-out style h: anchors A without h, alternatives B without "
               "h, distractor A_h (STEL-or-Content for k = 2)" if distractors else "")
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
