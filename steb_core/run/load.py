"""Phase 2, load: one dataset's records read, fingerprinted and checked for reusable results, as plain data.

A load may run in a prefetch worker (a forked process or a thread, :mod:`steb_core._prefetch`), so it
changes nothing the run holds: it works on a copy of the planned dataset and returns what it found (a
:class:`LoadResult`: the records, the completed run keys, the tasks left after reuse, the distinct texts
and their hashes, and what the summary gets), which the engine applies in the run's order. A run with
prefetch therefore ends with the records and summary of one without.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from .._cache import text_hash
from .._errors import DatasetNotFoundError, StebError
from .._prefetch import WorkerDied
from .._records import DatasetBundle
from .._replacements import replacement_note
from .._results import ResultRecord
from .._specs import LoadContext
from .encoder_setup import RunEncoder
from .option_use import OptionReads
from .plan import Pending, complete_keys
from .settings import RunSettings
from .stored import split_reused
from .summary import Failure, MissingData, RunSummary, describe_failure, raised_at

__all__ = ["LoadResult", "Loaded", "load_dataset", "loader_exit_message", "worker_death_message"]


@dataclass
class Loaded:
    """A loaded dataset with work left: its records, its distinct texts and their hashes (row order of its
    vectors)."""

    pending: Pending
    bundle: DatasetBundle
    load_seconds: float
    texts: list[str] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)


@dataclass
class LoadResult:
    """What loading one dataset produced, as plain data (it may come back from a prefetch process):
    the loaded records (None when loading failed), what the load found out about the plan (tasks left
    after reuse, run keys, data fingerprints) and what it adds to the run's summary."""

    bundle: DatasetBundle | None = None
    load_seconds: float = 0.0
    tasks: list[str] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    texts_total: int = 0
    reused: list[ResultRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    missing: list[MissingData] = field(default_factory=list)
    #: the option names the loader asked for, read or not (:class:`~.option_use.OptionReads`), even if it failed
    options_read: list[str] = field(default_factory=list)

    def apply(self, pending: Pending, summary: RunSummary) -> Loaded | None:
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
        return Loaded(pending, self.bundle, self.load_seconds, self.texts, self.hashes)


def load_dataset(settings: RunSettings, encoder: RunEncoder, pending: Pending) -> LoadResult:
    """Load ``pending``'s dataset, complete its run keys, set reusable results aside and gather the distinct
    texts its remaining tasks embed. A loader's error fails this dataset only (raised with ``fail_fast``);
    missing data is a skip with ``summary.missing`` (a failure with ``strict``)."""
    work = dataclasses.replace(
        pending, tasks=list(pending.tasks), keys=dict(pending.keys), fingerprints=dict(pending.fingerprints)
    )
    found = LoadResult()
    t0 = time.perf_counter()
    bundle = _read(settings, work, found)
    if bundle is not None:
        split_reused(settings, encoder, work, found.reused, found.notes)
        found.bundle, found.load_seconds = bundle, time.perf_counter() - t0
        if work.tasks and encoder.vectors_ok:
            _gather_texts(settings, work, bundle, found)
    found.tasks, found.keys, found.fingerprints = [t.name for t in work.tasks], work.keys, work.fingerprints
    return found


def _read(settings: RunSettings, pending: Pending, found: LoadResult) -> DatasetBundle | None:
    """The dataset's records with its run keys completed, or None with the failure or gap noted in ``found``."""
    spec = pending.spec
    options = OptionReads(settings.dataset_options)
    try:
        ctx = LoadContext(
            spec.name,
            LoadContext.resolve_data_dir(spec.name, settings.data_dir),
            settings.seed,
            options,
        )
        try:
            bundle = spec.loader(ctx)
        finally:  # what the loader asked for, even when it raised (it may have read the option first)
            found.options_read = sorted(options.asked)
        if not isinstance(bundle, DatasetBundle):
            raise StebError(f"loader of '{spec.name}' returned {type(bundle).__name__}, expected DatasetBundle")
        for task in pending.tasks:
            if bundle.get(task.shape) is None:
                raise StebError(
                    f"dataset '{spec.name}' declares task '{task.name}' but its loader produced no "
                    f"'{task.shape}' records"
                )
        complete_keys(pending, bundle, settings.dataset_options, options.asked)
        replaced = replacement_note(spec.name, bundle.info)
        if replaced:
            found.notes.append(replaced)
    except DatasetNotFoundError as exc:  # not on this machine: skipped as missing data unless strict
        if settings.strict:
            if settings.fail_fast:
                raise
            found.failures.append(Failure(spec.name, None, describe_failure(exc)))
        else:
            found.missing.append(MissingData(spec.name, [t.name for t in pending.tasks], str(exc)))
        return None
    except Exception as exc:  # any loader error (a plugin's KeyError too) fails this dataset only
        if settings.fail_fast:
            raise
        found.failures.append(Failure(spec.name, None, describe_failure(exc)))
        return None
    except SystemExit as exc:  # a loader's sys.exit() ends neither the run nor the prefetch worker (issue 41)
        message = loader_exit_message(pending, exc)
        if settings.fail_fast:
            raise StebError(f"dataset '{spec.name}': {message}") from None
        found.failures.append(Failure(spec.name, None, message))
        return None
    return bundle


def _gather_texts(settings: RunSettings, pending: Pending, bundle: DatasetBundle, found: LoadResult) -> None:
    """The distinct texts the tasks embed, in first-seen order, hashed once (the one place a text is hashed)."""
    distinct: dict[str, None] = {}
    total = 0
    for text in bundle.iter_texts(sorted({t.shape for t in pending.tasks})):
        total += 1
        distinct.setdefault(text, None)
    for task in pending.tasks:  # texts a task embeds beyond its records' (retrieval's joined collections)
        if task.extra_texts is not None:
            for text in task.extra_texts(bundle.get(task.shape), settings.task_options):
                total += 1
                distinct.setdefault(text, None)
    found.texts = list(distinct)
    found.hashes = [text_hash(t) for t in found.texts]
    found.texts_total = total


def loader_exit_message(pending: Pending, exc: SystemExit) -> str:
    """The failure line for a loader that called ``sys.exit``: its plugin, the code and where it was called."""
    return f"SystemExit: the loader ({pending.plugin_phrase()}) called sys.exit({exc.code!r})" + raised_at(exc)


def worker_death_message(pending: Pending, exc: WorkerDied) -> str:
    """The failure line for a dataset whose prefetch worker died while loading it: the plugin and how it died."""
    return (
        f"the prefetch worker process running its loader ({pending.plugin_phrase()}) {exc.how} before sending "
        "the dataset; the datasets after it are loaded by a new worker"
    )
