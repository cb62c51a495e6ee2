"""How many BLAS / OpenMP threads a task uses (issue 17 §3: no thread thrash).

On a busy machine, threaded BLAS and OpenMP make small fits many times slower, not faster: every
parallel region waits for threads that the scheduler has given to someone else (measured on the
shared 2-core VM: MiniBatchKMeans on 2.8k texts 0.11 s quiet -> 5.4 s under load, 0.058 s with one
OpenMP thread; many small L-BFGS fits up to ~60x slower). So each task asks for

- ``ctx.threads`` when the run sets it (``--threads``), else
- one thread when the work is small (below ``SMALL_WORK`` multiply-adds, where a second thread saves
  less than its start-up and synchronisation cost), else
- the cores that are free now: usable CPUs minus the 1-minute load average, rounded up (a core
  busy less than full time counts as free), at least one. The load includes this process's own
  earlier work (encoding), which errs on the side of fewer threads: on a busy machine one thread
  too few costs at most the parallel speed-up, one too many costs the 5-50x above.

and runs its numeric work inside :func:`blas_limits`, which applies the count to both BLAS and
OpenMP pools through threadpoolctl and restores them afterwards.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

from .._context import TaskContext

__all__ = ["usable_cpus", "free_cores", "task_threads", "blas_limits", "SMALL_WORK"]

#: below this many multiply-adds a task runs single-threaded (about 0.1 s of one core)
SMALL_WORK = 200_000_000


def usable_cpus() -> int:
    """CPUs this process may run on (affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def free_cores(load: float | None = None, cpus: int | None = None) -> int:
    """Usable CPUs minus the 1-minute load average, rounded up, at least 1 and at most the CPUs."""
    cpus = usable_cpus() if cpus is None else cpus
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average (Windows): assume quiet
            load = 0.0
    return max(1, min(cpus, math.ceil(cpus - max(0.0, load))))


def task_threads(ctx: TaskContext | None, work: float, *, load: float | None = None, cpus: int | None = None) -> int:
    """Threads for ``work`` multiply-adds: ``ctx.threads`` when set, else from work size and free cores."""
    if ctx is not None and ctx.threads:
        return max(1, int(ctx.threads))
    if work < SMALL_WORK:
        return 1
    return free_cores(load, cpus)


@contextmanager
def blas_limits(ctx: TaskContext | None, work: float, *, result_sensitive: bool = False) -> Iterator[int]:
    """Run the body with BLAS and OpenMP pools limited to :func:`task_threads` threads.

    ``result_sensitive``: for a task whose *result* depends on the thread count (probing: float32
    products summed in another order round differently, and a near-tied strength can flip), one
    thread unless ``--threads`` says otherwise. Not the free cores: the record would then depend on
    the machine's load at that moment; not the CPU count: it would differ between a laptop and a
    server with the same CPU type. ``--threads N`` buys speed (and is recorded by the task).
    """
    if result_sensitive:
        threads = max(1, int(ctx.threads)) if ctx is not None and ctx.threads else 1
    else:
        threads = task_threads(ctx, work)
    with threadpool_limits(limits=threads):
        yield threads
