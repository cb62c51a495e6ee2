"""Run options in their two channels, and the options that nothing of the run reads: an error before anything
is encoded.

``--dataset-option KEY=VALUE`` (``evaluate(dataset_options=...)``) reaches every loader of the run
(``LoadContext.options``); ``--task-option TASK.KEY=VALUE`` (``evaluate(task_options=...)``) reaches the tasks
(``TaskContext.options``, as ``<task>.<name>``). A task option given as a dataset option (the spelling before issue
48) is still taken, with a deprecation warning (:func:`split_options`). A result's run key holds only the options
it depends on (:func:`key_options`): the task options of its task type, and the loader options its loader read.
Before, every run key held every option of the run, so an order-alignment option recomputed (and replaced) the
clustering, pair, retrieval and probing results of the same run as well. A misspelt or retired option (issue 37
removed ``balanced`` and ``min_class_size``) would be ignored by everything; two kinds of options, checked where
each is known:

* **task options** (``<task>.<name>``, ``tasks.<name>``, or ``{<task>: {...}}``): the names each task type reads are
  declared on its spec (:attr:`steb_core._specs.TaskSpec.options`; :data:`TASK_WIDE_OPTIONS` for every task), so
  they are checked against the plan before any dataset is loaded (:func:`check_task_options`). A task type that
  declares no names (a plugin's) takes any name.
* **loader options** (every other key): which ones a loader reads is known only by running it, so the loader gets
  its options in a mapping that records the names it asks for (:class:`OptionReads`: ``[]``, ``get``, ``in``,
  ``pop``, ``setdefault``; a loader that copies the whole mapping counts as reading every key, so a copy never
  makes an error). The names asked for travel back with the load result (also from a prefetch worker process),
  and :class:`OptionUse` holds back encoding while some given option has not been read and datasets are left to
  load; when every dataset has loaded and one is still unread, the run stops with an error naming the option,
  the datasets and the options their loaders do read ("did you mean"). If a dataset failed to load or its data is
  missing, its loader may be the one that reads the option: the run goes on, with a note.

``sampling`` is the run's ``--sampling`` flag (its value is checked there): unread by every loader it is a note
(nothing of the run samples), not an error. An option read by some loaders of the run and not others is normal
(options go to every dataset) and noted.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .._errors import StebError
from .._sampling import SAMPLING_OPTION
from .._specs import TaskSpec

__all__ = [
    "OptionReads",
    "OptionUse",
    "TASK_WIDE",
    "TASK_WIDE_OPTIONS",
    "RUN_WIDE_OPTIONS",
    "task_option_keys",
    "flat_task_options",
    "split_options",
    "key_options",
    "check_task_options",
]

#: the prefix of options every task reads (``tasks.device``: where the task kernels run, :mod:`steb_core.tasks._device`)
TASK_WIDE = "tasks"
TASK_WIDE_OPTIONS = ("device",)
#: loader options that are run flags: unread, they are a note, not an error (module docstring)
RUN_WIDE_OPTIONS = frozenset({SAMPLING_OPTION})


class OptionReads(dict):  # type: ignore[type-arg]
    """A loader's options (a plain ``dict`` to the loader) that record every name the loader asks for.

    ``asked`` is shared with the mappings :meth:`copy` returns. ``dict(options)`` and ``{**options}`` read every
    key through ``[]`` (``__iter__`` is overridden so that CPython does not copy the storage directly), so a loader
    that copies its options counts as reading all of them.
    """

    def __init__(self, options: Mapping[str, Any] | None = None, asked: set[str] | None = None) -> None:
        super().__init__(options or {})
        self.asked: set[str] = set() if asked is None else asked

    def __getitem__(self, key: Any) -> Any:
        self.asked.add(str(key))
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)

    def __iter__(self) -> Iterator[Any]:
        return super().__iter__()

    def get(self, key: Any, default: Any = None) -> Any:
        self.asked.add(str(key))
        return super().get(key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        self.asked.add(str(key))
        return super().pop(key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self.asked.add(str(key))
        return super().setdefault(key, default)

    def copy(self) -> OptionReads:
        return OptionReads(dict(super().items()), self.asked)  # items(): copying is not reading

    def __reduce__(self) -> Any:  # pickled (a loader that kept its options in the bundle) as the plain dict it is
        return (dict, (dict(super().items()),))


def _task_of(key: str, value: Any, tasks: Iterable[str]) -> tuple[str, list[str]] | None:
    """(task, option names) when ``key`` is a task option: ``<task>.<name>``, or ``<task>`` with a mapping."""
    names = set(tasks) | {TASK_WIDE}
    if key in names and isinstance(value, Mapping):
        return key, [str(n) for n in value]
    head, dot, name = key.partition(".")
    if dot and head in names:
        return head, [name]
    return None


def task_option_keys(options: Mapping[str, Any], tasks: Iterable[str]) -> set[str]:
    """The keys of ``options`` that are task options (module docstring) for the task types ``tasks``."""
    tasks = list(tasks)
    return {str(k) for k, v in options.items() if _task_of(str(k), v, tasks) is not None}


def flat_task_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Task options as ``{"<task>.<name>": value}``: ``TASK.KEY`` keys kept, ``{TASK: {KEY: value}}`` flattened.

    A key with no task part (``ties`` alone) is an error: a task option names its task type."""
    out: dict[str, Any] = {}
    for key, value in (options or {}).items():
        key = str(key)
        if "." not in key and isinstance(value, Mapping):
            out.update({f"{key}.{name}": v for name, v in value.items()})
        elif "." in key and key.partition(".")[0] and key.partition(".")[2]:
            out[key] = value
        else:
            raise StebError(
                f"task option '{key}' names no task type: give it as TASK.KEY=VALUE, e.g. order_alignment.ties=split"
            )
    return out


