"""Executors: where the encoding of a run's missing texts happens.

The runner hands an executor an :class:`EncodeJob` (which encoder, which texts, which long-text
protocol, the cache folder) and gets the cache filled; task evaluation then reads the cache the same
way whatever executed the encoding, so resume and results do not depend on the executor. The local
executor encodes in-process; plugins (e.g. a Ray executor) register others through ``register_executors``.

The batch plan is part of the numbers, not only of the speed: an encoder that pads or sorts a call's
texts (every transformer) gives a text a vector that depends, in the last float32 bits, on which
texts share its call (all-MiniLM-L6-v2 on the demo suite: up to 1.5e-7 between 1024- and 100-text
calls, enough to flip a probe's near-tied regularisation choice). So every executor encodes exactly
the batches of :meth:`EncodeJob.plan` (:func:`plan_batches`: the job's texts sorted by length, cut
every ``batch_size`` texts, or by a budget of padded tokens with ``batch_tokens``), one encoder call per planned batch
through :func:`encode_batch`; where
the call runs (this process, a Ray actor) does not change its vectors. torch's intra-op thread count
was measured not to matter on CPU (MiniLM, demo suite: bit-identical vectors with 1, 2, 3 and 4 threads),
so executors leave it as the worker's environment sets it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ._cache import EmbeddingCache, text_hash
from ._encoders import EncoderOutputError, to_float32_matrix
from ._encoding_progress import reporting_to
from ._errors import StebError
from ._longtext import LongTextProtocol, encode_with_protocol
from ._specs import ExecutorSpec

__all__ = [
    "EncoderRef",
    "EncodeJob",
    "Executor",
    "LocalExecutor",
    "local_executor_spec",
    "plan_batches",
    "EncodingError",
    "encode_batch",
]


class EncodingError(StebError):
    """The encoder failed on a batch: raised, or returned something other than one finite vector per text.

    The message names the encoder, the batch, the first bad text and what was expected; ``texts`` are
    the batch's texts (the runner fails only the datasets that need them). Batches encoded before
    stay in the cache.

    Transient when what the encoder raised is (:func:`steb_core._errors.retry_may_help` follows the
    cause): a worker that ran out of memory may succeed again, a NaN in the output will not.
    """

    transient = True

    def __init__(self, message: str, texts: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.texts = list(texts)


def encode_batch(
    encoder: Any, batch: Sequence[str], protocol: LongTextProtocol, *, name: str, batch_no: int, n_batches: int
) -> Any:
    """Vectors for one batch (dense float32 or CSR for sparse encoders), or an :class:`EncodingError`."""
    where = f"encoder '{name}' on batch {batch_no} of {n_batches} ({len(batch)} texts)"
    try:
        if getattr(encoder, "sparse_output", False) and getattr(encoder, "max_length", None) is None:
            return to_float32_matrix(encoder.encode(list(batch)), len(batch), who=f"encoder '{name}'", keep_sparse=True)
        return encode_with_protocol(encoder, list(batch), protocol)
    except EncoderOutputError as exc:
        detail = str(exc)
        if exc.index is not None and 0 <= exc.index < len(batch):
            detail += f"; that text begins {batch[exc.index][:60]!r}"
        raise EncodingError(
            f"{where}: {detail}; expected one finite vector per text (an ({len(batch)}, d) float array)", batch
        ) from exc
    except ValueError as exc:
        raise EncodingError(f"{where}: {exc}", batch) from exc
    except Exception as exc:
        raise EncodingError(f"{where} raised {type(exc).__name__}: {exc}", batch) from exc


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
        from ._plugins import get_manager

        manager = get_manager(self.plugins)
        if self.name not in manager.encoders():
            resolved = manager.pm.hook.resolve_encoder(name=self.name, options=dict(self.options))
            if resolved is not None:
                return resolved
        return manager.encoders().get(self.name).factory(**dict(self.options))


@dataclass
class EncodeJob:
    encoder: EncoderRef
    texts: list[str]  # distinct texts not yet in the cache
    protocol: LongTextProtocol
    cache_dir: str
    cache_key_parts: tuple[str, str]  # (encoder fingerprint, protocol key)
    batch_size: int = 1024
    hashes: list[str] | None = None  # text hashes aligned with ``texts`` (computed once by the runner)
    #: padded tokens per planned batch (``--batch-tokens``); None: every ``batch_size`` texts
    batch_tokens: int | None = None

    def plan(self) -> list[list[str]]:
        """The batches every executor encodes, one encoder call each (module docstring: why it matters).

        With ``batch_tokens`` the encoder's own ``count_tokens`` measures the texts when it has one
        (built here, on the driver: executors call ``plan`` before they send work anywhere, so every
        executor cuts the same batches; a neural encoder loads its tokenizer, and with it its model,
        on the driver for that). An encoder whose ``keeps_text_order`` is True (it batches a call's texts
        itself, in the order given, as the STEB reference's model classes do) gets the job's texts in the
        runner's order, the dataset order, cut every ``batch_size`` texts.
        """
        encoder = getattr(self.encoder, "instance", None)
        if encoder is None and self.batch_tokens is not None:
            encoder = self.encoder.build()
        if self.batch_tokens is None and getattr(encoder, "keeps_text_order", False) is True:
            # an encoder that batches the texts itself in the order given (the STEB reference's classes)
            return [self.texts[i : i + self.batch_size] for i in range(0, len(self.texts), self.batch_size)]
        count = getattr(encoder, "count_tokens", None) if self.batch_tokens is not None else None
        return plan_batches(
            self.texts, self.batch_size, self.batch_tokens, count_tokens=count if callable(count) else None
        )


def plan_batches(
    texts: Sequence[str],
    batch_size: int,
    batch_tokens: int | None = None,
    *,
    count_tokens: Callable[[list[str]], Sequence[int]] | None = None,
) -> list[list[str]]:
    """Batches of texts sorted by length, so encoders that pad waste little work on short texts.

    Without ``batch_tokens``: sorted by characters, cut every ``batch_size`` texts. With it: sorted by
    tokens (``count_tokens``, else whitespace-separated words) and cut so that a batch's padded size,
    its texts times its longest text's tokens, stays within ``batch_tokens`` (and at most
    ``batch_size`` texts); a text longer than the budget forms a batch alone. Many short texts then
    share a call and long ones do not run out of memory together.

    Deterministic in ``texts`` (a stable sort: equal lengths keep their order), the two sizes and the
    counts, so two executors given the same job cut the same batches.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    if batch_tokens is None:
        ordered = sorted(texts, key=len)
        return [ordered[i : i + batch_size] for i in range(0, len(ordered), batch_size)]
    if batch_tokens < 1:
        raise ValueError(f"batch_tokens must be at least 1, not {batch_tokens}")
    texts = list(texts)
    counts = list(count_tokens(texts)) if count_tokens is not None else [len(t.split()) for t in texts]
    if len(counts) != len(texts):
        raise ValueError(f"count_tokens returned {len(counts)} counts for {len(texts)} texts")
    order = sorted(range(len(texts)), key=lambda i: counts[i])
    batches: list[list[str]] = []
    current: list[str] = []
    for i in order:
        longest = max(1, int(counts[i]))  # ascending: the newest text is the batch's longest
        if current and (len(current) >= batch_size or (len(current) + 1) * longest > batch_tokens):
            batches.append(current)
            current = []
        current.append(texts[i])
    if current:
        batches.append(current)
    return batches


