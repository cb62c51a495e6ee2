"""Every registered scorer declares ``steb_core.Scorer`` (issue 40): one ``score`` signature, checked by type checkers
instead of repeated by hand in 18 classes."""

from __future__ import annotations

import importlib
import inspect

import pytest

from steb_core import Scorer, ScoreResult
from steb_scorers.plugin import SCORERS

PARAMETERS = ["self", "sources", "outputs", "references", "target_style"]


def _built_class(spec) -> type:  # type: ignore[no-untyped-def]
    """The class a spec's lazy factory builds, read from the factory's closure (without building it: no model)."""
    cells = dict(zip(spec.factory.__code__.co_freevars, (c.cell_contents for c in spec.factory.__closure__)))
    return getattr(importlib.import_module(f"steb_scorers.{cells['module']}"), cells["attr"])


@pytest.mark.parametrize("spec", SCORERS, ids=lambda s: s.name)
def test_each_scorer_declares_the_protocol(spec) -> None:  # type: ignore[no-untyped-def]
    cls = _built_class(spec)
    assert Scorer in cls.__mro__, f"{cls.__qualname__} does not subclass steb_core.Scorer"
    signature = inspect.signature(cls.score)
    assert list(signature.parameters) == PARAMETERS
    assert all(signature.parameters[p].default is None for p in ("references", "target_style"))


def test_a_built_scorer_satisfies_the_protocol_at_run_time() -> None:
    from steb_core import get_manager

    scorer = get_manager().scorers().get("chrf").factory()
    assert isinstance(scorer, Scorer)
    result = scorer.score(["the cat sat"], ["the cat sat down"], references=["the cat sat"])
    assert isinstance(result, ScoreResult) and len(result) == 1
