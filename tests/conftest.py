"""Fixtures shared by the test folders under tests/."""

from __future__ import annotations

import pytest


@pytest.fixture
def wide_cli_console(monkeypatch):
    """The CLI's consoles at 250 columns: tables wrap at the terminal width, and tests read names whole."""
    from rich.console import Console

    from steb_core.cli import common

    monkeypatch.setattr(common, "console", Console(width=250))
    monkeypatch.setattr(common, "err_console", Console(width=250, stderr=True))
