"""The ``steb report`` and ``steb export-clusters`` commands: options live with the report code they drive."""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["report_command", "export_clusters_command"]


def report_command(
    results_dir: Path = typer.Argument(
        ..., help=("A results folder written by `steb run` (several encoders merge into one leaderboard).")
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "--output",
        "-o",
        help=(
            "Where to write report.md, report.csv, report.html (+ scores.csv, missing.csv, aggregates.json, "
            "clusters.json); default RESULTS_DIR/report."
        ),
    ),
    suite: list[str] | None = typer.Option(
        None,
        "--suite",
        "-s",
        metavar="SUITE",
        help=(
            "Only this suite's leaderboard, with every dataset of the suite required (repeatable). Default: one "
            "leaderboard per suite found."
        ),
    ),
    dataset: list[str] | None = typer.Option(
        None, "--dataset", "-d", metavar="DATASET", help=("Only these datasets (repeatable).")
    ),
    encoder: list[str] | None = typer.Option(
        None, "--encoder", "-e", metavar="ENCODER", help=("Only these encoders (repeatable).")
    ),
    task: list[str] | None = typer.Option(
        None, "--task", "-t", metavar="TASK", help=("Only these task types (repeatable).")
    ),
    clusters: Path | None = typer.Option(
        None,
        "--clusters",
        metavar="FILE",
        help=(
            "Score the operational column with this frozen cluster set (from `steb export-clusters` or a report's "
            "clusters.json) instead of clusters discovered from the models in the folder."
        ),
    ),
    leaderboard: list[Path] | None = typer.Option(
        None,
        "--leaderboard",
        metavar="TREE",
        help=(
            "A STEB results tree to rank your results among: the folder scripts/download_results.sh unpacks "
            "(results/), submitted_results/ (repeatable; earlier trees win on a collision). The operational "
            "clusters are then frozen from the published models alone (unless --clusters names a set)."
        ),
    ),
    no_html: bool = typer.Option(False, "--no-html", help="Skip the HTML page (and matplotlib)."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", "-p", help=("Local plugin: a module name or a path to a .py file (repeatable).")
    ),
) -> None:
    """Print one leaderboard per suite and write Markdown, CSV and a self-contained HTML report with plots."""
    from ..cli.common import console
    from ..cli.common import manager as _manager
    from . import build_report

    _manager(plugin)
    paths = build_report(
        results_dir,
        out,
        console=console,
        html=not no_html,
        suites=suite or (),
        only_datasets=dataset or None,
        only_encoders=encoder or None,
        only_tasks=task or None,
        clusters=clusters,
        leaderboard=leaderboard or (),
    )
    for label, value in (("markdown", paths.markdown), ("csv", paths.report_csv), ("html", paths.html)):
        if value:
            console.print(f"{label}: {value}")


def export_clusters_command(
    results_dir: Path | None = typer.Argument(
        None,
        help=(
            "A results folder written by `steb run` with the models whose rankings define the clusters (optional with "
            "--leaderboard)."
        ),
    ),
    out: Path = typer.Option(Path("steb-clusters.json"), "--out", "-o", help="The cluster-set file to write."),
    suite: str | None = typer.Option(
        None, "--suite", "-s", help=("The suite whose clusters to export (default: the only or first leaderboard).")
    ),
    name: str | None = typer.Option(
        None, "--name", help=("A name for the cluster set, printed in every report that uses it.")
    ),
    leaderboard: list[Path] | None = typer.Option(
        None,
        "--leaderboard",
        metavar="TREE",
        help=(
            "A STEB results tree whose published models define the clusters (repeatable), as the leaderboard discovers"
            " them."
        ),
    ),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", "-p", help=("Local plugin: a module name or a path to a .py file (repeatable).")
    ),
) -> None:
    """Freeze the operational redundancy clusters of a run (or of the published models), for `steb report
    --clusters`."""
    from ..aggregators.clusters import cluster_set_from_details
    from ..cli.common import console
    from ..cli.common import manager as _manager
    from ..errors import StebError
    from .leaderboard import compute_leaderboards, load_merged

    manager = _manager(plugin)
    if results_dir is None and not leaderboard:
        raise StebError("name a results folder, or STEB results trees with --leaderboard")
    records = load_merged(results_dir) if results_dir is not None else []
    if leaderboard:
        from ..reference_tree.read import keep_apart, read_trees

        found = read_trees(list(leaderboard), specs={s.name: s for s in manager.datasets()})
        records += keep_apart(records, found.records)[0]
        console.print(f"[dim]{found.summary()}[/]", highlight=False)
    source = results_dir or leaderboard[0]  # type: ignore[index]
    boards = compute_leaderboards(records, suites=[suite] if suite else None)
    board = boards[0]
    op = board.aggregate("operational")
    if op is None or not op.details.get("clusters"):
        raise StebError(f"no operational clusters in {source}" + (f" for suite '{suite}'" if suite else ""))
    cluster_set = cluster_set_from_details(op.details, name=name or board.suite or source.name)
    cluster_set.write(out)
    n_clusters = sum(len(c) for c in cluster_set.tasks.values())
    console.print(
        f"wrote {out}: '{cluster_set.name}', {n_clusters} cluster(s) over {len(cluster_set.tasks)} task type(s), "
        f"from {cluster_set.n_models} model(s)"
    )
    if len(boards) > 1:
        console.print(
            f"[dim]other suites in {source}: {', '.join(str(b.suite) for b in boards[1:])} (choose with --suite)[/]"
        )
