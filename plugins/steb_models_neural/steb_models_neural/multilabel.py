"""Multi-label sequence classifiers as encoders: one sigmoid probability per label (NeuroBiber).

NeuroBiber (Alkiek et al., 2025; hub id ``Blablablab/neurobiber``) is a RoBERTa-base
``RobertaForSequenceClassification`` with 96 outputs, one per Biber-style feature of BiberPlus
(``id2label``: BIN_QUAN, BIN_QUPR, ...), trained as a multi-label tagger ("is this feature present in
the text?"). Its authors' inference script and STEB's reference code
(github.com/rrivera1849/STEB, ``steb/models/neurobiber_model.py``) turn a text into 96 values the same
way, which this encoder follows:

1. the text is split on whitespace into chunks of ``chunk_words`` (512) words; a text without any
   word has no chunk and gets the zero vector;
2. each chunk is tokenised with truncation at ``max_length`` tokens (512, special tokens included);
3. the classifier's logits go through a sigmoid;
4. a text's vector is the element-wise **maximum** over its chunks ("a feature is present if it is
   present in any chunk").

The two references differ in one step, so it is an option: STEB's code keeps the maximum
*probabilities* (``binary=false``, the default, STEB's NeuroBiber rows), the authors' script
thresholds them at 0.5 into 0/1 presence flags (``binary=true``).

The run's long-text protocol does not apply: the model's own word chunking is part of its definition
(STEB's code ignores its truncation flag for NeuroBiber too); a protocol ``max_length`` below the
model's lowers the per-chunk token cap, as STEB's ``max_tokens`` does. Chunks are batched by length
(dynamic padding, masked), so a text's vector does not depend on the other texts of a call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import TokenizerEncoder, choose_max_length
from .batching import encode_sorted
from .errors import EncoderOptionError
from .identity import read_json, token_limit_from_files
from .loading import resolve_model
from .runtime import parse_bool, parse_int

__all__ = ["MultiLabelClassifierEncoder", "word_chunks", "FAMILY"]

FAMILY = "multi-label-classifier"
_THRESHOLD = 0.5


def word_chunks(text: str, chunk_words: int) -> list[str]:
    """``text`` split on whitespace into pieces of ``chunk_words`` words joined by single spaces (none if empty)."""
    words = text.split()
    return [" ".join(words[i : i + chunk_words]) for i in range(0, len(words), chunk_words)]


class MultiLabelClassifierEncoder(TokenizerEncoder):
    """Sigmoid outputs of a sequence-classification head, max-pooled over word chunks (module docstring)."""

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        revision: str | None = None,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int | str = 32,
        max_length: int | str | None = None,
        trust_remote_code: bool | str = False,
        chunk_words: int | str = 512,
        binary: bool | str = False,
        autocast: str | None = None,
        batch_tokens: int | str | None = None,
    ) -> None:
        trust = parse_bool(trust_remote_code, "trust_remote_code")
        self._setup(
            resolved=resolve_model(model, revision),
            family=FAMILY,
            name=name or f"{FAMILY}:{model}",
            batch_size=batch_size,
            device=device,
            dtype=dtype,
            trust=trust,
            autocast=autocast,
            batch_tokens=batch_tokens,
        )
        self.chunk_words = parse_int(chunk_words, "chunk_words")
        if self.chunk_words < 1:
            raise EncoderOptionError(f"chunk_words must be at least 1, not {self.chunk_words}")
        self.binary = parse_bool(binary, "binary")
        self.pooling = "sigmoid-max-over-word-chunks" + ("-binary" if self.binary else "")
        self.max_length = choose_max_length(max_length, token_limit_from_files(self.resolved.path), model)
        config = read_json(self.resolved.path / "config.json")
        labels = config.get("id2label") or {}
        self.num_labels = int(config.get("num_labels") or len(labels) or 0)
        if self.num_labels < 1:
            raise EncoderOptionError(f"'{self.resolved.model_id}' has no classification labels in its config.json")
        #: output column names: the checkpoint's labels in id order (NeuroBiber: BIN_QUAN, ...)
        self.feature_names = [str(labels.get(str(i), labels.get(i, f"LABEL_{i}"))) for i in range(self.num_labels)]

    def _load(self, torch_dtype: Any) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path = str(self.resolved.path)
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=self._trust)
        model = AutoModelForSequenceClassification.from_pretrained(
            path, local_files_only=True, trust_remote_code=self._trust, dtype=torch_dtype
        )
        if model.config.num_labels != self.num_labels:
            raise EncoderOptionError(
                f"'{self.resolved.model_id}' loads with {model.config.num_labels} labels, its config says "
                f"{self.num_labels}"
            )
        model.to(self._device).eval()
        self.model = model

    def _probabilities(self, chunks: list[str], max_length: int) -> np.ndarray:
        import torch

        encoded = self.tokenizer(chunks, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        inputs = {k: v.to(self._device) for k, v in encoded.items()}
        logits = self.model(**inputs).logits
        return torch.sigmoid(logits.to(torch.float32)).cpu().numpy()

    def _encode(self, texts: list[str], max_length: int) -> np.ndarray:
        out = np.zeros((len(texts), self.num_labels), dtype=np.float32)
        chunks: list[str] = []
        owner: list[int] = []
        for row, text in enumerate(texts):
            pieces = word_chunks(text, self.chunk_words)
            chunks.extend(pieces)
            owner.extend([row] * len(pieces))
        if not chunks:
            return out
        import torch

        self._ensure_loaded()
        tokens = self._token_counts(chunks, max_length)
        with torch.inference_mode(), self._autocast():
            probs = encode_sorted(
                chunks,
                self.batch_size,
                lambda batch: self._probabilities(batch, max_length),
                tokens=tokens,
                batch_tokens=self.batch_tokens,
            )
        out[:] = -np.inf
        np.maximum.at(out, np.asarray(owner), probs)
        out[~np.isfinite(out)] = 0.0  # texts without chunks
        if self.binary:
            out = (out > _THRESHOLD).astype(np.float32)
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 (n, labels): per text the maximum sigmoid output over its word chunks (0/1 with binary)."""
        return self._encode(list(texts), self.max_length)

    def encode_with_protocol(self, texts: Sequence[str], protocol: Any) -> np.ndarray:
        """The model's own word chunking whatever the protocol; its ``max_length`` may lower the token cap."""
        texts = list(texts)
        if not texts:
            raise ValueError("nothing to encode")
        return self._encode(texts, self.limit_for(getattr(protocol, "max_length", None)))

    def _vector_options(self) -> dict[str, Any]:
        return {**super()._vector_options(), "chunk_words": self.chunk_words, "binary": self.binary}

    def info(self) -> dict[str, Any]:
        return {**super().info(), "chunk_words": self.chunk_words, "binary": self.binary, "labels": self.num_labels}
