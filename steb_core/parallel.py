"""Order-alignment groups from parallel corpora (the same content written in several styles).

Why a shared builder: every parallel corpus in STEB (SynthSTEL, GYAFC, StylePTB, Shakespeare,
OneStopEnglish, ASSET, graded formality, Twitter AAE/SAE, Corpus of Diverse Styles) becomes order
alignment the same way, and the seeded pairing, shuffling and distractor choice must not differ
between loaders. It is part of the core's public API so dataset plugins share one implementation.

Construction (per class, e.g. per SynthSTEL feature or StylePTB transformation):

1. Every :class:`ParallelItem` holds one content in ``k >= 2`` styles, ``texts[s]`` being style ``s``
   along the axis (e.g. informal, formal). All items of a class must have the same ``k``.
2. If the class has more items than the budget, ``per_class`` items are drawn with a seeded RNG.
3. The items are put in a seeded random order and each item ``i`` is paired with the next one
   (cyclically): item ``i`` gives the anchors (set A, content ``c_i``) and item ``i+1`` the alternatives
   (set B, content ``c_{i+1}``, its ``k`` texts in a seeded random order). So a class of ``n`` items gives
   ``n`` groups and each text appears once as an anchor and once as an alternative (as in STEL,
   where a sentence pair is reused across instances).
4. Without distractors, the anchors are all ``k`` styles of ``c_i`` and ``answer[s]`` is the position of
   style ``s`` of ``c_{i+1}`` among the shuffled alternatives.
5. With distractors (the content-independence variant, STEL-or-Content generalised), one style ``d`` of
   ``c_i`` is drawn (seeded) and held out: the anchors are the other ``k-1`` styles of ``c_i`` (in axis
   order), the alternatives are still all ``k`` styles of ``c_{i+1}``, and the distractor is ``c_i`` in
   style ``d`` -- the same content as the anchors in a style none of them has. The order-alignment task
   adds the distractor to set B, so a content-driven encoder is lured to it. For ``k = 2`` a group is
   STEL's triple (anchor ``A1``; alternatives ``S1``, ``S2``) plus ``A2`` as distractor.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .errors import DataValidationError
from .io import located, seeded_rng
from .records import OrderGroup

__all__ = ["ParallelItem", "order_groups_from_parallel", "parse_budget", "BUDGET_ALL"]

#: Option values that switch the per-class budget off.
BUDGET_ALL = ("all", "none", "", "0", "-1")


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
    """Order-alignment groups from parallel items (see the module docstring), and a record of how.

    ``salt`` (normally the dataset name) keeps datasets' random streams apart under one run seed.
    Classes with fewer than two items cannot form a group; they are listed in the returned info.
    """
    by_class: dict[str, list[ParallelItem]] = defaultdict(list)
    arity: dict[str, int] = {}
    for item in items:
        _check_item(item, arity.get(item.style_type))
        arity.setdefault(item.style_type, len(item.texts))
        by_class[item.style_type].append(item)

    groups: list[OrderGroup] = []
    classes: dict[str, dict[str, int]] = {}
    skipped: list[str] = []
    for cls, members in by_class.items():  # first-appearance order: deterministic for a given release
        rng = seeded_rng(seed, "parallel-order-groups", salt, cls)
        if per_class is not None and len(members) > per_class:
            keep = sorted(rng.sample(range(len(members)), per_class))
            members = [members[i] for i in keep]
        classes[cls] = {"items": len(by_class[cls]), "groups": 0}
        if len(members) < 2:
            skipped.append(cls)
            continue
        order = rng.sample(range(len(members)), len(members))
        k = arity[cls]
        for m, idx in enumerate(order):
            a_item, b_item = members[idx], members[order[(m + 1) % len(order)]]
            perm = rng.sample(range(k), k)  # perm[p] = style shown at alternative position p
            held_out = rng.randrange(k) if distractors else None
            anchor_styles = [s for s in range(k) if s != held_out]
            with located(a_item.source, a_item.id):
                groups.append(
                    OrderGroup(
                        anchors=tuple(a_item.texts[s] for s in anchor_styles),
                        alternatives=tuple(b_item.texts[p] for p in perm),
                        answer=tuple(perm.index(s) for s in anchor_styles),
                        distractor=a_item.texts[held_out] if held_out is not None else None,
                        id=f"{a_item.id}|{b_item.id}",
                        style_type=cls,
                    )
                )
            classes[cls]["groups"] += 1
    info = {
        "construction": "seeded cyclic pairing of parallel items; alternatives shuffled"
        + ("; one held-out style of the anchors' content as distractor" if distractors else ""),
        "distractors": distractors,
        "per_class": per_class,
        "seed": seed,
        "classes": classes,
    }
    if skipped:
        info["skipped_classes_with_fewer_than_2_items"] = skipped
    return groups, info
