"""Old import path of :mod:`steb_core.prefetch` (loading the next datasets while one is encoded and scored),
kept for one release (issue 40).

Importing it warns and gives :mod:`steb_core.prefetch` itself (:func:`steb_core._moved.alias_module`).
"""

from ._moved import alias_module

alias_module(__name__, "steb_core.prefetch", "loading the next datasets while one is encoded and scored")