class Executor(Protocol):
    """Where encoding runs (``--executor NAME``; an :class:`~steb_core.ExecutorSpec`'s factory builds one)."""

    name: str

    def encode(self, job: EncodeJob, cache: EmbeddingCache, progress: Callable[[float], Any] | None = None) -> int:
        """Fill ``cache`` with vectors for ``job.texts``; return how many texts were encoded."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """Apply ``fn`` to independent jobs (e.g. one per (encoder, dataset)), in order."""

    def close(self) -> None: ...


class LocalExecutor:
    """In-process execution: batches are encoded one after another, each shard saved as it finishes."""

    name = "local"

    def encode(self, job: EncodeJob, cache: EmbeddingCache, progress: Callable[[float], Any] | None = None) -> int:
        encoder = job.encoder.build()
        hash_of = dict(zip(job.texts, job.hashes)) if job.hashes is not None else None
        done = 0
        batches = job.plan()
        for k, batch in enumerate(batches, start=1):
            reported = [0.0]  # texts the encoder said it finished inside this call (its own batches)

            def sink(n: float, reported: list[float] = reported, batch: list[str] = batch) -> None:
                n = min(n, len(batch) - reported[0])  # never past the call's texts
                if progress is not None and n > 0:
                    reported[0] += n
                    progress(n)

            with reporting_to(sink if progress is not None else None):
                vectors = encode_batch(
                    encoder, batch, job.protocol, name=job.encoder.name, batch_no=k, n_batches=len(batches)
                )
            cache.put([hash_of[t] for t in batch] if hash_of is not None else [text_hash(t) for t in batch], vectors)
            done += len(batch)
            if progress is not None and len(batch) - reported[0] > 0:  # what the encoder did not report itself
                progress(len(batch) - reported[0])
        return done

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        return [fn(item) for item in items]

    def close(self) -> None:
        return None


def local_executor_spec() -> ExecutorSpec:
    return ExecutorSpec(
        name="local", description="encode and evaluate in this process (default)", factory=lambda **_: LocalExecutor()
    )
