"""The ``ray`` executor: steb's encoding and independent evaluation jobs on a Ray cluster.

``steb run --executor ray [--address ADDR]`` and ``evaluate(..., executor="ray",
executor_options={...})`` build it from the registry. The runner stays in charge of everything but
the encoding: it deduplicates texts, asks the cache what is missing, hands the executor an
:class:`steb_core.EncodeJob`, then reads the cache and runs the tasks exactly as with the local
executor. That is why a Ray run and a local run give the same results and resume the same way.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from steb_core import EmbeddingCache, EncodeJob, StebError, cache_key, retry_may_help, text_hash

from .cluster import ClusterSession, cluster_gpus, connect, worker_slots
from .encoding import ActorShape, EncodeWorker, run_batches, worker_ref, write_returned_shard

__all__ = ["RayExecutor"]


class RayExecutor:
    """Encode on a pool of Ray actors; run independent jobs as Ray tasks with retries.

    Options (all keyword; ``steb run`` passes ``address``):

    - ``address``: a running cluster (``ray://host:10001``, ``host:6379`` or ``auto``); None starts
      a private local cluster with ``num_cpus`` (default all cores) that :meth:`close` shuts down.
      An already connected process (a notebook) keeps its connection.
    - ``num_workers``: encoding actors (default: as many as the cluster fits).
    - ``cpus_per_worker`` / ``gpus_per_worker``: resources per actor; ``gpus_per_worker=None``
      means one GPU per worker when the cluster has GPUs, none otherwise. Fractions (0.5) pack two
      small models on one GPU.
    - ``batch_size``: texts per planned batch; None (default) takes the run's (``--batch-size``,
      1024), so the batches, and with them the vectors, are the local executor's. Another value cuts
      the job finer for more parallelism; the vectors then equal a local run with that batch size.
    - ``max_retries``: failed attempts a batch may have before encoding stops (worker deaths and
      encoder errors a retry can change; see :func:`steb_core.retry_may_help`);
      ``job_retries``: the same for :meth:`map` jobs. Errors no retry can change fail at once.
    - ``write_shards_on``: ``"worker"`` (default; needs a cache folder shared with the workers) or
      ``"driver"`` (vectors travel back through Ray; for clusters without a shared filesystem).
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        num_workers: int | None = None,
        num_cpus: int | None = None,
        num_gpus: int | None = None,
        cpus_per_worker: float = 1.0,
        gpus_per_worker: float | None = None,
        batch_size: int | None = None,
        max_retries: int = 3,
        job_retries: int = 2,
        retry_exceptions: bool = True,
        in_flight_per_worker: int = 2,
        write_shards_on: str = "worker",
        verbose: bool = False,
        init_options: Mapping[str, Any] | None = None,
    ) -> None:
        if write_shards_on not in ("worker", "driver"):
            raise ValueError(f"write_shards_on must be 'worker' or 'driver', not {write_shards_on!r}")
        if num_workers is not None and num_workers < 1:
            raise ValueError(f"num_workers must be at least 1, not {num_workers}")
        self.num_workers = num_workers
        self.cpus_per_worker = float(cpus_per_worker)
        self.gpus_per_worker = gpus_per_worker
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.job_retries = job_retries
        self.retry_exceptions = retry_exceptions
        self.in_flight_per_worker = max(1, in_flight_per_worker)
        self.write_shards_on = write_shards_on
        #: live actors per (encoder, protocol, cache folder, write mode), reused across encode calls
        #: (the runner encodes dataset by dataset) and killed in close()
        self._pools: dict[tuple[str, ...], list[Any]] = {}
        self._session: ClusterSession | None = connect(
            address, num_cpus=num_cpus, num_gpus=num_gpus, verbose=verbose, init_options=init_options
        )

    # -- resources ---------------------------------------------------------------------------------
    def actor_shape(self) -> ActorShape:
        """Resources per worker, GPU-aware: one GPU each when the cluster has GPUs, unless told."""
        gpus = self.gpus_per_worker
        if gpus is None:
            gpus = 1.0 if cluster_gpus() > 0 else 0.0
        return ActorShape(num_cpus=self.cpus_per_worker, num_gpus=float(gpus))

    def worker_count(self, shape: ActorShape | None = None) -> int:
        shape = shape or self.actor_shape()
        slots = worker_slots(shape.num_cpus, shape.num_gpus)
        return min(slots, self.num_workers) if self.num_workers else slots

    # -- encoding ----------------------------------------------------------------------------------
    def encode(self, job: EncodeJob, cache: EmbeddingCache, progress: Callable[[int], Any] | None = None) -> int:
        """Encode ``job.texts`` on the actors; every finished batch is a shard in the cache folder."""
        import ray

        if not job.texts:
            return 0
        shape = self.actor_shape()
        workers = self.worker_count(shape)
        # the core's plan, one encoder call per planned batch, as in the local executor
        batches = (replace(job, batch_size=self.batch_size) if self.batch_size else job).plan()
        folder = Path(job.cache_dir).resolve() / cache_key(*job.cache_key_parts)
        folder.mkdir(parents=True, exist_ok=True)
        on_workers = self.write_shards_on == "worker"
        # the encoder reference is stored once in the object store and shared by all actors
        try:
            ref = ray.put(worker_ref(job.encoder))
        except Exception as exc:  # an in-memory encoder that cloudpickle cannot serialise
            raise StebError(
                f"cannot send encoder '{job.encoder.name}' to Ray workers ({type(exc).__name__}: {exc}); "
                "register it in a plugin (--plugin my_encoders.py) so workers can build it by name"
            ) from exc
        actor_class = ray.remote(EncodeWorker).options(num_cpus=shape.num_cpus, num_gpus=shape.num_gpus, max_restarts=0)

        def make_worker() -> Any:
            return actor_class.remote(ref, job.protocol, str(folder) if on_workers else None)

        key = (
            job.encoder.name,
            repr(sorted(job.encoder.options.items())),
            job.protocol.key(),
            str(folder),
            str(on_workers),
            repr(shape),
        )
        pool = self._pools.setdefault(key, [])
        done = run_batches(
            batches,
            make_worker,
            workers,
            max_retries=self.max_retries,
            in_flight_per_worker=self.in_flight_per_worker,
            progress=progress,
            on_payload=None if on_workers else write_returned_shard(folder),
            already_stored=lambda batch: _stored(cache, batch),
            pool=pool,
        )
        cache.refresh()
        return done

    # -- independent jobs --------------------------------------------------------------------------
    def map(self, fn: Callable[[Any], Any], items: Iterable[Any], *, return_exceptions: bool = False) -> list[Any]:
        """``fn(item)`` for every item as parallel Ray tasks, results in order.

        Each job is retried up to ``job_retries`` times when its worker dies, and also when it raises
        if ``retry_exceptions`` and the error is one a retry can change (:func:`steb_core.retry_may_help`:
        an unknown name, a bad option or bad data fails at once). With ``return_exceptions`` a job that
        still fails yields its exception in place of a result instead of stopping the whole map.
        Exceptions reach the driver as the job raised them (steb's errors all survive pickling);
        one that cannot be pickled arrives as a :class:`steb_core.StebError` with its type and message.
        """
        import ray

        shape = self.actor_shape()
        remote = ray.remote(_apply).options(
            num_cpus=shape.num_cpus,
            num_gpus=shape.num_gpus,
            max_retries=self.job_retries,
            retry_exceptions=self.retry_exceptions,
        )
        fn_ref = ray.put(fn)
        refs = [remote.remote(fn_ref, item) for item in items]
        out: list[Any] = []
        for obj in refs:
            try:
                result = ray.get(obj)
            except Exception as exc:
                if not return_exceptions:
                    raise
                out.append(_original(exc))
                continue
            if isinstance(result, _Final):
                if not return_exceptions:
                    raise result.error
                out.append(result.error)
            else:
                out.append(result)
        return out

    # -- lifetime ----------------------------------------------------------------------------------
    def close(self) -> None:
        """Kill this executor's workers; shut the cluster down if this executor started it."""
        from .encoding import _kill

        for pool in self._pools.values():
            for actor in pool:
                _kill(actor)
        self._pools.clear()
        if self._session is not None:
            self._session.close()
            self._session = None

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _stored(cache: EmbeddingCache, texts: list[str]) -> bool:
    """Whether every text of a batch is in the cache (re-reading shards other workers wrote)."""
    cache.refresh()
    return all(text_hash(t) in cache for t in texts)


@dataclass(frozen=True)
class _Final:
    """A job's error that no retry can change, returned (not raised) so that Ray does not retry it."""

    error: BaseException


def _apply(fn: Callable[[Any], Any], item: Any) -> Any:
    try:
        return fn(item)
    except Exception as exc:
        portable = _portable(exc)
        if not retry_may_help(exc):
            return _Final(portable)
        if portable is exc:
            raise
        raise portable from None


def _portable(exc: BaseException) -> BaseException:
    """``exc`` when it survives pickling, else a StebError with its type and message (no
    ``UnserializableException``)."""
    try:
        pickle.loads(pickle.dumps(exc))  # noqa: S301 - our own object, round-tripped
    except Exception:  # noqa: BLE001 - anything pickling raises means it cannot travel
        return StebError(f"{type(exc).__name__}: {exc}")
    return exc


def _original(exc: BaseException) -> BaseException:
    """The user's exception inside Ray's wrapper (RayTaskError keeps it as ``cause``)."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc
