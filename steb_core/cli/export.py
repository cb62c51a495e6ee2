"""``steb export``: a steb run written as a STEB leaderboard submission (the authors' results tree).

The work is :func:`steb_core.reference_tree.export.export_tree`; this module parses options and prints what a
submitter does next (the ``SUBMISSIONS.yaml`` entry and the ``scripts/models_all.txt`` line of SUBMISSION.md).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from ..errors import StebError
from . import common

FORMATS = ("steb-leaderboard",)


@common.app.command("export")
def export(
    results_dir: Path = typer.Argument(
        ..., help=("A results folder written by `steb run` (one encoder, or choose with --encoder).")
    ),
    out: Path = typer.Argument(
        ...,
        help=("Where to write <dataset>/<short_name>/<episode>/<task>/metrics.json: your clone's submitted_results/."),
    ),
    fmt: str = typer.Option(
        "steb-leaderboard", "--format", help=("Output format: steb-leaderboard (the STEB authors' results tree).")
    ),
    short_name: str = typer.Option(
        ...,
        "--short-name",
        help=(
            "The model folder name on the leaderboard (SUBMISSION.md: the part after the last '/' of your model id)."
        ),
    ),
    encoder: str | None = typer.Option(
        None, "--encoder", "-e", help=("The encoder to export when RESULTS_DIR holds several.")
    ),
    hf_id: str | None = typer.Option(
        None,
        "--hf-id",
        help=(
            "HuggingFace id (or a stable URL) for SUBMISSIONS.yaml (default: the model path the run recorded, else the "
            "short name)."
        ),
    ),
    contributor: str = typer.Option(
        "<your-github-handle>", "--contributor", help=("Your GitHub handle, for SUBMISSIONS.yaml.")
    ),
    run_command: str | None = typer.Option(
        None,
        "--run-command",
        help=(
            "The command that produced the results, for SUBMISSIONS.yaml (default: steb run --suite steb --encoder "
            "ENCODER)."
        ),
    ),
    episode: list[str] | None = typer.Option(
        None,
        "--episode",
        metavar="DATASET:TASK=SIZE_N",
        help=(
            "Episode folder for a result whose N per class is not in its record, e.g. ASSET:order_alignment=1_200 "
            "(TASK "
            "may be *; repeatable)."
        ),
    ),
    allow_partial: bool = typer.Option(
        False,
        "--allow-partial",
        help=("Export although the run covers only part of --suite steb (the export says so)."),
    ),
    allow_other_protocol: bool = typer.Option(
        False,
        "--allow-other-protocol",
        help=(
            "Export results made under another STEB protocol version or with --protocol truncate (the export says so)."
        ),
    ),
    include_other: bool = typer.Option(
        False,
        "--include-other",
        help=(
            "Also write datasets and tasks that are not STEB's, under steb's names (the leaderboard scripts skip them)."
        ),
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help=("Replace metrics.json files that already hold other numbers.")
    ),
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Write RESULTS_DIR's results as the STEB leaderboard's results tree in OUT, and print the lines to submit them."""
    from ..reference_tree.export import export_tree, models_line, parse_episode_option, submission_entry
    from ..results import load_results

    if fmt not in FORMATS:
        raise StebError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    manager = common.manager(plugin)
    report = export_tree(
        load_results(results_dir),
        out,
        short_name,
        specs=list(manager.datasets()),
        encoder=encoder,
        episodes=parse_episode_option(episode or ()),
        allow_partial=allow_partial,
        allow_other_protocol=allow_other_protocol,
        include_other=include_other,
        overwrite=overwrite,
    )
    con = common.console
    new = sum(not i.unchanged for i in report.written)
    con.print(
        f"wrote {new} metrics.json ({len(report.written) - new} already there, unchanged) for "
        f"'{report.encoder}' as '{short_name}' under {report.out}/",
        highlight=False,
    )
    for key, why in report.allowed.items():
        con.print(f"[yellow]note ({escape(key)}):[/] {escape(why)}", highlight=False)
    missing = report.missing_keys()
    if missing:
        con.print(
            "[yellow]not written (not in the records, so no number is made up; the manifest says why):[/] "
            + ", ".join(f"{k} ({n} file(s))" for k, n in sorted(missing.items())),
            highlight=False,
        )
    for item in report.skipped:
        con.print(
            f"[yellow]skipped[/] {escape(item.dataset)}/{escape(item.task)}: {escape(item.reason)}", highlight=False
        )
    con.print(f"[dim]manifest: {escape(str(report.manifest))}[/]", highlight=False)
    first = next((r for r in load_results(results_dir) if r.encoder == report.encoder), None)
    identity = (first.encoder_identity or {}) if first is not None else {}
    hub_id = hf_id or str(identity.get("name_or_path") or short_name)
    command = run_command or f"steb run --suite steb --encoder {report.encoder}"
    con.print("\nAppend to SUBMISSIONS.yaml:\n", highlight=False)
    con.print(submission_entry(short_name, hub_id, command, contributor), highlight=False, markup=False)
    con.print("\nAdd to scripts/models_all.txt:\n", highlight=False)
    con.print(models_line(short_name, hub_id), highlight=False, markup=False)
    if contributor.startswith("<"):
        con.print("\n[dim]set --contributor to your GitHub handle (or edit the entry)[/]", highlight=False)
    con.print(
        "\n[dim]then, in your STEB clone: python scripts/validate_submission.py (see SUBMISSION.md)[/]", highlight=False
    )
