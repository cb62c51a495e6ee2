"""Thread choice per task (issue 17 §3): --threads wins, small work is single-threaded, else free cores."""

from __future__ import annotations

import math

import pytest
from threadpoolctl import threadpool_info

from steb_core.tasks._threads import SMALL_WORK, blas_limits, free_cores, task_threads


class _Ctx:
    def __init__(self, threads):
        self.threads = threads


@pytest.mark.parametrize(
    "load,cpus,expected",
    [(0.0, 2, 2), (0.7, 2, 2), (1.0, 2, 1), (1.2, 2, 1), (8.5, 2, 1), (3.0, 16, 13), (0.0, 16, 16), (40.0, 16, 1)],
)
def test_free_cores_is_cpus_minus_load_rounded_up(load, cpus, expected):
    assert free_cores(load=load, cpus=cpus) == expected


def test_task_threads_rules():
    big = 10 * SMALL_WORK
    assert task_threads(_Ctx(None), SMALL_WORK - 1, load=0.0, cpus=8) == 1  # small work: one thread
    assert task_threads(_Ctx(None), big, load=0.0, cpus=8) == 8
    assert task_threads(_Ctx(None), big, load=6.0, cpus=8) == 2
    assert task_threads(_Ctx(3), 1, load=50.0, cpus=8) == 3  # --threads wins
    assert task_threads(None, big, load=1.5, cpus=4) == 3


def test_blas_limits_applies_and_restores():
    import numpy  # noqa: F401  (loads the BLAS pool)

    before = {p["internal_api"]: p["num_threads"] for p in threadpool_info()}
    with blas_limits(_Ctx(1), 0) as n:
        assert n == 1
        assert all(p["num_threads"] == 1 for p in threadpool_info())
    assert {p["internal_api"]: p["num_threads"] for p in threadpool_info()} == before


def test_result_sensitive_threads_ignore_load_and_cpus(monkeypatch):
    """Probing's thread count (its result depends on it): one thread, or --threads; never load or CPUs."""
    from steb_core.tasks import _threads

    big = 10 * _threads.SMALL_WORK
    for cpus, load in ((2, 0.0), (16, 0.0), (4, 3.5), (4, 40.0)):
        monkeypatch.setattr(_threads, "usable_cpus", lambda cpus=cpus: cpus)
        monkeypatch.setattr("os.getloadavg", lambda load=load: (load, load, load))
        with _threads.blas_limits(None, big, result_sensitive=True) as fixed:
            assert fixed == 1
        with _threads.blas_limits(None, big) as adaptive:  # other tasks still use the free cores
            assert adaptive == max(1, min(cpus, math.ceil(cpus - load)))
        with _threads.blas_limits(_Ctx(3), big, result_sensitive=True) as given:
            assert given == 3
