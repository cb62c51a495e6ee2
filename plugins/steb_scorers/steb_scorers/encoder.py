"""A transformer encoder in plain torch, for the learned metrics whose checkpoints steb reads itself.

Why not transformers' model classes: BLEURT-20 and COMET are published as weights for encoders that
transformers implements, but their forward passes used to be assembled from transformers' modules
(BLEURT-20 even replaced one of ``BertModel``'s submodules), and each major transformers release changes the
call signatures between those modules (5.x passes ``cache_length`` to the embeddings). A forward pass
written here from the checkpoint layout depends only on torch's stable ``nn`` layers; transformers stays in
use for tokenizers only.

One module covers the layouts the supported checkpoints use, all from Devlin et al. 2019 ("BERT", Sec. 3)
and the variants below; parameter names mirror the checkpoints' own, so weights load by name:

- **BERT** (BLEURT's BERT checkpoints, COMET's BERT and MiniLM encoders): word + token-type + absolute
  position embeddings (positions 0, 1, ...), LayerNorm; post-LayerNorm layers (self-attention over the
  non-padding keys, residual, LayerNorm; FFN, residual, LayerNorm); optional pooler ``tanh(W h_[CLS] + b)``.
- **RoBERTa / XLM-R** (Liu et al. 2019): BERT's layers; positions count the non-padding tokens starting at
  ``pad_token_id + 1`` (padding positions get ``pad_token_id``).
- **Factorised embeddings** (RemBERT, Chung et al. 2021; BLEURT-20, Pu et al. 2021): embeddings of width
  ``embedding_size``, LayerNorm, then a linear projection to ``hidden_size`` before the first layer (the
  checkpoints call it ``encoder.embedding_hidden_mapping_in`` or ``encoder.embedding_projection``; callers
  rename it to ``projection``).
- **Pre-LayerNorm** (XLM-R XL, Goyal et al. 2021): no embedding LayerNorm; each layer normalises its input
  before attention (``attention.self_attn_layer_norm``) and before the FFN (``LayerNorm``), residuals without
  normalisation, and one final ``encoder.LayerNorm`` on the last layer's output.

:meth:`TransformerEncoder.forward` returns every hidden state (embedding output, then each layer's), as the
layer-mixing metrics need them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch  # noqa: TID253 - torch code, imported only when a BLEURT/COMET model is built
from torch import nn  # noqa: TID253

__all__ = ["EncoderConfig", "TransformerEncoder", "load_encoder_weights", "activation"]


def _gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return nn.functional.gelu(x, approximate="tanh")


def _quick_gelu(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(1.702 * x)


#: ``hidden_act`` names as the checkpoints' config.json spell them (transformers' names) -> the function
_ACTIVATIONS: Mapping[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "gelu": nn.functional.gelu,
    "gelu_python": nn.functional.gelu,
    "gelu_new": _gelu_tanh,
    "gelu_fast": _gelu_tanh,
    "gelu_pytorch_tanh": _gelu_tanh,
    "quick_gelu": _quick_gelu,
    "relu": torch.relu,
    "silu": nn.functional.silu,
    "swish": nn.functional.silu,
    "tanh": torch.tanh,
}


def activation(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
    """The activation a config's ``hidden_act`` names (KeyError for one not implemented here)."""
    return _ACTIVATIONS[name]


