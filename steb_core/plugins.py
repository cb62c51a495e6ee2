"""Plugin discovery and the component registries.

Plugins come from three places, in this order: the core's built-ins, installed distributions that
declare an entry point in group ``steb``, and local modules named with ``--plugin`` or in
``$STEB_PLUGINS`` (comma-separated module names or ``.py`` paths). A plugin that fails to import is
recorded with its error and skipped; the others still load. The plugin manager is the only global
state in steb (see :func:`get_manager`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Generic, Iterable, Iterator, TypeVar

import pluggy

from . import hookspecs
from .errors import DuplicateComponentError, PluginError, UnknownComponentError
from .specs import (
    AggregatorSpec,
    DatasetSpec,
    EncoderSpec,
    ExecutorSpec,
    FeatureExtractorSpec,
    ScorerSpec,
    TaskSpec,
)

ENTRY_POINT_GROUP = "steb"
ENV_VAR = "STEB_PLUGINS"
BUILTIN_MODULES = ("steb_core.builtin",)

#: registry kind -> (hook name, spec type)
KINDS: dict[str, tuple[str, type]] = {
    "dataset": ("register_datasets", DatasetSpec),
    "encoder": ("register_encoders", EncoderSpec),
    "task": ("register_tasks", TaskSpec),
    "aggregator": ("register_aggregators", AggregatorSpec),
    "scorer": ("register_scorers", ScorerSpec),
    "feature_extractor": ("register_feature_extractors", FeatureExtractorSpec),
    "executor": ("register_executors", ExecutorSpec),
}

S = TypeVar("S")


@dataclass
class PluginInfo:
    """One loaded plugin: its name, where it came from, and its version when installed."""

    name: str
    source: str  # "builtin", "entry point", "--plugin", "STEB_PLUGINS"
    location: str
    version: str | None = None


@dataclass
class PluginFailure:
    """A plugin that could not be imported or whose hook raised; the rest of steb keeps working."""

    name: str
    source: str
    error: str
    detail: str = ""


@dataclass
class Registered(Generic[S]):
    spec: S
    provider: str


class Registry(Generic[S]):
    """Name -> spec for one component kind, remembering which plugin provided each name."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, Registered[S]] = {}

    def add(self, spec: S, provider: str) -> None:
        name = getattr(spec, "name")
        if name in self._items:
            raise DuplicateComponentError(self.kind, name, self._items[name].provider, provider)
        self._items[name] = Registered(spec, provider)

    def get(self, name: str) -> S:
        try:
            return self._items[name].spec
        except KeyError:
            raise UnknownComponentError(self.kind, name, list(self._items)) from None

    def provider(self, name: str) -> str:
        self.get(name)
        return self._items[name].provider

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[S]:
        return (r.spec for r in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def names(self) -> list[str]:
        return list(self._items)


@dataclass
class StebPlugins:
    """The plugin manager plus what was loaded, what failed, and the built registries."""

    pm: pluggy.PluginManager
    loaded: list[PluginInfo] = field(default_factory=list)
    failures: list[PluginFailure] = field(default_factory=list)
    _registries: dict[str, Registry] = field(default_factory=dict)

    # -- loading -------------------------------------------------------------------------------
    def _register_module(self, module: ModuleType, name: str, source: str, location: str, version: str | None = None) -> None:
        if self.pm.is_registered(module) or self.pm.get_plugin(name) is not None:
            return
        self.pm.register(module, name=name)
        self.loaded.append(PluginInfo(name, source, location, version))
        self._registries.clear()

    def load_builtins(self) -> None:
        for mod_name in BUILTIN_MODULES:
            module = importlib.import_module(mod_name)
            self._register_module(module, mod_name, "builtin", module.__file__ or mod_name)

    def load_entry_points(self) -> None:
        seen: set[str] = set()
        for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            dist = getattr(ep, "dist", None)
            dist_name = dist.metadata["Name"] if dist is not None else "?"
            key = f"{dist_name}:{ep.name}"
            if key in seen:
                continue
            seen.add(key)
            try:
                obj = ep.load()
            except Exception as exc:  # a broken plugin must not take steb down
                self.failures.append(
                    PluginFailure(ep.name, f"entry point ({dist_name})", f"{type(exc).__name__}: {exc}", traceback.format_exc())
                )
                continue
            self._register_module(obj, ep.name, "entry point", f"{dist_name} ({ep.value})", dist.version if dist else None)

    def load_local(self, specs: Iterable[str], source: str = "--plugin") -> None:
        """Load local plugins by module name or path to a ``.py`` file."""
        for raw in specs:
            spec = raw.strip()
            if not spec:
                continue
            try:
                module = import_local_module(spec)
            except Exception as exc:
                self.failures.append(PluginFailure(spec, source, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
                continue
            self._register_module(module, spec, source, getattr(module, "__file__", None) or spec)

    def load_env(self) -> None:
        value = os.environ.get(ENV_VAR, "")
        if value:
            self.load_local(value.split(","), source=ENV_VAR)

    # -- registries ----------------------------------------------------------------------------
    def registry(self, kind: str) -> Registry:
        """The registry of one component kind, built on first use by calling every plugin's hook."""
        if kind not in KINDS:
            raise KeyError(f"unknown component kind '{kind}'; known: {', '.join(KINDS)}")
        if kind not in self._registries:
            hook_name, spec_type = KINDS[kind]
            registry: Registry = Registry(kind)
            hook = getattr(self.pm.hook, hook_name)
            # call each implementation on its own so we know who registered what (and isolate failures)
            for impl in reversed(hook.get_hookimpls()):
                provider = impl.plugin_name

                def register(spec: Any, _provider: str = provider) -> None:
                    if not isinstance(spec, spec_type):
                        raise PluginError(
                            f"plugin '{_provider}' registered a {type(spec).__name__} through {hook_name}; expected {spec_type.__name__}"
                        )
                    registry.add(spec, _provider)

                try:
                    impl.function(register=register)
                except DuplicateComponentError:
                    raise
                except Exception as exc:
                    self.failures.append(
                        PluginFailure(provider, f"hook {hook_name}", f"{type(exc).__name__}: {exc}", traceback.format_exc())
                    )
            self._registries[kind] = registry
        return self._registries[kind]

    def datasets(self) -> Registry[DatasetSpec]:
        return self.registry("dataset")

    def encoders(self) -> Registry[EncoderSpec]:
        return self.registry("encoder")

    def tasks(self) -> Registry[TaskSpec]:
        return self.registry("task")

    def aggregators(self) -> Registry[AggregatorSpec]:
        return self.registry("aggregator")

    def scorers(self) -> Registry[ScorerSpec]:
        return self.registry("scorer")

    def feature_extractors(self) -> Registry[FeatureExtractorSpec]:
        return self.registry("feature_extractor")

    def executors(self) -> Registry[ExecutorSpec]:
        return self.registry("executor")

    def add_commands(self, cli: Any) -> None:
        for impl in reversed(self.pm.hook.register_commands.get_hookimpls()):
            try:
                impl.function(cli=cli)
            except Exception as exc:
                self.failures.append(PluginFailure(impl.plugin_name, "hook register_commands", f"{type(exc).__name__}: {exc}"))


def import_local_module(spec: str) -> ModuleType:
    """Import a local plugin given as a dotted module name or a path to a ``.py`` file."""
    if spec.endswith(".py") or os.sep in spec or "/" in spec:
        path = Path(spec).expanduser().resolve()
        if not path.is_file():
            raise PluginError(f"plugin file {path} does not exist")
        mod_name = f"steb_local_plugin_{path.stem}_{abs(hash(str(path))) & 0xFFFFFF:x}"
        if mod_name in sys.modules:
            return sys.modules[mod_name]
        module_spec = importlib.util.spec_from_file_location(mod_name, path)
        if module_spec is None or module_spec.loader is None:
            raise PluginError(f"cannot import plugin file {path}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[mod_name] = module
        try:
            module_spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(mod_name, None)
            raise
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # let `--plugin mylab.encoders` find a package in the working dir
    return importlib.import_module(spec)


def new_manager(local_plugins: Iterable[str] = (), *, entry_points: bool = True, env: bool = True) -> StebPlugins:
    """Build a fresh plugin manager (tests use this; the CLI and API use :func:`get_manager`)."""
    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    plugins = StebPlugins(pm)
    plugins.load_builtins()
    if entry_points:
        plugins.load_entry_points()
    if env:
        plugins.load_env()
    plugins.load_local(local_plugins)
    return plugins


_MANAGER: StebPlugins | None = None


def get_manager(local_plugins: Iterable[str] = ()) -> StebPlugins:
    """The process-wide plugin manager, created on first use; extra local plugins are added to it."""
    global _MANAGER
    if _MANAGER is None:
        _MANAGER = new_manager(local_plugins)
    else:
        _MANAGER.load_local(local_plugins)
    return _MANAGER


def reset_manager() -> None:
    """Forget the process-wide manager (tests, or after installing a plugin at run time)."""
    global _MANAGER
    _MANAGER = None


def register_object(module_or_object: Any, name: str) -> Callable[[], None]:
    """Register an in-memory plugin object (tests and notebooks); returns a function that removes it."""
    plugins = get_manager()
    plugins.pm.register(module_or_object, name=name)
    plugins.loaded.append(PluginInfo(name, "in-memory", repr(module_or_object)))
    plugins._registries.clear()

    def unregister() -> None:
        plugins.pm.unregister(name=name)
        plugins.loaded[:] = [p for p in plugins.loaded if p.name != name]
        plugins._registries.clear()

    return unregister
