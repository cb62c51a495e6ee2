"""The ``steb report`` and ``steb export-clusters`` commands: options live with the report code they drive."""

from __future__ import annotations

from pathlib import Path

import typer

from .ranks import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["report_command", "export_clusters_command", "compare_command"]


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
    resamples: int = typer.Option(
        DEFAULT_RESAMPLES, "--resamples", min=1, help="Bootstrap replicates of the rank intervals."
    ),
    level: float = typer.Option(
        DEFAULT_LEVEL, "--level", min=0.5, max=0.999, help="The share of the replicates a rank interval holds."
    ),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="The seed of the rank intervals' bootstrap."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", "-p", help=("Local plugin: a module name or a path to a .py file (repeatable).")
    ),
) -> None:
    """Print one leaderboard per suite, each model's rank with a bootstrap interval, and write Markdown, CSV and a
    self-contained HTML report with plots."""
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
        resamples=resamples,
        level=level,
        seed=seed,
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
    from .._errors import StebError
    from ..aggregators.clusters import cluster_set_from_details
    from ..cli.common import console
    from ..cli.common import manager as _manager
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


def compare_command(
    results_dir: Path = typer.Argument(..., help="A results folder written by `steb run` holding both encoders."),
    encoder_a: str = typer.Argument(..., metavar="A", help="The first encoder (as the results name it)."),
    encoder_b: str = typer.Argument(..., metavar="B", help="The second encoder."),
    dataset: list[str] | None = typer.Option(
        None, "--dataset", "-d", metavar="DATASET", help="Only these datasets (repeatable)."
    ),
    resamples: int = typer.Option(DEFAULT_RESAMPLES, "--resamples", min=1, help="Bootstrap replicates."),
    level: float = typer.Option(DEFAULT_LEVEL, "--level", min=0.5, max=0.999, help="The bootstrap interval's level."),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="The bootstrap's seed."),
    fmt: str = typer.Option("table", "--format", "-f", help="table (for people), json or csv (for scripts)."),
) -> None:
    """A paired test per dataset between encoders A and B: McNemar for order alignment (as STEL), a paired bootstrap
    of the difference of AUROC, V-measure, MRR and probing accuracy (same instances for both)."""
    from rich.table import Table

    from ..cli.common import console, emit
    from .compare import compare_encoders
    from .format import fmt as score

    tests = compare_encoders(
        results_dir, encoder_a, encoder_b, resamples=resamples, level=level, seed=seed, only_datasets=dataset
    )
    if emit([t.row() for t in tests], fmt, "compare"):
        return
    percent = round(level * 100)
    table = Table(title=f"steb compare — {encoder_a} (A) vs {encoder_b} (B), scores x100", box=None, pad_edge=False)
    for column in ("dataset", "task", "metric", "A", "B", "A−B", f"{percent}% interval", "test", "p", "n"):
        table.add_column(column, justify="left" if column in ("dataset", "task", "metric", "test") else "right")
    for t in tests:
        interval = "" if t.low is None else f"{t.low * 100:+.2f} … {t.high * 100:+.2f}"  # type: ignore[operator]
        test = t.test + (f" ({t.discordant[0]}:{t.discordant[1]})" if t.discordant else "")
        table.add_row(
            t.dataset,
            t.task,
            t.metric,
            score(t.a, digits=2),
            score(t.b, digits=2),
            "" if t.difference is None else f"{t.difference * 100:+.2f}",
            interval,
            test or "–",
            "" if t.p_value is None else f"{t.p_value:.3g}",
            str(t.n or ""),
        )
    console.print(table)
    for t in tests:
        if t.note and not t.test:
            console.print(f"[yellow]{t.dataset} / {t.task}:[/] {t.note}", highlight=False)
    console.print(
        f"[dim]paired on the same instances; McNemar (A:B = instances only A : only B gets right) for order alignment, "
        f"else a paired bootstrap ({resamples} resamples, seed {seed}, {percent}% percentile interval of A − B); "
        "p-values per dataset, not corrected for the number of datasets[/]",
        highlight=False,
    )
