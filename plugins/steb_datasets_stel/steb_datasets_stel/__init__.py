"""steb-datasets-stel: STEL and STEL-or-Content order-alignment datasets from the official TSVs."""

from .stel import STEL_FEATURE_DEFAULT_TYPES, STEL_REGISTER_TYPES, VARIANTS, load_stel_instances, stel_groups

__all__ = [
    "STEL_REGISTER_TYPES",
    "STEL_FEATURE_DEFAULT_TYPES",
    "VARIANTS",
    "load_stel_instances",
    "stel_groups",
]
