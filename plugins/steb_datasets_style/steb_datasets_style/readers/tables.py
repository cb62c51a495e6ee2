"""Releases that are one table (or a glob of tables) with text and label columns, via steb-core's generic loader."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from steb_core import DatasetNotFoundError, GenericLoader, LoadContext

from ..common import Loaded, Reader, family_dir, with_dir

__all__ = ["table", "release_root", "first_match"]


def table(
    path: str | tuple[str, ...],
    *,
    columns: Mapping[str, Any],
    family: str | None = None,
    layout: str = "",
    hub_id: str | None = None,
    line_breaks: str = "any",
    **loader_options: Any,
) -> Reader:
    """A reader for a release that is one table (or a glob of tables) with text and label columns.

    ``path`` may be a tuple of candidate globs (the file at the top of the release, or where a clone
    keeps it, e.g. ``data/labeled_data.csv``): the first one that matches a file is read.
    ``line_breaks`` (see :class:`steb_core.GenericLoader`): these releases quote texts that span
    lines (tweets, reviews, generated essays), so ``"any"`` unless a release says it has one record per line.
    """

    def read(ctx: LoadContext, obtain: str) -> Loaded:
        root = release_root(ctx, family, obtain, layout, hub_id)
        chosen = first_match(root, path)
        loader = GenericLoader(
            path=chosen,
            shape="labelled_texts",
            columns=dict(columns),
            skip_empty=True,
            obtain=obtain,
            line_breaks=line_breaks,
            **loader_options,
        )
        bundle = loader(with_dir(ctx, root))
        info = {
            k: v
            for k, v in bundle.info.items()
            if k in ("files", "format", "columns", "rows", "filtered", "dropped_label", "skipped_empty")
        }
        return bundle.labelled_texts or [], {"root": str(root), **info}

    return read


def release_root(ctx: LoadContext, family: str | None, obtain: str, layout: str, hub_id: str | None) -> Path:
    """``family_dir``; for a Hugging Face-hosted release (``hub_id``) also the local hub cache's snapshot."""
    try:
        return family_dir(ctx, family, obtain, layout)
    except DatasetNotFoundError:
        if hub_id:
            from steb_core import hub_cache_snapshot

            snap = hub_cache_snapshot(hub_id)
            if snap is not None:
                return snap
        raise


def first_match(root: Path, path: str | tuple[str, ...]) -> str:
    """The first candidate glob that matches a file under ``root`` (else the first, whose absence is then reported)."""
    candidates = (path,) if isinstance(path, str) else tuple(path)
    for cand in candidates:
        if any(p.is_file() for p in root.glob(cand)):
            return cand
    return candidates[0]
