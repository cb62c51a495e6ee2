"""Which datasets a run covers, with which task types: names, spec objects and suites resolved to specs.

A suite name is a registered benchmark's first (:class:`~steb_core.BenchmarkSpec`: its (dataset, task) pairs, e.g.
``steb``), else the datasets tagged with it (``DatasetSpec.suites``, e.g. ``demo``, ``stel``).

Also what the catalogue commands (``steb list``, ``steb data``) and :func:`steb_core.get_datasets` ask
for, so they import it from here and not from the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._errors import StebError
from .._plugins import StebPlugins
from .._specs import BenchmarkSpec, DatasetSpec

__all__ = [
    "as_specs",
    "benchmark_of",
    "known_suites",
    "missing_benchmark_members",
    "refused_suite_members",
    "resolve_datasets",
    "resolve_selection",
    "suite_members",
    "suite_selection",
]


def known_suites(plugins: StebPlugins) -> list[str]:
    """Every registered benchmark and every suite a registered dataset is tagged with, sorted."""
    return sorted({*plugins.benchmarks().names(), *(s for spec in plugins.datasets() for s in spec.suites)})


def benchmark_of(plugins: StebPlugins, suite: str) -> BenchmarkSpec | None:
    """The registered benchmark named ``suite`` (None: no benchmark has that name, so it is a tag suite).

    A name two plugins register as a benchmark is an error naming both (:class:`DuplicateComponentError`), not a
    fall-back to the datasets tagged with it: which one was meant cannot be told.
    """
    registry = plugins.benchmarks()
    if suite in registry or suite in registry.conflicts:
        return registry.get(suite)
    return None


def suite_selection(plugins: StebPlugins, suite: str) -> list[tuple[DatasetSpec, tuple[str, ...]]]:
    """(spec, task types) of every member of ``suite``, in the dataset registry's order.

    A registered benchmark: each registered dataset it names, with the tasks its pairs give (in the order of the
    dataset's ``tasks``); a pair whose task the registered dataset does not feed is an error naming both providers.
    Members no plugin registers are left to :func:`missing_benchmark_members` (the run notes them). Otherwise the
    datasets tagged ``suite`` with their ``suite_tasks``. An unknown suite, or a benchmark none of whose datasets
    is registered, is an error listing the known suites.
    """
    benchmark = benchmark_of(plugins, suite)
    registry = plugins.datasets()
    if benchmark is None:
        members = [(spec, spec.tasks_for_suite(suite)) for spec in registry if suite in spec.suites]
        if not members:
            raise StebError(
                f"no benchmark is named '{suite}' and no dataset belongs to suite '{suite}'; known suites: "
                f"{', '.join(known_suites(plugins)) or 'none'}"
            )
        return members
    out: list[tuple[DatasetSpec, tuple[str, ...]]] = []
    for spec in registry:
        wanted = benchmark.tasks_of(spec.name)
        if not wanted:
            continue
        unfed = [t for t in wanted if t not in spec.tasks]
        if unfed:
            raise StebError(
                f"benchmark '{suite}' (plugin '{plugins.benchmarks().provider(suite)}') scores dataset "
                f"'{spec.name}' on {unfed}, which the registered dataset (plugin '{registry.provider(spec.name)}') "
                f"does not feed; it feeds {list(spec.tasks)}"
            )
        out.append((spec, tuple(t for t in spec.tasks if t in wanted)))
    if not out:
        raise StebError(
            f"benchmark '{suite}' names {len(benchmark.datasets)} datasets ({', '.join(benchmark.datasets[:3])}"
            f"{', ...' if len(benchmark.datasets) > 3 else ''}) and no plugin registers any of them; install or "
            "load the plugins that provide them (`steb list datasets` shows what is registered)"
        )
    return out


def suite_members(plugins: StebPlugins, suite: str) -> list[DatasetSpec]:
    """The datasets of ``suite`` (a benchmark's or a tag's, :func:`suite_selection`); an unknown suite is an error
    listing the known ones."""
    return [spec for spec, _ in suite_selection(plugins, suite)]


def missing_benchmark_members(plugins: StebPlugins, suite: str) -> list[str]:
    """The datasets benchmark ``suite`` names that no plugin registers (refused names excluded: those are
    :func:`refused_suite_members`); empty for a tag suite."""
    benchmark = benchmark_of(plugins, suite)
    if benchmark is None:
        return []
    registry = plugins.datasets()
    return [d for d in benchmark.datasets if d not in registry and d not in registry.conflicts]


def resolve_datasets(plugins: StebPlugins, datasets: Iterable[Any] | None, suite: str | None) -> list[DatasetSpec]:
    """Dataset specs from names, spec objects and/or a suite name (specs tagged with it), in order."""
    return [spec for spec, _ in resolve_selection(plugins, datasets, suite)]


def resolve_selection(
    plugins: StebPlugins, datasets: Iterable[Any] | None, suite: str | None
) -> list[tuple[DatasetSpec, tuple[str, ...]]]:
    """(spec, task types to run) for named datasets (all their tasks) and suite members (the suite's tasks)."""
    registry = plugins.datasets()
    out: list[tuple[DatasetSpec, tuple[str, ...]]] = []
    for item in datasets or ():
        spec = item if isinstance(item, DatasetSpec) else None if isinstance(item, str) else getattr(item, "spec", None)
        if spec is None:
            spec = registry.get(item)
        out.append((spec, spec.tasks))
    if suite:
        out.extend(suite_selection(plugins, suite))
    if not out:
        raise StebError("no dataset selected: name datasets or a suite (e.g. --suite demo)")
    seen: dict[str, int] = {}
    unique: list[tuple[DatasetSpec, tuple[str, ...]]] = []
    for spec, task_names in out:
        if spec.name in seen:  # named and in the suite: run the union of the tasks
            i = seen[spec.name]
            other = unique[i][0]
            same_loader = other.loader == spec.loader or spec.version.startswith("mem-")
            if other is not spec and (other.version != spec.version or not same_loader):
                raise StebError(
                    f"two different datasets are named '{spec.name}' in one run (versions {other.version} "
                    f"and {spec.version}); their results would share one folder: give them different names"
                )
            unique[i] = (spec, tuple(dict.fromkeys([*unique[i][1], *task_names])))
            continue
        seen[spec.name] = len(unique)
        unique.append((spec, tuple(task_names)))
    return unique


def refused_suite_members(plugins: StebPlugins, suite: str) -> list[tuple[str, str]]:
    """(dataset name, why) for each dataset of ``suite`` whose name two plugins register (both refused)."""
    registry = plugins.datasets()
    benchmark = benchmark_of(plugins, suite)
    return [
        (
            name,
            f"dataset '{name}' of suite '{suite}' is registered by {' and '.join(map(repr, providers))}, "
            "so the name is refused; switch one plugin off (-p no:NAME)",
        )
        for name, providers in registry.conflicts.items()
        if (
            name in benchmark.datasets
            if benchmark is not None
            else any(suite in spec.suites for spec in registry.refused.get(name, ()))
        )
    ]


def as_specs(datasets: Iterable[Any] | None) -> list[Any] | None:
    """``evaluate``'s ``datasets`` as a list: one name or spec given alone is a list of one."""
    if datasets is None:
        return None
    if isinstance(datasets, (str, DatasetSpec)):
        return [datasets]
    return list(datasets)
