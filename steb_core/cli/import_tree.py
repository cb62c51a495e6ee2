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

from ..errors import StebError
from . import common


@common.app.command("import")
def import_tree(
    trees: list[Path] = typer.Argument(
        ...,
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
        help=("The steb results folder to write the records into (report it with `steb report OUT YOUR_RESULTS...`)."),
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
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Read STEB results trees as steb result records (each marked as published), list what could not be mapped."""
    from ..io import atomic_write_text
    from ..reference_tree.read import read_trees
    from ..results import load_results

    manager = common.manager(plugin)
    specs = {s.name: s for s in manager.datasets()}
    found = read_trees(trees, episode_params=episode_params, specs=specs, include_other=include_other)
    if not found.records:
        raise StebError(
            f"no result could be mapped in {', '.join(map(str, trees))}: "
            + "; ".join(f"{u.path}: {u.reason}" for u in found.unmapped[:5])
        )
    existing = {(r.encoder, r.dataset, r.task) for r in load_results(out)} if out.is_dir() else set()
    for rec in found.records:
        rec.write(out)
    replaced = len(existing & {(r.encoder, r.dataset, r.task) for r in found.records})
    common.console.print(
        f"{found.summary()}; wrote {len(found.records)} record(s) into {out}/"
        + (f" ({replaced} replaced)" if replaced else ""),
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
