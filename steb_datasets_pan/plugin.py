"""Hook implementations of steb-datasets-pan: registers every PAN dataset STEB uses."""

from __future__ import annotations

from collections.abc import Callable

from steb_core import DatasetSpec, hookimpl


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    """Register the PAN dataset specs; building them reads no data (loaders run on evaluation only)."""
    from .catalogue import pan_datasets

    for spec in pan_datasets():
        register(spec)