def split_options(dataset_options: Mapping[str, Any], tasks: Iterable[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(loader options, task options found among ``dataset_options``): a key naming one of the task types
    ``tasks`` (or ``tasks.``) is a task option given the old way (the caller warns)."""
    tasks = list(tasks)
    moved = task_option_keys(dataset_options, tasks)
    loader = {str(k): v for k, v in dataset_options.items() if str(k) not in moved}
    return loader, flat_task_options({str(k): v for k, v in dataset_options.items() if str(k) in moved})


def key_options(
    task: str, task_options: Mapping[str, Any], loader_options: Mapping[str, Any], read: Iterable[str]
) -> dict[str, Any]:
    """The options a result of ``task`` depends on, for its run key: the task options of ``task`` and the run-wide
    ``tasks.`` ones (``task_options`` flat), and the ``loader_options`` its loader asked for (``read``)."""
    asked = set(read)
    own = {k: v for k, v in task_options.items() if k.partition(".")[0] in (task, TASK_WIDE)}
    return {**{k: v for k, v in loader_options.items() if k in asked}, **own}


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    """The end of a sentence about ``name``: "; did you mean 'x'?" with the close names, else "."."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "."


def check_task_options(
    options: Mapping[str, Any], run_tasks: Sequence[TaskSpec], registered: Sequence[TaskSpec]
) -> None:
    """Refuse a task option whose task type is not in the run, or whose name that task type does not read."""
    in_run = {t.name: t for t in run_tasks}
    every = {t.name for t in registered} | set(in_run)
    for key, value in options.items():
        found = _task_of(str(key), value, every)
        if found is None:
            continue
        task, names = found
        if task == TASK_WIDE:
            allowed: tuple[str, ...] = TASK_WIDE_OPTIONS
        elif task not in in_run:
            raise StebError(
                f"task option '{key}' is for task type '{task}', which no dataset of this run has "
                f"(task types of the run: {', '.join(sorted(in_run)) or 'none'})"
            )
        else:
            allowed = in_run[task].options
            if not allowed:  # a task type that does not declare its options takes any name
                continue
        for name in names:
            if name not in allowed:
                raise StebError(
                    f"task option '{key}': task type '{task}' reads no option '{name}'"
                    f"{_did_you_mean(name, allowed)} It reads: {', '.join(f'{task}.{n}' for n in allowed)}"
                )


class OptionUse:
    """Which given loader options the loaded datasets' loaders asked for (module docstring)."""

    def __init__(self, options: Mapping[str, Any], task_keys: Iterable[str], n_datasets: int) -> None:
        self.keys = [str(k) for k in options if str(k) not in set(task_keys)]
        self.left = n_datasets
        self.read_by: dict[str, list[str]] = {k: [] for k in self.keys}
        self.asked: set[str] = set()
        self.loaded: list[str] = []
        self.not_loaded: list[str] = []

    def add(self, dataset: str, asked: Iterable[str], loaded: bool) -> None:
        """One dataset's load: the option names its loader asked for, and whether it gave records."""
        asked = set(asked)
        self.left -= 1
        self.asked |= asked
        (self.loaded if loaded else self.not_loaded).append(dataset)
        for key in self.keys:
            if key in asked:
                self.read_by[key].append(dataset)

    def unread(self) -> list[str]:
        return [k for k in self.keys if not self.read_by[k] and k not in RUN_WIDE_OPTIONS]

    def waiting(self) -> bool:
        """Whether encoding must wait: an option is unread so far and datasets are left to load."""
        return self.left > 0 and bool(self.unread())

    def settle(self) -> list[str]:
        """After every load: the notes to add; a :class:`StebError` when a given option was read by no loader."""
        notes = []
        unread = self.unread()
        if unread and self.not_loaded:
            notes.append(
                f"dataset option(s) {', '.join(repr(k) for k in unread)} were read by no loader that ran; "
                f"{len(self.not_loaded)} dataset(s) did not load ({', '.join(self.not_loaded[:5])}"
                f"{', ...' if len(self.not_loaded) > 5 else ''}), whose loaders may read them"
            )
        elif unread:
            key = unread[0]
            asked = sorted(self.asked - RUN_WIDE_OPTIONS)
            shown = ", ".join(self.loaded[:8]) + (f" and {len(self.loaded) - 8} more" if len(self.loaded) > 8 else "")
            raise StebError(
                f"dataset option{'s' if len(unread) > 1 else ''} {', '.join(repr(k) for k in unread)}: no loader of "
                f"this run reads {'them' if len(unread) > 1 else 'it'} (datasets: {shown}){_did_you_mean(key, asked)} "
                f"Their loaders read: {', '.join(asked) or 'no option'}; task options are <task>.<name>. "
                "Nothing was encoded."
            )
        for key in self.keys:
            readers = self.read_by[key]
            if key in RUN_WIDE_OPTIONS and not readers and self.loaded:
                notes.append(
                    f"dataset option '{key}' was read by no loader of this run: none of its datasets "
                    "samples texts per class, so it changes nothing but the run keys"
                )
            elif readers and len(readers) < len(self.loaded):
                others = [d for d in self.loaded if d not in readers]
                notes.append(
                    f"dataset option '{key}' was read by the loaders of {len(readers)} of "
                    f"{len(self.loaded)} datasets ({', '.join(readers[:5])}"
                    f"{', ...' if len(readers) > 5 else ''}); {', '.join(others[:5])}"
                    f"{', ...' if len(others) > 5 else ''} ignore it"
                )
        return notes
