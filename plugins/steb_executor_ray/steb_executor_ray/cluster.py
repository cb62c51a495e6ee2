"""Connecting to a Ray cluster, or starting a private local one, quietly and offline.

Why a module of its own: the executor and :func:`steb_executor_ray.many.run_many` both need "a Ray
runtime to talk to", and both must leave the process as they found it — a cluster steb started is
shut down by steb, a cluster the user started (``ray start --head``, or ``ray.init`` in a notebook)
is left running.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["ClusterSession", "connect", "worker_slots", "cluster_gpus"]

#: Object store of a local cluster steb starts. Texts go through it, embeddings do not (workers write
#: them to the cache folder), so a small store is enough and spares a 2-core laptop's shared memory.
LOCAL_OBJECT_STORE_BYTES = 256 * 1024**2


@dataclass
class ClusterSession:
    """A live Ray connection; ``owned`` means steb started it and must shut it down."""

    owned: bool
    address: str | None

    def close(self) -> None:
        import ray

        if self.owned and ray.is_initialized():
            ray.shutdown()
        self.owned = False


def connect(
    address: str | None = None,
    *,
    num_cpus: int | None = None,
    num_gpus: int | None = None,
    object_store_memory: int | None = None,
    verbose: bool = False,
    init_options: Mapping[str, Any] | None = None,
) -> ClusterSession:
    """Reuse the running Ray connection, connect to ``address``, or start a local cluster.

    ``address`` falls back to ``$RAY_ADDRESS`` (Ray's own convention). A local cluster gets
    ``num_cpus`` (default: all cores), no dashboard and no usage-statistics reporting, so it works
    offline. When this process is already connected (a notebook, a test fixture), that connection
    is reused whatever ``address`` says, and left open afterwards.
    """
    import ray

    if ray.is_initialized():
        return ClusterSession(owned=False, address=None)
    # Ray phones home with usage statistics unless told not to; steb runs offline.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    address = address or os.environ.get("RAY_ADDRESS") or None
    options: dict[str, Any] = {
        "logging_level": logging.INFO if verbose else logging.ERROR,
        "log_to_driver": verbose,
        **dict(init_options or {}),
    }
    if address:
        ray.init(address=address, **options)
    else:
        ray.init(
            num_cpus=num_cpus if num_cpus is not None else os.cpu_count(),
            num_gpus=num_gpus,
            include_dashboard=False,
            object_store_memory=object_store_memory or LOCAL_OBJECT_STORE_BYTES,
            **options,
        )
    return ClusterSession(owned=True, address=address)


def worker_slots(cpus_per_worker: float, gpus_per_worker: float) -> int:
    """How many workers of this size the cluster holds at once (at least one).

    GPU workers are bounded by GPUs, CPU workers by CPUs: the scarce resource decides.
    """
    import ray

    resources = ray.cluster_resources()
    if gpus_per_worker > 0:
        return max(1, math.floor(resources.get("GPU", 0) / gpus_per_worker + 1e-9))
    return max(1, math.floor(resources.get("CPU", 1) / max(cpus_per_worker, 1e-9) + 1e-9))


def cluster_gpus() -> float:
    """GPUs in the cluster (0 on a CPU-only cluster)."""
    import ray

    return float(ray.cluster_resources().get("GPU", 0))
