"""``steb import``: the STEB authors' results trees (canonical baselines, ``submitted_results/``) as steb records.

The work is :func:`steb_core.reference_tree.read.read_trees`; the records are written like a run's, marked with their
origin, so ``steb report`` ranks your model among the published ones (``steb report MINE --leaderboard TREE`` reads a
tree without writing it).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import typer

from .._errors import StebError
from . import common


@common.app.command("import")
def import_tree(
    trees: list[Path] | None = typer.Argument(
        None,
        help=(
            "STEB results trees: the folder scripts/download_results.sh unpacks (results/), submitted_results/ "
            "(earlier "
            "trees win on a collision)."
        ),
    ),
    out: Path = typer.Option(
        ...,
        "--out",
        "-o",
        help=(
            "The steb results folder to write the records into: your own results folder ranks your model among the "
            "published ones with `steb report OUT` (a published model named like one of yours is kept apart as "
            "'NAME (published)'; yours are never replaced). `steb report YOUR_RESULTS --leaderboard TREE` does the "
            "same without writing anything."
        ),
    ),
    episode_params: str | None = typer.Option(
        None,
        "--episode-params",
        help=(
            "Read only this episode folder, e.g. 1_200 (default: the first in sorted order, as the leaderboard scripts "
            "do)."
        ),
    ),
    include_other: bool = typer.Option(
        False, "--include-other", help=("Also read dataset folders that are not STEB's, as steb datasets of that name.")
    ),
    published: bool = typer.Option(
        False,
        "--published",
        help=(
            "Fetch the STEB authors' published results (their 40 models; the Google Drive file "
            "scripts/download_results.sh fetches) into DATA_DIR/steb-published-results/ (once; its sha256 is pinned "
            "at the first download) and import them first."
        ),
    ),
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Root folder the published results are fetched into (default: $STEB_DATA_DIR)."
    ),
    force: bool = typer.Option(
        False, "--force", help="With --published: fetch again (the bytes must match the sha256 pinned before)."
    ),
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Read STEB results trees as steb result records (each marked as published), list what could not be mapped.

    Published results never replace results steb computed: a published model named like one of yours is written
    as 'NAME (published)', and `steb export` never exports an imported result."""
    import os

    trees = list(trees or [])
    if published:
        from ..reference_tree.published import fetch_published

        root = data_dir or (Path(os.environ["STEB_DATA_DIR"]) if os.environ.get("STEB_DATA_DIR") else None)
        if root is None:
            raise StebError("steb import --published: say where to fetch them: --data-dir ROOT or $STEB_DATA_DIR")
        tree, pins, status = fetch_published(root, force=force)
        for name, digest in pins:
            common.console.print(
                f"pinned at first download: {name} sha256 {digest} (the authors publish no checksum; recorded in "
                f"{tree.parent if tree.name == 'results' else tree}/.steb-source.json and checked on every refetch)",
                highlight=False,
                markup=False,
            )
        common.console.print(
            f"published results: {tree} ({'fetched' if status == 'fetched' else 'fetched earlier'})",
            highlight=False,
            markup=False,
        )
        trees.insert(0, tree)
    if not trees:
        raise StebError("steb import: name STEB results trees, or fetch the published results with --published")
    from rich.markup import escape

    from .._io import atomic_write_text
    from ..reference_tree.read import import_records, keep_apart_in, read_trees

    manager = common.manager(plugin)
    specs = {s.name: s for s in manager.datasets()}
    found = read_trees(trees, episode_params=episode_params, specs=specs, include_other=include_other)
    if not found.records:
        raise StebError(
            f"no result could be mapped in {', '.join(map(str, trees))}: "
            + "; ".join(f"{u.path}: {u.reason}" for u in found.unmapped[:5])
        )
    records, renamed = keep_apart_in(out, found.records)
    replaced = import_records(out, records)
    common.console.print(
        f"{found.summary()}; wrote {len(records)} record(s) into {out}/"
        + (f" ({replaced} earlier import(s) replaced)" if replaced else ""),
        highlight=False,
    )
    if renamed:
        common.console.print(
            f"[yellow]kept apart:[/] {len(renamed)} published model(s) share a name with results you computed "
            f"in {escape(str(out))}/ and were imported as 'NAME (published)' (yours are untouched): "
            + escape(", ".join(renamed)),
            highlight=False,
        )
    if found.unmapped:
        listing = out / "unmapped.csv"
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["path", "reason"])
        writer.writerows((u.path, u.reason) for u in found.unmapped)
        atomic_write_text(listing, buffer.getvalue())
        common.console.print(
            f"[yellow]{len(found.unmapped)} not mapped[/] (listed in {listing}), e.g.", highlight=False
        )
        for u in found.unmapped[:5]:
            common.console.print(f"  {u.path}: {u.reason}", highlight=False, markup=False)
