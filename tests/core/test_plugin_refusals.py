"""Issue 29, item 7 (plugins): a plugin cannot replace a command, and ``-p`` mistakes are said, not ignored.

- a plugin registering ``steb list`` or ``steb run`` used to replace steb's own command silently (typer
  keeps the last command of a name); two plugins adding the same new command likewise;
- ``-p no:TYPO`` switched nothing off and said nothing; ``-p no:steb_core.builtin`` was listed as
  switched off while the built-ins kept running;
- a folder given as a plugin got "file does not exist", or (by module name, without ``__init__.py``)
  imported as an empty namespace package that registered nothing.
"""

from __future__ import annotations

import sys

import pytest
import typer
from typer.testing import CliRunner

from steb_core import PluginError
from steb_core import _plugins as plugins_module
from steb_core._plugins import new_manager
from steb_core.cli import main

HIJACK = """
from steb_core import hookimpl

@hookimpl
def register_commands(cli):
    @cli.command("list")
    def hijacked_list():
        print("HIJACKED LIST")

    @cli.command("run")
    def hijacked_run():
        print("HIJACKED RUN")

    @cli.command("{extra}")
    def extra_command():
        print("EXTRA FROM {tag}")
"""


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.command("list")
    def list_() -> None:
        print("REAL LIST")

    @app.command("run")
    def run() -> None:
        print("REAL RUN")

    return app


def test_a_plugin_cannot_replace_a_builtin_command_and_two_plugins_cannot_share_one(tmp_path):
    first, second = tmp_path / "first_plugin.py", tmp_path / "second_plugin.py"
    first.write_text(HIJACK.format(extra="shared-extra", tag="first"))
    second.write_text(HIJACK.format(extra="shared-extra", tag="second"))
    manager = new_manager([str(first), str(second)], entry_points=False, env=False)
    app = _app()
    manager.add_commands(app)
    runner = CliRunner()
    assert "REAL LIST" in runner.invoke(app, ["list"]).output
    assert "REAL RUN" in runner.invoke(app, ["run"]).output
    assert runner.invoke(app, ["shared-extra"]).output in (
        "EXTRA FROM first\n",
        "EXTRA FROM second\n",
    )  # one of them, not both
    errors = [f.error for f in manager.failures]
    assert any("'steb list' is already provided by steb" in e and str(first) in e for e in errors), errors
    assert any("'steb run' is already provided by steb" in e and str(second) in e for e in errors), errors
    assert any(
        "'steb shared-extra' is already provided by plugin" in e and str(first) in e and str(second) in e
        for e in errors
    ), errors


def test_no_typo_says_there_is_no_such_plugin(capsys):
    with pytest.raises(PluginError, match="no plugin named 'stylometri'"):
        new_manager(["no:stylometri"], env=False)
    new_manager(["no:stylometry"], env=False)  # an installed one is fine
    plugins_module.reset_manager()
    with pytest.raises(SystemExit) as info:
        main(["plugins", "-p", "no:stylometri"])
    assert info.value.code == 2 and "no plugin named 'stylometri'" in capsys.readouterr().err


def test_a_builtin_plugin_cannot_be_switched_off(capsys):
    with pytest.raises(PluginError, match="built into steb and cannot be switched off"):
        new_manager(["no:steb_core.builtin"], env=False, entry_points=False)
    plugins_module.reset_manager()
    with pytest.raises(SystemExit) as info:
        main(["plugins", "-p", "no:steb_core.builtin"])
    captured = capsys.readouterr()
    assert info.value.code == 2 and "cannot be switched off" in captured.err and "switched off:" not in captured.out


def test_a_folder_given_as_plugin_gets_its_own_message(tmp_path, monkeypatch):
    folder = tmp_path / "steb_test_plain_folder"
    folder.mkdir()
    (folder / "encoders.py").write_text("")
    with pytest.raises(PluginError, match="is a folder"):
        new_manager([str(folder)], entry_points=False, env=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(PluginError, match="folder without __init__.py"):
            new_manager([folder.name], entry_points=False, env=False)
    finally:
        sys.modules.pop(folder.name, None)  # the namespace package must not outlive the test
