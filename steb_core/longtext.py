"""Long-text protocols: how texts longer than an encoder's limit are embedded.

``chunk-and-pool`` (default): split at sentence boundaries into chunks under the token limit (a single
sentence longer than the limit is cut at the limit), embed every chunk, mean-pool per text.
``truncate``: keep the first ``max_length`` tokens. The protocol name and limit are part of the
embedding cache key and of every result, because STEB showed rankings change between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .encoders import to_float32_matrix

__all__ = ["PROTOCOLS", "LongTextProtocol", "split_sentences", "plan_chunks", "pool_chunks", "encode_with_protocol"]

PROTOCOLS = ("chunk-and-pool", "truncate")

# A sentence ends at . ! ? … (optionally followed by closing quotes/brackets) before whitespace, or at a
# newline. Deliberately simple and language-agnostic: chunk boundaries need to be plausible, not perfect.
_BOUNDARY = re.compile(r"([.!?\u2026]+[\"'\u201d\u2019)\]]*)\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` in order; together they hold every non-space character of the text."""
    out: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(1) if match.group(1) else match.start()
        segment = text[start:end].strip()
        if segment:
            out.append(segment)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def _whitespace_count(texts: Sequence[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def _whitespace_truncate(texts: Sequence[str], max_tokens: int) -> list[str]:
    return [" ".join(t.split()[:max_tokens]) for t in texts]


@dataclass(frozen=True)
class LongTextProtocol:
    """A named protocol with its token limit (None: the encoder takes any length)."""

    name: str = "chunk-and-pool"
    max_length: int | None = None

    def __post_init__(self) -> None:
        if self.name not in PROTOCOLS:
            raise ValueError(f"unknown long-text protocol '{self.name}'; choose one of {', '.join(PROTOCOLS)}")

    def key(self) -> str:
        return f"{self.name}:{self.max_length}"

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "max_length": self.max_length}


def _tokenizer_functions(encoder: Any) -> tuple[Callable, Callable]:
    count = getattr(encoder, "count_tokens", None) or _whitespace_count
    trunc = getattr(encoder, "truncate", None) or _whitespace_truncate
    return count, trunc


def plan_chunks(texts: Sequence[str], max_tokens: int, encoder: Any = None) -> tuple[list[str], np.ndarray]:
    """Split each text into sentence-boundary chunks of at most ``max_tokens`` tokens.

    Returns the flat chunk list and ``owner[i]`` = index of the text chunk i belongs to. Token counts
    come from the encoder's ``count_tokens`` (batched over all sentences at once) or whitespace.
    """
    count, trunc = _tokenizer_functions(encoder)
    lengths = list(count(list(texts)))
    chunks: list[str] = []
    owner: list[int] = []
    long_idx = [i for i, n in enumerate(lengths) if n > max_tokens]
    long_set = set(long_idx)
    # short texts are one chunk each
    sentences_of: dict[int, list[str]] = {i: split_sentences(texts[i]) or [texts[i]] for i in long_idx}
    flat_sentences = [s for i in long_idx for s in sentences_of[i]]
    sentence_lengths = iter(count(flat_sentences)) if flat_sentences else iter(())
    for i, text in enumerate(texts):
        if i not in long_set:
            chunks.append(text)
            owner.append(i)
            continue
        current: list[str] = []
        current_len = 0
        for sentence in sentences_of[i]:
            n = next(sentence_lengths)
            if n > max_tokens:  # a sentence over the limit: flush, then cut it at the limit repeatedly
                if current:
                    chunks.append(" ".join(current)); owner.append(i); current, current_len = [], 0
                rest = sentence
                while rest:
                    piece = trunc([rest], max_tokens)[0].strip()
                    if not piece:
                        break
                    chunks.append(piece); owner.append(i)
                    pos = rest.find(piece)
                    rest = rest[pos + len(piece):].strip() if pos >= 0 else rest[len(piece):].strip()
                continue
            if current and current_len + n > max_tokens:
                chunks.append(" ".join(current)); owner.append(i); current, current_len = [], 0
            current.append(sentence)
            current_len += n
        if current:
            chunks.append(" ".join(current)); owner.append(i)
    return chunks, np.asarray(owner, dtype=np.int64)


def pool_chunks(vectors: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """Mean of the chunk vectors of each text (``owner[i]``: the text of chunk i, in text order, every text present).

    Shared by the core's chunk-and-pool and by encoders that implement the protocol themselves.
    """
    owner = np.asarray(owner)
    if len(owner) == 0 or owner[0] != 0 or np.any(np.diff(owner) < 0) or owner[-1] != n - 1:
        raise ValueError("chunks must be listed in text order and every text must have at least one chunk")
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    if len(starts) != n:
        raise ValueError(f"{len(starts)} texts have chunks, expected {n}")
    sums = np.add.reduceat(np.asarray(vectors, dtype=np.float64), starts, axis=0)
    counts = np.diff(np.r_[starts, len(owner)])
    return (sums / counts[:, None]).astype(np.float32)


def encode_with_protocol(encoder: Any, texts: Sequence[str], protocol: LongTextProtocol) -> np.ndarray:
    """Embed ``texts`` under ``protocol``; returns float32 (len(texts), d)."""
    texts = list(texts)
    if not texts:
        raise ValueError("nothing to encode")
    own = getattr(encoder, "encode_with_protocol", None)
    if callable(own):
        return to_float32_matrix(own(texts, protocol), len(texts))
    limit = protocol.max_length
    if limit is None:
        return to_float32_matrix(encoder.encode(texts), len(texts))
    if protocol.name == "truncate":
        count, trunc = _tokenizer_functions(encoder)
        lengths = count(texts)
        cut = [trunc([t], limit)[0] if n > limit else t for t, n in zip(texts, lengths)]
        return to_float32_matrix(encoder.encode(cut), len(texts))
    chunks, owner = plan_chunks(texts, limit, encoder)
    vectors = to_float32_matrix(encoder.encode(chunks), len(chunks))
    return pool_chunks(vectors, owner, len(texts))
