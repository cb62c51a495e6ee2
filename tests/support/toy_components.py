"""Toy components and fixtures for the core's and the run engine's tests (tests/core/, tests/run/).

A clean plugin manager per test, an encoder that counts what it is asked to encode (cache tests) and a local
plugin file of toy datasets and tasks. Each folder's conftest imports the fixtures from here, so both folders
share one definition.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from steb_core import _plugins as plugins_module


@pytest.fixture(autouse=True)
def clean_manager(monkeypatch):
    """Every test starts with a fresh plugin manager and no $STEB_PLUGINS."""
    monkeypatch.delenv("STEB_PLUGINS", raising=False)
    plugins_module.reset_manager()
    yield
    plugins_module.reset_manager()


class CountingEncoder:
    """Bag-of-characters vectors; counts how many texts it was asked to encode (cache tests)."""

    name = "counting"

    def __init__(self, fail_after: int | None = None) -> None:
        self.calls = 0
        self.texts_seen: list[str] = []
        self.fail_after = fail_after

    def fingerprint(self) -> str:
        return "counting-v1"

    def encode(self, texts):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated Ctrl-C")
        self.calls += 1
        self.texts_seen.extend(texts)
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for i, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    out[i, ord(ch) - 97] += 1
        return out + 0.01


@pytest.fixture
def counting_encoder():
    return CountingEncoder()


TOY_PLUGIN = """
import numpy as np
from steb_core import hookimpl, DatasetSpec, TaskSpec, DatasetBundle, LabelledText

def _load(ctx):
    texts = [LabelledText(f"text number {{i}} " + "abc" * (i % 5 + 1), "even" if i % 2 == 0 else "odd",
        id=str(i)) for i in range({n})]
    # a duplicate text across records, deduplicated by the runner
    texts.append(LabelledText("text number 0 abc", "even", id="dup"))
    return DatasetBundle(labelled_texts=texts, info={{"n": {n}}})

def _mean_norm(ctx):
    vectors = ctx.embed([r.text for r in ctx.data])
    return {{"mean_norm": float(np.linalg.norm(vectors, axis=1).mean()), "n": len(ctx.data)}}

@hookimpl
def register_datasets(register):
    for k in range({datasets}):
        register(DatasetSpec(name=f"toy{{k}}", description="toy dataset", tasks=("toy_task", "toy_task2"),
            loader=_load, suites=("toy",), needs_data=False))

@hookimpl
def register_tasks(register):
    register(TaskSpec(name="toy_task", description="mean vector norm", shape="labelled_texts",
        main_metric="mean_norm", run=_mean_norm))
    register(TaskSpec(name="toy_task2", description="mean vector norm again", shape="labelled_texts",
        main_metric="mean_norm", run=_mean_norm, version="2"))
"""


@pytest.fixture
def toy_plugin(tmp_path) -> Path:
    """A local plugin file registering 3 toy datasets (suite 'toy') and two toy tasks."""
    path = tmp_path / "toy_plugin.py"
    path.write_text(TOY_PLUGIN.format(n=40, datasets=3))
    return path
