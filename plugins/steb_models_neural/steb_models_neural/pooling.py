"""Token-state pooling for the families of STEB: masked LMs average, causal LMs take the last token.

Both work on whole padded batches with tensor operations (no per-text loops) and are independent of
which side the tokenizer pads on.
"""

from __future__ import annotations

import torch  # noqa: TID253 - torch code, imported only by the transformer encoder once it runs

from steb_core import pool_chunks

__all__ = ["masked_mean", "last_token", "last_token_index", "position_ids_from_mask", "mean_by_owner", "POOLINGS"]

POOLINGS = ("mean", "last")


def masked_mean(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Mean of the token states the attention mask keeps: (batch, seq, dim) x (batch, seq) -> (batch, dim).

    Summed in float32 so half-precision models do not lose the average to rounding.
    """
    mask = attention_mask.to(dtype=torch.float32).unsqueeze(-1)
    total = (hidden.to(torch.float32) * mask).sum(dim=1)
    return total / mask.sum(dim=1).clamp(min=1.0)


def last_token_index(attention_mask: torch.Tensor) -> torch.Tensor:
    """Position of the last kept token of each row, whether padding sits on the left or the right.

    ``argmax`` over the flipped mask finds the first 1 from the right; a row without any kept token
    (never produced by a tokenizer) falls back to the last position.
    """
    seq_len = attention_mask.shape[1]
    flipped = attention_mask.flip(dims=[1]).to(torch.int64)
    return seq_len - 1 - flipped.argmax(dim=1)


def last_token(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """State of each row's last non-padding token: (batch, seq, dim) -> (batch, dim)."""
    index = last_token_index(attention_mask).to(hidden.device)
    rows = torch.arange(hidden.shape[0], device=hidden.device)
    return hidden[rows, index].to(torch.float32)


def position_ids_from_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """Positions counted over kept tokens only, so a left-padded text gets the positions it has unpadded."""
    positions = attention_mask.to(torch.int64).cumsum(dim=1) - 1
    return positions.clamp(min=0)


# chunk pooling is shared with the core's chunk-and-pool
mean_by_owner = pool_chunks
