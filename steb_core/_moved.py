"""Old import paths of renamed modules, kept for one release (issue 40): each old module *is* the new one.

``steb_core/parallel.py`` and the other stubs call :func:`alias_module`, which warns once per process
(:class:`DeprecationWarning`) and puts the new module in ``sys.modules`` under the old name, so every name,
private ones included, and every ``monkeypatch`` of the old path reach the one real module.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType

__all__ = ["alias_module"]


def alias_module(old: str, new: str, what: str) -> ModuleType:
    """Make the module ``old`` the module ``new`` (``what``: what it holds, for the warning); returns it."""
    module = importlib.import_module(new)
    warnings.warn(
        f"{old} is now {new} ({what}); the old import path goes in the next release. Plugins import "
        f"from steb_core itself (CONTRIBUTING, 'The public API').",
        DeprecationWarning,
        stacklevel=3,
    )
    sys.modules[old] = module
    return module
