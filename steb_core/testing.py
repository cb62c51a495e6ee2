"""Test helpers for plugin authors (pytest's ``pytester`` lesson): run steb on your plugin in isolation.

Installed as a pytest plugin (entry point ``pytest11``), so in any project with steb-core installed::

    def test_my_dataset_runs(steb_isolated, tmp_path):
        summary = steb_isolated.run("function-words", ["my_dataset"], plugins=["my_plugin.py"],
        installed=["stylometry"])
        assert summary.results and not summary.failures

Each use gets a fresh plugin manager (no leakage between tests: installed plugins are loaded only when
named in ``installed=``, environment variables are ignored), a private cache and output folder.

The contract checks (scikit-learn's ``check_estimator``) run the rules every steb component keeps on yours::

    from steb_core.testing import check_dataset_spec, check_encoder, check_task_spec

    def test_my_components(tmp_path):
        check_dataset_spec(MY_DATASET, data_dir=write_release(tmp_path))
        check_declared_reads(MY_DATASET, tmp_path)  # the release under tmp_path: reads only what files= declares
        check_encoder(MY_ENCODER_SPEC)
        check_task_spec(MY_TASK)

Only what a plugin author needs ships here; the repository's own test support (a fake hub/HTTP server, fixtures
for the sample data beside the checkout) lives in its ``tests/support/``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from . import RunSummary, evaluate
from . import _plugins as _plugins
from ._contract import (
    CHECK_TEXTS,
    check_dataset_spec,
    check_declared_reads,
    check_encoder,
    check_task_spec,
    cut_to_declared,
)

__all__ = [
    "IsolatedSteb",
    "steb_isolated",
    "check_dataset_spec",
    "check_declared_reads",
    "cut_to_declared",
    "check_encoder",
    "check_task_spec",
    "CHECK_TEXTS",
]


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
