"""The runner: load datasets, embed every distinct text once, run tasks, write one result per task.

Order of work for a run, and why:

1. Resolve which (dataset, task) results are still missing: a stored result with the same
   ``run_key`` (encoder fingerprint, dataset and task versions, protocol, seed) is reused. This is
   what makes a re-run after Ctrl-C or a crash resume where it stopped.
2. Load the datasets that still have work, collect the texts their pending tasks need and
   deduplicate them across the whole run.
3. Encode only texts the on-disk cache lacks, through the executor, shard by shard (each shard is
   saved before the next starts).
4. Run each task on cached vectors and write its result atomically, as soon as it is done.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .cache import EmbeddingCache, default_cache_dir, text_hash
from .context import TaskContext
from .encoders import encoder_fingerprint, encoder_info, encoder_name, has_similarity, has_vectors, own_fingerprint
from .errors import DataValidationError, StebError
from .executors import EncodeJob, EncoderRef, Executor, LocalExecutor
from .longtext import LongTextProtocol
from .plugins import StebPlugins, get_manager
from .records import DatasetBundle
from .results import ResultRecord, library_versions, result_path, run_key
from .specs import DatasetSpec, LoadContext, TaskSpec

__all__ = ["evaluate", "RunSummary", "Failure", "resolve_datasets"]


@dataclass
class Failure:
    dataset: str
    task: str | None
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

    @property
    def all_results(self) -> list[ResultRecord]:
        return self.reused + self.results

    def scores(self) -> dict[tuple[str, str], float | None]:
        """(dataset, task) -> main score, for quick inspection in notebooks."""
        return {(r.dataset, r.task): r.main_score for r in self.all_results}

    def __repr__(self) -> str:
        return (
            f"RunSummary(encoder={self.encoder!r}, new={len(self.results)}, reused={len(self.reused)}, "
            f"skipped={len(self.skipped)}, failures={len(self.failures)}, encoded={self.texts_encoded}, "
            f"cache_hits={self.cache_hits}, output={str(self.output_dir)!r})"
        )


class _NoProgress:
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def __enter__(self) -> "_NoProgress":
        return self
    def __exit__(self, *exc: Any) -> None: ...
    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0
    def update(self, *args: Any, **kwargs: Any) -> None: ...
    def advance(self, *args: Any, **kwargs: Any) -> None: ...


def _progress(enabled: bool) -> Any:
    if not enabled:
        return _NoProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=False,
    )


def resolve_datasets(plugins: StebPlugins, datasets: Iterable[str | DatasetSpec] | None, suite: str | None) -> list[DatasetSpec]:
    """Dataset specs from names, spec objects and/or a suite name (specs tagged with it), in order."""
    registry = plugins.datasets()
    out: list[DatasetSpec] = []
    for item in datasets or ():
        out.append(item if isinstance(item, DatasetSpec) else registry.get(item))
    if suite:
        members = [spec for spec in registry if suite in spec.suites]
        if not members:
            suites = sorted({s for spec in registry for s in spec.suites})
            raise StebError(f"no dataset belongs to suite '{suite}'; known suites: {', '.join(suites) or 'none'}")
        out.extend(members)
    if not out:
        raise StebError("no dataset selected: name datasets or a suite (e.g. --suite demo)")
    seen: set[str] = set()
    unique = []
    for spec in out:
        if spec.name not in seen:
            seen.add(spec.name)
            unique.append(spec)
    return unique


def _build_encoder(plugins: StebPlugins, encoder: Any, options: Mapping[str, Any], local_plugins: tuple[str, ...]) -> tuple[Any, EncoderRef, str, str]:
    """The encoder object, a rebuildable reference, its display name and its family."""
    if isinstance(encoder, str):
        spec = plugins.encoders().get(encoder)
        obj = spec.factory(**dict(options))
        ref = EncoderRef(encoder, dict(options), True, local_plugins, obj)
        return obj, ref, encoder, spec.family
    if not callable(getattr(encoder, "encode", None)) and not has_similarity(encoder):
        raise StebError(f"{type(encoder).__name__} has neither encode(texts) nor similarity(texts_a, texts_b)")
    name = encoder_name(encoder)
    return encoder, EncoderRef(name, {}, False, local_plugins, encoder), name, getattr(encoder, "family", "custom")


def _fingerprint(obj: Any, name: str, options: Mapping[str, Any], registered: bool) -> str:
    own = own_fingerprint(obj)
    if own is not None:
        return own
    if registered:  # a registered encoder without its own fingerprint is identified by name + options
        return run_key(name=name, options=dict(options))
    return encoder_fingerprint(obj)


def evaluate(
    encoder: Any,
    datasets: Iterable[str | DatasetSpec] | None = None,
    *,
    suite: str | None = None,
    tasks: Sequence[str] | None = None,
    output: str | Path = "steb-results",
    data_dir: str | Path | None = None,
    protocol: str = "chunk-and-pool",
    max_length: int | None = None,
    seed: int = 0,
    cache_dir: str | Path | None = None,
    executor: str | Executor = "local",
    executor_options: Mapping[str, Any] | None = None,
    encoder_options: Mapping[str, Any] | None = None,
    dataset_options: Mapping[str, Any] | None = None,
    plugins: Sequence[str] = (),
    batch_size: int = 1024,
    progress: bool = True,
    overwrite: bool = False,
    fail_fast: bool = False,
) -> RunSummary:
    """Evaluate ``encoder`` on datasets and write one JSON result per (dataset, task) under ``output``.

    ``encoder`` is a registered encoder name (built with ``encoder_options``) or any object with
    ``encode(list[str])`` (a SentenceTransformer, an MTEB-style wrapper) or ``similarity(a, b)``.
    ``protocol`` is the long-text protocol (``chunk-and-pool`` or ``truncate``), applied at
    ``max_length`` tokens (default: the encoder's own ``max_length``). Results that already exist for
    the same inputs are reused unless ``overwrite``. Dataset failures are collected in the summary
    (``fail_fast`` raises instead) so one missing corpus does not stop a suite.
    """
    started = time.perf_counter()
    local_plugins = tuple(plugins)
    manager = get_manager(local_plugins)
    options = dict(encoder_options or {})
    obj, ref, name, family = _build_encoder(manager, encoder, options, local_plugins)
    limit = max_length if max_length is not None else getattr(obj, "max_length", None)
    proto = LongTextProtocol(protocol, limit if isinstance(limit, int) else None)
    fingerprint = _fingerprint(obj, name, options, ref.registered)
    vectors_ok = has_vectors(obj)
    own_similarity = has_similarity(obj)
    specs = resolve_datasets(manager, datasets, suite)
    task_registry = manager.tasks()
    output_dir = Path(output)
    summary = RunSummary(encoder=name, output_dir=output_dir)
    versions = library_versions()
    info = {**encoder_info(obj), **({"options": options} if options else {})}

    # 1. what is still to do
    plan: list[tuple[DatasetSpec, list[TaskSpec], dict[str, str]]] = []
    for spec in specs:
        pending: list[TaskSpec] = []
        keys: dict[str, str] = {}
        for task_name in spec.tasks:
            if tasks and task_name not in tasks:
                continue
            if task_name not in task_registry:
                summary.skipped.append((spec.name, task_name, "task type not registered"))
                continue
            task = task_registry.get(task_name)
            if task.needs_vectors and not vectors_ok:
                summary.skipped.append((spec.name, task_name, "encoder is similarity-only; task needs vectors"))
                continue
            key = run_key(encoder=fingerprint, dataset=spec.name, dataset_version=spec.version, task=task.name,
                          task_version=task.version, protocol=proto.key(), seed=seed, dataset_options=dict(dataset_options or {}))
            keys[task.name] = key
            path = result_path(output_dir, name, spec.name, task.name)
            if path.exists() and not overwrite:
                try:
                    stored = ResultRecord.read(path)
                except DataValidationError:
                    stored = None
                if stored is not None and stored.run_key == key:
                    summary.reused.append(stored)
                    continue
            pending.append(task)
        if pending:
            plan.append((spec, pending, keys))

    if not plan:
        summary.seconds = time.perf_counter() - started
        return summary

    exec_obj = _make_executor(manager, executor, executor_options)
    cache = EmbeddingCache(cache_dir or default_cache_dir(), fingerprint, proto.key()) if vectors_ok else None
    try:
        with _progress(progress) as bar:
            # 2. load datasets
            loaded: list[tuple[DatasetSpec, list[TaskSpec], dict[str, str], DatasetBundle, float]] = []
            load_bar = bar.add_task("loading datasets", total=len(plan))
            for spec, pending, keys in plan:
                t0 = time.perf_counter()
                try:
                    ctx = LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, data_dir), seed, dict(dataset_options or {}))
                    bundle = spec.loader(ctx)
                    if not isinstance(bundle, DatasetBundle):
                        raise StebError(f"loader of '{spec.name}' returned {type(bundle).__name__}, expected DatasetBundle")
                    for task in pending:
                        if bundle.get(task.shape) is None:
                            raise StebError(f"dataset '{spec.name}' declares task '{task.name}' but its loader produced no '{task.shape}' records")
                except (StebError, OSError, ValueError) as exc:
                    if fail_fast:
                        raise
                    summary.failures.append(Failure(spec.name, None, f"{type(exc).__name__}: {exc}"))
                    bar.advance(load_bar)
                    continue
                loaded.append((spec, pending, keys, bundle, time.perf_counter() - t0))
                bar.advance(load_bar)

            # 3. embed each distinct text once (only for tasks that use vectors)
            row_of: dict[str, int] = {}
            matrix = np.zeros((0, 0), dtype=np.float32)
            encode_seconds = 0.0
            if vectors_ok and cache is not None:
                distinct: dict[str, str] = {}
                total = 0
                for spec, pending, _, bundle, _ in loaded:
                    for text in bundle.iter_texts(sorted({t.shape for t in pending})):
                        total += 1
                        if text not in distinct:
                            distinct[text] = text_hash(text)
                summary.texts_total, summary.texts_unique = total, len(distinct)
                missing = [t for t, h in distinct.items() if h not in cache]
                summary.cache_hits = len(distinct) - len(missing)
                if missing:
                    t0 = time.perf_counter()
                    enc_bar = bar.add_task(f"encoding with {name}", total=len(missing))
                    job = EncodeJob(ref, missing, proto, str(cache.root), (fingerprint, proto.key()), batch_size)
                    summary.texts_encoded = exec_obj.encode(job, cache, lambda n: bar.advance(enc_bar, n))
                    cache.refresh()
                    encode_seconds = time.perf_counter() - t0
                texts = list(distinct)
                matrix = cache.get([distinct[t] for t in texts])
                row_of = {t: i for i, t in enumerate(texts)}

            def embed(batch: Sequence[str]) -> np.ndarray:
                return matrix[[row_of[t] for t in batch]]

            # 4. tasks
            n_tasks = sum(len(p) for _, p, _, _, _ in loaded)
            task_bar = bar.add_task("running tasks", total=n_tasks)
            for spec, pending, keys, bundle, load_seconds in loaded:
                for task in pending:
                    t0 = time.perf_counter()
                    ctx = TaskContext(
                        dataset=spec,
                        bundle=bundle,
                        data=bundle.get(task.shape),
                        seed=seed,
                        options=dict(dataset_options or {}),
                        embed_fn=embed if vectors_ok else None,
                        similarity_fn=obj.similarity if own_similarity else None,
                        collections_fn=getattr(obj, "encode_collections", None),
                    )
                    try:
                        metrics = dict(task.run(ctx))
                    except Exception as exc:
                        if fail_fast:
                            raise
                        summary.failures.append(Failure(spec.name, task.name, f"{type(exc).__name__}: {exc}"))
                        bar.advance(task_bar)
                        continue
                    record = ResultRecord(
                        encoder=name,
                        dataset=spec.name,
                        task=task.name,
                        main_metric=task.main_metric,
                        main_score=_as_float(metrics.get(task.main_metric)),
                        metrics=metrics,
                        encoder_fingerprint=fingerprint,
                        encoder_info=info,
                        encoder_family=family,
                        dataset_version=spec.version,
                        dataset_meta=dataset_meta(spec),
                        dataset_info=dict(bundle.info),
                        task_version=task.version,
                        protocol=proto.as_dict(),
                        seed=seed,
                        counts={
                            f"records_{task.shape}": bundle.counts()[task.shape],
                            "texts": sum(1 for _ in bundle.iter_texts([task.shape])),
                            "run_unique_texts": summary.texts_unique,
                            "run_encoded": summary.texts_encoded,
                            "run_cache_hits": summary.cache_hits,
                        },
                        timings={"load_s": round(load_seconds, 4), "encode_s": round(encode_seconds, 4),
                                 "task_s": round(time.perf_counter() - t0, 4)},
                        versions=versions,
                        run_key=keys[task.name],
                    )
                    record.write(output_dir)
                    summary.results.append(record)
                    bar.advance(task_bar)
    finally:
        exec_obj.close()
    summary.seconds = time.perf_counter() - started
    return summary


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
