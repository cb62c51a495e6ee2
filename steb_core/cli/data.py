"""``steb data``: which datasets are on this machine, their counts against the catalogue, how to obtain the rest."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping, Optional

import typer
from rich.table import Table
from . import common


data_app = typer.Typer(help="Check which datasets are on this machine and how to obtain the others.", no_args_is_help=True)
common.app.add_typer(data_app, name="data")


@data_app.command("check")
def data_check(
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Root folder holding datasets (default: $STEB_DATA_DIR)."),
    suite: Optional[str] = typer.Option(None, "--suite", "-s", help="Check the datasets of this suite (default: every registered dataset)."),
    dataset: Optional[list[str]] = typer.Option(None, "--dataset", "-d", help="Check these datasets (repeatable)."),
    fmt: str = common.FormatOpt,
    plugin: Optional[list[str]] = common.PluginOpt,
) -> None:
    """For every selected dataset: is its data here, how many records/classes it loads vs the catalogue, and how to obtain a missing one. Nothing is encoded."""
    from ..catalogue import check_dataset
    from ..runner import resolve_selection

    manager = common.manager(plugin)
    selection = resolve_selection(manager, dataset, suite) if (dataset or suite) else [(s, s.tasks) for s in manager.datasets()]
    shapes = {t.name: t.shape for t in manager.tasks()}
    checks = [check_dataset(spec, data_dir, tasks=tasks, shapes=shapes) for spec, tasks in selection]
    rows = [{"dataset": c.dataset, "status": c.status,
             "loaded": "; ".join(f"{t}: {_counts_text(v)}" for t, v in c.counts.items()),
             "catalogue": "; ".join(f"{t}: {_counts_text(v)}" for t, v in c.expected.items()),
             "message": c.message} for c in checks]
    if common.emit(rows, fmt, "data check"):
        return
    colour = {"ok": "green", "builtin": "green", "differs": "yellow", "missing": "red", "error": "red"}
    # one short row per dataset; what to do about a dataset (how to obtain it, the error, the differing
    # counts) is listed whole below the table, so commands are never split mid-token and can be copied
    notes = [(c.dataset, c.status, " ".join(c.message.split())) for c in checks if c.message]
    numbered = {name: i for i, (name, _, _) in enumerate(notes, start=1)}
    if not common.console.is_terminal:  # piped: one tab-separated line per dataset
        sys.stdout.write("dataset\tstatus\ttexts\tcatalogue texts\tnote\n")
        for c in checks:
            sys.stdout.write("\t".join([c.dataset, c.status, _texts_of(c.counts), _texts_of(c.expected),
                                        f"[{numbered[c.dataset]}]" if c.dataset in numbered else ""]) + "\n")
    else:
        table = Table(title=f"steb data check ({data_dir or '$STEB_DATA_DIR'})", expand=False, box=None, pad_edge=False)
        for col in ("dataset", "status", "texts", "catalogue", "note"):
            table.add_column(col, no_wrap=True, overflow="ellipsis" if col != "dataset" else "fold")
        for c in checks:
            table.add_row(c.dataset, f"[{colour[c.status]}]{c.status}[/]", _texts_of(c.counts), _texts_of(c.expected),
                          f"[{numbered[c.dataset]}]" if c.dataset in numbered else "")
        common.console.print(table)
    if notes:
        common.console.print("")
        common.console.print("notes (how to obtain a missing dataset, errors, counts that differ from the catalogue):", highlight=False)
        for i, (name, status, text) in enumerate(notes, start=1):
            common.console.print(f"[{i}] {name} ({status}): {text}", highlight=False, markup=False, soft_wrap=True)
    counts = {k: sum(1 for c in checks if c.status == k) for k in colour}
    common.console.print(", ".join(f"{v} {k}" for k, v in counts.items() if v), highlight=False)


def _plural(n: Any, word: str) -> str:
    """``1 class``, ``2 classes``, ``- texts`` (unknown)."""
    if n == 1:
        return f"1 {word}"
    return f"{n} {word + 'es' if word.endswith('s') else word + 's'}"


def _counts_text(counts: Any) -> str:
    return f"{_plural(counts.get('classes', '-'), 'class')}, {_plural(counts.get('texts', '-'), 'text')}"


def _texts_of(counts: Any) -> str:
    """The largest text count over a dataset's tasks: one short number per dataset for the table."""
    values = [v.get("texts") for v in counts.values() if isinstance(v, Mapping) and v.get("texts") is not None]
    return str(max(values)) if values else "-"