@dataclass(frozen=True)
class EncoderConfig:
    """The shape of an encoder, read from a checkpoint's ``config.json``."""

    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    hidden_act: str
    pad_token_id: int
    #: width of the factorised embeddings (None: embeddings are ``hidden_size`` wide, no projection)
    embedding_size: int | None = None
    #: RoBERTa / XLM-R positions (count non-padding tokens from ``pad_token_id + 1``) instead of 0, 1, ...
    roberta_positions: bool = False
    #: XLM-R XL's pre-LayerNorm layers and final LayerNorm
    pre_norm: bool = False
    #: BERT's pooler (tanh of a linear map of the first token's last hidden state)
    pooler: bool = False

    @classmethod
    def from_json(
        cls,
        cfg: Mapping[str, Any],
        path: Path | str,
        *,
        what: str,
        embedding_field: str | None = None,
        roberta_positions: bool = False,
        pre_norm: bool = False,
        pooler: bool = False,
        defaults: Mapping[str, Any] | None = None,
    ) -> EncoderConfig:
        """Validated from a ``config.json`` mapping; errors name ``what``, the file and the field.

        ``embedding_field`` names the factorised-embedding width (``embedding_size`` for BLEURT-20,
        ``input_embedding_size`` for RemBERT); ``null`` there means no factorisation. ``defaults`` fills fields
        a config may omit (the values transformers' config classes default to).
        """
        merged = {**(defaults or {}), **cfg}

        def bad(name: str, expected: str) -> ValueError:
            return ValueError(f"{what}: {path}, field '{name}': expected {expected} (got {merged.get(name)!r})")

        def positive(name: str) -> int:
            value = merged.get(name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise bad(name, "a positive integer")
            return value

        hidden, heads = positive("hidden_size"), positive("num_attention_heads")
        if hidden % heads:
            raise bad("num_attention_heads", f"a divisor of hidden_size {hidden}")
        act = merged.get("hidden_act", "gelu")
        if act not in _ACTIVATIONS:
            raise bad("hidden_act", f"one of {', '.join(sorted(_ACTIVATIONS))}")
        kind = merged.get("position_embedding_type", "absolute")
        if kind != "absolute":
            raise bad("position_embedding_type", "'absolute' (relative position embeddings are not implemented)")
        eps = merged.get("layer_norm_eps", 1e-12)
        if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not eps > 0:
            raise bad("layer_norm_eps", "a positive number")
        pad = merged.get("pad_token_id", 0)
        if not isinstance(pad, int) or isinstance(pad, bool) or pad < 0:
            raise bad("pad_token_id", "a non-negative integer")
        width = merged.get(embedding_field) if embedding_field else None
        if width is not None and (not isinstance(width, int) or isinstance(width, bool) or width <= 0):
            raise bad(embedding_field or "", "null or a positive integer")
        return cls(
            vocab_size=positive("vocab_size"),
            hidden_size=hidden,
            num_layers=positive("num_hidden_layers"),
            num_heads=heads,
            intermediate_size=positive("intermediate_size"),
            max_positions=positive("max_position_embeddings"),
            type_vocab_size=positive("type_vocab_size"),
            layer_norm_eps=float(eps),
            hidden_act=act,
            pad_token_id=pad,
            embedding_size=width,
            roberta_positions=roberta_positions,
            pre_norm=pre_norm,
            pooler=pooler,
        )


class _Embeddings(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        width = c.embedding_size or c.hidden_size
        self.word_embeddings = nn.Embedding(c.vocab_size, width)
        self.position_embeddings = nn.Embedding(c.max_positions, width)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, width)
        if not c.pre_norm:
            self.LayerNorm = nn.LayerNorm(width, eps=c.layer_norm_eps)
        self.config = c

    def positions(self, ids: torch.Tensor) -> torch.Tensor:
        c = self.config
        if c.roberta_positions:
            real = ids.ne(c.pad_token_id).long()
            return torch.cumsum(real, 1) * real + c.pad_token_id
        return torch.arange(ids.shape[1], device=ids.device).unsqueeze(0).expand_as(ids)

    def forward(self, ids: torch.Tensor, token_types: torch.Tensor) -> torch.Tensor:
        positions = self.positions(ids)
        if int(positions.max()) >= self.config.max_positions:
            raise ValueError(
                f"input of {ids.shape[1]} tokens is longer than the encoder's {self.config.max_positions} positions"
            )
        x = self.word_embeddings(ids) + self.token_type_embeddings(token_types) + self.position_embeddings(positions)
        out: torch.Tensor = self.LayerNorm(x) if hasattr(self, "LayerNorm") else x
        return out


class _SelfAttention(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.query, self.key, self.value = (nn.Linear(c.hidden_size, c.hidden_size) for _ in range(3))
        self.heads = c.num_heads

    def forward(self, x: torch.Tensor, key_bias: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        size = width // self.heads

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, length, self.heads, size).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(size) + key_bias
        return (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(batch, length, width)


class _Dense(nn.Module):
    """``dense`` (+ ``LayerNorm`` in post-norm layers): the projections after attention and after the FFN."""

    def __init__(self, inputs: int, c: EncoderConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(inputs, c.hidden_size)
        if not c.pre_norm:
            self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        y = self.dense(x) + residual
        out: torch.Tensor = self.LayerNorm(y) if hasattr(self, "LayerNorm") else y
        return out


class _Attention(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.self = _SelfAttention(c)
        self.output = _Dense(c.hidden_size, c)
        if c.pre_norm:
            self.self_attn_layer_norm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, x: torch.Tensor, key_bias: torch.Tensor) -> torch.Tensor:
        inner = self.self_attn_layer_norm(x) if hasattr(self, "self_attn_layer_norm") else x
        out: torch.Tensor = self.output(self.self(inner, key_bias), x)
        return out


class _Intermediate(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)
        self.act = _ACTIVATIONS[c.hidden_act]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.dense(x))


class _Layer(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.attention = _Attention(c)
        self.intermediate = _Intermediate(c)
        self.output = _Dense(c.intermediate_size, c)
        if c.pre_norm:
            self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, x: torch.Tensor, key_bias: torch.Tensor) -> torch.Tensor:
        a = self.attention(x, key_bias)
        inner = self.LayerNorm(a) if hasattr(self, "LayerNorm") else a
        out: torch.Tensor = self.output(self.intermediate(inner), a)
        return out


class _Stack(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.layer = nn.ModuleList(_Layer(c) for _ in range(c.num_layers))
        if c.pre_norm:
            self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)


class _Pooler(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)

    def forward(self, first: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.dense(first))


class TransformerEncoder(nn.Module):
    """Embeddings, (projection,) layers, (final LayerNorm,) (pooler): see the module docstring.

    Parameter names: ``embeddings.*``, ``projection.*`` (factorised embeddings only), ``encoder.layer.N.*``,
    ``encoder.LayerNorm.*`` (pre-norm only), ``pooler.dense.*`` (with ``pooler``); inside the layers the names
    of BERT (post-norm) or XLM-R XL (pre-norm) checkpoints.
    """

    def __init__(self, config: EncoderConfig) -> None:
        super().__init__()
        self.config = config
        self.embeddings = _Embeddings(config)
        if config.embedding_size is not None:
            self.projection = nn.Linear(config.embedding_size, config.hidden_size)
        self.encoder = _Stack(config)
        if config.pooler:
            self.pooler = _Pooler(config)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor | None = None
    ) -> list[torch.Tensor]:
        """Every hidden state, ``num_layers + 1`` tensors of shape (batch, length, hidden_size).

        The first is the embedding output (after the projection, if any); with pre-norm layers the last is
        the final LayerNorm's output. Padding positions (``attention_mask`` 0) are never attended to.
        """
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        x = self.embeddings(input_ids, token_type_ids)
        if hasattr(self, "projection"):
            x = self.projection(x)
        # an additive bias on the attention scores: 0 for real keys, the dtype's most negative value for padding
        key_bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        states = [x]
        for layer in self.encoder.layer:
            x = layer(x, key_bias)
            states.append(x)
        if hasattr(self.encoder, "LayerNorm"):
            states[-1] = self.encoder.LayerNorm(states[-1])
        return states

    def pooled(self, last: torch.Tensor) -> torch.Tensor:
        """BERT's pooled output of the last hidden state (its first token)."""
        out: torch.Tensor = self.pooler(last[:, 0])
        return out


#: buffers some checkpoints persist that the forward pass recomputes
_IGNORED_SUFFIXES = ("embeddings.position_ids", "embeddings.token_type_ids")


def load_encoder_weights(
    encoder: TransformerEncoder,
    weights: Mapping[str, Any],
    *,
    prefix: str,
    renames: Mapping[str, str],
    what: str,
    source: str,
) -> None:
    """Load ``weights[prefix + name]`` into ``encoder`` by name; ``renames`` maps checkpoint sub-prefixes to ours.

    Every parameter of the encoder must be present with the shape the config implies; a checkpoint parameter
    inside ``embeddings.`` or ``encoder.`` that the encoder lacks (e.g. a layer beyond ``num_hidden_layers``)
    is an error too, as it means config and weights disagree. Other extra entries (heads, buffers) are
    ignored. Errors name ``what``, ``source`` and the weight as the checkpoint spells it.
    """
    own = encoder.state_dict()
    back = {ours: theirs for theirs, ours in renames.items()}

    def theirs(name: str) -> str:
        for ours_prefix, their_prefix in back.items():
            if name.startswith(ours_prefix):
                return prefix + their_prefix + name[len(ours_prefix) :]
        return prefix + name

    found: dict[str, Any] = {}
    for key, value in weights.items():
        if not key.startswith(prefix) or key.endswith(_IGNORED_SUFFIXES):
            continue
        name = key[len(prefix) :]
        for their_prefix, ours_prefix in renames.items():
            if name.startswith(their_prefix):
                name = ours_prefix + name[len(their_prefix) :]
                break
        if name in own:
            if tuple(value.shape) != tuple(own[name].shape):
                raise ValueError(
                    f"{what}: {source}: weight '{key}' has shape {tuple(value.shape)}, the config implies "
                    f"{tuple(own[name].shape)}"
                )
            found[name] = value
        elif name.startswith(("embeddings.", "encoder.", "projection.")):
            raise ValueError(
                f"{what}: {source} has weight '{key}' that the config does not account for "
                f"(more layers than num_hidden_layers, or a different architecture?)"
            )
    missing = [k for k in own if k not in found]
    if missing:
        raise ValueError(
            f"{what}: {source} lacks weight '{theirs(missing[0])}' ({len(missing)} missing); "
            f"do the weights match the config?"
        )
    encoder.load_state_dict(found)
