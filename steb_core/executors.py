"""Executors: where the encoding of a run's missing texts happens.

The runner hands an executor an :class:`EncodeJob` (which encoder, which texts, which long-text
protocol, the cache folder) and gets the cache filled; task evaluation then reads the cache the same
way whatever executed the encoding, so resume and results do not depend on the executor. The local
executor encodes in-process; plugins (e.g. a Ray executor) register others through ``register_executors``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from .cache import EmbeddingCache, text_hash
from .longtext import LongTextProtocol, encode_with_protocol
from .specs import ExecutorSpec

__all__ = ["EncoderRef", "EncodeJob", "Executor", "LocalExecutor", "local_executor_spec", "plan_batches"]


@dataclass(frozen=True)
class EncoderRef:
    """How to (re)build an encoder: a registered name + options, so remote workers can construct it.

    ``instance`` is the already-built local object (None on workers); ``plugins`` are local plugin
    modules/paths the worker must load to find the name.
    """

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    registered: bool = True
    plugins: tuple[str, ...] = ()
    instance: Any = field(default=None, compare=False, repr=False)

    def build(self) -> Any:
        if self.instance is not None:
            return self.instance
        if not self.registered:
            raise RuntimeError(f"encoder '{self.name}' is an in-memory object; it cannot be rebuilt on a worker")
        from .plugins import get_manager

        return get_manager(self.plugins).encoders().get(self.name).factory(**dict(self.options))


@dataclass
class EncodeJob:
    encoder: EncoderRef
    texts: list[str]  # distinct texts not yet in the cache
    protocol: LongTextProtocol
    cache_dir: str
    cache_key_parts: tuple[str, str]  # (encoder fingerprint, protocol key)
    batch_size: int = 1024


def plan_batches(texts: Sequence[str], batch_size: int) -> list[list[str]]:
    """Batches of texts sorted by length, so encoders that pad waste little work on short texts."""
    ordered = sorted(texts, key=len)
    return [ordered[i : i + batch_size] for i in range(0, len(ordered), batch_size)]


class Executor(Protocol):
    name: str

    def encode(self, job: EncodeJob, cache: EmbeddingCache, progress: Callable[[int], Any] | None = None) -> int:
        """Fill ``cache`` with vectors for ``job.texts``; return how many texts were encoded."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """Apply ``fn`` to independent jobs (e.g. one per (encoder, dataset)), in order."""

    def close(self) -> None: ...


class LocalExecutor:
    """In-process execution: batches are encoded one after another, each shard saved as it finishes."""

    name = "local"

    def encode(self, job: EncodeJob, cache: EmbeddingCache, progress: Callable[[int], Any] | None = None) -> int:
        encoder = job.encoder.build()
        done = 0
        for batch in plan_batches(job.texts, job.batch_size):
            vectors = encode_with_protocol(encoder, batch, job.protocol)
            cache.put([text_hash(t) for t in batch], vectors)
            done += len(batch)
            if progress is not None:
                progress(len(batch))
        return done

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        return [fn(item) for item in items]

    def close(self) -> None:
        return None


def local_executor_spec() -> ExecutorSpec:
    return ExecutorSpec(name="local", description="encode and evaluate in this process (default)", factory=lambda **_: LocalExecutor())
