"""Pooling, padding, ordering and chunk-and-pool of the neural encoders, on tiny random models.

References are computed independently: each text alone through the raw transformers model (no padding
at all), so any error in masking, last-token selection or order restoration shows up as a mismatch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from steb_core import LongTextProtocol
from steb_models_neural.pooling import last_token_index, masked_mean
from steb_models_neural.transformer import TransformerEncoder

TEXTS = [
    "alpha beta",
    "the style of the author is short and the text is long , alpha beta gamma delta epsilon zeta",
    "omega",
    "theta iota kappa lambda mu nu xi",
    "pi rho sigma tau upsilon phi chi psi omega the a of and to in",
]


def _raw(folder):
    from transformers import AutoModel, AutoTokenizer

    return AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()


def _alone(folder, texts, pool):
    """Reference: every text on its own (batch of one, so no padding is involved)."""
    tokenizer, model = _raw(folder)
    rows = []
    with torch.inference_mode():
        for text in texts:
            enc = tokenizer(text, return_tensors="pt")
            hidden = model(**enc).last_hidden_state[0]
            rows.append((hidden.mean(dim=0) if pool == "mean" else hidden[-1]).numpy())
    return np.stack(rows)


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_masked_lm_mean_equals_manual_mean_of_unpadded_tokens(fixture, request):
    folder = request.getfixturevalue(fixture)
    encoder = TransformerEncoder(str(folder), pooling="mean", device="cpu", batch_size=8)
    got = encoder.encode(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 32)
    np.testing.assert_allclose(got, _alone(folder, TEXTS, "mean"), atol=1e-5)


def test_masked_mean_ignores_padding_positions():
    hidden = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]], [[5.0, 6.0], [7.0, 8.0], [9.0, 10.0]]])
    mask = torch.tensor([[1, 1, 0], [1, 1, 1]])
    np.testing.assert_allclose(masked_mean(hidden, mask).numpy(), [[2.0, 3.0], [7.0, 8.0]])


def test_last_token_index_under_left_and_right_padding():
    right = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]])
    left = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 0, 0, 1]])
    assert last_token_index(right).tolist() == [2, 4, 0]
    assert last_token_index(left).tolist() == [4, 4, 4]


@pytest.mark.parametrize("side", ["right", "left"])
def test_causal_lm_takes_last_real_token_whatever_the_padding_side(tiny_gpt2, side):
    encoder = TransformerEncoder(str(tiny_gpt2), pooling="last", device="cpu", batch_size=8, padding_side=side)
    assert encoder.tokenizer.padding_side == side
    got = encoder.encode(TEXTS)
    np.testing.assert_allclose(got, _alone(tiny_gpt2, TEXTS, "last"), atol=1e-5)


def test_order_restored_after_length_sorting(tiny_bert):
    encoder = TransformerEncoder(str(tiny_bert), pooling="mean", device="cpu", batch_size=2)
    texts = TEXTS + ["kappa", "zeta eta theta iota kappa lambda mu nu xi omicron pi"]
    batched = encoder.encode(texts)
    one_by_one = np.vstack([encoder.encode([t]) for t in texts])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    # rows are distinct, so a permutation would not pass the comparison above by accident
    assert len({tuple(np.round(r, 4)) for r in batched}) == len(texts)


SENTENCE = "alpha beta gamma delta epsilon ."  # 6 word-piece tokens with the tiny vocabulary


def test_chunk_and_pool_equals_mean_of_manual_chunks(tiny_bert):
    encoder = TransformerEncoder(str(tiny_bert), pooling="mean", device="cpu", batch_size=4, max_length=16)
    assert encoder.count_tokens([SENTENCE]) == [6]
    assert encoder.special_token_budget() == 2  # [CLS] and [SEP]: 14 text tokens per chunk, i.e. 2 sentences
    long_text = " ".join([SENTENCE] * 5)
    short_text = "omega psi"
    protocol = LongTextProtocol("chunk-and-pool", 16)
    got = encoder.encode_with_protocol([short_text, long_text], protocol)

    manual_chunks = [" ".join([SENTENCE] * 2), " ".join([SENTENCE] * 2), SENTENCE]
    chunk_vectors = np.vstack([encoder.encode([c]) for c in manual_chunks])
    np.testing.assert_allclose(got[1], chunk_vectors.mean(axis=0), atol=1e-5)
    np.testing.assert_allclose(got[0], encoder.encode([short_text])[0], atol=1e-5)
    # truncation keeps only the first 14 text tokens: a different vector
    truncated = encoder.encode_with_protocol([long_text], LongTextProtocol("truncate", 16))
    np.testing.assert_allclose(truncated[0], encoder.encode([" ".join([SENTENCE] * 2) + " alpha beta"])[0], atol=1e-5)
    assert not np.allclose(truncated[0], got[1], atol=1e-3)


def test_truncate_cuts_at_token_boundaries(tiny_gpt2):
    encoder = TransformerEncoder(str(tiny_gpt2), pooling="last", device="cpu")
    text = "alpha beta gamma delta"
    cut = encoder.truncate([text], 2)[0]
    assert text.startswith(cut) and encoder.count_tokens([cut]) == [2]
    assert encoder.count_tokens([text])[0] > 2


def test_info_records_revision_pooling_dtype_and_limit(tiny_bert):
    encoder = TransformerEncoder(str(tiny_bert), pooling="mean", device="cpu", max_length=32, name="tiny")
    info = encoder.info()
    assert info["revision"].startswith("content:") and info["device"] == "cpu"
    assert (info["family"], info["pooling"], info["dtype"], info["max_length"]) == ("masked-lm", "mean", "float32", 32)
    assert info["identity"]["options"]["max_length"] == 32 and info["identity"]["weights_hash"]
    assert (
        TransformerEncoder(str(tiny_bert), pooling="mean", device="cpu", max_length=16).fingerprint()
        != encoder.fingerprint()
    )
