"""The runner: load datasets, embed every distinct text once, run tasks, write one result per task.

A run goes through five named phases (see :class:`_Run`), and why each is where it is:

1. **plan** -- which (dataset, task) results the selection asks for, and the parts of their
   ``run_key`` known before any data is read (encoder identity, dataset and task versions, the
   providing plugin's version, protocol, seed).
2. **load** -- each dataset is loaded and its task-shaped records are fingerprinted
   (:meth:`DatasetBundle.fingerprint`); the fingerprint completes the run key, and a stored result
   with the same key and an intact content hash is reused. This is what makes a re-run after Ctrl-C
   or a crash resume where it stopped, and why a result is never reused for other data (an edited
   release, another ``--data-dir``, a plugin upgrade that ships other files): loading is cheap next
   to encoding, so every run loads what it reports on. Datasets are loaded one at a time and
   gathered into groups that fit ``max_memory``
   (default: one dataset per group), so peak memory is set by the largest dataset, not by the run.
   A group is sized by the cached vectors' dimension; until the cache knows it (the first dataset of
   a new model), that dataset forms a group of its own. With ``prefetch`` N (default 4) the next N
   datasets are loaded in a worker process while this one is encoded and scored
   (:mod:`steb_core.pipeline`); a load writes nothing, and what it found (reused results, notes,
   failures, missing data) is applied here in the run's order, so a run's records, cache and summary are
   those of the sequential runner (``prefetch=0``). Both run the datasets in one order that depends on
   the selection only (:func:`execution_order`): datasets with a task that is costly to score first,
   smallest first, then the cheap-to-score ones, largest first, so the loader has large loads to do
   while the last costly datasets are scored; the summary lists them in plan order. A loader raising :class:`DatasetNotFoundError`
   marks its dataset as missing data (``summary.missing``), a failure only with ``strict``.
3. **encode** -- the group's distinct texts are hashed once; only those the on-disk cache lacks go to
   the executor, shard by shard (each shard saved before the next starts). A text shared by two
   datasets is encoded once per run: the second finds it in the cache.
4. **score** -- each dataset gathers its vectors from the cache into one matrix and runs its tasks.
5. **write** -- each result is written atomically as soon as it is done.

An encoder failure (an exception, NaN vectors, a wrong shape) fails the datasets that need the
failed batch, with one line naming the encoder, the batch and the first bad text; every other
dataset still runs, and the batches already encoded stay cached (``fail_fast`` stops instead).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from .cache import CachedCollections, EmbeddingCache, ShardError, cache_key, default_cache_dir, is_sparse, sweep_stale_temp_files, text_hash
from .containment import check_inside
from .context import TaskContext
from .encoders import (
    SCORING_DEFAULTS,
    Identity,
    encoder_device,
    encoder_info,
    encoder_scoring,
    has_similarity,
    has_vectors,
    identify,
)
from .errors import DatasetNotFoundError, DataValidationError, StebError
from .executors import EncodeJob, EncoderRef, EncodingError, Executor, LocalExecutor
from .longtext import LongTextProtocol
from .naming import UNIDENTIFIED_PREFIX, claim_name, default_name, short_name
from .pipeline import Prefetch, WorkerDied
from .plugins import StebPlugins, get_manager
from .records import DatasetBundle
from .results import ResultRecord, legacy_result_path, library_versions, result_path, run_key
from .specs import DEFAULT_SEED, STEB_PROTOCOL_VERSION, DatasetSpec, LoadContext, TaskSpec

__all__ = ["evaluate", "RunSummary", "Failure", "MissingData", "RunFailed", "ERRORS", "resolve_datasets", "resolve_selection", "suite_members", "known_suites", "parse_memory", "execution_order"]


@dataclass
class Failure:
    dataset: str
    task: str | None
    error: str


@dataclass
class MissingData:
    """A dataset skipped because its local copy is missing (a :class:`DatasetNotFoundError` from its
    loader): not a failure of the run, which reports it and says how to get the data (issue 30)."""

    dataset: str
    tasks: list[str]
    error: str


@dataclass
class RunSummary:
    """What a run did: new and reused results, skipped tasks with reasons, failures, encoding counts."""

    encoder: str
    output_dir: Path
    results: list[ResultRecord] = field(default_factory=list)
    reused: list[ResultRecord] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    texts_total: int = 0
    texts_unique: int = 0
    texts_encoded: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    #: things the user should know about this run (identity not established, edited results recomputed,
    #: invalid cache shards set aside)
    notes: list[str] = field(default_factory=list)
    identity: dict[str, Any] = field(default_factory=dict)
    #: datasets skipped for missing data (``strict=False``), in plan order
    missing: list[MissingData] = field(default_factory=list)
    #: the ``--data-dir`` of the run, for the command that fetches missing data
    data_dir: str | None = None

    def get_data_command(self) -> str | None:
        """The one command that fetches every missing dataset of this run (``steb data get``), or None."""
        if not self.missing:
            return None
        names = " ".join(f"--dataset {m.dataset}" for m in self.missing)
        return f"steb data get {names}" + (f" --data-dir {self.data_dir}" if self.data_dir else "")

    @property
    def all_results(self) -> list[ResultRecord]:
        return self.reused + self.results

    def scores(self) -> dict[tuple[str, str], float | None]:
        """(dataset, task) -> main score (the metric the aggregates use), for quick inspection in notebooks."""
        return {(r.dataset, r.task): r.main_score for r in self.all_results}

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per result: encoder, dataset, task, main metric and score, companions, status."""
        out = []
        for status, records in (("reused", self.reused), ("new", self.results)):
            for r in records:
                row = {"encoder": r.encoder, "dataset": r.dataset, "task": r.task, "main_metric": r.main_metric,
                       "main_score": r.main_score, "status": status}
                row.update({f"{k}": v for k, v in r.companions.items()})
                out.append(row)
        return out

    def to_frame(self, backend: str = "pandas") -> Any:
        """The results as a pandas (default) or polars DataFrame (:meth:`rows`)."""
        if backend == "polars":
            import polars as pl  # noqa: PLC0415

            return pl.DataFrame(self.rows())
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(self.rows())

    def __repr__(self) -> str:
        return (
            f"RunSummary(encoder={self.encoder!r}, new={len(self.results)}, reused={len(self.reused)}, "
            f"skipped={len(self.skipped)}, missing={len(self.missing)}, failures={len(self.failures)}, encoded={self.texts_encoded}, "
            f"cache_hits={self.cache_hits}, output={str(self.output_dir)!r})"
        )


#: what :func:`evaluate` does with failed datasets and tasks once every other one has run:
#: ``raise`` :class:`RunFailed`, ``warn`` (one warning per failure, with its message) or ``collect``
#: (only ``summary.failures``, for callers that print failures themselves, like the CLI)
ERRORS = ("raise", "warn", "collect")


class RunFailed(StebError):
    """Datasets or tasks of a run failed (``evaluate(errors="raise")``); raised after the run, so every
    other result is written. ``summary`` is the run's :class:`RunSummary`."""

    def __init__(self, summary: Any) -> None:
        self.summary = summary
        failures = list(getattr(summary, "failures", None) or [])
        done = len(getattr(summary, "results", None) or []) + len(getattr(summary, "reused", None) or [])
        lines = "; ".join(_failure_line(f) for f in failures)
        super().__init__(f"{len(failures)} failure{'s' if len(failures) != 1 else ''} ({done} results written to "
                         f"{getattr(summary, 'output_dir', '?')}): {lines}")


