"""Connecting to a Ray cluster, or starting a private local one, quietly and offline.

Why a module of its own: the executor and :func:`steb_executor_ray.many.run_many` both need "a Ray
runtime to talk to", and both must leave the process as they found it — a cluster steb started is
shut down by steb, a cluster the user started (``ray start --head``, or ``ray.init`` in a notebook)
is left running.

Token authentication (Ray 2.59+): ``ray start --head`` turns it on when a token exists
(``$RAY_AUTH_TOKEN``, the file ``$RAY_AUTH_TOKEN_PATH``, or ``~/.ray/auth_token``, which every
``ray.init()`` of a local cluster creates), and a driver that connects to an explicit address only
sends a token when its own environment says ``RAY_AUTH_MODE=token``. Otherwise Ray retries for about
20 s and raises a bare ``ConnectionError``; :func:`connect` recognises the refusal in the error's
cause and says what to set instead. It does not switch token mode on by itself: whether a cluster
wants a token, and which one, is the cluster owner's decision (as in Ray, where only ``auto``
picks up a local token).
"""

from __future__ import annotations

import logging
import math
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from steb_core import StebError

__all__ = ["ClusterSession", "ClusterConnectionError", "connect", "worker_slots", "cluster_gpus"]

#: seconds to wait for a TCP connection to ``host:port`` before calling the cluster unreachable
PROBE_SECONDS = 5.0
#: what Ray's connection errors say (in their cause's text) when the cluster refused our token
_AUTH_MARKERS = ("AuthenticationError", "InvalidAuthToken", "Unauthenticated", "authentication token")


class ClusterConnectionError(StebError, ConnectionError):
    """steb could not connect to the Ray cluster at an address; the message says why and what to do."""


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
        _probe(address)
        try:
            ray.init(address=address, **options)
        except ConnectionError as exc:
            if _refused_token(exc):
                raise ClusterConnectionError(_auth_message(address)) from exc
            raise
    else:
        ray.init(
            num_cpus=num_cpus if num_cpus is not None else os.cpu_count(),
            num_gpus=num_gpus,
            include_dashboard=False,
            object_store_memory=object_store_memory or LOCAL_OBJECT_STORE_BYTES,
            **options,
        )
    return ClusterSession(owned=True, address=address)


def _probe(address: str) -> None:
    """Fail in seconds, not after Ray's 20 s of retries, when nothing listens at ``host:port``."""
    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return  # "auto", ray://..., or a form Ray resolves itself
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_SECONDS):
            return
    except OSError as exc:
        raise ClusterConnectionError(
            f"no Ray cluster answers at {address} ({exc.strerror or exc}); start one with "
            f"`ray start --head --port {port}` on that machine, or check the address (`ray status` on the head prints "
            "it)"
        ) from None


def _refused_token(exc: BaseException) -> bool:
    """Whether a failed ``ray.init`` was the cluster refusing this process's (missing) token."""
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__name__ == "AuthenticationError" or any(m in str(seen) for m in _AUTH_MARKERS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _auth_message(address: str) -> str:
    mode = os.environ.get("RAY_AUTH_MODE")
    if mode and mode.lower() == "token":
        where = os.environ.get("RAY_AUTH_TOKEN_PATH") or (
            "$RAY_AUTH_TOKEN" if os.environ.get("RAY_AUTH_TOKEN") else "~/.ray/auth_token"
        )
        return (
            f"the Ray cluster at {address} refused this process's authentication token (read from {where}); "
            "give the cluster's token: RAY_AUTH_TOKEN_PATH=<file holding it> or RAY_AUTH_TOKEN=<token> "
            "(`ray get-auth-token` on the head prints it)"
        )
    return (
        f"the Ray cluster at {address} uses token authentication (Ray 2.59+) and this process sent no token "
        f"({'RAY_AUTH_MODE=' + mode if mode else 'RAY_AUTH_MODE is not set'} here). Set RAY_AUTH_MODE=token and give "
        "the cluster's token: "
        "RAY_AUTH_TOKEN_PATH=<file holding it> (default ~/.ray/auth_token, the file `ray start` read) "
        "or RAY_AUTH_TOKEN=<token>; `ray get-auth-token` on the head prints it"
    )


def worker_slots(cpus_per_worker: float, gpus_per_worker: float) -> int:
    """How many workers of this size the cluster holds at once (at least one).

    GPU workers are bounded by GPUs, CPU workers by CPUs: the scarce resource decides.
    """
    import ray

    resources: dict[str, float] = ray.cluster_resources()
    if gpus_per_worker > 0:
        return max(1, math.floor(resources.get("GPU", 0) / gpus_per_worker + 1e-9))
    return max(1, math.floor(resources.get("CPU", 1) / max(cpus_per_worker, 1e-9) + 1e-9))


def cluster_gpus() -> float:
    """GPUs in the cluster (0 on a CPU-only cluster)."""
    import ray

    return float(ray.cluster_resources().get("GPU", 0))
