"""The core's own plugin: built-in tasks, aggregators, the STEB benchmark, demo datasets and the local executor.

Registered through the same hooks as third-party plugins (pytest's lesson: the core eats its own
dog food), so listings and collision checks treat them alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .hookspecs import hookimpl

if TYPE_CHECKING:
    from ._specs import AggregatorSpec, BenchmarkSpec, DatasetSpec, ExecutorSpec, FeatureExtractorSpec, TaskSpec


@hookimpl
def register_tasks(register: Callable[[TaskSpec], None]) -> None:
    from .tasks import builtin_tasks

    for spec in builtin_tasks():
        register(spec)


@hookimpl
def register_aggregators(register: Callable[[AggregatorSpec], None]) -> None:
    from .aggregators import builtin_aggregators

    for spec in builtin_aggregators():
        register(spec)


@hookimpl
def register_benchmarks(register: Callable[[BenchmarkSpec], None]) -> None:
    from ._benchmarks import builtin_benchmarks

    for spec in builtin_benchmarks():
        register(spec)


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    from .demo import demo_datasets

    for spec in demo_datasets():
        register(spec)


@hookimpl
def register_executors(register: Callable[[ExecutorSpec], None]) -> None:
    from ._executors import local_executor_spec

    register(local_executor_spec())


@hookimpl
def register_feature_extractors(register: Callable[[FeatureExtractorSpec], None]) -> None:
    from .demo import surface_feature_extractor_spec

    register(surface_feature_extractor_spec())
