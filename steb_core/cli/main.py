"""The ``steb`` entry point: assemble the root app (built-in and plugin commands) and run it."""

from __future__ import annotations

import os
import sys

import typer
from rich.markup import escape

from .._errors import StebError
from .._plugins import get_manager
from ..report.command import compare_command, export_clusters_command, report_command

# importing a command module registers its commands
from . import (  # noqa: F401
    cite,
    common,
    data,
    data_get,
    export,
    import_tree,
    listing,
    models,
    plugins_cmd,
    run,
    submit,
)
from .common import app

app.command("report")(report_command)
app.command("export-clusters")(export_clusters_command)
app.command("compare")(compare_command)


def version_line() -> str:
    """``steb --version``: the installed steb-core and the STEB protocol it implements (what a result records)."""
    from .. import __version__
    from .._specs import STEB_PROTOCOL_VERSION

    return f"steb-core {__version__}; STEB protocol {STEB_PROTOCOL_VERSION}"


def _print_version(value: bool) -> None:
    if value:
        common.console.print(version_line(), highlight=False, markup=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print steb-core's version and the STEB protocol version, then exit.",
    ),
) -> None:
    # no docstring: the root app's help (common.app) stays the one help text
    return None


def _preload_plugins(argv: list[str]) -> list[str]:
    """``--plugin`` values from argv, so their commands exist before typer parses the command line."""
    found: list[str] = []
    for i, arg in enumerate(argv):
        if arg in ("--plugin", "-p") and i + 1 < len(argv):
            found.append(argv[i + 1])
        elif arg.startswith("--plugin="):
            found.append(arg.split("=", 1)[1])
    return found


def build_app(argv: list[str] | None = None) -> typer.Typer:
    """The root app with plugin commands added (plugins may add commands only once per process)."""
    manager = get_manager(_preload_plugins(list(argv if argv is not None else sys.argv[1:])))
    if not getattr(app, "_steb_commands_added", False):
        manager.add_commands(app)
        app._steb_commands_added = True  # type: ignore[attr-defined]
    return app


def main(argv: list[str] | None = None) -> None:
    """Console entry point: StebErrors become one readable line and exit status 2."""
    try:
        cli = build_app(argv)
        cli(args=argv, prog_name="steb", standalone_mode=True)
    except StebError as exc:
        common.err_console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(2)
    except Exception as exc:  # a bug or an unexpected library error: one line, the traceback on request
        if os.environ.get("STEB_TRACEBACK"):
            raise
        common.err_console.print(
            f"[red]error:[/] {type(exc).__name__}: {escape(str(exc))} "
            "(unexpected; set STEB_TRACEBACK=1 to see the traceback)",
            highlight=False,
        )
        sys.exit(1)
