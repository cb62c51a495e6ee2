"""Plain transformers models as encoders: masked LMs (mask-weighted mean) and causal LMs (last token).

STEB embeds masked LMs (RoBERTa, DeBERTa-v3, BERT, ModernBERT) as the attention-mask-weighted mean of
the last layer, and causal LMs (GPT-2, OPT, Qwen) as the last layer's state at the last non-padding
token. Causal models also get position ids counted over real tokens, so a left-padded text is embedded
exactly as it would be alone.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from .base import TokenizerEncoder, choose_max_length
from .batching import encode_sorted
from .errors import EncoderOptionError
from .identity import token_limit_from_files
from .loading import resolve_model
from .runtime import parse_bool

__all__ = ["TransformerEncoder", "model_token_limit", "load_auto", "choose_max_length", "POOLINGS"]

POOLINGS = ("mean", "last")
_UNBOUNDED = 1_000_000  # tokenizers without a limit report ~1e30
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert")  # position ids start at padding_idx + 1


def model_token_limit(tokenizer: Any, config: Any) -> int | None:
    """The smaller of the tokenizer's ``model_max_length`` and the model's position table, when known."""
    candidates = []
    tok_limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(tok_limit, int) and 0 < tok_limit < _UNBOUNDED:
        candidates.append(tok_limit)
    sources = [config]
    if hasattr(config, "get_text_config"):
        sources.append(config.get_text_config())
    for source in sources:
        value = next(
            (
                getattr(source, a)
                for a in ("max_position_embeddings", "n_positions")
                if isinstance(getattr(source, a, None), int) and getattr(source, a) > 0
            ),
            None,
        )
        if value is not None:
            if getattr(source, "model_type", "") in _OFFSET_POSITIONS:  # table starts after padding_idx
                value -= (getattr(source, "pad_token_id", None) or 0) + 1
            candidates.append(value)
            break
    return min(candidates) if candidates else None


def load_auto(encoder: TokenizerEncoder, trust: bool, torch_dtype: Any) -> None:
    """Load ``AutoTokenizer`` and ``AutoModel`` from the resolved folder (never the network) onto the device."""
    from transformers import AutoModel, AutoTokenizer

    path = str(encoder.resolved.path)
    encoder.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=trust)
    model = AutoModel.from_pretrained(path, local_files_only=True, trust_remote_code=trust, dtype=torch_dtype)
    model.to(encoder._device).eval()
    encoder.model = model


class TransformerEncoder(TokenizerEncoder):
    """A transformers ``AutoModel`` pooled by ``pooling`` ("mean" for masked LMs, "last" for causal LMs)."""

    def __init__(
        self,
        model: str,
        *,
        pooling: str = "mean",
        family: str | None = None,
        name: str | None = None,
        revision: str | None = None,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int | str = 32,
        max_length: int | str | None = None,
        trust_remote_code: bool | str = False,
        padding_side: str | None = None,
        autocast: str | None = None,
        batch_tokens: int | str | None = None,
    ) -> None:
        if pooling not in POOLINGS:
            raise EncoderOptionError(f"unknown pooling '{pooling}'; choose one of {', '.join(POOLINGS)}")
        if padding_side not in (None, "left", "right"):
            raise EncoderOptionError(f"padding_side must be left or right, not {padding_side!r}")
        self.pooling = pooling
        self.padding_side = padding_side
        family = family or ("causal-lm" if pooling == "last" else "masked-lm")
        trust = parse_bool(trust_remote_code, "trust_remote_code")
        self._setup(
            resolved=resolve_model(model, revision),
            family=family,
            name=name or f"{family}:{model}",
            batch_size=batch_size,
            device=device,
            dtype=dtype,
            trust=trust,
            autocast=autocast,
            batch_tokens=batch_tokens,
        )
        self.max_length = choose_max_length(max_length, token_limit_from_files(self.resolved.path), model)

    def _load(self, torch_dtype: Any) -> None:
        load_auto(self, self._trust, torch_dtype)
        tokenizer = self.tokenizer
        if self.padding_side:
            tokenizer.padding_side = self.padding_side
        if tokenizer.pad_token is None:
            # causal LMs often have no pad token; padded positions are masked, so any id will do
            fallback = tokenizer.eos_token or tokenizer.unk_token
            if fallback is None:
                raise EncoderOptionError(
                    f"tokenizer of '{self.resolved.model_id}' has no pad, eos or unk token to pad batches with"
                )
            tokenizer.pad_token = fallback
        model = self.__dict__["_model"]
        self._check_loaded_limit(model_token_limit(tokenizer, model.config))
        accepted = set(inspect.signature(model.forward).parameters)
        self._inputs = [k for k in ("input_ids", "attention_mask", "token_type_ids") if k in accepted]
        # causal LMs get positions counted over real tokens (left padding); masked LMs keep their own
        self._pass_positions = self.family == "causal-lm" and "position_ids" in accepted

    def _embed_batch(self, texts: list[str], max_length: int) -> np.ndarray:
        from .pooling import last_token, masked_mean, position_ids_from_mask

        encoded = self.tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        inputs: dict[str, Any] = {k: encoded[k].to(self._device) for k in self._inputs if k in encoded}
        mask = encoded["attention_mask"].to(self._device)
        if self._pass_positions:
            inputs["position_ids"] = position_ids_from_mask(mask)
        hidden = self.model(**inputs).last_hidden_state
        pooled = last_token(hidden, mask) if self.pooling == "last" else masked_mean(hidden, mask)
        return pooled.cpu().numpy()

    def _encode(self, texts: list[str], max_length: int) -> np.ndarray:
        import torch

        self._ensure_loaded()
        tokens = self._token_counts(texts, max_length)
        with torch.inference_mode(), self._autocast():
            return encode_sorted(
                texts,
                self.batch_size,
                lambda batch: self._embed_batch(batch, max_length),
                tokens=tokens,
                batch_tokens=self.batch_tokens,
            )
