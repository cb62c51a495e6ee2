"""Hook implementations of steb-models-neural (entry point ``neural`` in group ``steb``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from steb_core import hookimpl

from .catalogue import encoder_specs


@hookimpl
def resolve_encoder(name: str, options: dict[str, Any]) -> Any:
    """A model folder or a hub id in the local cache, as a (lazy) sentence-transformers encoder."""
    from .resolve import resolve_by_name

    return resolve_by_name(name, options)


@hookimpl
def register_encoders(register: Callable[[Any], None]) -> None:
    for spec in encoder_specs():
        register(spec)
