"""The STEB reference code's LUAR class as a steb encoder: collections of texts embedded as ``LUARModel`` does.

``get_model`` (``steb/core.py`` @18c49153) gives ``rrivera1849/LUAR-MUD`` and ``rrivera1849/LUAR-CRUD`` (its
``supported_models``) to ``LUARModel``. Its rules, read on the newest stored version of ``steb/models/luar_model.py``
(index file 62238580614: the version with ``truncate``/``max_tokens``; ``resolve_token_limit`` in
``steb/models/base.py`` index file 61974107315; ``chunk_text`` in ``steb/models/chunking.py`` @40a6b8ee):

* **token limit**: the tokenizer's ``model_max_length`` itself (``resolve_token_limit(tokenizer.model_max_length,
  max_tokens)``: not ``get_model_max_length``), lowered by ``max_tokens`` (steb: the protocol's ``max_length``).
  A tokenizer without one would leave the reference unbounded; steb takes the model's position table then, else
  512 (the older stored versions' fixed limit).
* **chunks** (``embed_multiple``): unless ``truncate``, every text of an episode is replaced by its ``chunk_text``
  chunks (spaCy sentences packed greedily, as for the HF class), so an episode holds all its texts' chunks in order
  and episodes may differ in size; ``truncate``: texts kept one to one, cut by the tokenizer.
* **batches**: episodes grouped by their size (``np.unique`` of the sizes: smallest first), within a size in the
  order given, consecutive batches of ``batch_size`` episodes (32, evaluate()'s default), the batch's texts
  flattened, tokenised with ``truncation`` at the limit and ``padding="longest"``, reshaped to (episodes, size,
  tokens) and passed as ``input_ids``/``attention_mask``; single texts are episodes of one (evaluate()'s
  ``extract_features`` always calls ``embed_multiple``).
* **vector**: the model's output as it is (LUAR's own aggregation over the episode), **not** normalised; float32.

steb groups the episodes of one call: retrieval's collections come in one call (those not cached yet), single texts
in the runner's calls (1,024 texts in dataset order), so a batch can hold other episodes than the reference's over a
whole dataset; each episode's vector is the same up to the float rounding that padding brings.

steb's generic ``episode`` family (regex sentence chunks cut to fit, collections of equal size longest first, 8 per
batch) stays as the named variant ``pipeline=episode``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .base import choose_max_length
from .episode import EpisodeEncoder, _protocol_parts
from .errors import EncoderOptionError
from .identity import read_json, token_limit_from_files
from .loading import ResolvedModel, resolve_model
from .reference import DEFAULT_SPACY_MODEL, REFERENCE_BATCH_SIZE, ReferenceChunking
from .runtime import parse_bool

__all__ = ["ReferenceEpisodeEncoder", "luar_limit_from_files", "LUAR_FALLBACK_LIMIT"]

#: the limit of the older stored versions of luar_model.py (@1981dd07: ``max_length = 512``), steb's fallback
LUAR_FALLBACK_LIMIT = 512
_UNBOUNDED = 100_000  # transformers reports ~1e30 for a tokenizer without a limit


def luar_limit_from_files(folder: Path) -> int:
    """The reference LUAR class's token limit read from a model folder: ``tokenizer_config.json``'s
    ``model_max_length``; without a usable one the position table (``token_limit_from_files``), else 512."""
    value = read_json(folder / "tokenizer_config.json").get("model_max_length")
    if isinstance(value, (int, float)) and 0 < value <= _UNBOUNDED:
        return int(value)
    return token_limit_from_files(folder) or LUAR_FALLBACK_LIMIT


class ReferenceEpisodeEncoder(ReferenceChunking, EpisodeEncoder):
    """The reference's ``LUARModel`` on a model folder; ``batch_size`` counts episodes (collections)."""

    #: the runner hands this encoder single texts in dataset order (executors.py), as evaluate() does
    keeps_text_order = True

    def __init__(
        self,
        model: str | None = None,
        *,
        name: str | None = None,
        revision: str | None = None,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int | str = REFERENCE_BATCH_SIZE,
        max_length: int | str | None = None,
        trust_remote_code: bool | str = False,
        spacy_model: str = DEFAULT_SPACY_MODEL,
        resolved: ResolvedModel | None = None,
        autocast: str | None = None,
    ) -> None:
        if resolved is None:
            if model is None:
                raise EncoderOptionError("the reference LUAR encoder needs model=HUB_ID or model=/path/to/folder")
            resolved = resolve_model(model, revision)
        self._setup(
            resolved=resolved,
            family="steb-reference-luar",
            name=name or f"steb-reference-luar:{resolved.model_id}",
            batch_size=batch_size,
            device=device,
            dtype=dtype,
            trust=parse_bool(trust_remote_code, "trust_remote_code"),
            autocast=autocast,
        )
        self.spacy_model = spacy_model or DEFAULT_SPACY_MODEL
        self._nlp = None
        self.max_length = choose_max_length(max_length, luar_limit_from_files(resolved.path), resolved.model_id)

    def collections_under_protocol(
        self, collections: Sequence[Sequence[str]], protocol: Any = None
    ) -> tuple[list[list[str]], int]:
        """``embed_multiple``'s episodes: each text replaced by its ``chunk_text`` chunks (one pass over every text
        of the call), or, under truncate, the texts unchanged; and the token limit."""
        name, protocol_limit = _protocol_parts(protocol)
        limit = self.limit_for(protocol_limit)
        if name == "truncate":
            return [list(c) for c in collections], limit
        if name != "chunk-and-pool":
            raise ValueError(f"unknown long-text protocol '{name}'")
        flat = [t for c in collections for t in c]
        chunks, per_text = self._reference_chunks(flat, limit)
        pieces: list[list[str]] = []
        k = 0
        for n in per_text:
            pieces.append(chunks[k : k + n])
            k += n
        out, j = [], 0
        for c in collections:
            out.append([piece for i in range(j, j + len(c)) for piece in pieces[i]])
            j += len(c)
        return out, limit

    def _encode_episodes(self, collections: Sequence[Sequence[str]], limit: int) -> np.ndarray:
        """Episodes grouped by size, smallest size first, each group in the order given, cut every ``batch_size``."""
        import torch

        self._ensure_loaded()
        by_size: dict[int, list[int]] = defaultdict(list)
        for i, c in enumerate(collections):
            if len(c) == 0:
                raise ValueError(f"collection {i} holds no text")
            by_size[len(c)].append(i)
        out: np.ndarray | None = None
        with torch.inference_mode(), self._autocast():
            for size in sorted(by_size):
                members = by_size[size]
                for start in range(0, len(members), self.batch_size):
                    index = np.asarray(members[start : start + self.batch_size])
                    vectors = self._embed_episodes([collections[i] for i in index], limit)
                    if out is None:
                        out = np.empty((len(collections), vectors.shape[1]), dtype=np.float32)
                    out[index] = vectors
        assert out is not None
        return out

    def _vector_options(self) -> dict[str, Any]:
        return {**super()._vector_options(), "route": "luar", "spacy_model": self.spacy_model, "order": "given"}

    def info(self) -> dict[str, Any]:
        return {**super().info(), "route": "luar", "spacy_model": self.spacy_model, "batch_order": "by-size,given"}
