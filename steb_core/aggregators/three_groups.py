"""Opt-in plugin: steb's steb 0.1 definitional reading as extra report columns.

``steb report DIR --plugin steb_core.aggregators.three_groups`` adds ``definitional-three-groups``,
``objects-of-study-five`` and ``idiolect-table13-rows`` beside the built-in (STEB Table 9) columns, so
numbers computed before the fix can be reproduced and compared. Not an entry point: nothing registers
it unless a user names it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from .._specs import AggregatorSpec


@hookimpl
def register_aggregators(register: Callable[[AggregatorSpec], None]) -> None:
    from .definitional import three_groups_specs

    for spec in three_groups_specs():
        register(spec)
