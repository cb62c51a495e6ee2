"""Renamed modules (issues 40 and 48): the old import paths, kept for one release, are gone, and nothing uses them.

``parallel`` held parallel corpora, ``pipeline`` the prefetching of datasets, ``generic`` the loading of
datasets from one table and ``runner`` the run engine; their new homes say what they hold. After their release
of warnings the aliases were removed (issue 48 item 6): importing an old path fails, naming no module that exists.
"""

from __future__ import annotations

import importlib
import sys

import pytest

from tests.support.import_graph import REPO, imports_in, python_files

MOVED = {
    "steb_core.parallel": "steb_core._parallel_corpora",
    "steb_core.pipeline": "steb_core._prefetch",
    "steb_core.generic": "steb_core._tables",
    "steb_core.runner": "steb_core.run",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_the_old_path_is_gone_and_the_new_one_imports(old: str, new: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    assert importlib.import_module(new).__all__
    assert not (REPO / "steb_core" / f"{old.rsplit('.', 1)[1]}.py").exists()
    assert not (REPO / "steb_core" / "_moved.py").exists()


def test_the_old_table_of_cheap_task_types_is_gone() -> None:
    # CHEAP_TO_SCORE went with steb_core.runner: the task specs say it (TaskSpec.cheap_to_score)
    order = importlib.import_module("steb_core.run.order")
    assert not hasattr(order, "CHEAP_TO_SCORE")
    assert "order_alignment" in order.cheap_task_types()


def test_nothing_in_the_repository_imports_an_old_path() -> None:
    found = []
    for path in python_files(REPO):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        for statement in imports_in(path, module):
            target = statement.module
            if statement.name is not None and f"{target}.{statement.name}" in MOVED:
                target = f"{target}.{statement.name}"
            if target in MOVED:
                found.append(f"{path.relative_to(REPO)}:{statement.line} imports {target}")
    assert not found, "\n".join(found)
