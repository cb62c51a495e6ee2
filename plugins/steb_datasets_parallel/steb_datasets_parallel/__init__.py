"""steb-datasets-parallel: order-alignment datasets built from parallel style corpora.

Public helper for the style-transfer scorers: :func:`steb_datasets_parallel.gyafc.gyafc_transfer_set`
returns GYAFC's test sources with their four human references.
"""

from .gyafc import GYAFC_DOMAINS, TransferSet, gyafc_transfer_set

__all__ = ["GYAFC_DOMAINS", "TransferSet", "gyafc_transfer_set"]
