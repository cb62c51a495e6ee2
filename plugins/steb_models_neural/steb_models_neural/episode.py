"""Multi-text (episode) encoders such as LUAR: a collection of texts by one author -> one vector.

LUAR's hub models take ``input_ids``/``attention_mask`` shaped (collections, texts per collection,
tokens) and return one vector per collection. Collections of equal size are batched together (the
tensor must be rectangular); the retrieval task calls :meth:`EpisodeEncoder.encode_collections`, and a
single text is embedded as a collection of one.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

import numpy as np
import torch

from .base import TokenizerEncoder
from .loading import resolve_model
from .runtime import parse_bool
from .transformer import choose_max_length, load_auto, model_token_limit

__all__ = ["EpisodeEncoder"]


class EpisodeEncoder(TokenizerEncoder):
    """A LUAR-style model; ``batch_size`` counts collections, ``max_length`` tokens per text."""

    pooling = "episode"

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        revision: str | None = None,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int | str = 8,
        max_length: int | str | None = None,
        trust_remote_code: bool | str = False,
    ) -> None:
        trust = parse_bool(trust_remote_code, "trust_remote_code")
        torch_dtype = self._setup(
            resolved=resolve_model(model, revision), family="episode", name=name or f"episode:{model}",
            batch_size=batch_size, device=device, dtype=dtype, trust=trust,
        )
        load_auto(self, trust, torch_dtype)
        # LUAR's tokenizer files carry no usable limit; its RoBERTa backbone takes 512 tokens
        self.max_length = choose_max_length(max_length, model_token_limit(self.tokenizer, self.model.config) or 512, model)

    def _embed_episodes(self, collections: list[Sequence[str]], max_length: int) -> np.ndarray:
        """One forward pass over equally sized collections."""
        size = len(collections[0])
        flat = [t for c in collections for t in c]
        encoded = self.tokenizer(flat, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        shape = (len(collections), size, -1)
        ids = encoded["input_ids"].reshape(shape).to(self._device)
        mask = encoded["attention_mask"].reshape(shape).to(self._device)
        out = self.model(input_ids=ids, attention_mask=mask)
        if not isinstance(out, torch.Tensor):  # a tuple or a ModelOutput: the first field is the embedding
            pooled = getattr(out, "pooler_output", None)
            out = pooled if pooled is not None else out[0]
        return out.to(torch.float32).cpu().numpy()

    def encode_collections(self, collections: Sequence[Sequence[str]], max_length: int | None = None) -> np.ndarray:
        """One float32 vector per collection, in input order; collections are batched by size."""
        if not collections:
            raise ValueError("nothing to encode")
        limit = self.limit_for(max_length)
        by_size: dict[int, list[int]] = defaultdict(list)
        for i, c in enumerate(collections):
            if len(c) == 0:
                raise ValueError(f"collection {i} holds no text")
            by_size[len(c)].append(i)
        out: np.ndarray | None = None
        with torch.inference_mode():
            for size in sorted(by_size, reverse=True):
                members = by_size[size]
                # sort equally sized collections by total length so a batch pads to similar lengths
                members.sort(key=lambda i: -max(map(len, collections[i])))
                for start in range(0, len(members), self.batch_size):
                    index = np.asarray(members[start : start + self.batch_size])
                    vectors = self._embed_episodes([collections[i] for i in index], limit)
                    if out is None:
                        out = np.empty((len(collections), vectors.shape[1]), dtype=np.float32)
                    out[index] = vectors
        assert out is not None
        return out

    def _encode(self, texts: list[str], max_length: int) -> np.ndarray:
        return self.encode_collections([[t] for t in texts], max_length)

    def info(self) -> dict[str, Any]:
        return {**super().info(), "unit": "collection"}
