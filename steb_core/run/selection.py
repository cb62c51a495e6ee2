"""Which datasets a run covers, with which task types: names, spec objects and suites resolved to specs.

Also what the catalogue commands (``steb list``, ``steb data``) and :func:`steb_core.get_datasets` ask
for, so they import it from here and not from the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import StebError
from ..plugins import StebPlugins
from ..specs import DatasetSpec

__all__ = [
    "as_specs",
    "known_suites",
    "refused_suite_members",
    "resolve_datasets",
    "resolve_selection",
    "suite_members",
]


def known_suites(plugins: StebPlugins) -> list[str]:
    """Every suite a registered dataset belongs to, sorted."""
    return sorted({s for spec in plugins.datasets() for s in spec.suites})


def suite_members(plugins: StebPlugins, suite: str) -> list[DatasetSpec]:
    """The datasets of ``suite``; an unknown suite is an error listing the known ones."""
    members = [spec for spec in plugins.datasets() if suite in spec.suites]
    if not members:
        raise StebError(
            f"no dataset belongs to suite '{suite}'; known suites: {', '.join(known_suites(plugins)) or 'none'}"
        )
    return members


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
        out.extend((spec, spec.tasks_for_suite(suite)) for spec in suite_members(plugins, suite))
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
    return [
        (
            name,
            f"dataset '{name}' of suite '{suite}' is registered by {' and '.join(map(repr, providers))}, "
            "so the name is refused; switch one plugin off (-p no:NAME)",
        )
        for name, providers in registry.conflicts.items()
        if any(suite in spec.suites for spec in registry.refused.get(name, ()))
    ]


def as_specs(datasets: Iterable[Any] | None) -> list[Any] | None:
    """``evaluate``'s ``datasets`` as a list: one name or spec given alone is a list of one."""
    if datasets is None:
        return None
    if isinstance(datasets, (str, DatasetSpec)):
        return [datasets]
    return list(datasets)
