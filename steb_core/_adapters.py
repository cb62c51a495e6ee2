"""Adapters for encoder objects whose ``encode`` follows another library's calling convention.

steb calls ``encoder.encode(list_of_texts)``. sentence-transformers models and plain classes take that
as is; objects that need more arguments are wrapped here so they run unchanged (see
:func:`adapt_encoder`). Kept out of the runner so a new convention is one function.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["adapt_encoder"]


def _required_keywords(fn: Any) -> list[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty]


def adapt_encoder(encoder: Any) -> Any:
    """``encoder`` itself, or an adapter when its ``encode`` needs MTEB's arguments."""
    encode = getattr(encoder, "encode", None)
    if encode is None:
        return encoder
    if "task_metadata" in _required_keywords(encode):
        from ._adapters_mteb import MtebModelAdapter

        return MtebModelAdapter(encoder)
    return encoder
