"""Entry point of steb-datasets-style: registers the catalogue through the datasets hook."""

from __future__ import annotations

from collections.abc import Callable

from steb_core import DatasetSpec, hookimpl


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    from .catalogue import all_specs

    for spec in all_specs():
        register(spec)
