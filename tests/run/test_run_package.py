"""Issue 40: the run engine is a package a newcomer reads in one sitting.

``steb_core/run/``: every module under 300 lines, opening with a docstring that says its one job; the
settings of a run are one frozen object. The old ``steb_core.runner`` alias is gone (``test_moved_modules.py``).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import pytest

import steb_core

RUN = Path(steb_core.__file__).parent / "run"


@pytest.mark.parametrize("path", sorted(RUN.glob("*.py")), ids=lambda p: p.name)
def test_each_run_module_is_short_and_says_its_job(path):
    lines = path.read_text().splitlines()
    assert len(lines) < 300, f"{path.name} has {len(lines)} lines; split it by what it does"
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc and len(doc.split()) >= 8, f"{path.name} opens with no docstring saying its one job"
    assert max(map(len, lines)) <= 120, f"{path.name} has a line over 120 characters"


def test_the_run_package_holds_the_engine():
    assert len(list(RUN.glob("*.py"))) >= 8


def test_run_settings_are_one_frozen_object():
    from steb_core.run import RunSettings
    from steb_core.run.engine import Engine

    assert dataclasses.is_dataclass(RunSettings) and RunSettings.__dataclass_params__.frozen
    settings = RunSettings(output_dir=Path("out"), protocol=steb_core.LongTextProtocol("truncate", 8))
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.overwrite = True  # type: ignore[misc]
    params = list(inspect.signature(Engine.__init__).parameters)
    assert params == ["self", "plugins", "settings", "encoder", "summary"]  # no keyword sprawl
