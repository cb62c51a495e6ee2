"""The built-in STEB task types (registered through the tasks hook by :mod:`steb_core.builtin`)."""

from __future__ import annotations

from ..specs import TaskSpec


def builtin_tasks() -> list[TaskSpec]:
    """Every built-in task spec (placeholder until the task modules land)."""
    return []
