"""Test helpers for plugin authors (pytest's ``pytester`` lesson): run steb on your plugin in isolation.

Installed as a pytest plugin (entry point ``pytest11``), so in any project with steb-core installed::

    def test_my_dataset_runs(steb_isolated, tmp_path):
        summary = steb_isolated.run("function-words", ["my_dataset"], plugins=["my_plugin.py"], installed=["stylometry"])
        assert summary.results and not summary.failures

Each use gets a fresh plugin manager (no leakage between tests: installed plugins are loaded only when
named in ``installed=``, environment variables are ignored), a private cache and output folder.
``steb_shared_data`` finds real sample data kept beside a checkout (``../shared/data``) or skips;
``steb_catalogue`` reads the STEB catalogue note beside it (``../shared/notes/steb-catalogue.md``) into
``{(task type, dataset): (classes, per class, texts)}``, so every plugin's suite test parses it one way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest

from . import plugins as _plugins
from .run import RunSummary, evaluate


@dataclass
class IsolatedSteb:
    """A steb sandbox rooted in a temp folder."""

    root: Path

    def manager(self, plugins: Sequence[str] = (), *, installed: Sequence[str] = ()) -> _plugins.StebPlugins:
        """A fresh manager with steb's built-ins, the local ``plugins`` and only the ``installed`` plugins named
        (entry-point or distribution names, e.g. ``["stylometry"]``): nothing else installed in the
        environment leaks in, and ``$STEB_PLUGINS`` / ``$STEB_DISABLE_PLUGINS`` are ignored."""
        return _plugins.use_manager(_plugins.new_manager(plugins, env=False, installed=list(installed)))

    def run(
        self,
        encoder: Any,
        datasets: Sequence[str] | None = None,
        *,
        plugins: Sequence[str] = (),
        installed: Sequence[str] = (),
        **kwargs: Any,
    ) -> RunSummary:
        """:func:`steb_core.evaluate` in the sandbox, with the plugins :meth:`manager` describes."""
        self.manager(plugins, installed=installed)
        kwargs.setdefault("output", self.root / "results")
        kwargs.setdefault("cache_dir", self.root / "cache")
        kwargs.setdefault("progress", False)
        return evaluate(encoder, datasets, plugins=plugins, **kwargs)


@pytest.fixture
def steb_isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[IsolatedSteb]:
    """A fresh plugin manager, cache and results folder for one test."""
    monkeypatch.delenv("STEB_PLUGINS", raising=False)
    _plugins.reset_manager()
    yield IsolatedSteb(tmp_path)
    _plugins.reset_manager()


def find_shared_data(start: Path, relative: str = "shared/data") -> Path | None:
    """The first ``<ancestor>/shared/data`` above ``start`` (a checkout with ``shared/`` beside it), or None."""
    for parent in Path(start).resolve().parents:
        candidate = parent / relative
        if candidate.is_dir():
            return candidate
    return None


@pytest.fixture
def steb_shared_data(request: pytest.FixtureRequest) -> Path:
    """Real sample data in ``../shared/data`` beside the checkout; the test is skipped when it is absent."""
    found = find_shared_data(Path(str(request.path)))
    if found is None:
        pytest.skip("real sample data (../shared/data beside the checkout) is not available")
    return found


#: The catalogue's task headings and steb's task type names.
CATALOGUE_TASKS = {
    "Clustering": "clustering",
    "All-to-All Pair Classification": "pair_all",
    "Pre-Defined Pair Classification": "pair_predefined",
    "Order Alignment": "order_alignment",
    "Retrieval": "retrieval",
    "Probing": "probing",
}


def read_steb_catalogue(path: Path) -> dict[tuple[str, str], tuple[int, int, int]]:
    """``{(task type, dataset): (classes, per class, texts)}`` from the table rows of the STEB catalogue note."""
    rows: dict[tuple[str, str], tuple[int, int, int]] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] in CATALOGUE_TASKS:
            rows[(CATALOGUE_TASKS[cells[0]], cells[1])] = tuple(int(c.replace(",", "")) for c in cells[2:5])  # type: ignore[assignment]
    return rows


@pytest.fixture
def steb_catalogue(steb_shared_data: Path) -> dict[tuple[str, str], tuple[int, int, int]]:
    """The STEB catalogue rows (see :func:`read_steb_catalogue`); skipped when the note is absent."""
    path = steb_shared_data.parent / "notes" / "steb-catalogue.md"
    if not path.is_file():
        pytest.skip("../shared/notes/steb-catalogue.md is absent")
    return read_steb_catalogue(path)
