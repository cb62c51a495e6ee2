"""steb-datasets-stel: STEL / STEL-or-Content datasets, and the order-group builder for parallel corpora.

:mod:`steb_datasets_stel.parallel` is public so that other dataset distributions (steb-datasets-parallel)
can build order-alignment groups the same way; it is a candidate for ``steb_core``.
"""

from .parallel import ParallelItem, order_groups_from_parallel, parse_budget
from .stel import STEL_REGISTER_TYPES, STEL_FEATURE_DEFAULT_TYPES, VARIANTS, load_stel_instances, stel_groups

__all__ = [
    "ParallelItem",
    "order_groups_from_parallel",
    "parse_budget",
    "STEL_REGISTER_TYPES",
    "STEL_FEATURE_DEFAULT_TYPES",
    "VARIANTS",
    "load_stel_instances",
    "stel_groups",
]
