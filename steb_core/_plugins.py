"""Plugin discovery and the component registries.

Plugins come from three places, in this order: the core's built-ins, installed distributions that
declare an entry point in group ``steb``, and local modules named with ``--plugin`` or in
``$STEB_PLUGINS`` (comma-separated module names or ``.py`` paths).

Strict where the user asked, isolated where they did not (pytest's rule):

- a plugin the user *named* (``--plugin``, ``$STEB_PLUGINS``) that cannot be imported is an error
  (:class:`PluginError`, chained to the original exception, so the CLI exits non-zero and pytest shows
  the original ``ImportError``);
- an *installed* plugin that fails to import (even by calling ``sys.exit()``) or whose hook raises is
  recorded once in :attr:`StebPlugins.failures` and skipped; a hook registers all its components or
  none; two plugins registering one name get that name refused (the error names both), while every
  other component keeps working;
- an installed plugin can be switched off without uninstalling it: ``-p no:NAME`` on the command line
  or ``$STEB_DISABLE_PLUGINS=NAME,...`` (NAME is the entry-point or distribution name).

The plugin manager is the only global state in steb (see :func:`get_manager`).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar

import pluggy

from . import hookspecs
from ._errors import DuplicateComponentError, PluginError, UnknownComponentError
from ._file_reads import cache_folders, recording_reads, side_file_hashes
from ._specs import (
    AggregatorSpec,
    BenchmarkSpec,
    DatasetSpec,
    EncoderSpec,
    ExecutorSpec,
    FeatureExtractorSpec,
    JudgementSetSpec,
    ScorerSpec,
    TaskSpec,
)

ENTRY_POINT_GROUP = "steb"
ENV_VAR = "STEB_PLUGINS"
DISABLE_ENV_VAR = "STEB_DISABLE_PLUGINS"
#: sources of plugins the user named explicitly: a failure to load one is an error, not a warning
NAMED_SOURCES = ("--plugin", ENV_VAR, "in-memory")
#: the core's own plugin: its registered name (the provider every record of a built-in names) -> its module; the
#: name predates the module's private name and keys stored results, so it stays
BUILTIN_MODULES = {"steb_core.builtin": "steb_core._builtin"}

#: registry kind -> (hook name, spec type)
KINDS: dict[str, tuple[str, type]] = {
    "dataset": ("register_datasets", DatasetSpec),
    "encoder": ("register_encoders", EncoderSpec),
    "task": ("register_tasks", TaskSpec),
    "aggregator": ("register_aggregators", AggregatorSpec),
    "scorer": ("register_scorers", ScorerSpec),
    "judgement_set": ("register_judgement_sets", JudgementSetSpec),
    "feature_extractor": ("register_feature_extractors", FeatureExtractorSpec),
    "executor": ("register_executors", ExecutorSpec),
    "benchmark": ("register_benchmarks", BenchmarkSpec),
}


class _Named(Protocol):
    """What a registry needs of a spec: its name."""

    @property
    def name(self) -> str: ...


S = TypeVar("S", bound=_Named)


@dataclass
class PluginInfo:
    """One loaded plugin: its name, where it came from, and its version when installed."""

    name: str
    source: str  # "builtin", "entry point", "--plugin", "STEB_PLUGINS"
    location: str
    version: str | None = None
    #: for a local plugin (no distribution, so no version): a hash of its source files, which stands in
    #: for the version wherever results and vectors are keyed (see :meth:`StebPlugins.provider_version`)
    content_hash: str | None = None

    @property
    def local(self) -> bool:
        """A plugin the user named as a module or ``.py`` file (or registered in memory), not installed."""
        return self.source in NAMED_SOURCES


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
    """Name -> spec for one component kind, remembering which plugin provided each name.

    A name registered by two providers is *refused*: it is removed and looking it up raises
    :class:`DuplicateComponentError` naming both, while every other name keeps working.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, Registered[S]] = {}
        self.conflicts: dict[str, list[str]] = {}
        #: name -> the specs refused for it (a suite run reports a refused member instead of leaving it out)
        self.refused: dict[str, list[S]] = {}
        #: plugin failures that may explain a missing name (shown with "unknown <kind>")
        self.notes: list[str] = []

    def add(self, spec: S, provider: str) -> None:
        name = spec.name
        if name in self.conflicts:
            self.conflicts[name].append(provider)
            self.refused[name].append(spec)
            return
        if name in self._items:
            first = self._items.pop(name)
            self.conflicts[name] = [first.provider, provider]
            self.refused[name] = [first.spec, spec]
            return
        self._items[name] = Registered(spec, provider)

    def get(self, name: str) -> S:
        if name in self.conflicts:
            first, second = self.conflicts[name][:2]
            raise DuplicateComponentError(self.kind, name, first, second)
        try:
            return self._items[name].spec
        except KeyError:
            raise UnknownComponentError(self.kind, name, list(self._items), self.notes) from None

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
    disabled: set[str] = field(default_factory=set)
    #: failures already shown to the user (the CLI warns about each once)
    reported: set[tuple[str, str, str]] = field(default_factory=set)
    #: entry-point and distribution names of every installed steb plugin, switched off or not (lower case)
    installed_names: set[str] = field(default_factory=set)
    entry_points_scanned: bool = False
    _registries: dict[str, Registry[Any]] = field(default_factory=dict)

    def _fail(self, failure: PluginFailure) -> None:
        """Record a failure once (a plugin that fails is listed once however often it is asked)."""
        if not any((f.name, f.source, f.error) == (failure.name, failure.source, failure.error) for f in self.failures):
            self.failures.append(failure)

    def is_disabled(self, *names: str) -> bool:
        return any(n and n.lower() in self.disabled for n in names)

    # -- loading -------------------------------------------------------------------------------
    def _register_module(
        self,
        module: ModuleType,
        name: str,
        source: str,
        location: str,
        version: str | None = None,
        content_hash: str | None = None,
    ) -> None:
        if self.pm.is_registered(module):
            return
        taken = self.pm.get_plugin(name)
        if taken is not None:
            if source in NAMED_SOURCES:  # `--plugin pan` finding a local pan.py while the installed 'pan' is loaded
                self._refuse_name_clash(name, source, location)
            return
        problem = self._register_checked(module, name)
        if problem is not None:
            message = f"plugin '{name}' ({source}: {location}) {problem}"
            self._fail(PluginFailure(name, source, problem, message))  # `steb plugins` and the warning show `problem`
            if source in NAMED_SOURCES or source == "builtin":
                raise PluginError(message)
            return
        self.loaded.append(PluginInfo(name, source, location, version, content_hash))
        self._registries.clear()

    def _register_checked(self, plugin: Any, name: str) -> str | None:
        """Register ``plugin`` with pluggy and run pluggy's ``check_pending``; on a problem, unregister it again and
        return what is wrong (None when it registered cleanly).

        Why: pluggy accepts a ``@hookimpl`` whose name matches no hook specification (``register_dataset``, one
        letter short) and never calls it, so the plugin loaded and registered nothing without a word. Every plugin
        that registers earlier passed this check, so a pending hook found now is this plugin's. A hook whose
        arguments do not match its specification is refused by ``register`` itself; that is reported the same way
        (an installed plugin's mistake no longer stops every other plugin from loading).
        """
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            return f"has an invalid hook implementation: {exc}"
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError:
            unknown = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or () if not caller.has_spec())
            known = sorted(hook for hook, caller in vars(self.pm.hook).items() if caller.has_spec())
            self.pm.unregister(plugin)
            return _unknown_hooks_message(unknown, known)
        return None

    def load_builtins(self) -> None:
        for plugin_name, mod_name in BUILTIN_MODULES.items():
            module = importlib.import_module(mod_name)
            self._register_module(module, plugin_name, "builtin", module.__file__ or mod_name)

    def load_entry_points(self, only: Iterable[str] | None = None) -> None:
        """Register the installed plugins (entry-point group ``steb``); ``only``: just those whose entry-point
        or distribution name is listed (case-insensitive), so a test can pick the installed plugins it uses."""
        wanted = None if only is None else {n.lower() for n in only}
        seen: set[str] = set()
        for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            dist = getattr(ep, "dist", None)
            dist_name = dist.metadata["Name"] if dist is not None else "?"
            key = f"{dist_name}:{ep.name}"
            if key in seen:
                continue
            seen.add(key)
            self.installed_names.update(n.lower() for n in (ep.name, dist_name) if n and n != "?")
            if wanted is not None and not wanted & {ep.name.lower(), dist_name.lower()}:
                continue
            if self.is_disabled(ep.name, dist_name):
                continue
            try:
                obj = ep.load()
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - an installed plugin must not take steb down, sys.exit() included
                self._fail(PluginFailure(ep.name, f"entry point ({dist_name})", _describe(exc), traceback.format_exc()))
                continue
            self._register_module(
                obj, ep.name, "entry point", f"{dist_name} ({ep.value})", dist.version if dist else None
            )
        self.entry_points_scanned = True

    def load_local(self, specs: Iterable[str], source: str = "--plugin") -> None:
        """Load plugins the user named, by module name or path to a ``.py`` file; failures are errors."""
        for raw in specs:
            spec = raw.strip()
            if not spec:
                continue
            if spec.startswith("no:"):  # pytest's `-p no:NAME`: switch an installed plugin off
                self._check_can_disable(spec[3:].strip(), source)
                self.disable([spec[3:]])
                continue
            if self.is_disabled(spec):
                continue
            try:
                with recording_reads() as reads:  # the files its import reads are part of what it is (issue 47)
                    module = import_local_module(spec)
            except (Exception, SystemExit) as exc:
                self._fail(PluginFailure(spec, source, _describe(exc), traceback.format_exc()))
                raise PluginError(f"plugin '{spec}' ({source}) could not be loaded: {_describe(exc)}") from exc
            self._register_module(
                module,
                spec,
                source,
                getattr(module, "__file__", None) or spec,
                content_hash=source_hash(module, side_file_hashes(reads.inputs(), exclude=cache_folders())),
            )

    def _refuse_name_clash(self, name: str, source: str, location: str) -> None:
        """A plugin the user named whose name is already a loaded plugin's: an error naming both.

        Why: pluggy keeps one plugin per name, so ``--plugin pan`` run beside a local ``pan.py`` imported that
        file and then dropped its hooks without a word (the installed 'pan' had the name), and the run failed
        later with "unknown dataset".
        """
        other = next((p for p in self.loaded if p.name == name), None)
        what = f"the {other.source} plugin '{name}' ({other.location})" if other is not None else f"the plugin '{name}'"
        message = (
            f"plugin '{name}' ({source}) is {location}, but {what} is already loaded under that name, so "
            f"one would silently replace the other; rename the local module, give it as a path "
            f"(--plugin ./{name}.py), or switch the installed one off (-p no:{name})"
        )
        self._fail(PluginFailure(name, source, "name clash", message))
        raise PluginError(message)

    def _check_can_disable(self, name: str, source: str, how: str | None = None) -> None:
        """Refuse ``-p no:NAME`` for a built-in plugin (it cannot be switched off) or a name no plugin has.

        Why: a typo in ``-p no:NAME`` used to switch nothing off and say nothing, and ``-p no:steb_core.builtin``
        was listed as switched off while the built-ins kept running.
        """
        key = name.lower()
        how = how or f"{source} no:{name}"
        if key in {m.lower() for m in BUILTIN_MODULES}:
            raise PluginError(f"plugin '{name}' ({how}) is built into steb and cannot be switched off")
        if not self.entry_points_scanned:
            return  # nothing to compare with (a manager built without entry points)
        known = self.installed_names | {p.name.lower() for p in self.loaded}
        if key not in known:
            raise PluginError(
                f"no plugin named '{name}' to switch off ({how}); installed plugins (entry point / "
                f"distribution names): {', '.join(sorted(self.installed_names)) or 'none'}"
            )

    def _refuse_named_failure(self, provider: str, hook_name: str, failure: PluginFailure, exc: BaseException) -> None:
        """Raise :class:`PluginError` when the plugin whose hook failed is one the user named (issue 41).

        Why: an installed plugin's failure is isolated (a warning; its components are missing), but one the user
        asked for with ``--plugin`` or ``$STEB_PLUGINS`` is the point of the command: its datasets or encoders
        silently missing made `steb run` exit 0 having computed none of them, as for a plugin that fails to import.
        """
        info = next((p for p in self.loaded if p.name == provider), None)
        if info is not None and info.local:
            raise PluginError(f"plugin '{provider}' ({info.source}) failed in {hook_name}: {failure.error}") from exc

    def provider_version(self, provider: str) -> tuple[str | None, bool]:
        """(version, local) of a loaded plugin: its distribution version, or for a local plugin the hash of its
        source files (so editing a local encoder's weights seed or a local dataset's file is another
        version), and whether it is local. (None, False) for an unknown name."""
        info = next((p for p in self.loaded if p.name == provider), None)
        if info is None:
            return None, False
        return info.version or info.content_hash, info.local

    def load_env(self) -> None:
        value = os.environ.get(ENV_VAR, "")
        if value:
            self.load_local(value.split(","), source=ENV_VAR)

    def disable(self, names: Iterable[str]) -> None:
        """Switch plugins off by entry-point or distribution name (before or after loading)."""
        for name in names:
            name = name.strip().lower()
            if not name:
                continue
            self.disabled.add(name)
            for info in list(self.loaded):
                dist = info.location.split(" (", 1)[0].lower()
                if info.source != "builtin" and (info.name.lower() == name or dist == name):
                    self.pm.unregister(name=info.name)
                    self.loaded.remove(info)
                    self._registries.clear()

    # -- registries ----------------------------------------------------------------------------
    def registry(self, kind: str) -> Registry[Any]:
        """The registry of one component kind, built on first use by calling every plugin's hook.

        Each implementation is called on its own, so we know who registered what; its components are
        added only if the hook returns normally (all or nothing).
        """
        if kind not in KINDS:
            raise KeyError(f"unknown component kind '{kind}'; known: {', '.join(KINDS)}")
        if kind not in self._registries:
            hook_name, spec_type = KINDS[kind]
            registry: Registry[Any] = Registry(kind)
            hook = getattr(self.pm.hook, hook_name)
            for impl in reversed(hook.get_hookimpls()):
                provider = impl.plugin_name
                staged: list[Any] = []

                def register(spec: Any, _provider: str = provider, _staged: list[Any] = staged) -> None:
                    if not isinstance(spec, spec_type):
                        raise PluginError(
                            f"plugin '{_provider}' registered a {type(spec).__name__} through {hook_name}; expected "
                            f"{spec_type.__name__}"
                        )
                    _staged.append(spec)

                try:
                    impl.function(register=register)
                except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin's hook must not take steb down
                    failure = PluginFailure(provider, f"hook {hook_name}", _describe(exc), traceback.format_exc())
                    self._fail(failure)
                    self._refuse_named_failure(provider, hook_name, failure, exc)
                    registry.notes.append(
                        f"plugin '{provider}' failed in {hook_name} ({failure.error}); its {kind}s are missing."
                    )
                    continue
                for spec in staged:
                    registry.add(spec, provider)
            for name, providers in registry.conflicts.items():
                self._fail(
                    PluginFailure(
                        " / ".join(providers),
                        f"name collision ({kind})",
                        f"{kind} '{name}' is registered by {' and '.join(repr(p) for p in providers)}; the name is "
                        "refused "
                        f"(disable one with -p no:NAME or ${DISABLE_ENV_VAR})",
                    )
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

    def judgement_sets(self) -> Registry[JudgementSetSpec]:
        return self.registry("judgement_set")

    def feature_extractors(self) -> Registry[FeatureExtractorSpec]:
        return self.registry("feature_extractor")

    def executors(self) -> Registry[ExecutorSpec]:
        return self.registry("executor")

    def benchmarks(self) -> Registry[BenchmarkSpec]:
        return self.registry("benchmark")

    def add_commands(self, cli: Any) -> None:
        """Let each plugin add sub-commands to ``cli`` (a typer app), refusing any that would replace another.

        Why: typer keeps the last command of a name, so a plugin registering ``run`` or ``list`` silently
        replaced steb's own. A command whose name is taken (by steb or an earlier plugin) is removed again
        and reported as a failure naming both providers; the plugin's other commands stay.
        """
        owners = {name: "steb (built-in command)" for name in _command_names(cli)}
        for impl in reversed(self.pm.hook.register_commands.get_hookimpls()):
            before = (list(cli.registered_commands), list(cli.registered_groups))
            try:
                impl.function(cli=cli)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin's hook must not take steb down
                self._fail(
                    PluginFailure(impl.plugin_name, "hook register_commands", _describe(exc), traceback.format_exc())
                )
            for attr, old in (("registered_commands", before[0]), ("registered_groups", before[1])):
                kept = []
                for info in getattr(cli, attr):
                    if any(info is o for o in old):
                        kept.append(info)
                        continue
                    name = _command_name(info)
                    if name is not None and name in owners:
                        self._fail(
                            PluginFailure(
                                impl.plugin_name,
                                "hook register_commands",
                                f"command 'steb {name}' is already provided by {owners[name]}; plugin "
                                f"'{impl.plugin_name}' "
                                f"may not replace it, so its 'steb {name}' is refused (rename it, or -p no:NAME to "
                                "switch one off)",
                            )
                        )
                        continue
                    if name is not None:
                        owners[name] = f"plugin '{impl.plugin_name}'"
                    kept.append(info)
                setattr(cli, attr, kept)


def _command_name(info: Any) -> str | None:
    """The name a typer ``CommandInfo`` or ``TyperInfo`` will have on the command line (None: unnamed)."""
    from typer.main import get_command_name  # typer is imported only by the CLI

    name = getattr(info, "name", None)
    if not name and getattr(info, "typer_instance", None) is not None:
        name = getattr(info.typer_instance.info, "name", None)
    if not name and getattr(info, "callback", None) is not None:
        name = info.callback.__name__
    return get_command_name(name) if isinstance(name, str) and name else None


def _command_names(cli: Any) -> list[str]:
    infos = [*getattr(cli, "registered_commands", []), *getattr(cli, "registered_groups", [])]
    return [n for n in (_command_name(i) for i in infos) if n is not None]


def _unknown_hooks_message(unknown: list[str], known: list[str]) -> str:
    """What to tell the author of a plugin whose ``@hookimpl`` functions ``unknown`` match none of the ``known``."""
    parts = []
    for hook in unknown:
        close = difflib.get_close_matches(hook, known, n=1, cutoff=0.6)
        parts.append(f"'{hook}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    return (
        f"implements unknown hook{'s' if len(parts) > 1 else ''} {', '.join(parts)}, so it would register "
        f"nothing through {'them' if len(parts) > 1 else 'it'}; steb's hooks are {', '.join(known)}"
    )


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}) raised while loading (a plugin must not exit the process)"
    return f"{type(exc).__name__}: {exc}"


