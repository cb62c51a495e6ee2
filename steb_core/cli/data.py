"""``steb data``: which datasets are on this machine, their counts against the catalogue, how to obtain the rest."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from . import common

data_app = typer.Typer(
    help="Check which datasets are on this machine and how to obtain the others.", no_args_is_help=True
)
common.app.add_typer(data_app, name="data")


@data_app.command("check")
def data_check(
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Root folder holding datasets (default: $STEB_DATA_DIR)."
    ),
    suite: str | None = typer.Option(
        None, "--suite", "-s", help="Check the datasets of this suite (default: every registered dataset)."
    ),
    dataset: list[str] | None = typer.Option(None, "--dataset", "-d", help="Check these datasets (repeatable)."),
    verify: bool = typer.Option(
        True,
        "--verify/--no-verify",
        help="Compare the files of folders steb fetched with the sha256 recorded in their manifest (default: on).",
    ),
    fmt: str = common.FormatOpt,
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """For every selected dataset: is its data here, unchanged since steb fetched it, how many records/classes it
    loads vs the catalogue, and how to obtain a missing one. Nothing is encoded. Exit status 1 when a dataset's
    data is there but fails to load or differs from what steb fetched."""
    from .._catalogue import check_dataset
    from ..run.selection import resolve_selection

    manager = common.manager(plugin)
    selection = (
        resolve_selection(manager, dataset, suite) if (dataset or suite) else [(s, s.tasks) for s in manager.datasets()]
    )
    shapes = {t.name: t.shape for t in manager.tasks()}
    checks = [check_dataset(spec, data_dir, tasks=tasks, shapes=shapes) for spec, tasks in selection]
    if verify:
        verify_fetched([spec for spec, _ in selection], checks, data_dir)
    for (spec, _), c in zip(selection, checks):
        if c.status == "missing" and any(src.kind != "manual" for src in spec.sources):
            c.message = f"steb data get --dataset {spec.name}" + (f" (or by hand: {c.message})" if c.message else "")
    rows = [
        {
            "dataset": c.dataset,
            "status": c.status,
            "release": c.release,
            "loaded": "; ".join(f"{t}: {_counts_text(v)}" for t, v in c.counts.items()),
            "catalogue": "; ".join(f"{t}: {_counts_text(v)}" for t, v in c.expected.items()),
            "message": c.message,
        }
        for c in checks
    ]
    if common.emit(rows, fmt, "data check"):
        _exit_on_errors(checks)
        return
    colour = {"ok": "green", "builtin": "green", "differs": "yellow", "missing": "red", "error": "red"}
    # one short row per dataset; what to do about a dataset (how to obtain it, the error, the differing
    # counts) is listed whole below the table, so commands are never split mid-token and can be copied
    notes = [(c.dataset, c.status, " ".join(c.message.split())) for c in checks if c.message]
    numbered = {name: i for i, (name, _, _) in enumerate(notes, start=1)}
    # classes and texts as loaded / as in the catalogue (STEB Table 15), e.g. "8/8" and "1600/1600"
    columns = ("dataset", "status", "release", "classes", "texts", "note")

    def cells(c: Any) -> list[str]:
        return [
            c.dataset,
            c.status,
            c.release or "-",
            f"{_largest(c.counts, 'classes')}/{_largest(c.expected, 'classes')}",
            f"{_largest(c.counts, 'texts')}/{_largest(c.expected, 'texts')}",
            f"[{numbered[c.dataset]}]" if c.dataset in numbered else "",
        ]

    if not common.console.is_terminal:  # piped: one tab-separated line per dataset
        sys.stdout.write("\t".join(columns) + "\n")
        for c in checks:
            sys.stdout.write("\t".join(cells(c)) + "\n")
    else:
        table = Table(
            title=f"steb data check ({data_dir or '$STEB_DATA_DIR'}): classes and texts loaded/catalogue (STEB Table "
            "15)",
            expand=False,
            box=None,
            pad_edge=False,
        )
        for col in columns:
            table.add_column(
                col,
                no_wrap=True,
                overflow="ellipsis" if col != "dataset" else "fold",
                max_width=14 if col == "release" else None,
            )
        for c in checks:
            row = cells(c)
            row[1] = f"[{colour[c.status]}]{c.status}[/]"
            table.add_row(*row)
        common.console.print(table)
    if notes:
        common.console.print("")
        common.console.print(
            "notes (how to obtain a missing dataset, errors, counts that differ from the catalogue):", highlight=False
        )
        for i, (name, status, text) in enumerate(notes, start=1):
            common.console.print(f"[{i}] {name} ({status}): {text}", highlight=False, markup=False, soft_wrap=True)
    counts = {k: sum(1 for c in checks if c.status == k) for k in colour}
    common.console.print(", ".join(f"{v} {k}" for k, v in counts.items() if v), highlight=False)
    _exit_on_errors(checks)


def _exit_on_errors(checks: list[Any]) -> None:
    """Exit 1 when a dataset failed to load or its fetched files changed (issue 41: the check exited 0); missing
    data or counts that differ from the catalogue are findings the table reports, not errors."""
    failed = [c.dataset for c in checks if c.status == "error"]
    if failed:
        plural = "s" if len(failed) != 1 else ""
        common.err_console.print(
            f"[red]error:[/] {len(failed)} dataset{plural} failed to load or verify: {', '.join(failed)}",
            highlight=False,
        )
        raise typer.Exit(1)


def verify_fetched(specs: list[Any], checks: list[Any], data_dir: Path | None) -> None:
    """Mark a dataset "error" when a folder steb fetched for it no longer matches its manifest (a changed,
    missing or replaced file; for sources without a published checksum this is the trust-on-first-use check)."""
    import os

    from ..obtain.plan import present_folder, target_of
    from ..obtain.verify import verify_folder

    root = data_dir or (Path(os.environ["STEB_DATA_DIR"]) if os.environ.get("STEB_DATA_DIR") else None)
    if root is None:
        return
    seen: dict[str, list[str] | None] = {}
    for spec, check in zip(specs, checks):
        problems = []
        for target in dict.fromkeys(target_of(spec, s) for s in spec.sources if s.kind != "manual"):
            folder = present_folder(root, target)
            if folder is None:
                continue
            if str(folder) not in seen:
                seen[str(folder)] = verify_folder(folder)
            problems += [f"{folder}/{p}" for p in seen[str(folder)] or []]
        if problems:
            check.status = "error"
            check.message = (
                f"{len(problems)} file(s) differ from the manifest steb wrote when it fetched them: "
                + "; ".join(problems[:5])
                + ("; ..." if len(problems) > 5 else "")
                + f". Fetch again with: steb data get --dataset {spec.name} --force"
                + (f". {check.message}" if check.message else "")
            )


def _plural(n: Any, word: str) -> str:
    """``1 class``, ``2 classes``, ``- texts`` (unknown)."""
    if n == 1:
        return f"1 {word}"
    return f"{n} {word + 'es' if word.endswith('s') else word + 's'}"


def _counts_text(counts: Any) -> str:
    return f"{_plural(counts.get('classes', '-'), 'class')}, {_plural(counts.get('texts', '-'), 'text')}"


def _largest(counts: Any, key: str) -> str:
    """The largest ``key`` count (classes or texts) over a dataset's tasks: one short number per dataset."""
    values = [n for v in counts.values() if isinstance(v, Mapping) and (n := v.get(key)) is not None]
    return str(max(values)) if values else "-"
