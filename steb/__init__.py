"""Short import name: ``import steb; steb.evaluate(model, datasets=[...])`` (same API as :mod:`steb_core`)."""

from steb_core import *  # noqa: F403
from steb_core import __all__, __version__, evaluate  # noqa: F401
