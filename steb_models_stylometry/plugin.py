"""Hook implementations of steb-models-stylometry (placeholder)."""

from steb_core import hookimpl


@hookimpl
def register_encoders(register):
    return None
