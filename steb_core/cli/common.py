"""What every ``steb`` command shares: the root Typer app, the consoles, the plugin manager, option helpers.

Command modules import this module (``from . import common``) and use ``common.console`` so that a
test can swap the consoles in one place.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from .._errors import StebError
from .._plugins import KINDS, StebPlugins, get_manager

__all__ = [
    "app",
    "console",
    "err_console",
    "PluginOpt",
    "FormatOpt",
    "LIST_KINDS",
    "manager",
    "emit",
    "parse_options",
    "quiet_third_party_progress",
]


def _console(stderr: bool = False) -> Console:
    """A console that wraps to the terminal, and does not wrap at all when piped (scripts, grep, files)."""
    stream = sys.stderr if stderr else sys.stdout
    tty = hasattr(stream, "isatty") and stream.isatty()
    return Console(stderr=stderr, soft_wrap=not tty, width=None if tty else 100_000)


console = _console()
err_console = _console(stderr=True)

app = typer.Typer(
    name="steb",
    help=(
        "steb: benchmark how well text representations and metrics capture linguistic style.\n\n"
        "Typical use: `steb list datasets`, then `steb run --encoder function-words --suite demo`, "
        "then `steb report steb-results`. Plugins (pip-installed, --plugin MODULE_OR_FILE, or "
        "$STEB_PLUGINS) add datasets, encoders, tasks, aggregators, scorers and commands."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

PluginOpt = typer.Option(
    None,
    "--plugin",
    "-p",
    help="Local plugin: a module name or a path to a .py file (repeatable); `-p no:NAME` switches an installed plugin "
    "off "
    "(also $STEB_DISABLE_PLUGINS=NAME,...). A named plugin that fails to load is an error.",
)

LIST_KINDS = {
    "datasets": "dataset",
    "encoders": "encoder",
    "tasks": "task",
    "aggregators": "aggregator",
    "scorers": "scorer",
    "judgement-sets": "judgement_set",
    "feature-extractors": "feature_extractor",
    "executors": "executor",
    "benchmarks": "benchmark",
}


def manager(plugins: list[str] | None) -> StebPlugins:
    """The plugin manager with ``--plugin`` values loaded; installed-plugin failures are warned about once."""
    manager = get_manager(plugins or ())
    for kind in KINDS:  # build every registry now so hook failures and collisions are reported up front
        manager.registry(kind)
    for failure in manager.failures:
        key = (failure.name, failure.source, failure.error)
        if key not in manager.reported:
            manager.reported.add(key)
            err_console.print(
                f"[yellow]warning:[/] plugin '{escape(failure.name)}' ({escape(str(failure.source))}) failed: "
                f"{escape(str(failure.error))}",
                highlight=False,
            )
    return manager


def emit(rows: list[dict[str, Any]], fmt: str, title: str) -> bool:
    """Print rows as JSON or CSV for scripts; False when ``fmt`` is the human ``table``."""
    if fmt == "table":
        return False
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps(rows, indent=2, default=str) + "\n")
        return True
    if fmt == "csv":
        import csv

        columns = list(dict.fromkeys(k for row in rows for k in row))
        writer = csv.DictWriter(sys.stdout, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "; ".join(map(str, v)) if isinstance(v, list) else v for k, v in row.items()})
        return True
    raise StebError(f"unknown --format '{fmt}' for {title}; choose table, json or csv")


FormatOpt = typer.Option("table", "--format", "-f", help="table (for people), json or csv (for scripts).")


def parse_options(values: list[str] | None, what: str) -> dict[str, Any]:
    """``key=value`` pairs; values are parsed as JSON when possible (numbers, booleans, lists)."""
    import json

    out: dict[str, Any] = {}
    for item in values or []:
        if "=" not in item:
            raise StebError(f"{what} option '{item}' is not of the form key=value")
        key, raw = item.split("=", 1)
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def quiet_third_party_progress() -> None:
    """Switch off the progress bars of huggingface_hub, tqdm and transformers ("Loading weights")."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    if "transformers" in sys.modules:  # already imported (a plugin did): the environment is read too late
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        except Exception:  # noqa: BLE001 - an old or partial transformers: the variables above still apply to new imports
            pass
