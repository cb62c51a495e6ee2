"""The size and count caps a user sets through the environment, parsed by one function.

``$STEB_MAX_DECOMPRESSED_BYTES``, ``$STEB_MAX_DOWNLOAD_BYTES`` (sizes) and ``$STEB_MAX_ARCHIVE_MEMBERS``
(a count) bound what a hostile release or server may cost. A cap that is silently something else is no
cap, so the accepted forms are narrow and written down once (:data:`SIZE_FORMS`, :data:`COUNT_FORMS`):
ASCII digits (``str.isdigit`` also accepts ``²``, which ``int()`` then refuses), an optional fraction and
one unit for sizes; ``inf``, ``nan``, exponents (``1e400`` overflows), a lone unit (``B``), zero and
negative values are refused with an error naming the variable, its value and the accepted forms.
"""

from __future__ import annotations

import os
import re
from decimal import Decimal

from ._errors import DataValidationError

__all__ = ["size_setting", "count_setting", "SIZE_FORMS", "COUNT_FORMS"]

SIZE_FORMS = (
    "a positive size in bytes: digits, optionally with K, M, G or T (powers of 1024), e.g. 500000, 64M, 1.5G, 4GiB"
)
COUNT_FORMS = "a positive whole number written with the digits 0-9, e.g. 500000"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"(\d{1,20}(?:\.\d{1,20})?)\s*([KMGT]?)(?:I?B)?", re.ASCII | re.IGNORECASE)
_COUNT = re.compile(r"\d{1,20}", re.ASCII)


def _refuse(env_var: str, raw: str, forms: str) -> DataValidationError:
    return DataValidationError(f"${env_var} is {raw!r}", expected=forms)


def size_setting(env_var: str, default: int) -> int:
    """A byte count from ``$env_var`` in one of :data:`SIZE_FORMS`, or ``default`` when unset or empty."""
    raw = os.environ.get(env_var, "")
    if not raw.strip():
        return default
    found = _SIZE.fullmatch(raw.strip())
    if found is None:
        raise _refuse(env_var, raw, SIZE_FORMS)
    value = int(Decimal(found.group(1)) * _UNITS[found.group(2).upper()])
    if value <= 0:
        raise _refuse(env_var, raw, SIZE_FORMS)
    return value


def count_setting(env_var: str, default: int) -> int:
    """A whole number from ``$env_var`` in the form of :data:`COUNT_FORMS`, or ``default`` when unset or empty."""
    raw = os.environ.get(env_var, "")
    if not raw.strip():
        return default
    if _COUNT.fullmatch(raw.strip()) is None or int(raw.strip()) <= 0:
        raise _refuse(env_var, raw, COUNT_FORMS)
    return int(raw.strip())
