"""Opt-in plugin: steb 0.2's ``table13`` weighting as extra report columns, beside the reference-weighted defaults.

``steb report DIR --plugin steb_core.aggregators.table13`` adds ``definitional-table13``, ``objects-of-study-table13``,
``idiolect-table13``, ``linguistic-features-table13``, ``content-independence-table13``, ``av-table13`` and
``applications-table13``: each column the mean over STEB Table 13's rows, and AV overall without PAN18 style change
(the paper's Table 4 text), as steb computed them before it followed the authors' scripts (issue 38). Not an entry
point: nothing registers it unless a user names it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from .._specs import AggregatorSpec


@hookimpl
def register_aggregators(register: Callable[[AggregatorSpec], None]) -> None:
    from .applications import table13_application_specs
    from .definitional import table13_specs

    for spec in (*table13_specs(), *table13_application_specs()):
        register(spec)
