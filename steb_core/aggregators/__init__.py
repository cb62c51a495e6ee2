"""Built-in aggregators (registered through the aggregators hook by :mod:`steb_core.builtin`)."""

from __future__ import annotations

from ..specs import AggregatorSpec


def builtin_aggregators() -> list[AggregatorSpec]:
    """Every built-in aggregator spec (placeholder until the aggregator modules land)."""
    return []