def _failure_line(failure: Any) -> str:
    task = getattr(failure, "task", None)
    return f"{getattr(failure, 'dataset', '?')}{' / ' + task if task else ''}: {getattr(failure, 'error', failure)}"


def _handle_failures(summary: RunSummary, errors: str) -> None:
    """Raise or warn about the run's failures per ``errors`` (see :data:`ERRORS`)."""
    if not summary.failures or errors == "collect":
        return
    if errors == "raise":
        raise RunFailed(summary)
    import warnings  # noqa: PLC0415

    for failure in summary.failures:
        warnings.warn(f"steb: {_failure_line(failure)}", RuntimeWarning, stacklevel=3)


class _NoProgress:
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def __enter__(self) -> "_NoProgress":
        return self
    def __exit__(self, *exc: Any) -> None: ...
    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0
    def update(self, *args: Any, **kwargs: Any) -> None: ...
    def advance(self, *args: Any, **kwargs: Any) -> None: ...


class _LineProgress(_NoProgress):
    """Progress for a log file or pipe: one line per finished dataset task as it finishes (a bar drawn
    only at the end would leave a 12-minute log empty until then). Only the first bar (the run's
    datasets and tasks) prints; encoding bars are counted silently."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.bars: dict[int, list[Any]] = {}
        self.started = time.perf_counter()

    def add_task(self, description: str = "", total: Any = None, **kwargs: Any) -> int:
        self.bars[len(self.bars)] = [description, total, 0]
        return len(self.bars) - 1

    def update(self, task_id: int, description: str | None = None, **kwargs: Any) -> None:
        if description is not None and task_id in self.bars:
            self.bars[task_id][0] = description

    def advance(self, task_id: int, advance: float = 1) -> None:
        bar = self.bars.get(task_id)
        if bar is None or not advance:
            return
        bar[2] += advance
        if task_id == 0:
            self.stream.write(f"[{int(bar[2])}/{bar[1]}] {bar[0]} ({time.perf_counter() - self.started:.0f} s)\n")
            self.stream.flush()


@contextmanager
def _display_paused(bar: Any) -> Iterator[None]:
    """A live rich progress display stopped, its refresh thread ended, for the block (a fork of the prefetch
    worker: the child gets only the forking thread, and a lock another thread held then stays held in it)."""
    live = getattr(bar, "live", None)
    if live is None or not getattr(live, "is_started", False):
        yield
        return
    thread = getattr(live, "_refresh_thread", None)
    bar.stop()
    if isinstance(thread, threading.Thread):
        thread.join(timeout=5)
    try:
        yield
    finally:
        bar.start()


def _progress(enabled: bool) -> Any:
    if not enabled:
        return _NoProgress()
    from rich.console import Console  # noqa: PLC0415

    probe = Console()
    if not probe.is_terminal and not probe.is_jupyter:  # a log file or a pipe: lines as work finishes
        return _LineProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=False,
    )


def known_suites(plugins: StebPlugins) -> list[str]:
    return sorted({s for spec in plugins.datasets() for s in spec.suites})


def suite_members(plugins: StebPlugins, suite: str) -> list[DatasetSpec]:
    """The datasets of ``suite``; an unknown suite is an error listing the known ones."""
    members = [spec for spec in plugins.datasets() if suite in spec.suites]
    if not members:
        raise StebError(f"no dataset belongs to suite '{suite}'; known suites: {', '.join(known_suites(plugins)) or 'none'}")
    return members


def resolve_datasets(plugins: StebPlugins, datasets: Iterable[Any] | None, suite: str | None) -> list[DatasetSpec]:
    """Dataset specs from names, spec objects and/or a suite name (specs tagged with it), in order."""
    return [spec for spec, _ in resolve_selection(plugins, datasets, suite)]


def resolve_selection(plugins: StebPlugins, datasets: Iterable[Any] | None, suite: str | None) -> list[tuple[DatasetSpec, tuple[str, ...]]]:
    """(spec, task types to run) for named datasets (all their tasks) and suite members (the suite's tasks)."""
    registry = plugins.datasets()
    out: list[tuple[DatasetSpec, tuple[str, ...]]] = []
    for item in datasets or ():
        spec = item if isinstance(item, DatasetSpec) else getattr(item, "spec", None) if not isinstance(item, str) else None
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
                raise StebError(f"two different datasets are named '{spec.name}' in one run (versions {other.version} and "
                                f"{spec.version}); their results would share one folder: give them different names")
            unique[i] = (spec, tuple(dict.fromkeys([*unique[i][1], *task_names])))
            continue
        seen[spec.name] = len(unique)
        unique.append((spec, tuple(task_names)))
    return unique


def _check_encoder_options(name: str, factory: Any, options: Mapping[str, Any]) -> None:
    """Refuse options the encoder's factory does not take, naming the encoder and what it accepts."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    accepted = [n for n, p in params.items() if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise StebError(
            f"encoder '{name}' does not take option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"it accepts: {', '.join(accepted) or 'no options'} (see `steb list encoders`)"
        )


def _build_encoder(plugins: StebPlugins, encoder: Any, options: Mapping[str, Any], local_plugins: tuple[str, ...]) -> tuple[Any, EncoderRef, str, str, str | None]:
    """The encoder object, a rebuildable reference, its display name, family and provider version."""
    if isinstance(encoder, str):
        registry = plugins.encoders()
        if encoder not in registry:
            resolved = plugins.pm.hook.resolve_encoder(name=encoder, options=dict(options))
            if resolved is not None:
                # a path shows as its last component (the full path goes in the record); a hub id as is
                return resolved, EncoderRef(encoder, dict(options), True, local_plugins, resolved), short_name(encoder), getattr(resolved, "family", "resolved"), None
        spec = registry.get(encoder)
        _check_encoder_options(encoder, spec.factory, options)
        try:
            obj = spec.factory(**dict(options))
        except TypeError as exc:
            bad = re.search(r"unexpected keyword argument '([^']+)'", str(exc))
            accepted = ", ".join(spec.options_help) or "see `steb list encoders`"
            if bad:
                raise StebError(f"encoder '{encoder}' does not take option {bad.group(1)}; it accepts: {accepted}") from None
            raise StebError(f"encoder '{encoder}' could not be built with options {dict(options)}: {exc} (accepted options: {accepted})") from None
        version, _ = plugins.provider_version(registry.provider(encoder))  # a local plugin: its source hash
        ref = EncoderRef(encoder, dict(options), True, local_plugins, obj)
        return obj, ref, encoder, spec.family, version
    if not callable(getattr(encoder, "encode", None)) and not has_similarity(encoder):
        raise StebError(f"{type(encoder).__name__} has neither encode(texts) nor similarity(texts_a, texts_b)")
    encoder = _adapt(encoder)
    name = default_name(encoder) or ""  # "" when nothing names it: evaluate names it by class and identity
    return encoder, EncoderRef(name, {}, False, local_plugins, encoder), name, getattr(encoder, "family", "custom"), None


def _adapt(encoder: Any) -> Any:
    """Objects whose ``encode`` takes another calling convention (MTEB's models) get a thin adapter."""
    from .adapters import adapt_encoder  # noqa: PLC0415

    return adapt_encoder(encoder)


@dataclass
class _Pending:
    """Planned work for one dataset: its tasks, the run-key parts known before loading, and (once the
    data is loaded) the full run keys and the data fingerprint of each shape the tasks read."""

    spec: DatasetSpec
    tasks: list[TaskSpec]
    parts: dict[str, dict[str, Any]]
    provider: tuple[str, str] = ("", "")
    keys: dict[str, str] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)


@dataclass
class _Loaded:
    """A loaded dataset of a group: its records, its distinct texts and their hashes."""

    pending: _Pending
    bundle: DatasetBundle
    load_seconds: float
    texts: list[str] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)


