"""The ``steb`` command line: list components, run benchmarks, build reports, inspect plugins.

One module per command (``listing``, ``run``, ``cite``, ``data``, ``plugins_cmd``, ``export``, ``import_tree``;
``report`` lives in :mod:`steb_core.report.command`), all sharing :mod:`.common` (the root app, consoles, plugin
manager).
Plugins add sub-commands through the ``register_commands`` hook; ``--plugin`` values on the command
line are loaded *before* the CLI is assembled so local plugins can do that too.
"""

from __future__ import annotations

from .common import app
from .main import build_app, main

__all__ = ["app", "build_app", "main"]
