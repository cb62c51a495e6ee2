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

Failure handling is our own loop rather than Ray's ``max_task_retries``: a batch whose worker died
is put back in the queue and the dead worker is replaced by a fresh one; a batch whose encoder
raised is retried too. Either way after ``max_retries`` failed attempts of the same batch the run
stops with an error naming the batch, so a deterministic bug does not loop forever.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from steb_core import EncoderRef, LongTextProtocol, StebError, encode_with_protocol, text_hash, write_shard

__all__ = ["EncodeWorker", "BatchFailedError", "ActorShape", "worker_ref", "auto_batch_size", "run_batches"]

#: Batches smaller than this waste more on scheduling than they gain in balance.
MIN_AUTO_BATCH = 16
#: Aim for this many batches per worker, so a slow or restarted worker delays the end little.
BATCHES_PER_WORKER = 4


class BatchFailedError(StebError):
    """A batch kept failing after all retries; names the batch and the last error."""


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
        self._encoder = ref.build()
        self._protocol = protocol
        self._folder = folder

    def ping(self) -> bool:
        return True

    def encode(self, texts: list[str]) -> tuple[int, Any]:
        vectors = encode_with_protocol(self._encoder, texts, self._protocol)
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
        raise StebError(f"encoder '{ref.name}' is neither registered nor given as an object; nothing to send to workers")
    return replace(ref, plugins=plugins)


def auto_batch_size(n_texts: int, job_batch_size: int, workers: int) -> int:
    """A batch size that gives every worker several batches, never above the job's own batch size."""
    if n_texts <= 0:
        return max(1, job_batch_size)
    spread = math.ceil(n_texts / (max(1, workers) * BATCHES_PER_WORKER))
    return max(1, min(job_batch_size, max(MIN_AUTO_BATCH, spread)))


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
            in_flight[actors[slot].encode.remote(batches[b])] = (slot, generation[slot], b)

    def fail(b: int, exc: BaseException) -> None:
        attempts[b] += 1
        if attempts[b] > max_retries:
            batch = batches[b]
            raise BatchFailedError(
                f"batch {b + 1}/{len(batches)} ({len(batch)} texts, first text hash {text_hash(batch[0])}) "
                f"failed {attempts[b]} times; last error: {type(exc).__name__}: {exc}"
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


def _kill(actor: Any) -> None:
    import ray

    try:
        ray.kill(actor, no_restart=True)
    except Exception:  # already gone
        pass


def write_returned_shard(folder: str | Path) -> Callable[[Any], None]:
    """``on_payload`` for the driver-writes mode: store the (keys, vectors) a worker sent back."""

    def write(payload: Any) -> None:
        keys, vectors = payload
        write_shard(folder, keys, np.asarray(vectors))

    return write
