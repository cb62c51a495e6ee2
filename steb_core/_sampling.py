"""Which records of a class a run evaluates: the STEB reference's first-N rule, or a seeded random draw.

Why one module: every loader that caps the texts per class must take the same texts for the same
option, or figures of two datasets (or two plugins) come from different protocols. The default is the
rule of the STEB authors' reference code, because a benchmark figure is only comparable when it is
computed on the same instances; the seeded draw is kept as the named option ``sampling=random``
(``--draws K`` repeats it with K seeds).

The reference rule (github.com/rrivera1849/STEB, ``steb/dataset_loader.py`` ``DatasetLoader.load``,
``_resolve_auto_episodes``, ``_get_valid_labels_from_counts``; index file 62147402711, the version with
``seed``/``task_name``/``n_episodes_per_class="auto"``; the older stored versions @0546080 and @2b98f55
use the same first-N rule):

1. Pass 1 counts the records per label. With ``n_episodes_per_class="auto"`` (the default of every
   task, ``steb/core.py`` @18c49153 ``TASK_DEFAULTS``) the per-class count is
   ``N = max(25, min(smallest class // episode_size, 200))`` (:func:`reference_per_class`).
2. Labels with fewer than ``N`` records are dropped. Pass 2 walks the records in the loader's order
   and appends each record of a kept label until the label holds ``N`` (:func:`first_n_per_class`).
3. The tasks see the items label by label, labels in order of first appearance, records in loader
   order inside a label (``steb/core.py`` @18c49153 ``evaluate.extract_features``: ``all_episodes`` and
   ``y`` are built by iterating the label dict). Nothing is random; the seed only names cache files.

``sampling=random`` keeps steps 1 and 2's class rule (same ``N``, same dropped classes) but draws the
``N`` records of each class with :func:`steb_core._io.seeded_rng` (run seed + salt), exactly the draw of
:func:`steb_core._io.sample_per_class` for the kept classes; the output order is the same as step 3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ._errors import DataValidationError
from ._io import seeded_rng

__all__ = [
    "SAMPLINGS",
    "DEFAULT_SAMPLING",
    "SAMPLING_OPTION",
    "AUTO",
    "REFERENCE_CAP",
    "REFERENCE_FLOOR",
    "REFERENCE_N_KEY",
    "sampling_mode",
    "reference_per_class",
    "first_n_per_class",
    "random_n_per_class",
    "sample_classes",
]

T = TypeVar("T")

#: The sampling modes: ``first`` (the reference's first N per class, the default) and ``random``.
SAMPLINGS = ("first", "random")
DEFAULT_SAMPLING = "first"
#: The run/dataset option that chooses the mode (``--sampling``, ``--dataset-option sampling=random``).
SAMPLING_OPTION = "sampling"
#: ``n="auto"``: the reference's per-class count from the class sizes (:func:`reference_per_class`).
AUTO = "auto"
#: The ``bundle.info`` key (so ``dataset_info`` of the records) holding the N per class a loader took: the
#: reference's resolved ``n_episodes_per_class``, which names its results folder ``1_<N>`` (``steb/core.py``
#: @18c49153 ``evaluate``; read by ``steb export``). An int, or a mapping task -> int for a bundle whose tasks
#: use different N. Absent when every record is kept (``per_class=all``): the reference has no such folder.
REFERENCE_N_KEY = "reference_n_per_class"
#: ``DatasetLoader.AUTO_MAX_EPISODES`` / ``AUTO_MIN_EPISODES`` of the reference (index file 62147402711).
REFERENCE_CAP = 200
REFERENCE_FLOOR = 25


def sampling_mode(options: Mapping[str, Any] | None) -> str:
    """The sampling mode an options mapping asks for (``sampling=...``), ``first`` when it names none."""
    value = (options or {}).get(SAMPLING_OPTION, DEFAULT_SAMPLING)
    mode = str(value).strip().lower() if value is not None else DEFAULT_SAMPLING
    if mode not in SAMPLINGS:
        raise DataValidationError(
            f"option {SAMPLING_OPTION}={value!r}",
            field=SAMPLING_OPTION,
            expected=" or ".join(SAMPLINGS) + " (first: the STEB reference's first N per class)",
        )
    return mode


def reference_per_class(
    counts: Mapping[Any, int], *, cap: int = REFERENCE_CAP, floor: int = REFERENCE_FLOOR, episode_size: int = 1
) -> int:
    """The reference's ``"auto"`` records per class: ``max(floor, min(smallest // episode_size, cap))``.

    ``episode_size == -1`` (retrieval: one episode holding a whole label) gives 1, as
    ``DatasetLoader._resolve_auto_episodes`` (index file 62147402711) does. The smallest class counts
    even when it is then dropped (a class under ``floor`` records gives ``floor`` and is dropped).
    """
    if episode_size == -1:
        return 1
    if episode_size < 1:
        raise ValueError(f"episode_size must be -1 or positive, got {episode_size}")
    if not counts:
        raise DataValidationError("no records to count per class", expected="at least one labelled record")
    smallest = min(counts.values())
    return max(floor, min(smallest // episode_size, cap))


def _groups(items: Sequence[T], key: Callable[[T], Hashable]) -> dict[Hashable, list[int]]:
    """Item indices per class, classes in order of first appearance (a dict keeps insertion order)."""
    out: dict[Hashable, list[int]] = {}
    for i, item in enumerate(items):
        out.setdefault(key(item), []).append(i)
    return out


def _info(
    mode: str, n: int | None, groups: Mapping[Hashable, list[int]], kept: Mapping[Hashable, list[int]]
) -> dict[str, Any]:
    dropped = {str(c): len(idx) for c, idx in groups.items() if c not in kept}
    info: dict[str, Any] = {
        "sampling": mode,
        "per_class": n,
        "class_counts_available": {str(c): len(idx) for c, idx in groups.items()},
        "class_counts": {str(c): len(idx) for c, idx in kept.items()},
        "class_order": [str(c) for c in kept],
        "n_classes": len(kept),
        "n_records": sum(len(idx) for idx in kept.values()),
    }
    if n is not None:  # the reference's n_episodes_per_class: its results folder is "1_<n>" (steb export reads it)
        info[REFERENCE_N_KEY] = n
    if dropped:
        info["dropped_classes"] = dropped
        info["dropped_classes_why"] = f"fewer than {n} records (the reference drops classes below the per-class count)"
    return info


def first_n_per_class(
    items: Iterable[T], key: Callable[[T], Hashable], n: int | None
) -> tuple[list[T], dict[str, Any]]:
    """The reference's pass 1 / pass 2: the first ``n`` items of every class with at least ``n`` items.

    Classes with fewer than ``n`` items are dropped (named with their sizes in the info). The result is
    in the order the reference's tasks see it: classes in order of first appearance, each class's items
    in input (loader) order. ``n=None`` keeps every item, in the same grouped order.
    """
    items = list(items)
    groups = _groups(items, key)
    kept = {c: idx[:n] if n is not None else idx for c, idx in groups.items() if n is None or len(idx) >= n}
    return [items[i] for idx in kept.values() for i in idx], _info("first", n, groups, kept)


def random_n_per_class(
    items: Iterable[T], key: Callable[[T], Hashable], n: int | None, seed: int, *, salt: Hashable = ""
) -> tuple[list[T], dict[str, Any]]:
    """``sampling=random``: the reference's class rule, but ``n`` items of each class drawn with a seeded RNG.

    Same classes kept and dropped as :func:`first_n_per_class`; the draw is the one of
    :func:`steb_core._io.sample_per_class` (one ``seeded_rng(seed, "sample_per_class", salt)``, classes
    visited in ``str`` order, ``rng.sample`` only for a class larger than ``n``), so a seed picks the same
    texts it picked before this module existed. Output order as :func:`first_n_per_class`.
    """
    items = list(items)
    groups = _groups(items, key)
    kept: dict[Hashable, list[int]] = {c: idx for c, idx in groups.items() if n is None or len(idx) >= n}
    rng = seeded_rng(seed, "sample_per_class", salt)
    for cls in sorted(kept, key=str):
        idx = kept[cls]
        if n is not None and len(idx) > n:
            kept[cls] = sorted(rng.sample(idx, n))
    info = _info("random", n, groups, kept)
    info.update({"seed": seed, "sampling_salt": str(salt)})
    return [items[i] for idx in kept.values() for i in idx], info


def sample_classes(
    items: Iterable[T],
    key: Callable[[T], Hashable],
    n: int | str | None = AUTO,
    *,
    sampling: str = DEFAULT_SAMPLING,
    seed: int = 0,
    salt: Hashable = "",
    cap: int = REFERENCE_CAP,
    floor: int = REFERENCE_FLOOR,
) -> tuple[list[T], dict[str, Any]]:
    """The one entry point for loaders: ``n`` per class by ``sampling`` (``first`` or ``random``).

    ``n="auto"`` resolves the reference's count from the class sizes (:func:`reference_per_class` with
    ``cap``/``floor``); an int is used as given; ``None`` keeps every item. The info records the mode,
    the resolved ``n`` (``per_class``, and :data:`REFERENCE_N_KEY` when it is a number), the classes kept (in
    order) and dropped, and for ``random`` the seed and salt.
    """
    items = list(items)
    mode = sampling_mode({SAMPLING_OPTION: sampling})
    if n == AUTO:
        counts = Counter(key(item) for item in items)
        per_class: int | None = reference_per_class(counts, cap=cap, floor=floor) if counts else None
        resolved_from = {"per_class_rule": f"auto: max({floor}, min(smallest class, {cap}))"}
    elif n is None or isinstance(n, int):
        if isinstance(n, int) and n < 1:
            raise DataValidationError(
                f"per-class count {n}", field="per_class", expected="a positive integer, 'auto' or None"
            )
        per_class, resolved_from = n, {}
    else:
        raise DataValidationError(
            f"per-class count {n!r}", field="per_class", expected="a positive integer, 'auto' or None"
        )
    if mode == "first":
        kept, info = first_n_per_class(items, key, per_class)
    else:
        kept, info = random_n_per_class(items, key, per_class, seed, salt=salt)
    info.update(resolved_from)
    return kept, info
