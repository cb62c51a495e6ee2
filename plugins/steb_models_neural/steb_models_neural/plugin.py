"""Hook implementations of steb-models-neural (entry point ``neural`` in group ``steb``)."""

from __future__ import annotations

from typing import Any, Callable

from steb_core import hookimpl

from .catalogue import encoder_specs


@hookimpl
def register_encoders(register: Callable[[Any], None]) -> None:
    for spec in encoder_specs():
        register(spec)
