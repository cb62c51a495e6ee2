"""steb-models-neural: neural encoders for steb.

Families: ``sentence-transformers`` (the model's own pooling), ``masked-lm`` (attention-mask-weighted
mean of the last layer), ``causal-lm`` (last non-padding token), ``episode`` (LUAR-style, one vector per
collection), ``multi-label-classifier`` (sigmoid outputs max-pooled over word chunks: NeuroBiber), plus
ready configurations of STEB's models and the offline ``all-MiniLM-L6-v2``.
Weights are downloaded only when asked (``steb models get NAME``, ``steb run --download``): otherwise hub
ids are read from the local cache, folders from disk. A model folder
or cached hub id that no configuration names is served through the ``resolve_encoder`` hook.

Importing this package does not import torch, and neither does building an encoder: weights load on
first use, and ``fingerprint()`` / ``identity()`` come from content hashes of the model's files, so a run
whose vectors are all cached does no model work.
"""

from __future__ import annotations

from typing import Any

from .errors import EncoderOptionError, ModelNotAvailableError

__all__ = [
    "ModelNotAvailableError",
    "EncoderOptionError",
    "SentenceTransformerEncoder",
    "TransformerEncoder",
    "EpisodeEncoder",
]

_LAZY = {
    "SentenceTransformerEncoder": ".sentence",
    "TransformerEncoder": ".transformer",
    "EpisodeEncoder": ".episode",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(name)
