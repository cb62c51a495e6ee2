"""Renamed modules (issue 40): the old import paths still work for one release, warn, and nothing here uses them.

``parallel`` held parallel corpora, ``pipeline`` the prefetching of datasets, ``generic`` the loading of
datasets from one table; the new names say so. Each old path is the new module itself, so private names and
monkeypatching through it reach the real code.
"""

from __future__ import annotations

import importlib
import sys

import pytest

from tests.support.import_graph import REPO, imports_in, python_files

MOVED = {
    "steb_core.parallel": "steb_core.parallel_corpora",
    "steb_core.pipeline": "steb_core.prefetch",
    "steb_core.generic": "steb_core.tables",
}
#: old paths nothing in the repository may import any more (the run engine's own stub included)
OLD_PATHS = {*MOVED, "steb_core.runner"}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_path_warns_and_is_the_new_module(old: str, new: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module(new)
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"{old} is now {new}"):
        again = importlib.import_module(old)
    assert again is module
    assert sys.modules[old] is module
    name = next(n for n in module.__all__ if not n.isupper())
    assert getattr(again, name) is getattr(module, name)


def test_nothing_in_the_repository_imports_an_old_path() -> None:
    stubs = {REPO / "steb_core" / f"{old.rsplit('.', 1)[1]}.py" for old in OLD_PATHS}
    found = []
    for path in python_files(REPO):
        if path in stubs:
            continue
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        for statement in imports_in(path, module):
            target = statement.module
            if statement.name is not None and f"{target}.{statement.name}" in OLD_PATHS:
                target = f"{target}.{statement.name}"
            if target in OLD_PATHS:
                found.append(f"{path.relative_to(REPO)}:{statement.line} imports {target}")
    assert not found, "\n".join(found)
