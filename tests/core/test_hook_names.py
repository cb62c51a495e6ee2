"""A ``@hookimpl`` that matches no steb hook fails loading with the plugin named (issue 40).

pluggy registers a ``@hookimpl def register_dataset`` (one letter short of ``register_datasets``) without a word
and never calls it, so a plugin with that typo loaded "fine" and registered nothing. steb now runs pluggy's
``check_pending`` as each plugin registers: a plugin the user named (``--plugin``, ``$STEB_PLUGINS``, in memory) is
an error, an installed one is a recorded failure (like one that fails to import) while the others keep working.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from steb_core import DatasetSpec, PluginError, hookimpl, new_manager, register_object, reset_manager

STEB = Path(sys.executable).with_name("steb")

MISSPELT = textwrap.dedent("""
    from steb_core import DatasetBundle, DatasetSpec, LabelledText, hookimpl

    @hookimpl
    def register_dataset(register):  # the hook is register_datasets
        register(DatasetSpec(name="never_seen", description="d", tasks=("clustering",), needs_data=False,
                             loader=lambda ctx: DatasetBundle(labelled_texts=[LabelledText("a", "x")])))
""")


def _installed(monkeypatch: pytest.MonkeyPatch, name: str, module: types.ModuleType) -> None:
    """Make ``module`` the only installed plugin (entry point ``name`` in group ``steb``)."""

    class EntryPoint:
        value, group, dist = module.__name__, "steb", None

        def load(self) -> types.ModuleType:
            return module

    entry = EntryPoint()
    entry.name = name  # type: ignore[attr-defined]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [entry] if group == "steb" else [])


def test_a_named_plugin_with_a_misspelt_hook_is_an_error_naming_it(tmp_path: Path) -> None:
    plugin = tmp_path / "typo_plugin.py"
    plugin.write_text(MISSPELT)
    with pytest.raises(PluginError) as caught:
        new_manager([str(plugin)], entry_points=False, env=False)
    message = str(caught.value)
    assert f"plugin '{plugin}'" in message and str(plugin) in message
    assert "unknown hook 'register_dataset' (did you mean 'register_datasets'?)" in message


def test_an_in_memory_plugin_with_a_misspelt_hook_is_refused() -> None:
    reset_manager()
    module = types.ModuleType("typo_in_memory")

    @hookimpl
    def register_scorer(register):  # type: ignore[no-untyped-def]  # the hook is register_scorers
        raise AssertionError("never called")

    module.register_scorer = register_scorer  # type: ignore[attr-defined]
    try:
        expected = r"plugin 'typo_mem'.*'register_scorer' \(did you mean 'register_scorers'\?\)"
        with pytest.raises(PluginError, match=expected):
            register_object(module, "typo_mem")
        from steb_core import get_manager

        assert get_manager().pm.get_plugin("typo_mem") is None  # not left half-registered
        assert "typo_mem" not in {p.name for p in get_manager().loaded}
    finally:
        reset_manager()


def test_an_installed_plugin_with_a_misspelt_hook_is_a_failure_and_the_rest_works(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = types.ModuleType("typo_installed")
    exec(compile(MISSPELT, "typo_installed.py", "exec"), module.__dict__)  # noqa: S102 - the test's own plugin source
    _installed(monkeypatch, "typo", module)
    manager = new_manager(env=False)
    assert "demo_registers" in manager.datasets() and "never_seen" not in manager.datasets()
    assert "typo" not in {p.name for p in manager.loaded}
    (failure,) = [f for f in manager.failures if f.name == "typo"]
    assert failure.error.startswith("implements unknown hook 'register_dataset' (did you mean 'register_datasets'?)")
    assert "plugin 'typo' (entry point" in failure.detail


def test_an_installed_plugin_whose_hook_arguments_are_wrong_no_longer_stops_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pluggy refuses such a hook in ``register`` itself; that used to escape and stop every plugin loading."""
    module = types.ModuleType("wrong_args_installed")

    @hookimpl
    def register_datasets(reg):  # type: ignore[no-untyped-def]  # the argument is called register
        reg(DatasetSpec(name="never_seen", description="d", tasks=("clustering",), loader=lambda ctx: None))

    module.register_datasets = register_datasets  # type: ignore[attr-defined]
    _installed(monkeypatch, "wrongargs", module)
    manager = new_manager(env=False)
    assert "demo_registers" in manager.datasets() and "never_seen" not in manager.datasets()
    (failure,) = [f for f in manager.failures if f.name == "wrongargs"]
    assert failure.error.startswith("has an invalid hook implementation") and "'reg'" in failure.error


def test_every_plugin_of_the_repository_loads_without_an_unknown_hook() -> None:
    manager = new_manager(env=False)
    assert len(manager.loaded) >= 9 and not manager.failures
    manager.pm.check_pending()  # pluggy's own check over everything loaded


def test_the_cli_names_the_plugin_and_the_hook(tmp_path: Path) -> None:
    plugin = tmp_path / "typo_cli_plugin.py"
    plugin.write_text(MISSPELT)
    proc = subprocess.run([str(STEB), "list", "datasets", "--plugin", str(plugin)], capture_output=True, text=True)
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 2, out
    assert "Traceback" not in proc.stderr
    assert "typo_cli_plugin.py" in out and "did you mean 'register_datasets'?" in out