@dataclass
class _LoadResult:
    """What loading one dataset produced, as plain data (it may come back from a prefetch process):
    the loaded records (None when loading failed), what the load found out about the plan (tasks left
    after reuse, run keys, data fingerprints) and what it added to the run's summary."""

    bundle: DatasetBundle | None
    load_seconds: float
    tasks: list[str]
    keys: dict[str, str]
    fingerprints: dict[str, str]
    texts: list[str]
    hashes: list[str]
    texts_total: int
    reused: list[ResultRecord]
    notes: list[str]
    failures: list[Failure]
    missing: list[MissingData] = field(default_factory=list)

    def apply(self, pending: _Pending, summary: RunSummary) -> _Loaded | None:
        """Bring ``pending`` and ``summary`` to where a load in this process would have left them."""
        pending.tasks = [t for t in pending.tasks if t.name in set(self.tasks)]
        pending.keys.update(self.keys)
        pending.fingerprints.update(self.fingerprints)
        summary.texts_total += self.texts_total
        summary.reused.extend(self.reused)
        summary.notes.extend(self.notes)
        summary.failures.extend(self.failures)
        summary.missing.extend(self.missing)
        if self.bundle is None:
            return None
        return _Loaded(pending, self.bundle, self.load_seconds, self.texts, self.hashes)


