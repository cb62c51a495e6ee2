"""Hook implementations of steb-datasets-pan (placeholder)."""

from steb_core import hookimpl


@hookimpl
def register_datasets(register):
    return None
