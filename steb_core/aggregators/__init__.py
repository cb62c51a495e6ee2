"""Built-in aggregators (registered through the aggregators hook by :mod:`steb_core._builtin`).

An aggregator is ``aggregate(results, datasets) -> AggregateResult``: ``results`` is an iterable of
:class:`~steb_core._results.ResultRecord` (the report passes a :class:`ResultTable`, which iterates
as one and also fixes the scope), ``datasets`` the registered dataset specs (a registry, a mapping or
an iterable; ``None`` falls back to the ``dataset_meta`` stored in each record).
"""

from __future__ import annotations

from .._specs import AggregatorSpec
from .result import AggregateResult, Column, MissingInput
from .table import DatasetInfo, ResultTable, as_table

__all__ = ["AggregateResult", "Column", "MissingInput", "DatasetInfo", "ResultTable", "as_table", "builtin_aggregators"]


def builtin_aggregators() -> list[AggregatorSpec]:
    """Operational; definitional (STEB Table 9: the mean of objects of study -- six columns, idiolect
    included --, linguistic features and content independence, each also a column, and idiolect);
    per-application (ATD, adversarial ATD, AV, AR and
    their average) and multilingual aggregators."""
    from .applications import application_specs
    from .definitional import definitional_specs
    from .operational import operational_spec

    return [operational_spec(), *definitional_specs(), *application_specs()]