def source_hash(module: ModuleType, side_files: Mapping[str, str] | None = None) -> str | None:
    """sha256 of a local plugin's source: its ``.py`` file, or every ``.py`` file of its package (names and
    contents, in sorted order), and of ``side_files`` (``{path: digest}`` of the files its import read,
    :func:`steb_core._file_reads.side_file_hashes`). None when the module has no file (built in memory)."""
    file = getattr(module, "__file__", None)
    if not file:
        return None
    path = Path(file)
    files = sorted(path.parent.rglob("*.py")) if path.name == "__init__.py" else [path]
    digest = hashlib.sha256()
    for f in files:
        try:
            data = f.read_bytes()
        except OSError:
            continue
        digest.update(str(f.relative_to(path.parent)).encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    for name, value in sorted((side_files or {}).items()):
        digest.update(b"\1" + name.encode("utf-8", "surrogateescape") + b"\0" + value.encode())
    return "src-" + digest.hexdigest()[:16]


def import_local_module(spec: str) -> ModuleType:
    """Import a local plugin given as a dotted module name or a path to a ``.py`` file.

    A module name is looked up in the working directory first (``--plugin mylab.encoders`` run beside
    ``mylab/``, which needs no ``__init__.py``), then on ``sys.path``; the working directory is never added to
    ``sys.path`` (see :func:`_import_by_name`). A ``.py`` path is imported from that file alone.
    """
    if spec.endswith(".py") or os.sep in spec or "/" in spec:
        path = Path(spec).expanduser().resolve()
        if path.is_dir():
            raise PluginError(
                f"plugin {path} is a folder; give a .py file, or a package's module name (e.g. "
                f"-p {path.name} run from {path.parent}, the package needing an __init__.py)"
            )
        if not path.is_file():
            raise PluginError(f"plugin file {path} does not exist")
        # stable across processes (str hashes are salted per process): a class defined here keeps its
        # qualified name from run to run, so identities built from it (and resume) hold
        mod_name = f"steb_local_plugin_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
        if mod_name in sys.modules:
            return sys.modules[mod_name]
        module_spec = importlib.util.spec_from_file_location(mod_name, path)
        if module_spec is None or module_spec.loader is None:
            raise PluginError(f"cannot import plugin file {path}")
        return _execute(module_spec)
    module = _import_by_name(spec)
    if getattr(module, "__file__", None) is None and hasattr(module, "__path__"):
        # a folder without __init__.py imports as an empty namespace package: it would register nothing, silently
        raise PluginError(
            f"plugin '{spec}' is a folder without __init__.py ({', '.join(module.__path__)}), not a module with "
            "hooks; give its .py file or make it a package"
        )
    return module


def _execute(module_spec: importlib.machinery.ModuleSpec) -> ModuleType:
    """A new module run from ``module_spec`` and entered in ``sys.modules`` (removed again if running it fails)."""
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module
    try:
        module_spec.loader.exec_module(module)  # type: ignore[union-attr]  # callers check the loader
    except BaseException:
        sys.modules.pop(module_spec.name, None)
        raise
    return module


def _import_by_name(spec: str) -> ModuleType:
    """Import the dotted module ``spec``, its top-level module taken from the working directory when it is there.

    Why not put the working directory on ``sys.path``, as ``python`` does for a script: it stayed there for the
    rest of the run, so a ``sklearn.py`` or ``threadpoolctl.py`` lying in that folder (files of a downloaded
    release, say) was imported instead of the real library when steb imported it later. Here only the plugin's
    own top-level module (or package, whose submodules are then found through the package) is loaded from the
    working directory; every other import resolves as it would without the plugin. A plugin made of several
    top-level modules must therefore be a package (or import its siblings relative to its own file).
    """
    top = spec.partition(".")[0]
    cwd = os.getcwd()
    if top not in sys.modules and "" not in sys.path and cwd not in sys.path:
        found = importlib.machinery.PathFinder.find_spec(top, [cwd])
        if found is not None and found.loader is not None and found.origin not in (None, "namespace"):
            _execute(found)
        elif found is not None and importlib.util.find_spec(top) is None and "." in spec:
            # ``mylab.encoders`` beside a ``mylab/`` without __init__.py (CONTRIBUTING's worked example 2): the folder
            # is a namespace package from the working directory, through which its module is imported
            sys.modules[top] = importlib.util.module_from_spec(found)
        elif found is not None and importlib.util.find_spec(top) is None:
            # a folder without __init__.py named alone: it would import as an empty namespace package and register
            # nothing
            raise PluginError(
                f"plugin '{spec}' names the folder {Path(cwd) / top} without __init__.py, not a "
                "module with hooks; give its .py file or make it a package"
            )
    return importlib.import_module(spec)


def new_manager(
    local_plugins: Iterable[str] = (),
    *,
    entry_points: bool = True,
    env: bool = True,
    disabled: Iterable[str] = (),
    installed: Iterable[str] | None = None,
) -> StebPlugins:
    """Build a fresh plugin manager (tests use this; the CLI and API use :func:`get_manager`).

    ``installed`` limits the installed plugins loaded to those named (entry-point or distribution names);
    None loads all of them (when ``entry_points``).

    ``disabled`` (and ``$STEB_DISABLE_PLUGINS``, and ``no:NAME`` entries in ``local_plugins``) switch
    installed plugins off. Raises :class:`PluginError` when a plugin named in ``local_plugins`` or
    ``$STEB_PLUGINS`` cannot be loaded.
    """
    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    plugins = StebPlugins(pm)
    local = list(local_plugins)
    from_env = [n.strip() for n in os.environ.get(DISABLE_ENV_VAR, "").split(",") if n.strip()] if env else []
    off = [*disabled, *from_env, *(p[3:] for p in local if p.strip().startswith("no:"))]
    plugins.disable(off)
    plugins.load_builtins()
    if entry_points:
        plugins.load_entry_points(None if installed is None else list(installed))
    for name in from_env:  # a typo there is an error, as for -p no:NAME (issue 41: it was ignored)
        plugins._check_can_disable(name, f"${DISABLE_ENV_VAR}", f"${DISABLE_ENV_VAR} lists '{name}'")
    if env:
        plugins.load_env()
    plugins.load_local(local)
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


def use_manager(manager: StebPlugins) -> StebPlugins:
    """Make ``manager`` the process-wide one (the ``steb_isolated`` fixture installs its isolated manager)."""
    global _MANAGER
    _MANAGER = manager
    return manager


def reset_manager() -> None:
    """Forget the process-wide manager (tests, or after installing a plugin at run time)."""
    global _MANAGER
    _MANAGER = None


def register_object(module_or_object: Any, name: str) -> Callable[[], None]:
    """Register an in-memory plugin object (tests and notebooks); returns a function that removes it."""
    plugins = get_manager()
    problem = plugins._register_checked(module_or_object, name)  # in-memory objects are named by the caller
    if problem is not None:
        raise PluginError(f"plugin '{name}' (in-memory: {module_or_object!r}) {problem}")
    plugins.loaded.append(PluginInfo(name, "in-memory", repr(module_or_object)))
    plugins._registries.clear()

    def unregister() -> None:
        plugins.pm.unregister(name=name)
        plugins.loaded[:] = [p for p in plugins.loaded if p.name != name]
        plugins._registries.clear()

    return unregister
