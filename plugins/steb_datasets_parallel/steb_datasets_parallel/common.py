"""The loader shape every corpus here shares: read items from the release, then build order groups.

A corpus module only knows its release layout (``read(ctx, root) -> (items, info)``: the sequences in the
STEB reference's loader order and unit); which sequences are kept, the pairs, the distractor groups and
the construction's options come from :func:`steb_core.order_groups_from_options`, so every
parallel dataset is built the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from steb_core import (
    DatasetBundle,
    DatasetNotFoundError,
    LoadContext,
    ParallelItem,
    construction_task_defaults,
    hub_cache_snapshot,
    order_groups_from_options,
)

__all__ = ["Reader", "make_loader", "locate_file"]

Reader = Callable[[LoadContext, Path], tuple[list[ParallelItem], dict[str, Any]]]


def locate_file(ctx: LoadContext, root: Path, candidates: list[str], obtain: str, layout: str) -> Path:
    """The first of ``candidates`` (paths relative to ``root``) that exists, else an error naming them all."""
    for rel in candidates:
        if (root / rel).is_file():
            return root / rel
    raise DatasetNotFoundError(
        f"dataset '{ctx.dataset}': none of {', '.join(str(root / c) for c in candidates)} exists. "
        f"Obtain it: {obtain}. Expected layout: {layout}"
    )


def make_loader(
    read: Reader,
    *,
    default_budget: int | None,
    obtain: str,
    layout: str,
    shared_folder: str | None = None,
    hub_id: str | None = None,
) -> Callable[[LoadContext], DatasetBundle]:
    """A dataset loader: ``read`` the release under the dataset folder, then build the order groups.

    Default: the STEB reference's construction (the first N = max(25, min(smallest class, 200)) sequences
    per class in the reader's order, every pair of them, plain + two distractor groups per pair). Options
    (:func:`steb_core.order_groups_from_options`): ``construction`` (``steb-all-pairs/v1``: steb's
    earlier seeded construction, capped by ``default_budget``, Table 15's pairings per class), ``per_class``
    (``auto``, ``all`` or an int), ``distractors`` (default true), ``sampling`` (``random``: N drawn with the
    run seed), plus whatever ``read`` understands. ``shared_folder``
    names a release folder that several datasets read (``ROOT/SynthSTEL`` for both SynthSTEL datasets);
    ``hub_id`` lets a Hugging Face release be found in the local hub cache when no data folder exists.
    """

    def load(ctx: LoadContext) -> DatasetBundle:
        try:
            root = ctx.release_dir(shared_folder, obtain, layout) if shared_folder else ctx.require_dir(obtain, layout)
        except DatasetNotFoundError:
            cached = hub_cache_snapshot(hub_id) if hub_id else None  # a hub release in the local hub cache
            if cached is None:
                raise
            root = cached
        items, info = read(ctx, root)
        if not items:
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': no parallel texts found under {root}. Expected layout: {layout}"
            )
        groups, built = order_groups_from_options(
            items, ctx.options, seed=ctx.seed, salt=ctx.dataset, legacy_budget=default_budget
        )
        if not groups:
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': every class under {root} has fewer sequences than the per-class count "
                f"({built.get('per_class')}; classes: {built.get('class_counts_available')}), or fewer than 2; "
                "pass --dataset-option per_class=all or a number"
            )
        return DatasetBundle(
            order_groups=groups,
            info={**info, **built, "parallel_items": len(items)},
            task_defaults=construction_task_defaults(built["construction"]),  # the rule of the groups built
        )

    return load
