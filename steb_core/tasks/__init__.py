"""The built-in STEB task types (registered through the tasks hook by :mod:`steb_core._builtin`).

One module per task type, or a package when the task type has more than one job (:mod:`.order_alignment`: its
rules pure functions of arrays, apart from the plumbing); each exposes ``SPEC`` (a :class:`TaskSpec`) and its
``run_*`` function. Shared metric helpers live in :mod:`._common`.
"""

from __future__ import annotations

from .._specs import TaskSpec


def builtin_tasks() -> list[TaskSpec]:
    """Every built-in task spec, in :data:`steb_core._specs.TASK_TYPES` order."""
    from . import clustering, order_alignment, pair_all, pair_predefined, probing, retrieval

    return [clustering.SPEC, pair_all.SPEC, pair_predefined.SPEC, order_alignment.SPEC, retrieval.SPEC, probing.SPEC]
