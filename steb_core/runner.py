"""Old import path of the run engine, kept for one release: the engine is now the :mod:`steb_core.run` package.

Importing this module warns (:class:`DeprecationWarning`) and gives the names it held, from their new
modules: :func:`evaluate` and the summary types (``steb_core`` or :mod:`steb_core.run`), dataset
selection (:mod:`steb_core.run.selection`), the order of a run (:mod:`steb_core.run.order`), the
record's spec facts (:mod:`steb_core.run.stored`) and failure lines (:mod:`steb_core.run.summary`,
:mod:`steb_core.run.load`, :mod:`steb_core.run.plan`).
"""

from __future__ import annotations

import warnings

from .run import (
    ERRORS,
    Failure,
    MissingData,
    RunFailed,
    RunSummary,
    evaluate,
    execution_order,
    known_suites,
    parse_memory,
    resolve_datasets,
    resolve_selection,
    suite_members,
)
from .run.load import loader_exit_message, worker_death_message
from .run.order import CHEAP_TO_SCORE, size_hint
from .run.plan import unregistered_reason
from .run.selection import refused_suite_members
from .run.stored import dataset_meta
from .run.summary import describe_failure

__all__ = [
    "evaluate",
    "RunSummary",
    "Failure",
    "MissingData",
    "RunFailed",
    "ERRORS",
    "resolve_datasets",
    "resolve_selection",
    "suite_members",
    "known_suites",
    "parse_memory",
    "execution_order",
    "CHEAP_TO_SCORE",
    "dataset_meta",
    "describe_failure",
    "loader_exit_message",
    "refused_suite_members",
    "size_hint",
    "unregistered_reason",
    "worker_death_message",
]

warnings.warn(
    "steb_core.runner is now the steb_core.run package; import evaluate and the summary types from "
    "steb_core (or steb_core.run), the rest from steb_core.run's modules; steb_core.runner goes in the "
    "next release",
    DeprecationWarning,
    stacklevel=2,
)
