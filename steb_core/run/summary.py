"""What a run reports: :class:`RunSummary` and its entries, and what :func:`evaluate` does with failures.

Kept apart from the engine so that a caller reading results (the CLI's table, a notebook, the Ray
executor's many-model runs) imports the summary types without the machinery that fills them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import StebError
from .._results import ResultRecord

__all__ = [
    "ERRORS",
    "Failure",
    "MissingData",
    "RunFailed",
    "RunSummary",
    "describe_failure",
    "handle_failures",
    "plan_order",
    "raised_at",
]


@dataclass
class Failure:
    """A dataset (``task`` None: its load or its encoding) or one of its tasks that failed, and why."""

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
                row = {
                    "encoder": r.encoder,
                    "dataset": r.dataset,
                    "task": r.task,
                    "main_metric": r.main_metric,
                    "main_score": r.main_score,
                    "status": status,
                }
                row.update({f"{k}": v for k, v in r.companions.items()})
                out.append(row)
        return out

    def to_frame(self, backend: str = "pandas") -> Any:
        """The results as a pandas (default) or polars DataFrame (:meth:`rows`)."""
        if backend == "polars":
            import polars as pl  # an optional dependency

            return pl.DataFrame(self.rows())
        import pandas as pd  # an optional dependency

        return pd.DataFrame(self.rows())

    def __repr__(self) -> str:
        return (
            f"RunSummary(encoder={self.encoder!r}, new={len(self.results)}, reused={len(self.reused)}, "
            f"skipped={len(self.skipped)}, missing={len(self.missing)}, failures={len(self.failures)}, "
            f"encoded={self.texts_encoded}, cache_hits={self.cache_hits}, output={str(self.output_dir)!r})"
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
        super().__init__(
            f"{len(failures)} failure{'s' if len(failures) != 1 else ''} ({done} results written to "
            f"{getattr(summary, 'output_dir', '?')}): {lines}"
        )


def _failure_line(failure: Any) -> str:
    task = getattr(failure, "task", None)
    return f"{getattr(failure, 'dataset', '?')}{' / ' + task if task else ''}: {getattr(failure, 'error', failure)}"


def handle_failures(summary: RunSummary, errors: str) -> None:
    """Raise or warn about the run's failures per ``errors`` (see :data:`ERRORS`)."""
    if not summary.failures or errors == "collect":
        return
    if errors == "raise":
        raise RunFailed(summary)
    for failure in summary.failures:
        warnings.warn(f"steb: {_failure_line(failure)}", RuntimeWarning, stacklevel=3)


def plan_order(summary: RunSummary, names: list[str]) -> None:
    """Results, reused results, failures and missing data listed in the order of ``names`` (the plan's, as
    the user selected), though the run processed the datasets in another order (:func:`execution_order`)."""
    rank = {name: i for i, name in enumerate(names)}
    last = len(names)
    lists: tuple[list[Any], ...] = (summary.results, summary.reused, summary.failures, summary.missing)
    for items in lists:
        items.sort(key=lambda item: rank.get(item.dataset, last))  # stable: a dataset's tasks keep their order


def describe_failure(exc: BaseException) -> str:
    """One line for a failed dataset: the error, and for an unexpected one (a plugin's KeyError, a
    RecursionError) where it was raised, since such messages name no file (``KeyError: 'author'``)."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, StebError):
        return text
    where = raised_at(exc)
    return f"{text} (raised{where})" if where else text


def raised_at(exc: BaseException) -> str:
    """`` at FILE:LINE in FUNCTION`` of the innermost frame of ``exc``'s traceback ('' without one)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return "" if tb is None else f" at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name}"
