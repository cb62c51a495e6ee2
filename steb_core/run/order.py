"""The order a run processes its datasets in, and how many it holds at once (``max_memory`` groups).

Both depend on the selection and the budget only, never on timing or the machine: the order decides
which dataset first encodes a text two datasets share, so every run of a selection writes the same
records (see :func:`execution_order`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from functools import cache

from .._errors import StebError
from .._specs import DatasetSpec, TaskSpec

__all__ = ["cheap_task_types", "execution_order", "parse_memory", "size_hint"]


def cheap_task_types(tasks: Iterable[TaskSpec] | None = None) -> frozenset[str]:
    """The task types of ``tasks`` (None: steb's built-in ones) whose spec says scoring costs little per text next
    to reading or encoding it (:attr:`TaskSpec.cheap_to_score`: one cosine per pair for ``pair_predefined``, a few
    per group for ``order_alignment``). Every other type (a solver, k-means, all-to-all or query-by-candidate score
    blocks, a plugin's type that does not say) counts as costly to score."""
    if tasks is None:
        return _builtin_cheap()
    return frozenset(t.name for t in tasks if t.cheap_to_score)


@cache
def _builtin_cheap() -> frozenset[str]:
    from ..tasks import builtin_tasks

    return frozenset(t.name for t in builtin_tasks() if t.cheap_to_score)


_TEXTS_IN_SIZE = re.compile(r"(\d[\d,]*)\s+texts\b")


def parse_memory(value: str | int | None) -> int | None:
    """Bytes from ``4G``/``512M``/``2000000``; None means one dataset at a time."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip().upper().removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
    try:
        return int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        raise StebError(f"--max-memory {value!r} is not a size like 4G, 512M or a number of bytes") from None


def size_hint(spec: DatasetSpec) -> int:
    """Texts the dataset is expected to hold, from ``spec.expected`` (its ``texts`` counts) or an
    "N texts" in ``spec.size``; 0 when neither says (counted as small). Only orders the run."""
    counts = [
        int(v) for promise in spec.expected.values() for k, v in promise.items() if k == "texts" and isinstance(v, int)
    ]
    if counts:
        return max(counts)
    found = _TEXTS_IN_SIZE.search(spec.size or "")
    return int(found.group(1).replace(",", "")) if found else 0


def execution_order(
    items: Sequence[tuple[DatasetSpec, Sequence[str]]], cheap: Collection[str] | None = None
) -> list[int]:
    """The order a run processes its datasets in: indices into ``items`` ((spec, task types to run)); ``cheap``:
    the task types that are cheap to score (default: :func:`cheap_task_types` of steb's built-in ones).

    Why not the order of selection: with ``prefetch`` the next datasets are loaded in a worker while
    this one is encoded and scored, a two-stage flow (load, then encode + score) whose wall time is
    set by how well each load overlaps the work before it. Johnson's rule orders such a flow: jobs
    whose second stage is the longer first, shortest first stage first; then the others, longest
    second stage first. Costs are estimated from the specs alone (nothing is loaded to plan the order):
    loading and encoding cost about the same per text for every dataset (:func:`size_hint`), scoring
    depends on the task type, so datasets with a task that is costly to score (not in
    ``cheap``) come first, smallest first, and the cheap-to-score ones last, largest
    first. The loader then works ahead on the large cheap-to-score datasets while the last costly
    ones are scored. Ties keep the selection order.

    The order depends on the selection only, never on ``prefetch``, timing or the machine: it decides
    which dataset first encodes a text that two datasets share (so which batch it is encoded in) and
    the run-wide counters in each record, so a run with ``prefetch=0`` uses it too and every run of a
    selection writes the same records.
    """

    cheap = cheap_task_types() if cheap is None else cheap

    def key(i: int) -> tuple[int, int, int]:
        spec, tasks = items[i]
        n = size_hint(spec)
        if any(t not in cheap for t in tasks):
            return (0, n, i)
        return (1, -n, i)

    return sorted(range(len(items)), key=key)