def parse_memory(value: str | int | None) -> int | None:
    """Bytes from ``4G``/``512M``/``2000000``; None means one dataset at a time."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip().upper().removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
    try:
        return int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        raise StebError(f"--max-memory {value!r} is not a size like 4G, 512M or a number of bytes") from None


class _Run:
    """One call of :func:`evaluate`, split into its phases: plan, load, encode, score, write."""

    def __init__(self, *, obj: Any, ref: EncoderRef, name: str, family: str, identity: Identity, manager: StebPlugins,
                 proto: LongTextProtocol, seed: int, output_dir: Path, dataset_options: Mapping[str, Any],
                 batch_size: int, fail_fast: bool, overwrite: bool, threads: int | None, max_memory: int | None,
                 summary: RunSummary, prefetch: int = 0, prefetch_mode: str = "auto", strict: bool = False,
                 batch_tokens: int | None = None) -> None:
        self.obj, self.ref, self.name, self.family, self.identity = obj, ref, name, family, identity
        self.manager, self.proto, self.seed, self.output_dir = manager, proto, seed, output_dir
        self.dataset_options = dict(dataset_options)
        self.batch_size, self.fail_fast, self.overwrite = batch_size, fail_fast, overwrite
        #: padded tokens per encoding batch (``--batch-tokens``, :func:`steb_core.executors.plan_batches`)
        self.batch_tokens = batch_tokens
        self.threads, self.max_memory, self.summary = threads, max_memory, summary
        #: datasets loaded ahead of the one being encoded and scored, and where (:mod:`steb_core.pipeline`)
        self.prefetch, self.prefetch_mode = prefetch, prefetch_mode
        #: missing data is a failure (True) or a skipped dataset with a note (False, the default)
        self.strict = strict
        self._prefetch: Any = None
        # an unidentified encoder gets a key no other run can produce: nothing is ever reused for it
        self.fingerprint = identity.fingerprint or f"{UNIDENTIFIED_PREFIX}{uuid.uuid4().hex}"
        self.vectors_ok = has_vectors(obj)
        self.own_similarity = has_similarity(obj)
        #: the encoder's declared scoring modes (part of every run key: they change the pair/cluster figures)
        self.scoring = encoder_scoring(obj)
        self.versions = library_versions()
        self._info: dict[str, Any] | None = None  # taken after encoding: device, dtype as actually used
        self.failed_hashes: dict[str, str] = {}
        self.seen_hashes: set[str] = set()
        self.cache: EmbeddingCache | None = None
        self.executor: Executor | None = None
        #: build the cache and the executor on first need (see :meth:`open_backends`)
        self.make_cache: Callable[[], EmbeddingCache | None] = lambda: None
        self.make_executor: Callable[[], Executor] = LocalExecutor
        self.encode_seconds = 0.0
        #: what the user gave when the shown name is shorter (a model path: leaderboards show its last component)
        self.source = ""

    def info(self) -> dict[str, Any]:
        if self._info is None:
            self._info = {**encoder_info(self.obj), **({"options": dict(self.ref.options)} if self.ref.options else {})}
            if self.scoring != SCORING_DEFAULTS:
                self._info["scoring"] = dict(self.scoring)
        return self._info

    def collections_fn(self) -> Callable[..., Any] | None:
        """The encoder's own multi-text embedding, given the run's long-text protocol when it takes one,
        behind the run's cache (each distinct collection encoded once per model and protocol)."""
        fn = getattr(self.obj, "encode_collections", None)
        if fn is None:
            return None
        try:
            takes_protocol = "protocol" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            takes_protocol = False
        fn = partial(fn, protocol=self.proto) if takes_protocol else fn
        return fn if self.cache is None else CachedCollections(fn, self.cache)

    # -- 1. plan -------------------------------------------------------------------------------
    def plan(self, selection: list[tuple[DatasetSpec, tuple[str, ...]]], only_tasks: Sequence[str] | None) -> list[_Pending]:
        task_registry = self.manager.tasks()
        plan: list[_Pending] = []
        for spec, task_names in selection:
            pending: list[TaskSpec] = []
            parts: dict[str, dict[str, Any]] = {}
            provider = self.provider_of(spec)
            for task_name in task_names:
                if only_tasks and task_name not in only_tasks:
                    continue
                if task_name not in task_registry:  # asked for and not computable: a failure, not a skip (issue 41)
                    why = unregistered_reason(task_registry, task_name)
                    self.summary.failures.append(Failure(spec.name, task_name, why))
                    continue
                task = task_registry.get(task_name)
                if task.needs_vectors and not self.vectors_ok:
                    self.summary.skipped.append((spec.name, task_name, "encoder is similarity-only; task needs vectors"))
                    continue
                parts[task.name] = dict(
                    encoder=self.fingerprint, dataset=spec.name, dataset_version=spec.version, task=task.name,
                    task_version=task.version, protocol=self.proto.key(), seed=self.seed,
                    dataset_options=self.dataset_options, steb_protocol=STEB_PROTOCOL_VERSION, scoring=self.scoring)
                pending.append(task)
            if pending:
                plan.append(_Pending(spec, pending, parts, provider))
        return plan

    def provider_of(self, spec: DatasetSpec) -> tuple[str, str]:
        """(plugin name, its distribution version) of the plugin that registered ``spec``; ('', '') for a spec
        object no plugin registered (``dataset_from``: its version is already a hash of its content)."""
        registry = self.manager.datasets()
        if spec.name not in registry or registry.get(spec.name) is not spec:
            return "", ""
        name = registry.provider(spec.name)
        version, _ = self.manager.provider_version(name)  # a local plugin: its source hash
        return name, version or ""

    def _complete_keys(self, pending: _Pending, bundle: DatasetBundle) -> None:
        """Fingerprint each shape the tasks read (once per shape) and finish their run keys with it."""
        for task in pending.tasks:
            if task.shape not in pending.fingerprints:
                pending.fingerprints[task.shape] = bundle.fingerprint(task.shape)
            pending.keys[task.name] = run_key(**pending.parts[task.name], data_fingerprint=pending.fingerprints[task.shape],
                                              dataset_provider_version=pending.provider[1])

    def _reuse(self, pending: _Pending) -> None:
        """Move the tasks whose stored result has the full run key (same data) to ``summary.reused``."""
        if self.overwrite:
            return
        left = []
        for task in pending.tasks:
            stored = self._stored(pending, task)
            if stored is None:
                left.append(task)
            else:
                self.summary.reused.append(stored)
        pending.tasks = left

    def _stored(self, pending: _Pending, task: TaskSpec) -> ResultRecord | None:
        path = result_path(self.output_dir, self.name, pending.spec.name, task.name)
        if not path.exists() and not self._move_legacy_result(path, pending.spec.name, task.name):
            return None
        try:
            stored = ResultRecord.read(path)
        except (DataValidationError, UnicodeDecodeError, OSError) as exc:  # unreadable, NaN, wrong types: recomputed, never fatal
            self.summary.notes.append(f"stored result {path} is not usable ({exc}); recomputing it")
            return None
        if stored.run_key != pending.keys[task.name]:
            self._why_stale(path, stored, pending, task)
            return None
        if not stored.verified():
            self.summary.notes.append(f"stored result {path} does not match its content hash (edited by hand?); recomputing it")
            return None
        return stored

    def _move_legacy_result(self, path: Path, dataset: str, task: str) -> bool:
        """Move this result from where steb wrote it before result paths became injective (issue 41) to ``path``.

        Only a record of exactly this encoder name, identity, dataset and task moves: under the old naming two
        names could share that file (``a/b`` and ``a__b``), and the other name's result stays where it is.
        """
        old = legacy_result_path(self.output_dir, self.name, dataset, task)
        if old == path or not old.is_file():
            return False
        try:
            stored = ResultRecord.read(old)
        except (DataValidationError, UnicodeDecodeError, OSError):
            return False
        mine = (self.name, dataset, task, self.fingerprint)
        if (stored.encoder, stored.dataset, stored.task, stored.encoder_fingerprint) != mine:
            return False
        check_inside(old, self.output_dir, what="output folder")
        check_inside(path.parent if path.parent.exists() else self.output_dir, self.output_dir, what="output folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        os.replace(old, path)
        self.summary.notes.append(f"stored result {old} moved to {path} (result paths now differ for every name)")
        return True

    def _why_stale(self, path: Path, stored: ResultRecord, pending: _Pending, task: TaskSpec) -> None:
        """A note when a stored result is recomputed because steb's protocol or the task's code changed, or
        because its data changed (or it predates data fingerprints), so the user sees why a number they had
        is recomputed; other differences (encoder, options, seed) need no note."""
        parts = pending.parts[task.name]
        if stored.steb_protocol and stored.steb_protocol != STEB_PROTOCOL_VERSION:
            self.summary.notes.append(f"stored result {path} follows STEB protocol {stored.steb_protocol!r}; this steb "
                                      f"implements {STEB_PROTOCOL_VERSION!r} (see README, 'STEB protocol version'), "
                                      "so it is recomputed")
        elif str(stored.task_version) != str(task.version) and stored.encoder_fingerprint == self.fingerprint:
            self.summary.notes.append(f"stored result {path} was computed by version {stored.task_version} of task "
                                      f"'{task.name}'; "
                                      f"this steb has version {task.version}, so it is recomputed")
        elif stored.run_key == run_key(**parts):
            self.summary.notes.append(f"stored result {path} was written by an older steb without a data fingerprint; "
                                      "recomputing it (a result is reused only for the data it was computed on)")
        elif stored.run_key == run_key(**parts, data_fingerprint=stored.data_fingerprint,
                                       dataset_provider_version=stored.dataset_provider_version):
            now = pending.fingerprints[task.shape]
            what = (f"the data of '{pending.spec.name}' changed (fingerprint {stored.data_fingerprint[:12]} -> {now[:12]})"
                    if stored.data_fingerprint != now else
                    f"the plugin providing '{pending.spec.name}' changed version "
                    f"({stored.dataset_provider_version or 'none'} -> {pending.provider[1] or 'none'})")
            self.summary.notes.append(f"stored result {path}: {what}; recomputing it")

    # -- 2. load -------------------------------------------------------------------------------
    def load(self, pending: _Pending, data_dir: str | Path | None) -> _Loaded | None:
        spec = pending.spec
        t0 = time.perf_counter()
        try:
            ctx = LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, data_dir), self.seed, dict(self.dataset_options))
            bundle = spec.loader(ctx)
            if not isinstance(bundle, DatasetBundle):
                raise StebError(f"loader of '{spec.name}' returned {type(bundle).__name__}, expected DatasetBundle")
            for task in pending.tasks:
                if bundle.get(task.shape) is None:
                    raise StebError(f"dataset '{spec.name}' declares task '{task.name}' but its loader produced no '{task.shape}' records")
            self._complete_keys(pending, bundle)
        except DatasetNotFoundError as exc:  # not on this machine: skipped as missing data unless strict
            if self.strict:
                if self.fail_fast:
                    raise
                self.summary.failures.append(Failure(spec.name, None, describe_failure(exc)))
            else:
                self.summary.missing.append(MissingData(spec.name, [t.name for t in pending.tasks], str(exc)))
            return None
        except Exception as exc:  # any loader error (a plugin's KeyError too) fails this dataset only
            if self.fail_fast:
                raise
            self.summary.failures.append(Failure(spec.name, None, describe_failure(exc)))
            return None
        except SystemExit as exc:  # a loader's sys.exit() ends neither the run nor the prefetch worker (issue 41)
            message = loader_exit_message(pending, exc)
            if self.fail_fast:
                raise StebError(f"dataset '{spec.name}': {message}") from None
            self.summary.failures.append(Failure(spec.name, None, message))
            return None
        self._reuse(pending)
        loaded = _Loaded(pending, bundle, time.perf_counter() - t0)
        if pending.tasks and self.vectors_ok:
            distinct: dict[str, None] = {}
            total = 0
            for text in bundle.iter_texts(sorted({t.shape for t in pending.tasks})):
                total += 1
                distinct.setdefault(text, None)
            for task in pending.tasks:  # texts a task embeds beyond its records' (retrieval's joined collections)
                if task.extra_texts is not None:
                    for text in task.extra_texts(bundle.get(task.shape), self.dataset_options):
                        total += 1
                        distinct.setdefault(text, None)
            loaded.texts = list(distinct)
            loaded.hashes = [text_hash(t) for t in loaded.texts]  # the one place a text is hashed
            self.summary.texts_total += total
        return loaded

    def load_step(self, pending: _Pending, data_dir: str | Path | None) -> _LoadResult:
        """:meth:`load` on a copy of this run with an empty summary, returned as plain data.

        Why a copy: the load may run in a prefetch thread or process (:meth:`execute`); everything it
        changes (the pending's tasks and keys, the summary) comes back in the result and is applied by
        the run in plan order, so a prefetched run ends with the same summary as a sequential one.
        """
        worker = dataclasses.replace(self.summary, results=[], reused=[], skipped=[], failures=[], notes=[], missing=[],
                                     texts_total=0, identity={})
        clone = copy.copy(self)
        clone.summary = worker
        loaded = clone.load(pending, data_dir)
        return _LoadResult(
            bundle=loaded.bundle if loaded is not None else None, load_seconds=loaded.load_seconds if loaded else 0.0,
            tasks=[t.name for t in pending.tasks], keys=dict(pending.keys), fingerprints=dict(pending.fingerprints),
            texts=loaded.texts if loaded else [], hashes=loaded.hashes if loaded else [], texts_total=worker.texts_total,
            reused=worker.reused, notes=worker.notes, failures=worker.failures, missing=worker.missing)

    def estimated_bytes(self, loaded: _Loaded) -> int | None:
        """float32 bytes of the dataset's vectors; None while the model's dimension is unknown (nothing
        cached yet), so the group closes after this dataset instead of guessing a dimension."""
        dim = self.cache.dim if self.cache is not None else None
        return None if dim is None else len(loaded.texts) * dim * 4

    # -- 3. encode -----------------------------------------------------------------------------
    def encode(self, group: list[_Loaded], bar: Any) -> None:
        """Encode the group's texts the cache lacks (each once); record failed batches' texts."""
        if self.cache is None:
            return
        distinct: dict[str, str] = {}
        for loaded in group:
            for text, h in zip(loaded.texts, loaded.hashes):
                distinct.setdefault(text, h)
        new = [h for h in distinct.values() if h not in self.seen_hashes]
        self.seen_hashes.update(new)
        self.summary.texts_unique += len(new)
        missing = [t for t, h in distinct.items() if h not in self.cache and h not in self.failed_hashes]
        self.summary.cache_hits += sum(1 for h in new if h in self.cache)
        if not missing:
            return
        assert self.executor is not None
        t0 = time.perf_counter()
        enc_bar = bar.add_task(f"encoding with {self.name}", total=len(missing))
        job = EncodeJob(self.ref, missing, self.proto, str(self.cache.root), (self.fingerprint, self.proto.key()),
                        self.batch_size, hashes=[distinct[t] for t in missing], batch_tokens=self.batch_tokens)
        before = len(self.cache)
        try:
            self.summary.texts_encoded += self.executor.encode(job, self.cache, lambda n: bar.advance(enc_bar, n))
        except EncodingError as exc:
            if self.fail_fast:
                raise
            failed = exc.texts or missing
            for text in failed:
                self.failed_hashes[distinct.get(text) or text_hash(text)] = str(exc)
            self.cache.refresh()
            self.summary.texts_encoded += max(0, len(self.cache) - before)
        self.cache.refresh()
        self.encode_seconds += time.perf_counter() - t0

    # -- 4. score ------------------------------------------------------------------------------
    def vectors(self, loaded: _Loaded) -> Any:
        """The dataset's vectors from the cache (row i for ``loaded.texts[i]``), re-encoding bad shards once."""
        assert self.cache is not None
        for attempt in range(2):
            try:
                return self.cache.get(loaded.hashes)
            except ShardError as exc:
                self.summary.notes.append(str(exc))
                if attempt == 1:
                    raise
                self.encode([loaded], _NoProgress())
        raise AssertionError("unreachable")

    def score(self, loaded: _Loaded, bar: Any, task_bar: int) -> None:
        spec = loaded.pending.spec
        failed = next((self.failed_hashes[h] for h in loaded.hashes if h in self.failed_hashes), None)
        if failed is not None:
            self.summary.failures.append(Failure(spec.name, None, f"EncodingError: {failed}"))
            bar.advance(task_bar, len(loaded.pending.tasks))
            return
        embed = None
        if self.vectors_ok:
            try:
                matrix = self.vectors(loaded)
            except ShardError as exc:
                if self.fail_fast:
                    raise
                self.summary.failures.append(Failure(spec.name, None, f"ShardError: {exc}"))
                bar.advance(task_bar, len(loaded.pending.tasks))
                return
            row_of = {t: i for i, t in enumerate(loaded.texts)}
            sparse = is_sparse(matrix)
        for task in loaded.pending.tasks:
            t0 = time.perf_counter()
            bar.update(task_bar, description=f"{spec.name} / {task.name}")
            if self.vectors_ok:
                embed = _embedder(matrix, row_of, densify=sparse and not task.accepts_sparse)
            ctx = TaskContext(
                dataset=spec, bundle=loaded.bundle, data=loaded.bundle.get(task.shape), seed=self.seed,
                options=dict(self.dataset_options), embed_fn=embed,
                similarity_fn=self.obj.similarity if self.own_similarity else None,
                collections_fn=self.collections_fn(), threads=self.task_threads(), device=encoder_device(self.obj),
                scoring=dict(self.scoring),
            )
            try:
                metrics = dict(task.run(ctx))
            except Exception as exc:
                if self.fail_fast:
                    raise
                self.summary.failures.append(Failure(spec.name, task.name, f"{type(exc).__name__}: {exc}"))
                bar.advance(task_bar)
                continue
            self.write(loaded, task, metrics, time.perf_counter() - t0)
            bar.advance(task_bar)

    def task_threads(self) -> int | None:
        """``--threads`` when given, else None (the task chooses from its work size and the free cores).

        Never derived from whether the read-ahead worker is loading at that moment: a result may depend on
        the BLAS thread count (probing's float32 products), and records must not depend on timing. The
        load average the tasks read already counts the worker's core.
        """
        return self.threads

    # -- 5. write ------------------------------------------------------------------------------
    def write(self, loaded: _Loaded, task: TaskSpec, metrics: dict[str, Any], task_seconds: float) -> None:
        spec, bundle = loaded.pending.spec, loaded.bundle
        main_metric = task.main_metric_of(metrics)
        record = ResultRecord(
            encoder=self.name, dataset=spec.name, task=task.name, main_metric=main_metric,
            main_score=_as_float(metrics.get(main_metric)), metrics=metrics,
            encoder_fingerprint=self.fingerprint, encoder_info=self.info(), encoder_family=self.family,
            dataset_version=spec.version, dataset_meta=dataset_meta(spec), dataset_info=dict(bundle.info),
            data_fingerprint=loaded.pending.fingerprints[task.shape], dataset_provider=loaded.pending.provider[0],
            dataset_provider_version=loaded.pending.provider[1],
            task_version=task.version, protocol=self.proto.as_dict(), seed=self.seed,
            counts={
                f"records_{task.shape}": bundle.counts()[task.shape],
                "texts": sum(1 for _ in bundle.iter_texts([task.shape])),
                "run_unique_texts": self.summary.texts_unique,
                "run_encoded": self.summary.texts_encoded,
                "run_cache_hits": self.summary.cache_hits,
            },
            timings={"load_s": round(loaded.load_seconds, 4), "encode_s": round(self.encode_seconds, 4), "task_s": round(task_seconds, 4)},
            versions=self.versions, run_key=loaded.pending.keys[task.name],
            encoder_identity={**self.identity.evidence, **({"source": self.source} if self.source else {})},
            steb_protocol=STEB_PROTOCOL_VERSION,
            companions={m: _as_float(metrics.get(m)) for m in (*task.companion_metrics, *task.fallback_metrics, task.main_metric)
                        if m != main_metric and metrics.get(m) is not None},
        )
        record.write(self.output_dir)
        self.summary.results.append(record)

    # -- the whole run -------------------------------------------------------------------------
    def execute(self, plan: list[_Pending], data_dir: str | Path | None, progress: bool) -> None:
        """Load, encode and score every planned dataset, in :func:`execution_order`.

        With ``prefetch`` N > 0 the loads of the next N datasets run in a worker (a forked process by
        default, :mod:`steb_core.pipeline`) while this process encodes and scores; the loads' results
        are applied here in that order, so groups, batch plans, the cache and every record are those
        of the sequential run (``prefetch=0``), which runs in the same order. The summary's lists are
        put back in plan order at the end."""
        ordered = [plan[i] for i in execution_order([(p.spec, [t.name for t in p.tasks]) for p in plan])]
        stream = Prefetch(len(ordered), partial(self._load_item, ordered, data_dir), ahead=self.prefetch, mode=self.prefetch_mode)
        self._prefetch = stream
        stream.start()  # a forked loader starts before the progress display starts its thread
        try:
            self._consume(ordered, stream, progress)
        finally:
            stream.close()
            self._prefetch = None
            self._plan_order([p.spec.name for p in plan])

    def _plan_order(self, names: list[str]) -> None:
        """Results, reused results, failures and missing data listed in plan order, as the user selected."""
        rank = {name: i for i, name in enumerate(names)}
        last = len(names)
        for attr in ("results", "reused", "failures", "missing"):
            items = getattr(self.summary, attr)
            items.sort(key=lambda item: rank.get(item.dataset, last))  # stable: a dataset's tasks keep their order

    def _load_item(self, plan: list[_Pending], data_dir: str | Path | None, i: int) -> _LoadResult:
        return self.load_step(plan[i], data_dir)

    def _consume(self, plan: list[_Pending], stream: Prefetch, progress: bool) -> None:
        with _progress(progress) as bar:
            task_bar = bar.add_task("datasets", total=sum(len(p.tasks) for p in plan))
            group: list[_Loaded] = []
            group_bytes = 0
            for pending in plan:
                bar.update(task_bar, description=f"loading {pending.spec.name}")
                planned = len(pending.tasks)
                try:
                    step = stream.next()
                except WorkerDied as exc:  # the loader's process died (os._exit, SIGKILL): this dataset fails
                    why = worker_death_message(pending, exc)
                    if self.fail_fast:
                        raise StebError(f"dataset '{pending.spec.name}': {why}") from None
                    self.summary.failures.append(Failure(pending.spec.name, None, why))
                    bar.advance(task_bar, planned)
                    with _display_paused(bar):  # a fork copies no thread: the display's must not hold a lock then
                        stream.start()
                    continue
                loaded = step.apply(pending, self.summary)
                if loaded is None:
                    missing = any(m.dataset == pending.spec.name for m in self.summary.missing)
                    bar.update(task_bar, description=f"{pending.spec.name}: {'data missing' if missing else 'failed to load'}")
                    bar.advance(task_bar, planned)
                    continue
                if planned > len(pending.tasks):
                    bar.update(task_bar, description=f"{pending.spec.name}: {planned - len(pending.tasks)} reused")
                bar.advance(task_bar, planned - len(pending.tasks))  # reused: same key, same data
                if not pending.tasks:
                    continue
                self.open_backends()
                group.append(loaded)
                estimate = self.estimated_bytes(loaded)
                group_bytes += estimate or 0
                if self.max_memory is None or estimate is None or group_bytes >= self.max_memory:
                    self._process(group, bar, task_bar)
                    group, group_bytes = [], 0
            if group:
                self._process(group, bar, task_bar)
            bar.update(task_bar, description="done")

    def open_backends(self) -> None:
        """The embedding cache and the executor, opened when the first dataset with work is loaded (a run
        that reuses every result starts no executor, e.g. no Ray cluster)."""
        if self.executor is None:
            self.executor = self.make_executor()
        if self.vectors_ok and self.cache is None:
            self.cache = self.make_cache()

    def close(self) -> None:
        if self.executor is not None:
            self.executor.close()

    def _process(self, group: list[_Loaded], bar: Any, task_bar: int) -> None:
        self.encode(group, bar)
        for loaded in group:
            bar.update(task_bar, description=f"scoring {loaded.pending.spec.name}")
            self.score(loaded, bar, task_bar)


