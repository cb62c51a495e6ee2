"""``steb export``: a steb run written as a STEB leaderboard submission (the authors' results tree).

The work is :func:`steb_core.reference_tree.export.export_tree`; this module parses options and prints what a
submitter does next (the ``SUBMISSIONS.yaml`` entry and the ``scripts/models_all.txt`` line of SUBMISSION.md).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from .._errors import StebError
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
            "HuggingFace id (or a stable URL) for SUBMISSIONS.yaml (default: the encoder configuration's hub id, else "
            "the model id the run recorded, else the short name)."
        ),
    ),
    contributor: str = typer.Option(
        "<your-github-handle>", "--contributor", help=("Your GitHub handle, for SUBMISSIONS.yaml.")
    ),
    run_command: str | None = typer.Option(
        None,
        "--run-command",
        help=(
            "The command that produced the results, for SUBMISSIONS.yaml (default: the command(s) `steb run` recorded "
            "in RESULTS_DIR/steb-runs.jsonl for the encoder)."
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

    from .._results import load_results
    from .._run_manifest import run_commands
    from ..reference_tree.export import export_tree, models_line, parse_episode_option
    from ..reference_tree.submission import RESULTS_FOLDER, SUBMISSIONS_FILE, SubmissionEntry, edited_text

    if fmt not in FORMATS:
        raise StebError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    manager = common.manager(plugin)  # its task types say where their results go (TaskSpec.tree_export)
    report = export_tree(
        load_results(results_dir),
        out,
        short_name,
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
    hub_id = hf_id or default_hub_id(manager, first, short_name)
    commands = run_commands(results_dir, report.encoder)
    command = run_command or " && ".join(commands)
    if not command:
        command = "<the command that produced these results>"
        con.print(
            f"[yellow]no command recorded[/] for '{escape(report.encoder)}' in "
            f"{escape(str(results_dir))}/steb-runs.jsonl (results of a steb before the run manifest, or written by "
            "a script): pass --run-command",
            highlight=False,
        )
    entry = SubmissionEntry(short_name, hub_id, command, contributor)
    line = models_line(short_name, hub_id)
    clone = out.parent if out.name == RESULTS_FOLDER and (out.parent / SUBMISSIONS_FILE).is_file() else None
    submit = shlex.join(
        ["steb", "submit", str(clone or "STEB_CLONE"), "--short-name", short_name, "--hf-id", hub_id]
        + ["--run-command", command, "--contributor", contributor]
    )
    if clone is not None:
        old = (clone / SUBMISSIONS_FILE).read_text(encoding="utf-8")
        try:
            whole = edited_text(old, entry, where=str(clone / SUBMISSIONS_FILE))
        except StebError as exc:
            con.print(f"[yellow]SUBMISSIONS.yaml:[/] {escape(str(exc))}", highlight=False)
            whole = None
        if whole is not None:
            con.print(f"\n{clone / SUBMISSIONS_FILE} with your entry (the whole file):\n", highlight=False)
            con.print(whole.rstrip("\n"), highlight=False, markup=False)
    else:
        con.print(
            "\nSUBMISSIONS.yaml, if it is the published '[]' (the whole file; else add the entry to its list):\n",
            highlight=False,
            markup=False,
        )
        con.print(edited_text("[]\n", entry).rstrip("\n"), highlight=False, markup=False)
    con.print("\nAdd to scripts/models_all.txt:\n", highlight=False)
    con.print(line, highlight=False, markup=False)
    con.print(
        "\nEdit both files and check the submission as the leaderboard does (a YAML list, four non-empty keys, the "
        "model folder, models_all.txt, finite numbers, one episode folder per task):\n",
        highlight=False,
        markup=False,
    )
    con.print(submit, highlight=False, markup=False)
    if contributor.startswith("<"):
        con.print("\n[dim]set --contributor to your GitHub handle (or edit the entry)[/]", highlight=False)


def default_hub_id(manager: Any, record: Any, short_name: str) -> str:
    """The hub id of the exported encoder: its registered configuration's ``hub_id``, else the model id its record
    names (``encoder_identity['name_or_path']`` when it is an ``org/name`` id, not a local path), else the short
    name."""
    import re

    names = [getattr(record, "encoder", None), (getattr(record, "encoder_identity", None) or {}).get("name")]
    registry = manager.encoders()
    for name in names:
        if isinstance(name, str) and name in registry:
            try:
                spec = registry.get(name)
            except Exception:  # noqa: BLE001 - a name two plugins registered: fall through to the record
                continue
            if getattr(spec, "hub_id", ""):
                return str(spec.hub_id)
    named = (getattr(record, "encoder_identity", None) or {}).get("name_or_path")
    if isinstance(named, str) and re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", named) and not Path(named).exists():
        return named
    return short_name
