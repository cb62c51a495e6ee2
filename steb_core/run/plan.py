"""Phase 1, plan: which (dataset, task) results a run asks for, and the run-key parts known before loading.

A planned dataset (:class:`Pending`) carries, per task, the parts of its ``run_key`` that the selection
and the encoder fix (encoder fingerprint, dataset and task versions, protocol, seed, options, scoring)
and the providing plugin's version; the load phase adds the data fingerprint that completes each key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._plugins import StebPlugins
from .._records import DatasetBundle
from .._results import run_key
from .._specs import STEB_PROTOCOL_VERSION, DatasetSpec, TaskSpec
from .encoder_setup import RunEncoder
from .option_use import key_options
from .settings import RunSettings
from .summary import Failure, RunSummary

__all__ = ["Pending", "complete_keys", "plan_run", "provider_of", "unregistered_reason"]


@dataclass
class Pending:
    """Planned work for one dataset: its tasks, the run-key parts known before loading, and (once the
    data is loaded) the full run keys and the data fingerprint of each shape the tasks read."""

    spec: DatasetSpec
    tasks: list[TaskSpec]
    parts: dict[str, dict[str, Any]]
    provider: tuple[str, str] = ("", "")
    keys: dict[str, str] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)

    def plugin_phrase(self) -> str:
        """Who provides the dataset, for failure lines: its plugin, or an object given to ``evaluate``."""
        return f"plugin '{self.provider[0]}'" if self.provider[0] else "a dataset object given to evaluate()"


def plan_run(
    plugins: StebPlugins,
    settings: RunSettings,
    encoder: RunEncoder,
    selection: list[tuple[DatasetSpec, tuple[str, ...]]],
    only_tasks: Sequence[str] | None,
    summary: RunSummary,
) -> list[Pending]:
    """The datasets with work, in selection order; tasks nobody registers are failures, and tasks that need
    vectors from a similarity-only encoder are skipped (both noted in ``summary``)."""
    task_registry = plugins.tasks()
    plan: list[Pending] = []
    for spec, task_names in selection:
        pending: list[TaskSpec] = []
        parts: dict[str, dict[str, Any]] = {}
        provider = provider_of(plugins, spec)
        for task_name in task_names:
            if only_tasks and task_name not in only_tasks:
                continue
            if task_name not in task_registry:  # asked for and not computable: a failure, not a skip (issue 41)
                summary.failures.append(Failure(spec.name, task_name, unregistered_reason(task_registry, task_name)))
                continue
            task = task_registry.get(task_name)
            if task.needs_vectors and not encoder.vectors_ok:
                summary.skipped.append((spec.name, task_name, "encoder is similarity-only; task needs vectors"))
                continue
            parts[task.name] = dict(
                encoder=encoder.fingerprint,
                dataset=spec.name,
                dataset_version=spec.version,
                task=task.name,
                task_version=task.version,
                protocol=settings.protocol.key(),
                seed=settings.seed,
                # the task's own options now; the loader options its loader reads join after the load
                dataset_options=key_options(task.name, settings.task_options, {}, ()),
                steb_protocol=STEB_PROTOCOL_VERSION,
                scoring=encoder.scoring,
            )
            pending.append(task)
        if pending:
            plan.append(Pending(spec, pending, parts, provider))
    return plan


def provider_of(plugins: StebPlugins, spec: DatasetSpec) -> tuple[str, str]:
    """(plugin name, its distribution version) of the plugin that registered ``spec``; ('', '') for a spec
    object no plugin registered (``dataset_from``: its version is already a hash of its content)."""
    registry = plugins.datasets()
    if spec.name not in registry or registry.get(spec.name) is not spec:
        return "", ""
    name = registry.provider(spec.name)
    version, _ = plugins.provider_version(name)  # a local plugin: its source hash
    return name, version or ""


def complete_keys(
    pending: Pending, bundle: DatasetBundle, loader_options: Mapping[str, Any] | None = None, read: Iterable[str] = ()
) -> None:
    """Fingerprint each shape the tasks read (once per shape) and finish their run keys with it, and with the
    ``loader_options`` the loader asked for (``read``): a result depends on those, not on every option of the run."""
    asked = set(read)
    for task in pending.tasks:
        parts = pending.parts[task.name]
        options = {**{k: v for k, v in (loader_options or {}).items() if k in asked}, **parts["dataset_options"]}
        pending.parts[task.name] = {**parts, "dataset_options": options}
        if task.shape not in pending.fingerprints:
            pending.fingerprints[task.shape] = bundle.fingerprint(task.shape)
        pending.keys[task.name] = run_key(
            **pending.parts[task.name],
            data_fingerprint=pending.fingerprints[task.shape],
            dataset_provider_version=pending.provider[1],
        )


def unregistered_reason(registry: Any, name: str) -> str:
    """Why task type ``name`` is not in ``registry``: two plugins register it, or a plugin's hook failed."""
    if name in registry.conflicts:
        both = " and ".join(repr(p) for p in registry.conflicts[name])
        return f"task type '{name}' is registered by {both}, so the name is refused; switch one plugin off (-p no:NAME)"
    why = " ".join(registry.notes) or "no loaded plugin provides it"
    return f"task type '{name}' is not registered: {why}"
