"""The run's phases in order: every planned dataset loaded (ahead, in a worker), encoded, scored and written.

:class:`Engine` holds what changes while a run goes (the embedding cache and the executor, opened on
first need; the hashes already counted or failed; the summary) and reads every choice from its frozen
:class:`~steb_core.run.settings.RunSettings`. The phases themselves live beside it: plan
(:mod:`.plan`), load (:mod:`.load`), what a task runs with (:mod:`.score`), the stored-result policy and
the records (:mod:`.stored`), the cache and executor (:mod:`.backends`); the methods here encode, score
and write, in the run's order.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from .._cache import ShardError, is_sparse, text_hash
from .._errors import StebError
from .._executors import EncodeJob, EncodingError
from .._instances import INSTANCES_KEY, write_instances
from .._plugins import StebPlugins
from .._prefetch import Prefetch, WorkerDied
from .._results import library_versions
from .._specs import TaskSpec
from .backends import Backends
from .encoder_setup import RunEncoder
from .load import Loaded, LoadResult, load_dataset, worker_death_message
from .option_use import OptionUse
from .order import cheap_task_types, execution_order
from .plan import Pending
from .progress import NoProgress, display_paused, encoding_label, progress_display
from .score import embedder, task_context
from .settings import RunSettings
from .stored import encoder_record_info, new_record
from .summary import Failure, RunSummary, plan_order
from .warm import WarmImports

__all__ = ["Engine"]


class Engine:
    """One run of :func:`steb_core.evaluate` once planned: :meth:`run` the plan, then :meth:`close`."""

    def __init__(self, plugins: StebPlugins, settings: RunSettings, encoder: RunEncoder, summary: RunSummary) -> None:
        self.plugins, self.settings, self.encoder, self.summary = plugins, settings, encoder, summary
        self.versions = library_versions()
        self.backends = Backends(plugins, settings, encoder)
        #: text hash -> the encoding error of its batch (the datasets that need it fail)
        self.failed_hashes: dict[str, str] = {}
        #: hashes counted in ``summary.texts_unique`` already
        self.seen_hashes: set[str] = set()
        self.encode_seconds = 0.0
        self._info: dict[str, Any] | None = None  # taken after encoding: device, dtype as actually used
        self.warming = WarmImports(())  # the tasks' imports, made ahead from the first dataset with work (warm.py)

    # -- the whole run -------------------------------------------------------------------------
    def run(self, plan: list[Pending]) -> None:
        """Load, encode and score every planned dataset, in :func:`~steb_core.run.order.execution_order`.

        With ``prefetch`` N > 0 the loads of the next N datasets run in a worker (a forked process by
        default, :mod:`steb_core._prefetch`) while this process encodes and scores; the loads' results
        are applied here in that order, so groups, batch plans, the cache and every record are those
        of the sequential run (``prefetch=0``), which runs in the same order. The summary's lists are
        put back in plan order at the end."""
        cheap = cheap_task_types(t for p in plan for t in p.tasks)
        ordered = [plan[i] for i in execution_order([(p.spec, [t.name for t in p.tasks]) for p in plan], cheap)]
        self.option_use = OptionUse(self.settings.dataset_options, (), len(ordered))
        stream = Prefetch(
            len(ordered),
            partial(self._load_item, ordered),
            ahead=self.settings.prefetch,
            mode=self.settings.prefetch_mode,
        )
        stream.start()  # a forked loader starts before the progress display starts its thread
        try:
            self._consume(ordered, stream)
        finally:
            stream.close()
            self.warming.join()
            plan_order(self.summary, [p.spec.name for p in plan])

    def _load_item(self, plan: list[Pending], i: int) -> LoadResult:
        return load_dataset(self.settings, self.encoder, plan[i])

    def _consume(self, plan: list[Pending], stream: Prefetch) -> None:
        """Each loaded dataset's result applied in order, its work gathered into ``max_memory`` groups."""
        max_memory = self.settings.max_memory
        with progress_display(self.settings.progress) as bar:
            task_bar = bar.add_task("datasets", total=sum(len(p.tasks) for p in plan))
            group: list[Loaded] = []
            group_bytes = 0
            for pending in plan:
                bar.update(task_bar, description=f"loading {pending.spec.name}")
                planned = len(pending.tasks)
                try:
                    step = stream.next()
                except WorkerDied as exc:  # the loader's process died (os._exit, SIGKILL): this dataset fails
                    why = worker_death_message(pending, exc)
                    if self.settings.fail_fast:
                        raise StebError(f"dataset '{pending.spec.name}': {why}") from None
                    self.summary.failures.append(Failure(pending.spec.name, None, why))
                    self._options_read(pending, ())
                    bar.advance(task_bar, planned)
                    self.warming.join()  # nor may an import
                    with display_paused(bar):  # a fork copies no thread: the display's must not hold a lock then
                        stream.start()
                    continue
                loaded = step.apply(pending, self.summary)
                self._options_read(pending, step.options_read, loaded is not None)
                if loaded is None:
                    missing = any(m.dataset == pending.spec.name for m in self.summary.missing)
                    why = "data missing" if missing else "failed to load"
                    bar.update(task_bar, description=f"{pending.spec.name}: {why}")
                    bar.advance(task_bar, planned)
                    continue
                if planned > len(pending.tasks):
                    bar.update(task_bar, description=f"{pending.spec.name}: {planned - len(pending.tasks)} reused")
                bar.advance(task_bar, planned - len(pending.tasks))  # reused: same key, same data
                if not pending.tasks:
                    continue
                self.backends.open()
                if self.warming.thread is None:  # the first dataset with work: the others load meanwhile
                    self.warming = WarmImports(m for p in plan for t in p.tasks for m in t.warm_imports)
                group.append(loaded)
                estimate = self.estimated_bytes(loaded)
                group_bytes += estimate or 0
                if self.option_use.waiting():  # an option no loader read yet: nothing is encoded before all load
                    continue
                if max_memory is None or estimate is None or group_bytes >= max_memory:
                    self._process(group, bar, task_bar)
                    group, group_bytes = [], 0
            if group:
                self._process(group, bar, task_bar)
            bar.update(task_bar, description="done")

    def _options_read(self, pending: Pending, asked: Any, loaded: bool = False) -> None:
        """Note the options a dataset's loader asked for; after the last load, settle them (raises when a given
        option was read by no loader: nothing has been encoded then, :meth:`_consume` waits for it)."""
        self.option_use.add(pending.spec.name, asked, loaded)
        if self.option_use.left == 0:
            self.summary.notes.extend(self.option_use.settle())

    def _process(self, group: list[Loaded], bar: Any, task_bar: int) -> None:
        self.encode(group, bar)
        for loaded in group:
            bar.update(task_bar, description=f"scoring {loaded.pending.spec.name}")
            self.score(loaded, bar, task_bar)

    def estimated_bytes(self, loaded: Loaded) -> int | None:
        """float32 bytes of the dataset's vectors; None while the model's dimension is unknown (nothing
        cached yet), so the group closes after this dataset instead of guessing a dimension."""
        cache = self.backends.cache
        dim = cache.dim if cache is not None else None
        return None if dim is None else len(loaded.texts) * dim * 4

    # -- backends ------------------------------------------------------------------------------
    def close(self) -> None:
        """The executor closed, the cache's problems noted, an unidentified encoder's scratch cache removed."""
        self.summary.notes.extend(self.backends.close())

    # -- 3. encode -----------------------------------------------------------------------------
    def encode(self, group: list[Loaded], bar: Any) -> None:
        """Encode the group's texts the cache lacks (each once); record failed batches' texts."""
        cache, executor = self.backends.cache, self.backends.executor
        if cache is None:
            return
        distinct: dict[str, str] = {}
        for loaded in group:
            for text, h in zip(loaded.texts, loaded.hashes, strict=True):
                distinct.setdefault(text, h)
        new = [h for h in distinct.values() if h not in self.seen_hashes]
        self.seen_hashes.update(new)
        self.summary.texts_unique += len(new)
        missing = [t for t, h in distinct.items() if h not in cache and h not in self.failed_hashes]
        self.summary.cache_hits += sum(1 for h in new if h in cache)
        if not missing:
            return
        assert executor is not None
        t0 = time.perf_counter()
        enc_bar = bar.add_task(f"encoding {encoding_label(group)} with {self.encoder.name}", total=len(missing))
        protocol = self.settings.protocol
        key = (self.encoder.fingerprint, protocol.key())
        job = EncodeJob(
            self.encoder.ref,
            missing,
            protocol,
            str(cache.root),
            key,
            self.settings.batch_size,
            hashes=[distinct[t] for t in missing],
            batch_tokens=self.settings.batch_tokens,
        )
        before = len(cache)
        try:
            self.summary.texts_encoded += executor.encode(job, cache, lambda n: bar.advance(enc_bar, n))
        except EncodingError as exc:
            if self.settings.fail_fast:
                raise
            for text in exc.texts or missing:
                self.failed_hashes[distinct.get(text) or text_hash(text)] = str(exc)
            cache.refresh()
            self.summary.texts_encoded += max(0, len(cache) - before)
        cache.refresh()
        self.encode_seconds += time.perf_counter() - t0

    # -- 4. score and 5. write -----------------------------------------------------------------
    def score(self, loaded: Loaded, bar: Any, task_bar: int) -> None:
        """Run the dataset's tasks on its vectors (or the encoder's own similarity) and write each result."""
        spec = loaded.pending.spec
        failed = next((self.failed_hashes[h] for h in loaded.hashes if h in self.failed_hashes), None)
        if failed is not None:
            self.summary.failures.append(Failure(spec.name, None, f"EncodingError: {failed}"))
            bar.advance(task_bar, len(loaded.pending.tasks))
            return
        vectors: Any = None
        if self.encoder.vectors_ok:
            try:
                vectors = self.vectors(loaded)
            except ShardError as exc:
                if self.settings.fail_fast:
                    raise
                self.summary.failures.append(Failure(spec.name, None, f"ShardError: {exc}"))
                bar.advance(task_bar, len(loaded.pending.tasks))
                return
        row_of = {t: i for i, t in enumerate(loaded.texts)}
        sparse = is_sparse(vectors)
        for task in loaded.pending.tasks:
            t0 = time.perf_counter()
            bar.update(task_bar, description=f"{spec.name} / {task.name}")
            embed = None if vectors is None else embedder(vectors, row_of, densify=sparse and not task.accepts_sparse)
            threads, cache = self.task_threads(), self.backends.cache
            ctx = task_context(self.settings, self.encoder, loaded, task, embed=embed, cache=cache, threads=threads)
            try:
                metrics = dict(task.run(ctx))
            except Exception as exc:
                if self.settings.fail_fast:
                    raise
                self.summary.failures.append(Failure(spec.name, task.name, f"{type(exc).__name__}: {exc}"))
                bar.advance(task_bar)
                continue
            self.write(loaded, task, metrics, time.perf_counter() - t0)
            bar.advance(task_bar)

    def vectors(self, loaded: Loaded) -> Any:
        """The dataset's vectors from the cache (row i for ``loaded.texts[i]``), re-encoding bad shards once."""
        cache = self.backends.cache
        assert cache is not None
        for attempt in range(2):
            try:
                return cache.get(loaded.hashes)
            except ShardError as exc:
                self.summary.notes.append(str(exc))
                if attempt == 1:
                    raise
                self.encode([loaded], NoProgress())
        raise AssertionError("unreachable")

    def task_threads(self) -> int | None:
        """``--threads`` when given, else None (the task chooses from its work size and the free cores).

        Never derived from whether the read-ahead worker is loading at that moment: a result may depend on
        the BLAS thread count (probing's float32 products), and records must not depend on timing. The
        load average the tasks read already counts the worker's core.
        """
        return self.settings.threads

    def info(self) -> dict[str, Any]:
        """The encoder's info for records, taken at the first write (after encoding: the device and dtype used)."""
        if self._info is None:
            self._info = encoder_record_info(self.encoder)
        return self._info

    def write(self, loaded: Loaded, task: TaskSpec, metrics: dict[str, Any], task_seconds: float) -> None:
        """One result record written atomically as soon as its task is done, and listed in the summary."""
        per_instance = metrics.pop(INSTANCES_KEY, None)  # kept beside the record, not in it (steb_core._instances)
        timings = {
            "load_s": round(loaded.load_seconds, 4),
            "encode_s": round(self.encode_seconds, 4),
            "task_s": round(task_seconds, 4),
        }
        record = new_record(
            self.settings,
            self.encoder,
            loaded.pending,
            loaded.bundle,
            task,
            metrics,
            info=self.info(),
            versions=self.versions,
            summary=self.summary,
            timings=timings,
        )
        record.write(self.settings.output_dir)
        if per_instance:
            write_instances(self.settings.output_dir, record, per_instance)
        self.summary.results.append(record)