#: task types whose scoring costs little per text next to reading or generating it: one cosine per pair
#: (``pair_predefined``), a few per group (``order_alignment``). Every other type (a solver, k-means,
#: all-to-all or query-by-candidate score blocks, and any plugin's type) counts as costly to score.
CHEAP_TO_SCORE = frozenset({"pair_predefined", "order_alignment"})

_TEXTS_IN_SIZE = re.compile(r"(\d[\d,]*)\s+texts\b")


def size_hint(spec: DatasetSpec) -> int:
    """Texts the dataset is expected to hold, from ``spec.expected`` (its ``texts`` counts) or an
    "N texts" in ``spec.size``; 0 when neither says (counted as small). Only orders the run."""
    counts = [int(v) for promise in spec.expected.values() for k, v in promise.items() if k == "texts" and isinstance(v, int)]
    if counts:
        return max(counts)
    found = _TEXTS_IN_SIZE.search(spec.size or "")
    return int(found.group(1).replace(",", "")) if found else 0


def execution_order(items: Sequence[tuple[DatasetSpec, Sequence[str]]]) -> list[int]:
    """The order a run processes its datasets in: indices into ``items`` ((spec, task types to run)).

    Why not the order of selection: with ``prefetch`` the next datasets are loaded in a worker while
    this one is encoded and scored, a two-stage flow (load, then encode + score) whose wall time is
    set by how well each load overlaps the work before it. Johnson's rule orders such a flow: jobs
    whose second stage is the longer first, shortest first stage first; then the others, longest
    second stage first. Costs are estimated from the specs alone (nothing is loaded to plan the order):
    loading and encoding cost about the same per text for every dataset (:func:`size_hint`), scoring
    depends on the task type, so datasets with a task that is costly to score (not in
    :data:`CHEAP_TO_SCORE`) come first, smallest first, and the cheap-to-score ones last, largest
    first. The loader then works ahead on the large cheap-to-score datasets while the last costly
    ones are scored. Ties keep the selection order.

    The order depends on the selection only, never on ``prefetch``, timing or the machine: it decides
    which dataset first encodes a text that two datasets share (so which batch it is encoded in) and
    the run-wide counters in each record, so a run with ``prefetch=0`` uses it too and every run of a
    selection writes the same records.
    """
    def key(i: int) -> tuple[int, int, int]:
        spec, tasks = items[i]
        n = size_hint(spec)
        if any(t not in CHEAP_TO_SCORE for t in tasks):
            return (0, n, i)
        return (1, -n, i)

    return sorted(range(len(items)), key=key)


