"""Marks the tests whose results go through torch's CPU kernels or numpy's BLAS, for ``make test-cpus``.

A pytest plugin of this repository (loaded by the root ``conftest.py``). Why: a float comparison that holds
on one CPU kernel and not on another fails on a user's machine and never on the developer's (issue 50: a
test compared log-probabilities of two batch compositions within 1e-9, which torch's avx2 and avx512 kernels
round 1.2e-7 apart). ``tools/test-cpus`` reruns the tests marked here under every ``ATEN_CPU_CAPABILITY``
this CPU has and under two ``OPENBLAS_CORETYPE`` kernels, so such a test fails here first.

The marks are given at collection, from the source of the test's module and of the modules that define the
fixtures it uses, so a new test is covered without anyone remembering to mark it:

- ``torch_kernels``: torch, transformers or sentence-transformers is imported there, or the module lies in
  a plugin whose tests run torch models (the neural encoders, the scorers),
  or it names one of the neural encoders it runs through the CLI. A test can also carry the mark by hand.
- ``blas_kernels``: the module computes figures through numpy's or scipy's BLAS: it scores tasks
  (``steb_core.tasks``, ``evaluate``, ``steb run``), aggregates, or imports scikit-learn or scipy; or it
  names ``OPENBLAS_CORETYPE`` itself.
"""

from __future__ import annotations

import inspect
import re
from functools import cache
from pathlib import Path

import pytest

__all__ = ["BLAS_SOURCE", "TORCH_PLUGIN_TESTS", "TORCH_SOURCE", "blas_touching", "torch_touching"]

#: the source of a module that runs torch: an import of torch or of a package built on it, or the name of a
#: neural encoder a test runs through the CLI or ``evaluate``
TORCH_SOURCE = re.compile(
    r"^\s*(?:import|from)\s+(?:torch|transformers|sentence_transformers)\b"
    r"|importorskip\(\s*[\"'](?:torch|transformers|sentence_transformers)[\"']"
    r"|all-MiniLM-L6-v2|[\"'](?:masked-lm|causal-lm|sentence-transformer)[\"']",
    re.MULTILINE,
)
#: plugin test folders whose tests build and run torch models (tiny ones saved to a temp dir, or MiniLM)
TORCH_PLUGIN_TESTS = ("plugins/steb_models_neural/tests", "plugins/steb_scorers/tests")
#: the source of a module whose figures go through BLAS products (scoring, aggregating, scipy, scikit-learn)
BLAS_SOURCE = re.compile(
    r"steb_core\.tasks|steb_core\.aggregators|\bevaluate\(|[\"']run[\"']|OPENBLAS_CORETYPE"
    r"|^\s*(?:import|from)\s+(?:sklearn|scipy)\b",
    re.MULTILINE,
)


@cache
def _source(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return ""


def _fixture_modules(item: pytest.Item) -> set[str]:
    """The files defining the fixtures ``item`` uses (its conftests and fixture plugins)."""
    info = getattr(item, "_fixtureinfo", None)
    files: set[str] = set()
    for defs in getattr(info, "name2fixturedefs", {}).values():
        for fixturedef in defs:
            func = getattr(fixturedef, "func", None)
            path = inspect.getsourcefile(func) if func is not None else None
            if path and "site-packages" not in path and "_pytest" not in path:
                files.add(path)
    return files


def _item_sources(item: pytest.Item) -> list[str]:
    return [str(item.path), *sorted(_fixture_modules(item))]


def torch_touching(item: pytest.Item, root: Path) -> bool:
    """Whether ``item``'s figures may go through torch's CPU kernels."""
    relative = Path(item.path).resolve().relative_to(root.resolve()).as_posix() if root else str(item.path)
    if relative.startswith(TORCH_PLUGIN_TESTS):
        return True
    return any(TORCH_SOURCE.search(_source(path)) for path in _item_sources(item))


def blas_touching(item: pytest.Item) -> bool:
    """Whether ``item``'s figures may go through numpy's or scipy's BLAS."""
    return bool(BLAS_SOURCE.search(_source(str(item.path))))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "torch_kernels: runs torch on the CPU (rerun under each ATEN_CPU_CAPABILITY)")
    config.addinivalue_line("markers", "blas_kernels: computes figures through BLAS (rerun under OPENBLAS_CORETYPE)")


@pytest.hookimpl(tryfirst=True)  # before -m selects by mark
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(str(config.rootpath))
    for item in items:
        if item.get_closest_marker("torch_kernels") is None and torch_touching(item, root):
            item.add_marker(pytest.mark.torch_kernels)
        if item.get_closest_marker("blas_kernels") is None and blas_touching(item):
            item.add_marker(pytest.mark.blas_kernels)
