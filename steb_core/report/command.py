"""The ``steb report`` command: options live with the report code they drive."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

__all__ = ["report_command"]


def report_command(
    results_dir: Path = typer.Argument(..., help="A results folder written by `steb run` (several encoders merge into one leaderboard)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Where to write report.md, report.csv and report.html (default: RESULTS_DIR/report)."),
    plugin: Optional[list[str]] = typer.Option(None, "--plugin", "-p", help="Local plugin: a module name or a path to a .py file (repeatable)."),
) -> None:
    """Print the leaderboard and write Markdown, CSV and a self-contained HTML report with plots."""
    from ..cli import _manager, console
    from . import build_report

    _manager(plugin)
    paths = build_report(results_dir, out, console=console)
    if paths is not None:
        for label in ("markdown", "csv", "html"):
            value = getattr(paths, label, None)
            if value:
                console.print(f"{label}: {value}")
