"""Fixtures for the task tests: TaskContexts built directly (no runner) from records and vectors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from steb_core import DatasetBundle, DatasetSpec, TaskContext


class TableEncoder:
    """Vectors looked up in a text -> vector table; counts the texts it is asked for."""

    def __init__(self, table: Mapping[str, np.ndarray]):
        self.table = {k: np.asarray(v, dtype=np.float32) for k, v in table.items()}
        self.calls: list[int] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


def build_context(
    shape: str,
    data: Any,
    *,
    embed: Callable[[Sequence[str]], np.ndarray] | None = None,
    similarity: Callable[[Sequence[str], Sequence[str]], np.ndarray] | None = None,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> TaskContext:
    spec = DatasetSpec(
        name="test", description="test", tasks=("clustering",), loader=lambda ctx: None, needs_data=False
    )
    bundle = DatasetBundle(**{shape: data})
    return TaskContext(
        dataset=spec,
        bundle=bundle,
        data=data,
        seed=seed,
        options=dict(options or {}),
        embed_fn=embed,
        similarity_fn=similarity,
    )


@pytest.fixture
def make_ctx():
    return build_context


@pytest.fixture
def table_encoder():
    return TableEncoder


@pytest.fixture
def shared_data(steb_shared_data) -> Path:
    """../shared/data beside the checkout (skips when absent)."""
    return steb_shared_data
