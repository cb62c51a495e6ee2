"""What a run was asked to do, fixed before it starts: :class:`RunSettings`, and the checks of its values.

The engine reads every choice from one frozen object instead of a constructor's twenty keywords and
attributes bound after construction; :func:`steb_core.evaluate` keeps its keyword signature and builds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._cache import default_cache_dir
from .._errors import StebError
from .._executors import Executor
from .._longtext import LongTextProtocol
from .._prefetch import PREFETCH_MODES
from .._specs import DEFAULT_SEED

__all__ = ["RunSettings", "check_batch_tokens", "check_prefetch"]


@dataclass(frozen=True)
class RunSettings:
    """The choices of one :func:`steb_core.evaluate` call that the engine acts on (checked values; see
    ``evaluate`` for what each one means). ``dataset_options`` go to the loaders, ``task_options`` (flat
    ``<task>.<name>`` keys) to the tasks; a run key holds the ones its result depends on
    (:func:`~.option_use.key_options`), so the engine never changes them."""

    output_dir: Path
    protocol: LongTextProtocol
    seed: int = DEFAULT_SEED
    data_dir: str | Path | None = None
    #: the embedding cache's root; None: ``$STEB_CACHE_DIR`` or ``~/.cache/steb/embeddings``
    cache_dir: str | Path | None = None
    dataset_options: dict[str, Any] = field(default_factory=dict)
    task_options: dict[str, Any] = field(default_factory=dict)
    executor: str | Executor = "local"
    executor_options: Mapping[str, Any] = field(default_factory=dict)
    batch_size: int = 1024
    #: padded tokens per encoding batch (``--batch-tokens``, :func:`steb_core._executors.plan_batches`)
    batch_tokens: int | None = None
    progress: bool = True
    overwrite: bool = False
    fail_fast: bool = False
    threads: int | None = None
    #: bytes of vectors a group of datasets may hold (:func:`steb_core.run.order.parse_memory`); None: one at a time
    max_memory: int | None = None
    #: datasets loaded ahead of the one being encoded and scored, and where (:mod:`steb_core._prefetch`)
    prefetch: int = 0
    prefetch_mode: str = "auto"
    #: missing data is a failure (True) or a skipped dataset with a note (False, the default)
    strict: bool = False

    def cache_root(self) -> Path:
        """Where the embedding cache of this run lives (resolved when asked: the environment may set it)."""
        return Path(self.cache_dir) if self.cache_dir else default_cache_dir()


def check_batch_tokens(batch_tokens: Any) -> int | None:
    """``batch_tokens`` as an int (None: batches of ``batch_size`` texts); anything else is an error."""
    if batch_tokens is None:
        return None
    if isinstance(batch_tokens, bool) or not isinstance(batch_tokens, int) or batch_tokens < 1:
        raise StebError(
            f"batch_tokens={batch_tokens!r}: expected a number of padded tokens per encoding batch, 1 or more"
        )
    return batch_tokens


def check_prefetch(prefetch: Any, mode: str) -> int:
    """The prefetch depth as an int; a negative depth or an unknown mode is an error naming the choices."""
    if mode not in PREFETCH_MODES:
        raise StebError(f"prefetch_mode={mode!r} is not one of {', '.join(PREFETCH_MODES)}")
    if isinstance(prefetch, bool) or not isinstance(prefetch, int) or prefetch < 0:
        raise StebError(
            f"prefetch={prefetch!r}: expected a number of datasets to load ahead, 0 or more (0: one after another)"
        )
    return prefetch
