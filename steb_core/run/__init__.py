"""The run engine: load datasets, embed every distinct text once, run tasks, write one result per task.

:func:`evaluate` (:mod:`.api`) is the entry point. A run goes through five phases, each in its module,
and why each is where it is:

1. **plan** (:mod:`.plan`) -- which (dataset, task) results the selection (:mod:`.selection`) asks
   for, and the parts of their ``run_key`` known before any data is read (encoder identity
   (:mod:`.encoder_setup`), dataset and task versions, the providing plugin's version, protocol, seed).
2. **load** (:mod:`.load`) -- each dataset is loaded and its task-shaped records are fingerprinted
   (:meth:`DatasetBundle.fingerprint`); the fingerprint completes the run key, and a stored result
   with the same key and an intact content hash is reused (:mod:`.stored`). This is what makes a
   re-run after Ctrl-C or a crash resume where it stopped, and why a result is never reused for other
   data (an edited release, another ``--data-dir``, a plugin upgrade that ships other files): loading
   is cheap next to encoding, so every run loads what it reports on. Datasets are loaded one at a
   time and gathered into groups that fit ``max_memory`` (default: one dataset per group), so peak
   memory is set by the largest dataset, not by the run. A group is sized by the cached vectors'
   dimension; until the cache knows it (the first dataset of a new model), that dataset forms a group
   of its own. With ``prefetch`` N (default 4) the next N datasets are loaded in a worker process
   while this one is encoded and scored (:mod:`steb_core._prefetch`); a load changes nothing of the
   run, and what it found (reused results, notes, failures, missing data) is applied by the engine
   (:mod:`.engine`) in the run's order, so a run's records, cache and summary are those of the
   sequential runner (``prefetch=0``). Both run the datasets in one order that depends on the
   selection only (:func:`~.order.execution_order`): datasets with a task that is costly to score
   first, smallest first, then the cheap-to-score ones, largest first, so the loader has large loads
   to do while the last costly datasets are scored; the summary (:mod:`.summary`) lists them in plan
   order. A loader raising :class:`DatasetNotFoundError` marks its dataset as missing data
   (``summary.missing``), a failure only with ``strict``.
3. **encode** (:meth:`.engine.Engine.encode`) -- the group's distinct texts are hashed once; only
   those the on-disk cache lacks go to the executor (:mod:`.backends`), shard by shard (each shard
   saved before the next starts). A text shared by two datasets is encoded once per run: the second
   finds it in the cache.
4. **score** (:meth:`.engine.Engine.score`) -- each dataset gathers its vectors from the cache into
   one matrix and runs its tasks.
5. **write** (:func:`.stored.new_record`) -- each result is written atomically as soon as it is done.

An encoder failure (an exception, NaN vectors, a wrong shape) fails the datasets that need the
failed batch, with one line naming the encoder, the batch and the first bad text; every other
dataset still runs, and the batches already encoded stay cached (``fail_fast`` stops instead).
Every choice of a run is one frozen :class:`~.settings.RunSettings`; progress display: :mod:`.progress`.
"""

from __future__ import annotations

from .api import evaluate
from .order import execution_order, parse_memory
from .selection import known_suites, resolve_datasets, resolve_selection, suite_members
from .settings import RunSettings
from .summary import ERRORS, Failure, MissingData, RunFailed, RunSummary

__all__ = [
    "ERRORS",
    "Failure",
    "MissingData",
    "RunFailed",
    "RunSettings",
    "RunSummary",
    "evaluate",
    "execution_order",
    "known_suites",
    "parse_memory",
    "resolve_datasets",
    "resolve_selection",
    "suite_members",
]
