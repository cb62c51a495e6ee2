"""Distributed batch encoding: a pool of Ray actors that each load the encoder once and write shards.

Why actors and not tasks: loading a model (a transformer's weights, a spaCy pipeline) costs seconds
to minutes, encoding one batch costs milliseconds to seconds. An actor keeps the loaded encoder
between batches, so a worker pays the load once per run, not once per batch.

Why workers write the shards themselves: embeddings are the bulk of the data (300k texts x 1024
floats = 1.2 GB); sending them back through the object store to the driver would make the driver
the bottleneck. Each worker writes its batch with :func:`steb_core.write_shard` straight into the
cache folder (a shared filesystem on a real cluster) and returns only a count. Because a shard's
file name is derived from the keys it holds and the write is atomic, a batch that runs twice (its
worker died after writing, the batch was retried) rewrites the same file: no duplicate entries, and
batches finished before a crash stay on disk.

Why every call is one batch of the core's plan: an encoder that pads or sorts (every transformer)
gives a text a vector that depends, in the last bits, on which texts share its call. The driver
cuts the job with :meth:`steb_core.EncodeJob.plan` and a worker encodes each planned batch with
:func:`steb_core.encode_batch`, exactly the call the local executor makes, so a Ray run caches
bit-identical vectors and gives the local run's results.

Failure handling is our own loop rather than Ray's ``max_task_retries``: a batch whose worker died
is put back in the queue and the dead worker is replaced by a fresh one; a batch whose encoder
raised something a retry can change (:func:`steb_core.retry_may_help`: a lost connection, out of
memory) is retried too. After ``max_retries`` failed attempts of the same batch, or at once when
the error cannot change on a retry (NaN in the output, a bad option), encoding stops with an
:class:`steb_core.EncodingError` naming the batch: the runner then fails the datasets that need
its texts, exactly as after a local failure.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import (
    EncoderRef,
    EncodingError,
    LongTextProtocol,
    StebError,
    encode_batch,
    retry_may_help,
    text_hash,
    write_shard,
)

__all__ = ["EncodeWorker", "BatchFailedError", "RefusedBatch", "ActorShape", "worker_ref", "run_batches"]


class BatchFailedError(EncodingError):
    """A batch kept failing after all retries; names the batch and the last error (``texts``: the batch)."""


@dataclass(frozen=True)
class RefusedBatch:
    """A worker's answer for a batch whose encoding failed in a way no retry can change.

    Returned rather than raised, so Ray does not count it as a failed task, and the driver stops
    without retrying; ``message`` is the :class:`steb_core.EncodingError`'s text.
    """

    message: str


@dataclass(frozen=True)
class ActorShape:
    """Resources one encoding worker asks Ray for."""

    num_cpus: float = 1.0
    num_gpus: float = 0.0


class EncodeWorker:
    """One encoding process: builds the encoder once, then encodes batch after batch.

    ``folder`` is the cache folder to write shards into; None means "return the vectors" (for
    clusters without a filesystem shared with the driver: the driver writes the shard).
    """

    def __init__(self, ref: EncoderRef, protocol: LongTextProtocol, folder: str | None) -> None:
        self._ref = ref
        self._encoder = ref.build()
        self._protocol = protocol
        self._folder = folder

    def ping(self) -> bool:
        return True

    def encode(self, texts: list[str], batch_no: int = 1, n_batches: int = 1) -> tuple[int, Any]:
        """Encode one planned batch exactly as the local executor does (:func:`steb_core.encode_batch`)."""
        name = getattr(self._ref, "name", "encoder")
        try:
            vectors = encode_batch(
                self._encoder, texts, self._protocol, name=name, batch_no=batch_no, n_batches=n_batches
            )
        except EncodingError as exc:
            if retry_may_help(exc):
                raise EncodingError(str(exc)) from None  # the cause need not unpickle on the driver
            return 0, RefusedBatch(str(exc))
        keys = [text_hash(t) for t in texts]
        if self._folder is None:
            return len(texts), (keys, vectors)
        write_shard(self._folder, keys, vectors)
        return len(texts), None


def worker_ref(ref: EncoderRef) -> EncoderRef:
    """The reference a worker rebuilds the encoder from.

    A registered encoder travels as name + options (the worker builds it, e.g. on its own GPU), with
    local plugin paths made absolute because workers need not share the driver's working directory.
    An in-memory object (``registered=False``) travels whole, pickled by Ray with cloudpickle.
    """
    plugins = tuple(str(Path(p).resolve()) if p.endswith(".py") and Path(p).exists() else p for p in ref.plugins)
    if ref.registered:
        return replace(ref, plugins=plugins, instance=None)
    if ref.instance is None:
        raise StebError(
            f"encoder '{ref.name}' is neither registered nor given as an object; nothing to send to workers"
        )
    return replace(ref, plugins=plugins)


def run_batches(
    batches: Sequence[list[str]],
    make_worker: Callable[[], Any],
    workers: int,
    *,
    max_retries: int = 3,
    in_flight_per_worker: int = 2,
    progress: Callable[[int], Any] | None = None,
    on_payload: Callable[[Any], None] | None = None,
    already_stored: Callable[[list[str]], bool] | None = None,
    pool: list[Any] | None = None,
) -> int:
    """Encode ``batches`` on ``workers`` actors made by ``make_worker``; return the texts encoded.

    Longest batches go first (they were planned sorted by length), so the run does not end waiting
    on one long batch. Each worker holds up to ``in_flight_per_worker`` batches, so it never idles
    between batches while the driver handles a finished one.

    ``already_stored(batch)`` is asked when a worker dies: a batch it finished and wrote just before
    dying may never have been reported back, and need not be encoded again.

    ``pool`` is a list of live actors owned by the caller: it is topped up to ``workers`` actors, dead
    ones are replaced in place, and nothing is killed at the end, so the next call (the runner calls
    once per dataset) reuses the loaded models instead of starting new workers.
    """
    import ray
    from ray.exceptions import RayError, RayTaskError

    if not batches:
        return 0
    workers = max(1, min(workers, len(batches)))
    owned = pool is None
    actors = [] if pool is None else pool
    while len(actors) < workers:
        actors.append(make_worker())
    workers = len(actors) if not owned else workers
    generation = [0] * workers
    pending: deque[int] = deque(reversed(range(len(batches))))
    attempts = [0] * len(batches)
    in_flight: dict[Any, tuple[int, int, int]] = {}  # object ref -> (worker slot, generation, batch)
    done = 0

    def submit(slot: int) -> None:
        if pending:
            b = pending.popleft()
            in_flight[actors[slot].encode.remote(batches[b], b + 1, len(batches))] = (slot, generation[slot], b)

    def fail(b: int, exc: BaseException) -> None:
        attempts[b] += 1
        if attempts[b] > max_retries:
            batch = batches[b]
            cause = _cause(exc)
            raise BatchFailedError(
                f"batch {b + 1}/{len(batches)} ({len(batch)} texts, first text hash {text_hash(batch[0])}) "
                f"failed {attempts[b]} times; last error: {type(cause).__name__}: {cause}",
                batch,
            ) from exc
        pending.appendleft(b)

    try:
        for slot in range(workers):
            for _ in range(in_flight_per_worker):
                submit(slot)
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for obj in ready:
                slot, gen, b = in_flight.pop(obj)
                try:
                    n, payload = ray.get(obj)
                except RayTaskError as exc:  # the encoder raised: the worker is alive, retry the batch
                    fail(b, exc)
                except RayError as exc:  # the worker died (killed, OOM, node lost): replace it
                    if already_stored is not None and already_stored(batches[b]):
                        done += len(batches[b])
                        if progress is not None:
                            progress(len(batches[b]))
                    else:
                        fail(b, exc)
                    if gen == generation[slot]:
                        _kill(actors[slot])
                        actors[slot] = make_worker()
                        generation[slot] += 1
                else:
                    if isinstance(payload, RefusedBatch):
                        raise EncodingError(payload.message, batches[b])
                    if payload is not None and on_payload is not None:
                        on_payload(payload)
                    done += n
                    if progress is not None:
                        progress(n)
                submit(slot)
    finally:
        if owned:
            for actor in actors:
                _kill(actor)
    return done


def _cause(exc: BaseException) -> BaseException:
    """What the encoder raised, inside Ray's ``RayTaskError`` wrapper (kept as ``cause``)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def _kill(actor: Any) -> None:
    import ray

    try:
        ray.kill(actor, no_restart=True)
    except Exception:  # noqa: BLE001 - already gone
        pass


def write_returned_shard(folder: str | Path) -> Callable[[Any], None]:
    """``on_payload`` for the driver-writes mode: store the (keys, vectors) a worker sent back."""

    def write(payload: Any) -> None:
        keys, vectors = payload
        write_shard(folder, keys, np.asarray(vectors))

    return write
