"""What a task runs with in phase 4, score: its records and the encoder's view of their texts.

A task sees the run's vectors through an ``embed`` function (rows gathered from the dataset's matrix,
densified for tasks that cannot take sparse rows), the encoder's own ``similarity`` or
``encode_collections`` when it has them (the latter behind the run's cache), the seed, the options,
the BLAS thread count and the encoder's device and scoring modes (:class:`~steb_core._context.TaskContext`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from .._cache import CachedCollections, EmbeddingCache
from .._context import TaskContext
from .._encoders import encoder_device
from .._specs import TaskSpec
from .encoder_setup import RunEncoder
from .load import Loaded
from .settings import RunSettings

__all__ = ["collections_fn", "embedder", "task_context"]


def task_context(
    settings: RunSettings,
    encoder: RunEncoder,
    loaded: Loaded,
    task: TaskSpec,
    *,
    embed: Callable[[Sequence[str]], Any] | None,
    cache: EmbeddingCache | None,
    threads: int | None,
) -> TaskContext:
    """The context ``task`` runs in on ``loaded``'s records."""
    obj = encoder.obj
    return TaskContext(
        dataset=loaded.pending.spec,
        bundle=loaded.bundle,
        data=loaded.bundle.get(task.shape),
        seed=settings.seed,
        options=dict(settings.task_options),
        embed_fn=embed,
        similarity_fn=obj.similarity if encoder.own_similarity else None,
        collections_fn=collections_fn(encoder, settings, cache),
        threads=threads,
        device=encoder_device(obj),
        scoring=dict(encoder.scoring),
    )


def collections_fn(
    encoder: RunEncoder, settings: RunSettings, cache: EmbeddingCache | None
) -> Callable[..., Any] | None:
    """The encoder's own multi-text embedding, given the run's long-text protocol when it takes one,
    behind the run's cache (each distinct collection encoded once per model and protocol)."""
    fn = getattr(encoder.obj, "encode_collections", None)
    if fn is None:
        return None
    try:
        takes_protocol = "protocol" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        takes_protocol = False
    fn = partial(fn, protocol=settings.protocol) if takes_protocol else fn
    return fn if cache is None else CachedCollections(fn, cache)


def embedder(matrix: Any, row_of: dict[str, int], *, densify: bool) -> Callable[[Sequence[str]], Any]:
    """``embed(texts)``: the rows of ``matrix`` for ``texts`` (``row_of``: text -> row), dense when ``densify``."""

    def embed(batch: Sequence[str]) -> Any:
        rows = matrix[np.fromiter((row_of[t] for t in batch), dtype=np.int64, count=len(batch))]
        return rows.toarray() if densify else rows

    return embed
