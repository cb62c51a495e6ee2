"""Hook implementations of steb-executor-ray: the ``ray`` executor and the ``steb run-many`` command."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from steb_core import ExecutorSpec, hookimpl


def _make_ray_executor(**options: Any) -> Any:
    # imported lazily: `steb list` must not pay for importing ray
    from .executor import RayExecutor

    return RayExecutor(**options)


@hookimpl
def register_executors(register: Callable[[ExecutorSpec], None]) -> None:
    register(
        ExecutorSpec(
            name="ray",
            description="encode on a Ray cluster (one model load per worker, GPU-aware); --address ADDR, or none to "
            "start a local cluster",
            factory=_make_ray_executor,
        )
    )


@hookimpl
def register_commands(cli: Any) -> None:
    from .cli import run_many_command

    cli.command("run-many")(run_many_command)