def describe_failure(exc: BaseException) -> str:
    """One line for a failed dataset: the error, and for an unexpected one (a plugin's KeyError, a
    RecursionError) where it was raised, since such messages name no file (``KeyError: 'author'``)."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, StebError):
        return text
    where = _raised_at(exc)
    return f"{text} (raised{where})" if where else text


def unregistered_reason(registry: Any, name: str) -> str:
    """Why task type ``name`` is not in ``registry``: two plugins register it, or a plugin's hook failed."""
    if name in registry.conflicts:
        both = " and ".join(repr(p) for p in registry.conflicts[name])
        return f"task type '{name}' is registered by {both}, so the name is refused; switch one plugin off (-p no:NAME)"
    why = " ".join(registry.notes) or "no loaded plugin provides it"
    return f"task type '{name}' is not registered: {why}"


def refused_suite_members(plugins: StebPlugins, suite: str) -> list[tuple[str, str]]:
    """(dataset name, why) for each dataset of ``suite`` whose name two plugins register (both refused)."""
    registry = plugins.datasets()
    return [(name, f"dataset '{name}' of suite '{suite}' is registered by {' and '.join(map(repr, providers))}, "
                   "so the name is refused; switch one plugin off (-p no:NAME)")
            for name, providers in registry.conflicts.items()
            if any(suite in spec.suites for spec in registry.refused.get(name, ()))]


