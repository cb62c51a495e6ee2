"""Entry point of steb-datasets-style: registers the catalogue through the datasets hook."""

from __future__ import annotations

from steb_core import hookimpl


@hookimpl
def register_datasets(register):
    from .catalogue import all_specs

    for spec in all_specs():
        register(spec)
