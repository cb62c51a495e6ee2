"""Old import path of :mod:`steb_core.tables` (datasets from one table: the generic loader), kept for one release.

Importing it warns and gives :mod:`steb_core.tables` itself (:func:`steb_core._moved.alias_module`).
"""

from ._moved import alias_module

alias_module(__name__, "steb_core.tables", "datasets from one table, the generic loader")