def _plugin_of(pending: _Pending) -> str:
    return f"plugin '{pending.provider[0]}'" if pending.provider[0] else "a dataset object given to evaluate()"


def loader_exit_message(pending: _Pending, exc: SystemExit) -> str:
    """The failure line for a loader that called ``sys.exit``: its plugin, the code and where it was called."""
    return f"SystemExit: the loader ({_plugin_of(pending)}) called sys.exit({exc.code!r})" + _raised_at(exc)


def worker_death_message(pending: _Pending, exc: WorkerDied) -> str:
    """The failure line for a dataset whose prefetch worker died while loading it: the plugin and how it died."""
    return (f"the prefetch worker process running its loader ({_plugin_of(pending)}) {exc.how} before sending the "
            "dataset; the datasets after it are loaded by a new worker")


def _raised_at(exc: BaseException) -> str:
    """`` at FILE:LINE in FUNCTION`` of the innermost frame of ``exc``'s traceback ('' without one)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return "" if tb is None else f" at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name}"


def _embedder(matrix: Any, row_of: dict[str, int], *, densify: bool) -> Callable[[Sequence[str]], Any]:
    def embed(batch: Sequence[str]) -> Any:
        rows = matrix[np.fromiter((row_of[t] for t in batch), dtype=np.int64, count=len(batch))]
        return rows.toarray() if densify else rows

    return embed


def evaluate(
    encoder: Any,
    datasets: Iterable[Any] | None = None,
    *,
    suite: str | None = None,
    tasks: Sequence[str] | None = None,
    output: str | Path = "steb-results",
    data_dir: str | Path | None = None,
    protocol: str = "chunk-and-pool",
    max_length: int | None = None,
    seed: int = DEFAULT_SEED,
    cache_dir: str | Path | None = None,
    executor: str | Executor = "local",
    executor_options: Mapping[str, Any] | None = None,
    encoder_options: Mapping[str, Any] | None = None,
    dataset_options: Mapping[str, Any] | None = None,
    plugins: Sequence[str] = (),
    batch_size: int = 1024,
    batch_tokens: int | None = None,
    progress: bool = True,
    overwrite: bool = False,
    fail_fast: bool = False,
    threads: int | None = None,
    max_memory: str | int | None = None,
    name: str | None = None,
    errors: str = "warn",
    prefetch: int = 4,
    prefetch_mode: str = "auto",
    strict: bool = False,
    sampling: str | None = None,
    draws: int | None = None,
) -> RunSummary:
    """Evaluate ``encoder`` on datasets and write one JSON result per (dataset, task) under ``output``.

    ``encoder`` is a registered encoder name (built with ``encoder_options``), a model path or hub id a
    plugin can resolve (e.g. a sentence-transformers folder), or any object with ``encode(list[str])``
    (a SentenceTransformer, an MTEB model, your own class) or ``similarity(a, b)``. ``datasets`` are
    names, :class:`DatasetSpec` objects or in-memory datasets from :func:`steb.dataset_from`;
    ``suite`` adds a suite's datasets with the suite's tasks. ``protocol`` is the long-text protocol
    (``chunk-and-pool`` or ``truncate``) at ``max_length`` tokens (default: the encoder's own).

    Stored results with the same inputs (encoder identity, data, protocol, seed, code versions) and
    an intact content hash are reused unless ``overwrite``.

    ``name`` is the encoder's name in results and leaderboards. By default it says what the model
    is: a registered name, a model path's last component (the full path is kept in each record's
    ``encoder_identity["source"]``), a hub id, an object's own ``name`` or model card; an object that
    nothing names gets its class name and the start of its identity hash. A result is never replaced
    by one of another model: when the name's folder under ``output`` holds another identity's
    results, this run writes to ``NAME@<identity>`` instead (stable: the same model finds it again),
    says so in ``summary.notes``, and the report shows both.

    A failing dataset or task (a missing corpus, a wrong column, an encoder error) does not stop the
    others; ``errors`` says what happens with the failures then (see :data:`ERRORS`): ``"warn"``
    (default) warns with each message, ``"raise"`` raises :class:`RunFailed` after the run,
    ``"collect"`` only fills ``summary.failures``. ``fail_fast`` stops at the first failure instead.
    A dataset whose data is not on this machine (its loader raises :class:`DatasetNotFoundError`) is
    not a failure: it is skipped and listed in ``summary.missing``, with a note giving the ``steb data
    get`` command that fetches it (``summary.get_data_command()``); ``strict=True`` makes it a failure. ``threads`` caps the BLAS/OpenMP threads of task computations (default: chosen
    from the work size and the free cores). ``max_memory`` (e.g. ``"4G"``) groups datasets that fit
    the budget; by default datasets are processed one at a time, which bounds peak memory by the
    largest dataset.

    ``batch_size`` texts form one encoding batch (and cache shard); ``batch_tokens`` (e.g. 16384) cuts
    the length-sorted texts by a budget of padded tokens instead (at most ``batch_size`` texts still), so
    short texts share large batches and long ones do not run out of accelerator memory together
    (:func:`steb_core.executors.plan_batches`; the encoder's ``count_tokens`` measures them when it has one).

    ``prefetch`` (default 4) datasets are loaded ahead of the one being encoded and scored, in a forked
    process (``prefetch_mode="auto"`` or ``"process"``; ``"thread"`` where fork is missing), so on two
    cores loading overlaps encoding and scoring; results are the same as with ``prefetch=0`` (one dataset
    after another, in this process). Why 4, not 1: the run's order (:func:`execution_order`) ends with
    large cheap-to-score datasets that the loader reads while the last costly ones are scored, several
    per costly one (bench/full_steb §1b: 0.56-0.58x of the sequential wall with 4). Memory: up to ``prefetch``
    more loaded datasets (their records and texts, not their vectors) are held beside the ``max_memory``
    group being processed, plus the worker process's own (1.22-1.27x the sequential peak in that bench).

    Which texts: every loader takes the STEB reference's sample by default (the first N texts per class in
    the release's order, :mod:`steb_core.sampling`); ``sampling="random"`` (the dataset option ``sampling``)
    draws them with ``seed`` instead. ``seed`` defaults to 42, the reference's. ``draws=K`` runs K random
    draws with seeds derived from ``seed`` and writes each score as the mean over them, the standard
    deviations beside, under the encoder name ``NAME~random<K>`` (:mod:`steb_core.draws`); the single draws
    go to ``output/.draws/`` and never replace the default result.
    """
    if draws is not None:
        kwargs = {k: v for k, v in locals().items()
                  if k not in ("draws", "seed", "output", "dataset_options", "sampling")}
        from .draws import evaluate_draws  # noqa: PLC0415

        return evaluate_draws(evaluate, draws=draws, seed=seed, output=output,
                              dataset_options={**(dataset_options or {}),
                                               **({"sampling": sampling} if sampling else {})},
                              kwargs=kwargs)
    if sampling is not None:
        from .sampling import SAMPLING_OPTION, sampling_mode  # noqa: PLC0415

        dataset_options = {**(dataset_options or {}), SAMPLING_OPTION: sampling_mode({SAMPLING_OPTION: sampling})}
    started = time.perf_counter()
    if errors not in ERRORS:
        raise StebError(f"errors={errors!r} is not one of {', '.join(ERRORS)}")
    if name is not None and not str(name).strip():
        raise StebError("name= is empty; give the name the encoder's results should carry, or leave it out")
    local_plugins = tuple(plugins)
    manager = get_manager(local_plugins)
    if tasks:  # a misspelt task type would select nothing and look like a run with nothing to do
        from .choices import check_values  # noqa: PLC0415

        check_values("task type", list(tasks), {t.name for t in manager.tasks()}, hint="see `steb list tasks`")
    options = dict(encoder_options or {})
    obj, ref, shown, family, provider_version = _build_encoder(manager, encoder, options, local_plugins)
    limit = max_length if max_length is not None else getattr(obj, "max_length", None)
    proto = LongTextProtocol(protocol, limit if isinstance(limit, int) else None)
    identity = identify(obj, registered_name=ref.name if ref.registered else None, options=options, provider_version=provider_version,
                        probe=_probe_registered(manager, ref.name, obj) if ref.registered else None)
    selection = resolve_selection(manager, _as_specs(datasets), suite)
    output_dir = Path(output)
    if output_dir.is_dir():
        sweep_stale_temp_files(output_dir, recursive=True)
    fingerprint = identity.fingerprint or f"{UNIDENTIFIED_PREFIX}{uuid.uuid4().hex}"
    notes: list[str] = []
    if name is None and not shown:
        shown = f"{type(obj).__name__}-{identity.fingerprint[:8] if identity.fingerprint else 'unidentified'}"
        notes.append(f"nothing in the {type(obj).__name__} object names its model; its results are under '{shown}' "
                     "(pass name=... to evaluate for a readable name)")
    wanted = str(name).strip() if name is not None else shown
    name = claim_name(output_dir, wanted, fingerprint)
    if name != wanted:
        notes.append(f"results of another model are already under '{wanted}' in {output_dir}; this model's results "
                     f"go under '{name}' so neither replaces the other (pass name=... to choose a name)")
    if not ref.registered:  # an object: its errors name it as its results do
        ref = dataclasses.replace(ref, name=name)
    summary = RunSummary(encoder=name, output_dir=output_dir, identity=dict(identity.evidence), notes=notes,
                         data_dir=str(data_dir) if data_dir else None)
    if suite:  # a member refused because two plugins register its name is not silently left out
        summary.failures.extend(Failure(n, None, why) for n, why in refused_suite_members(manager, suite))
    if identity.fingerprint is None:
        summary.notes.append(f"the identity of encoder '{name}' cannot be established: {identity.reason}; "
                             "nothing is reused for it (vectors and results are computed fresh)")
    run = _Run(obj=obj, ref=ref, name=name, family=family, identity=identity, manager=manager, proto=proto, seed=seed,
               output_dir=output_dir, dataset_options=dataset_options or {}, batch_size=batch_size, fail_fast=fail_fast,
               overwrite=overwrite, threads=threads, max_memory=parse_memory(max_memory), summary=summary,
               prefetch=_check_prefetch(prefetch, prefetch_mode), prefetch_mode=prefetch_mode, strict=strict,
               batch_tokens=_check_batch_tokens(batch_tokens))
    run.fingerprint = fingerprint  # the one its folder was claimed with
    if isinstance(encoder, str) and encoder != name:
        run.source = encoder  # a model path: the record keeps it whole
    plan = run.plan(selection, tasks)
    if run.vectors_ok and identity.fingerprint is not None:  # a killed write's temp file goes even when all is reused
        sweep_stale_temp_files(Path(cache_dir or default_cache_dir()) / cache_key(run.fingerprint, proto.key()))
    if not plan:
        summary.seconds = time.perf_counter() - started
        _handle_failures(summary, errors)
        return summary
    scratch: list[Path] = []

    def make_cache() -> EmbeddingCache:
        root = Path(cache_dir) if cache_dir else default_cache_dir()
        if identity.fingerprint is None:  # never written where another run could find it
            scratch.append(Path(tempfile.mkdtemp(prefix="steb-unidentified-")))
            root = scratch[0]
        return EmbeddingCache(root, run.fingerprint, proto.key(), evidence=identity.evidence)

    run.make_cache = make_cache
    run.make_executor = partial(_make_executor, manager, executor, executor_options)
    try:
        run.execute(plan, data_dir, progress)
    finally:
        run.close()
        if run.cache is not None and run.cache.problems:
            summary.notes.extend(f"cache shard {p} was invalid ({why}); set aside and recomputed" if p.name != "meta.json"
                                 else f"cache {p}: {why}" for p, why in run.cache.problems)
        for folder in scratch:
            shutil.rmtree(folder, ignore_errors=True)
    summary.seconds = time.perf_counter() - started
    if summary.missing:
        names = ", ".join(m.dataset for m in summary.missing)
        summary.notes.append(f"{len(summary.missing)} dataset{'s' if len(summary.missing) != 1 else ''} skipped for missing data "
                             f"({names}); get {'them' if len(summary.missing) != 1 else 'it'} with `{summary.get_data_command()}` "
                             "(add --dry-run to see what must be done by hand), then run the same command again")
    _handle_failures(summary, errors)
    return summary


def _check_batch_tokens(batch_tokens: Any) -> int | None:
    """``batch_tokens`` as an int (None: batches of ``batch_size`` texts); anything else is an error."""
    if batch_tokens is None:
        return None
    if isinstance(batch_tokens, bool) or not isinstance(batch_tokens, int) or batch_tokens < 1:
        raise StebError(f"batch_tokens={batch_tokens!r}: expected a number of padded tokens per encoding batch, 1 or more")
    return batch_tokens


def _check_prefetch(prefetch: Any, mode: str) -> int:
    """The prefetch depth as an int; a negative depth or an unknown mode is an error naming the choices."""
    from .pipeline import PREFETCH_MODES  # noqa: PLC0415

    if mode not in PREFETCH_MODES:
        raise StebError(f"prefetch_mode={mode!r} is not one of {', '.join(PREFETCH_MODES)}")
    if isinstance(prefetch, bool) or not isinstance(prefetch, int) or prefetch < 0:
        raise StebError(f"prefetch={prefetch!r}: expected a number of datasets to load ahead, 0 or more (0: one after another)")
    return prefetch


def _probe_registered(manager: StebPlugins, name: str, obj: Any) -> bool | None:
    """True for an encoder registered by a local plugin (``--plugin``): it has no distribution version, so
    besides its source hash it is probed like an unregistered object (its weights may come from
    anywhere the file points to). None (no probe) for installed plugins: a warm run does no model work."""
    registry = manager.encoders()
    if name not in registry:
        return None
    _, local = manager.provider_version(registry.provider(name))
    return True if local and has_vectors(obj) else None


def _as_specs(datasets: Iterable[Any] | None) -> list[Any] | None:
    if datasets is None:
        return None
    if isinstance(datasets, (str, DatasetSpec)):
        return [datasets]
    return list(datasets)


def dataset_meta(spec: DatasetSpec) -> dict[str, Any]:
    """The spec facts aggregators need, stored with each result so reports work without the plugin."""
    return {
        "categories": list(spec.categories),
        "applications": list(spec.applications),
        "languages": list(spec.languages),
        "content_independence": spec.content_independence,
        "suites": list(spec.suites),
        "tasks": list(spec.tasks),
        "citation": spec.citation,
        "license": spec.license,
    }


def _as_float(value: Any) -> float | None:
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if np.isfinite(out) else None


def _make_executor(manager: StebPlugins, executor: str | Executor, options: Mapping[str, Any] | None) -> Executor:
    if not isinstance(executor, str):
        return executor
    if executor == "local":
        return LocalExecutor()
    return manager.executors().get(executor).factory(**dict(options or {}))
