"""Long-text protocols: how texts longer than an encoder's limit are embedded.

``chunk-and-pool`` (default): split at sentence boundaries into chunks under the token limit (a single
sentence longer than the limit is cut at the limit), embed every chunk, mean-pool per text.
``truncate``: keep the first ``max_length`` tokens. The protocol name and limit are part of the
embedding cache key and of every result, because STEB showed rankings change between them.

Chunk planning is linear in the text length: texts and sentences are counted in one batched call each,
and a sentence over the limit is cut from bounded windows (never by re-tokenising the whole remainder).
Encoders may offer ``token_offsets(texts) -> list[list[(start, end)]]`` (character spans of the tokens,
no special tokens; None if unavailable): a cut then costs one tokenizer call on a window.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._encoders import to_float32_matrix
from ._encoding_progress import counted_as

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


def _tokenizer_functions(encoder: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    count = getattr(encoder, "count_tokens", None) or _whitespace_count
    trunc = getattr(encoder, "truncate", None) or _whitespace_truncate
    return count, trunc


# A window handed to the tokenizer must hold this many tokens beyond the limit, so that where the window
# ends cannot change the first ``max_tokens`` tokens (tokenisation is local: a word's tokens depend on
# that word only, and windows end at whitespace where they can).
_WINDOW_MARGIN = 16
_SPACE = re.compile(r"\s")


def plan_chunks(texts: Sequence[str], max_tokens: int, encoder: Any = None) -> tuple[list[str], np.ndarray]:
    """Split each text into sentence-boundary chunks of at most ``max_tokens`` tokens.

    Returns the flat chunk list and ``owner[i]`` = index of the text chunk i belongs to. Token counts
    come from the encoder's ``count_tokens`` (batched over all sentences at once) or whitespace. A
    sentence longer than the limit is cut at the limit repeatedly; each cut tokenises only a window of
    about ``max_tokens`` tokens (with the encoder's ``token_offsets`` when it has them, else its
    ``count_tokens``/``truncate``), so planning is linear in the text length.
    """
    count, trunc = _tokenizer_functions(encoder)
    offsets = getattr(encoder, "token_offsets", None) if encoder is not None else None
    whitespace = count is _whitespace_count and trunc is _whitespace_truncate
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
                    chunks.append(" ".join(current))
                    owner.append(i)
                    current, current_len = [], 0
                if whitespace:
                    pieces = _cut_words(sentence, max_tokens)
                else:
                    pieces = _cut_sentence(sentence, n, max_tokens, count, trunc, offsets)
                chunks.extend(pieces)
                owner.extend([i] * len(pieces))
                continue
            if current and current_len + n > max_tokens:
                chunks.append(" ".join(current))
                owner.append(i)
                current, current_len = [], 0
            current.append(sentence)
            current_len += n
        if current:
            chunks.append(" ".join(current))
            owner.append(i)
    return chunks, np.asarray(owner, dtype=np.int64)


def _cut_words(sentence: str, max_tokens: int) -> list[str]:
    """Whitespace tokens: consecutive runs of ``max_tokens`` words (one split of the sentence)."""
    words = sentence.split()
    return [" ".join(words[k : k + max_tokens]) for k in range(0, len(words), max_tokens)]


def _window_end(sentence: str, start: int, target: int) -> int:
    """``target``, moved forward to the start of the next whitespace run (within 256 characters) if any."""
    size = len(sentence)
    if target >= size:
        return size
    found = _SPACE.search(sentence, target, min(size, target + 256))
    if found is None:
        return target
    end = found.start()
    while end > start + 1 and sentence[end - 1].isspace():
        end -= 1
    return end


def _cut_sentence(
    sentence: str,
    n_tokens: int,
    max_tokens: int,
    count: Callable[..., Any],
    trunc: Callable[..., Any],
    offsets: Callable[..., Any] | None,
) -> list[str]:
    """Cut an over-long sentence into pieces of ``max_tokens`` tokens, each piece from a bounded window.

    Same pieces as truncating the whole remainder at every step, which re-tokenised the remainder each
    time (quadratic: a 1 MB unpunctuated line took minutes). Here each step tokenises a window of the
    remainder that holds at least ``max_tokens + _WINDOW_MARGIN`` tokens (or the whole remainder), sized
    from the sentence's characters per token and doubled when too short.
    """
    pieces: list[str] = []
    size = len(sentence)
    per_token = size / max(n_tokens, 1)
    width = max(64, int(per_token * (max_tokens + _WINDOW_MARGIN) * 1.25) + 1)
    start = 0
    while start < size:
        grow = width
        while True:
            end = _window_end(sentence, start, start + grow)
            window = sentence[start:end]
            spans = None
            if offsets is not None:
                got = offsets([window])
                if got is None:  # the encoder has no offsets after all (a slow tokenizer)
                    offsets = None
                else:
                    spans = list(got[0])
            if end >= size:
                break
            held = len(spans) if spans is not None else count([window])[0]
            if held >= max_tokens + _WINDOW_MARGIN:
                break
            grow *= 2
        if spans is not None:
            piece = window[: spans[min(max_tokens, len(spans)) - 1][1]] if spans else ""
        else:
            piece = trunc([window], max_tokens)[0]
        piece = piece.strip()
        if not piece:
            break
        pieces.append(piece)
        pos = sentence.find(piece, start, end)
        if pos < 0:  # a tokenizer that rewrites text (decoding): look further, as a full-remainder cut would
            pos = sentence.find(piece, start)
        start = (pos if pos >= 0 else start) + len(piece)
        while start < size and sentence[start].isspace():
            start += 1
    return pieces


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
    return np.asarray(sums / counts[:, None], dtype=np.float32)


def encode_with_protocol(encoder: Any, texts: Sequence[str], protocol: LongTextProtocol) -> np.ndarray:
    """Embed ``texts`` under ``protocol``; returns float32 (len(texts), d)."""
    texts = list(texts)
    if not texts:
        raise ValueError("nothing to encode")
    own = getattr(encoder, "encode_with_protocol", None)
    if callable(own):
        return np.asarray(to_float32_matrix(own(texts, protocol), len(texts)))
    limit = protocol.max_length
    if limit is None:
        return np.asarray(to_float32_matrix(encoder.encode(texts), len(texts)))
    if protocol.name == "truncate":
        count, trunc = _tokenizer_functions(encoder)
        lengths = count(texts)
        cut = [trunc([t], limit)[0] if n > limit else t for t, n in zip(texts, lengths)]
        return np.asarray(to_float32_matrix(encoder.encode(cut), len(texts)))
    chunks, owner = plan_chunks(texts, limit, encoder)
    with counted_as(len(texts) / len(chunks)):  # the progress bar counts texts, the encoder reports chunks
        vectors = to_float32_matrix(encoder.encode(chunks), len(chunks))
    return pool_chunks(vectors, owner, len(texts))
