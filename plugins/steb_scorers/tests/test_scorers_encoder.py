"""steb's plain-torch transformer encoder against numpy written from the layer equations.

The BERT post-LayerNorm path, RoBERTa positions and the factorised embedding are checked through BLEURT-20
and COMET in test_scorers_comet_bleurt.py; here the pre-LayerNorm (XLM-R XL) path with padding in the batch,
and the weight loader's errors. (All layouts are also cross-checked against the reference packages by
plugins/steb_scorers/reference/run_crosscheck.sh.)
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from steb_scorers.encoder import EncoderConfig, TransformerEncoder, load_encoder_weights  # noqa: E402

CFG = dict(
    vocab_size=30,
    hidden_size=8,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=12,
    max_position_embeddings=20,
    type_vocab_size=1,
    layer_norm_eps=1e-5,
    hidden_act="gelu",
    pad_token_id=1,
)


def _ln(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * w + b


def _gelu(x):
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def _pre_norm_by_hand(sd, ids):
    """XLM-R XL on one unpadded sequence: x + Attn(LN(x)), then a + FFN(LN(a)); final LN; RoBERTa positions."""
    g = {k: v.double().numpy() for k, v in sd.items()}
    pos = CFG["pad_token_id"] + 1 + np.arange(len(ids))
    x = (
        g["embeddings.word_embeddings.weight"][ids]
        + g["embeddings.position_embeddings.weight"][pos]
        + g["embeddings.token_type_embeddings.weight"][0]
    )
    states = [x]
    heads, width = CFG["num_attention_heads"], CFG["hidden_size"]
    d = width // heads
    for i in range(CFG["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda name, v, p=p: v @ g[p + name + ".weight"].T + g[p + name + ".bias"]  # noqa: E731
        h = _ln(x, g[p + "attention.self_attn_layer_norm.weight"], g[p + "attention.self_attn_layer_norm.bias"])
        q, k, v = (
            lin(f"attention.self.{m}", h).reshape(len(ids), heads, d).transpose(1, 0, 2)
            for m in ("query", "key", "value")
        )
        s = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        x = lin("attention.output.dense", (a @ v).transpose(1, 0, 2).reshape(len(ids), width)) + x
        x = (
            lin(
                "output.dense",
                _gelu(lin("intermediate.dense", _ln(x, g[p + "LayerNorm.weight"], g[p + "LayerNorm.bias"]))),
            )
            + x
        )
        states.append(x)
    states[-1] = _ln(states[-1], g["encoder.LayerNorm.weight"], g["encoder.LayerNorm.bias"])
    return states


def _random_weights(net, seed=0):
    g = torch.Generator().manual_seed(seed)
    return {
        k: (1 + 0.1 * torch.randn(v.shape, generator=g))
        if "LayerNorm.weight" in k or "layer_norm.weight" in k
        else 0.4 * torch.randn(v.shape, generator=g)
        for k, v in net.state_dict().items()
    }


def test_pre_norm_encoder_matches_the_layer_equations_with_padding():
    config = EncoderConfig.from_json(CFG, "config.json", what="test", roberta_positions=True, pre_norm=True)
    net = TransformerEncoder(config)
    sd = _random_weights(net)
    load_encoder_weights(net, {"m." + k: v for k, v in sd.items()}, prefix="m.", renames={}, what="test", source="ckpt")
    rows = [[0, 5, 6, 7, 8, 2], [0, 9, 2]]
    ids = torch.tensor([r + [1] * (6 - len(r)) for r in rows])
    mask = (ids != 1).long()
    with torch.no_grad():
        states = net(ids, mask)
    assert len(states) == CFG["num_hidden_layers"] + 1
    for b, row in enumerate(rows):
        expected = _pre_norm_by_hand(sd, np.array(row))
        for got, want in zip(states, expected):
            np.testing.assert_allclose(got[b, : len(row)].double().numpy(), want, atol=1e-5)


def test_weight_loader_names_missing_extra_and_misshapen_weights():
    config = EncoderConfig.from_json(CFG, "config.json", what="test", roberta_positions=True)
    net = TransformerEncoder(config)
    sd = {"enc." + k: v for k, v in _random_weights(net).items()}
    extra = dict(sd, **{"enc.encoder.layer.2.output.dense.bias": torch.zeros(8)})
    with pytest.raises(
        ValueError,
        match=r"ckpt has weight 'enc\.encoder\.layer\.2\.output\.dense\.bias' that the config does not account for",
    ):
        load_encoder_weights(net, extra, prefix="enc.", renames={}, what="test", source="ckpt")
    short = {k: v for k, v in sd.items() if "layer.1.attention.self.key.weight" not in k}
    with pytest.raises(
        ValueError, match=r"ckpt lacks weight 'enc\.encoder\.layer\.1\.attention\.self\.key\.weight' \(1 missing\)"
    ):
        load_encoder_weights(net, short, prefix="enc.", renames={}, what="test", source="ckpt")
    bad = dict(sd, **{"enc.embeddings.word_embeddings.weight": torch.zeros(31, 8)})
    with pytest.raises(
        ValueError,
        match=r"'enc\.embeddings\.word_embeddings\.weight' has shape \(31, 8\), the config implies \(30, 8\)",
    ):
        load_encoder_weights(net, bad, prefix="enc.", renames={}, what="test", source="ckpt")
    with pytest.raises(ValueError, match=r"config\.json, field 'hidden_act': expected one of"):
        EncoderConfig.from_json({**CFG, "hidden_act": "mystery"}, "config.json", what="test")
    with pytest.raises(ValueError, match=r"field 'position_embedding_type'"):
        EncoderConfig.from_json({**CFG, "position_embedding_type": "relative_key"}, "config.json", what="test")
