"""Issue 40: the run engine is a package a newcomer reads in one sitting, and the old import path still works.

``steb_core/run/``: every module under 300 lines, opening with a docstring that says its one job; the
settings of a run are one frozen object. ``steb_core.runner`` (one release more) warns and gives the same
objects as the new modules, so plugins and scripts that import from it keep working (that nothing in the
repository still imports it: ``test_moved_modules.py``).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import sys
import warnings
from pathlib import Path

import pytest

import steb_core

RUN = Path(steb_core.__file__).parent / "run"
#: what ``steb_core.runner`` held that callers outside it imported or may import (its ``__all__`` and the
#: public helpers the CLI, the catalogue, the results tree and tests used)
OLD_NAMES = {
    "evaluate": "steb_core.run.api",
    "RunSummary": "steb_core.run.summary",
    "Failure": "steb_core.run.summary",
    "MissingData": "steb_core.run.summary",
    "RunFailed": "steb_core.run.summary",
    "ERRORS": "steb_core.run.summary",
    "resolve_datasets": "steb_core.run.selection",
    "resolve_selection": "steb_core.run.selection",
    "suite_members": "steb_core.run.selection",
    "known_suites": "steb_core.run.selection",
    "refused_suite_members": "steb_core.run.selection",
    "parse_memory": "steb_core.run.order",
    "execution_order": "steb_core.run.order",
    "size_hint": "steb_core.run.order",
    "CHEAP_TO_SCORE": "steb_core.run.order",
    "dataset_meta": "steb_core.run.stored",
    "describe_failure": "steb_core.run.summary",
    "unregistered_reason": "steb_core.run.plan",
    "loader_exit_message": "steb_core.run.load",
    "worker_death_message": "steb_core.run.load",
}


@pytest.mark.parametrize("path", sorted(RUN.glob("*.py")), ids=lambda p: p.name)
def test_each_run_module_is_short_and_says_its_job(path):
    lines = path.read_text().splitlines()
    assert len(lines) < 300, f"{path.name} has {len(lines)} lines; split it by what it does"
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and len(doc.split()) >= 8, f"{path.name} opens with no docstring saying its one job"
    assert max(map(len, lines)) <= 120, f"{path.name} has a line over 120 characters"


def test_the_run_package_holds_the_engine_and_the_old_module_is_an_alias():
    assert len(list(RUN.glob("*.py"))) >= 8
    runner = Path(steb_core.__file__).with_name("runner.py").read_text()
    assert len(runner.splitlines()) < 80 and "def " not in runner and "class " not in runner


def test_run_settings_are_one_frozen_object():
    from steb_core.run import RunSettings
    from steb_core.run.engine import Engine

    assert dataclasses.is_dataclass(RunSettings) and RunSettings.__dataclass_params__.frozen
    settings = RunSettings(output_dir=Path("out"), protocol=steb_core.LongTextProtocol("truncate", 8))
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.overwrite = True  # type: ignore[misc]
    params = list(inspect.signature(Engine.__init__).parameters)
    assert params == ["self", "plugins", "settings", "encoder", "summary"]  # no keyword sprawl


def test_the_old_import_path_warns_and_gives_the_same_objects():
    sys.modules.pop("steb_core.runner", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runner = importlib.import_module("steb_core.runner")
    assert any(issubclass(w.category, DeprecationWarning) and "steb_core.run" in str(w.message) for w in caught)
    for name, module in OLD_NAMES.items():
        assert getattr(runner, name) is getattr(importlib.import_module(module), name), name
    assert sorted(runner.__all__) == sorted(OLD_NAMES)
    assert steb_core.evaluate is runner.evaluate and steb_core.RunSummary is runner.RunSummary
