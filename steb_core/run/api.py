"""The entry point of a run: :func:`evaluate`, which checks its arguments, prepares the encoder and the plan
and hands them to the :class:`~steb_core.run.engine.Engine`.

Its keyword signature is the public API (``steb.evaluate``, ``steb run``); everything it decides goes into
one frozen :class:`~steb_core.run.settings.RunSettings` and one :class:`~steb_core.run.encoder_setup.RunEncoder`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._cache import cache_key, sweep_stale_temp_files
from .._errors import StebError
from .._executors import Executor
from .._file_reads import recording_reads
from .._longtext import LongTextProtocol
from .._plugins import get_manager
from .._specs import DEFAULT_SEED
from .encoder_setup import add_read_files, build_encoder, identify_encoder, name_encoder
from .engine import Engine
from .option_use import check_task_options, flat_task_options, split_options
from .order import parse_memory
from .plan import plan_run
from .selection import as_specs, missing_benchmark_members, refused_suite_members, resolve_selection
from .settings import RunSettings, check_batch_tokens, check_prefetch
from .summary import ERRORS, Failure, RunSummary, handle_failures

__all__ = ["evaluate"]


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
    task_options: Mapping[str, Any] | None = None,
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
    confirm_draws: bool = False,
    announce: Callable[[str], None] | None = None,
) -> RunSummary:
    """Evaluate ``encoder`` on datasets and write one JSON result per (dataset, task) under ``output``.

    ``encoder`` is a registered encoder name (built with ``encoder_options``), a model path or hub id a
    plugin can resolve (e.g. a sentence-transformers folder), or any object with ``encode(list[str])``
    (a SentenceTransformer, an MTEB model, your own class) or ``similarity(a, b)``. ``datasets`` are
    names, :class:`DatasetSpec` objects or in-memory datasets from :func:`steb.dataset_from`;
    ``suite`` adds a suite's datasets with the suite's tasks. ``protocol`` is the long-text protocol
    (``chunk-and-pool`` or ``truncate``) at ``max_length`` tokens (default: the encoder's own).

    Stored results with the same inputs (encoder identity, data, protocol, seed, options, code versions) and
    an intact content hash are reused unless ``overwrite``.

    ``dataset_options`` go to every loader of the run (``LoadContext.options``), ``task_options`` to the tasks
    (``{"order_alignment.ties": "split"}`` or ``{"order_alignment": {"ties": "split"}}``; ``steb run --task-option
    order_alignment.ties=split``). A result's run key holds the task options of its task type and the dataset
    options its loader read, so an order-alignment option recomputes the order-alignment results only. A task
    option given in ``dataset_options`` (the spelling before issue 48) is taken as one, with a DeprecationWarning.

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
    get`` command that fetches it (``summary.get_data_command()``); ``strict=True`` makes it a failure.
    ``threads`` caps the BLAS/OpenMP threads of task computations (default: chosen
    from the work size and the free cores). ``max_memory`` (e.g. ``"4G"``) groups datasets that fit
    the budget; by default datasets are processed one at a time, which bounds peak memory by the
    largest dataset.

    ``batch_size`` texts form one encoding batch (and cache shard); ``batch_tokens`` (e.g. 16384) cuts
    the length-sorted texts by a budget of padded tokens instead (at most ``batch_size`` texts still), so
    short texts share large batches and long ones do not run out of accelerator memory together
    (:func:`steb_core._executors.plan_batches`; the encoder's ``count_tokens`` measures them when it has one).

    ``prefetch`` (default 4) datasets are loaded ahead of the one being encoded and scored, in a forked
    process (``prefetch_mode="auto"`` or ``"process"``; ``"thread"`` where fork is missing), so on two
    cores loading overlaps encoding and scoring; results are the same as with ``prefetch=0`` (one dataset
    after another, in this process). Why 4, not 1: the run's order (:func:`execution_order`) ends with
    large cheap-to-score datasets that the loader reads while the last costly ones are scored, several
    per costly one (bench/full_steb §1b: 0.56-0.58x of the sequential wall with 4). Memory: up to ``prefetch``
    more loaded datasets (their records and texts, not their vectors) are held beside the ``max_memory``
    group being processed, plus the worker process's own (1.22-1.27x the sequential peak in that bench).

    Which texts: every loader takes the STEB reference's sample by default (the first N texts per class in
    the release's order, :mod:`steb_core._sampling`); ``sampling="random"`` (the dataset option ``sampling``)
    draws them with ``seed`` instead. ``seed`` defaults to 42, the reference's. ``draws=K`` runs K random
    draws with seeds derived from ``seed`` and writes each score as the mean over them, the standard
    deviations beside, under the encoder name ``NAME~random<K>`` (:mod:`steb_core._draws`); the single draws
    go to ``output/.draws/`` and never replace the default result. More than
    :data:`steb_core._draws.MAX_DRAWS` draws need ``confirm_draws=True`` (``--yes``); after the first draw,
    ``announce`` (when given) is told how long the K draws will take.
    """
    if draws is not None:
        kwargs = {
            k: v
            for k, v in locals().items()
            if k not in ("draws", "seed", "output", "dataset_options", "sampling", "confirm_draws", "announce")
        }
        from .._draws import evaluate_draws  # draws runs evaluate itself, once per draw

        combined: RunSummary = evaluate_draws(
            evaluate,
            draws=draws,
            seed=seed,
            output=output,
            dataset_options={**(dataset_options or {}), **({"sampling": sampling} if sampling else {})},
            kwargs=kwargs,
            confirm=confirm_draws,
            announce=announce,
        )
        return combined
    if sampling is not None:
        from .._sampling import SAMPLING_OPTION, sampling_mode

        dataset_options = {**(dataset_options or {}), SAMPLING_OPTION: sampling_mode({SAMPLING_OPTION: sampling})}
    started = time.perf_counter()
    if errors not in ERRORS:
        raise StebError(f"errors={errors!r} is not one of {', '.join(ERRORS)}")
    if name is not None and not str(name).strip():
        raise StebError("name= is empty; give the name the encoder's results should carry, or leave it out")
    local_plugins = tuple(plugins)
    manager = get_manager(local_plugins)
    loader_options, old_spelling = split_options(dict(dataset_options or {}), manager.tasks().names())
    option_notes = []
    if old_spelling:
        said = ", ".join(sorted(old_spelling))
        message = (
            f"task option(s) {said} given as dataset options: pass them as task options (steb run --task-option "
            f"{next(iter(sorted(old_spelling)))}=..., evaluate(task_options=...)); the dataset-option spelling "
            "goes in a later release"
        )
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        option_notes.append(message)
    given_task_options = {**old_spelling, **flat_task_options(task_options)}
    if tasks:  # a misspelt task type would select nothing and look like a run with nothing to do
        from .._choices import check_values

        check_values("task type", list(tasks), {t.name for t in manager.tasks()}, hint="see `steb list tasks`")
    options = dict(encoder_options or {})
    with recording_reads() as reads:  # a local plugin's side files are part of what its encoder is (issue 47)
        built = build_encoder(manager, encoder, options, local_plugins)
        identity = identify_encoder(manager, built, options)
    identity = add_read_files(manager, built, identity, reads, (Path(cache_dir),) if cache_dir else ())
    limit = max_length if max_length is not None else getattr(built.obj, "max_length", None)
    proto = LongTextProtocol(protocol, limit if isinstance(limit, int) else None)
    selection = resolve_selection(manager, as_specs(datasets), suite)
    output_dir = Path(output)
    if output_dir.is_dir():
        sweep_stale_temp_files(output_dir, recursive=True)
    settings = RunSettings(
        output_dir=output_dir,
        protocol=proto,
        seed=seed,
        data_dir=data_dir,
        cache_dir=cache_dir,
        dataset_options=loader_options,
        task_options=given_task_options,
        executor=executor,
        executor_options=dict(executor_options or {}),
        batch_size=batch_size,
        progress=progress,
        overwrite=overwrite,
        fail_fast=fail_fast,
        threads=threads,
        max_memory=parse_memory(max_memory),
        prefetch=check_prefetch(prefetch, prefetch_mode),
        prefetch_mode=prefetch_mode,
        batch_tokens=check_batch_tokens(batch_tokens),
        strict=strict,
    )
    run_encoder, notes = name_encoder(built, identity, name, output_dir, encoder)
    summary = RunSummary(
        encoder=run_encoder.name,
        output_dir=output_dir,
        identity=dict(identity.evidence),
        notes=[*option_notes, *notes],
        data_dir=str(data_dir) if data_dir else None,
    )
    if suite:  # a member refused because two plugins register its name is not silently left out
        summary.failures.extend(Failure(n, None, why) for n, why in refused_suite_members(manager, suite))
        absent = missing_benchmark_members(manager, suite)
        if absent:  # a benchmark member no installed plugin provides: said, so a partial run is not taken for the whole
            summary.notes.append(
                f"benchmark '{suite}': {len(absent)} of its datasets are registered by no loaded plugin and were not "
                f"run ({', '.join(absent[:5])}{', ...' if len(absent) > 5 else ''}); `steb list benchmarks` names it"
            )
    plan = plan_run(manager, settings, run_encoder, selection, tasks, summary)
    # a task option no task of the run reads is refused now; loader options once the loaders have run (engine)
    check_task_options(settings.task_options, [t for p in plan for t in p.tasks], list(manager.tasks()))
    if run_encoder.vectors_ok and identity.fingerprint is not None:  # a killed write's temp file goes, all reused too
        sweep_stale_temp_files(settings.cache_root() / cache_key(run_encoder.fingerprint, proto.key()))
    if plan:
        engine = Engine(manager, settings, run_encoder, summary)
        try:
            engine.run(plan)
        finally:
            engine.close()
    summary.seconds = time.perf_counter() - started
    if summary.missing:
        summary.notes.append(_missing_note(summary))
    handle_failures(summary, errors)
    return summary


def _missing_note(summary: RunSummary) -> str:
    """The note for datasets skipped for missing data: which, and the command that fetches them."""
    n = len(summary.missing)
    names = ", ".join(m.dataset for m in summary.missing)
    return (
        f"{n} dataset{'s' if n != 1 else ''} skipped for missing data ({names}); get {'them' if n != 1 else 'it'} "
        f"with `{summary.get_data_command()}` (add --dry-run to see what must be done by hand), then run the same "
        "command again"
    )
