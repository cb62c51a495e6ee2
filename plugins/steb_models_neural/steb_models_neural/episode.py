"""Multi-text (episode) encoders such as LUAR: a collection of texts by one author -> one vector.

LUAR's hub models take ``input_ids``/``attention_mask`` shaped (collections, texts per collection,
tokens) and return one vector per collection. Collections of equal size are batched together (the
tensor must be rectangular); the retrieval task calls :meth:`EpisodeEncoder.encode_collections`, and a
single text is embedded as a collection of one.

Long texts follow the run's long-text protocol like everywhere else in steb, instead of being cut at
512 tokens: under chunk-and-pool (the default) every text of a collection is split into sentence-boundary
chunks under the limit, and the collection's texts are replaced by all their chunks; the model's own
aggregation over the texts of an episode then pools them. Under truncate each text keeps its first
``max_length`` tokens.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from steb_core import plan_chunks

from .base import TokenizerEncoder, choose_max_length
from .identity import token_limit_from_files
from .loading import resolve_model
from .runtime import parse_bool
from .transformer import load_auto, model_token_limit

__all__ = ["EpisodeEncoder"]

_LUAR_LIMIT = 512  # LUAR's tokenizer files carry no usable limit; its RoBERTa backbone takes 512 tokens


def _protocol_parts(protocol: Any) -> tuple[str, int | None]:
    """(name, max_length) of a LongTextProtocol, a protocol name, or None (chunk-and-pool, model limit)."""
    if protocol is None:
        return "chunk-and-pool", None
    if isinstance(protocol, str):
        return protocol, None
    return getattr(protocol, "name", "chunk-and-pool"), getattr(protocol, "max_length", None)


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
        autocast: str | None = None,
    ) -> None:
        """``autocast`` as for every neural encoder (``base._setup``); no ``batch_tokens``: a batch here
        is a number of equally sized collections, so ``batch_size`` alone sets it."""
        trust = parse_bool(trust_remote_code, "trust_remote_code")
        self._setup(
            resolved=resolve_model(model, revision),
            family="episode",
            name=name or f"episode:{model}",
            batch_size=batch_size,
            device=device,
            dtype=dtype,
            trust=trust,
            autocast=autocast,
        )
        self.max_length = choose_max_length(
            max_length, token_limit_from_files(self.resolved.path) or _LUAR_LIMIT, model
        )

    def _load(self, torch_dtype: Any) -> None:
        load_auto(self, self._trust, torch_dtype)
        self._check_loaded_limit(model_token_limit(self.tokenizer, self.__dict__["_model"].config))

    def _embed_episodes(self, collections: list[Sequence[str]], max_length: int) -> np.ndarray:
        """One forward pass over equally sized collections."""
        size = len(collections[0])
        flat = [t for c in collections for t in c]
        encoded = self.tokenizer(flat, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        shape = (len(collections), size, -1)
        ids = encoded["input_ids"].reshape(shape).to(self._device)
        mask = encoded["attention_mask"].reshape(shape).to(self._device)
        out = self.model(input_ids=ids, attention_mask=mask)
        if not hasattr(out, "detach"):  # a tuple or a ModelOutput: the first field is the embedding
            pooled = getattr(out, "pooler_output", None)
            out = pooled if pooled is not None else out[0]
        return np.asarray(out.float().cpu().numpy())

    def collections_under_protocol(
        self, collections: Sequence[Sequence[str]], protocol: Any = None
    ) -> tuple[list[list[str]], int]:
        """The collections the model sees under ``protocol``, and the token limit per text.

        chunk-and-pool: each text becomes its sentence-boundary chunks (one tokenizer pass over all texts
        of the call); truncate: texts unchanged (the tokenizer cuts them at the limit).
        """
        name, protocol_limit = _protocol_parts(protocol)
        limit = self.limit_for(protocol_limit)
        if name == "truncate":
            return [list(c) for c in collections], limit
        if name != "chunk-and-pool":
            raise ValueError(f"unknown long-text protocol '{name}'")
        flat = [t for c in collections for t in c]
        chunks, owner = plan_chunks(flat, self.chunk_budget(limit), self)
        per_text: list[list[str]] = [[] for _ in flat]
        for chunk, i in zip(chunks, owner.tolist()):
            per_text[i].append(chunk)
        out, k = [], 0
        for c in collections:
            out.append([piece for j in range(k, k + len(c)) for piece in per_text[j]])
            k += len(c)
        return out, limit

    def encode_collections(self, collections: Sequence[Sequence[str]], protocol: Any = None) -> np.ndarray:
        """One float32 vector per collection, in input order, each text embedded under ``protocol``.

        ``protocol`` is the run's long-text protocol (a ``LongTextProtocol`` or its name); None means
        chunk-and-pool at the model's limit, steb's default.
        """
        if not collections:
            raise ValueError("nothing to encode")
        for i, c in enumerate(collections):
            if len(c) == 0:
                raise ValueError(f"collection {i} holds no text")
        self._ensure_loaded()
        expanded, limit = self.collections_under_protocol(collections, protocol)
        return self._encode_episodes(expanded, limit)

    def encode_with_protocol(self, texts: Sequence[str], protocol: Any) -> np.ndarray:
        """A single text is a collection of one: its chunks form the episode the model pools."""
        texts = list(texts)
        if not texts:
            raise ValueError("nothing to encode")
        return self.encode_collections([[t] for t in texts], protocol)

    def _encode_episodes(self, collections: Sequence[Sequence[str]], limit: int) -> np.ndarray:
        """Collections batched by size (rectangular tensors), longest first, rows in input order."""
        import torch

        self._ensure_loaded()
        by_size: dict[int, list[int]] = defaultdict(list)
        for i, c in enumerate(collections):
            if len(c) == 0:
                raise ValueError(f"collection {i} holds no text")
            by_size[len(c)].append(i)
        out: np.ndarray | None = None
        with torch.inference_mode(), self._autocast():
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
        return self._encode_episodes([[t] for t in texts], max_length)

    def info(self) -> dict[str, Any]:
        return {**super().info(), "unit": "collection"}
