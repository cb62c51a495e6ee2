"""NeuroBiber's named configuration, on a tiny random RoBERTa multi-label classifier saved like a hub download.

The reference is computed independently from the raw transformers model: every text split into word
chunks by hand, each chunk run alone (no padding), sigmoid, maximum over the chunks.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from steb_core import LongTextProtocol
from steb_models_neural.catalogue import NAMED_MODELS, encoder_specs

SPECS = {spec.name: spec for spec in encoder_specs()}
LABELS = [f"BIN_{i:02d}" for i in range(96)]
TEXTS = [
    "alpha beta gamma delta epsilon zeta eta theta iota kappa",  # 10 words: 4 chunks of <= 3 words
    "the author writes short text",
    "",  # no word, no chunk: the zero vector
    "omega",
    "   style \n\t text   author  ",  # irregular whitespace: chunked on words
]


@pytest.fixture(scope="module")
def tiny_neurobiber(tmp_path_factory, tiny_kit):
    from transformers import RobertaConfig, RobertaForSequenceClassification

    torch.manual_seed(7)
    tokenizer = tiny_kit.wordpiece(64)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=66,
        pad_token_id=tokenizer.pad_token_id,
        num_labels=96,
        id2label=dict(enumerate(LABELS)),
        label2id={lab: i for i, lab in enumerate(LABELS)},
        problem_type="multi_label_classification",
    )
    model = RobertaForSequenceClassification(config).eval()
    with torch.no_grad():  # spread the logits so that some probabilities cross 0.5 and some do not
        model.classifier.out_proj.bias.copy_(torch.linspace(-3, 3, 96))
        model.classifier.dense.weight.mul_(20)  # and make them depend on the text
        model.classifier.out_proj.weight.mul_(40)
    return tiny_kit.save(tmp_path_factory.mktemp("tiny-neurobiber"), tokenizer, model)


def _reference(folder, texts, chunk_words):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    rows = []
    with torch.inference_mode():
        for text in texts:
            words = text.split()
            chunks = [words[i : i + chunk_words] for i in range(0, len(words), chunk_words)]
            probs = [
                torch.sigmoid(model(**tokenizer(" ".join(c), return_tensors="pt")).logits[0]).numpy() for c in chunks
            ]
            rows.append(np.max(probs, axis=0) if probs else np.zeros(96, dtype=np.float32))
    return np.stack(rows)


def test_the_configuration_names_the_hub_id():
    named = next(m for m in NAMED_MODELS if m.name == "neurobiber")
    assert (
        named.hub_id == "Blablablab/neurobiber" and named.family == "multi-label-classifier" and not named.remote_code
    )
    assert named.paper_name is None  # a pre-defined-feature baseline, not one of the paper's 33 neural models
    spec = SPECS["neurobiber"]
    assert spec.family == "multi-label-classifier" and "Blablablab/neurobiber" in spec.description
    assert {"binary", "chunk_words"} <= set(spec.options_help) and "multi-label-classifier" in SPECS


def test_builds_offline_from_a_folder_without_loading(tiny_neurobiber):
    enc = SPECS["neurobiber"].factory(model=str(tiny_neurobiber), device="cpu")
    assert enc.name == "neurobiber" and not enc.loaded
    assert enc.max_length == 64 and enc.num_labels == 96 and enc.feature_names == LABELS
    assert len(enc.fingerprint()) == 64 and not enc.loaded


def test_max_of_sigmoids_over_word_chunks_equals_the_reference(tiny_neurobiber):
    enc = SPECS["neurobiber"].factory(model=str(tiny_neurobiber), device="cpu", chunk_words=3, batch_size=2)
    got = enc.encode(TEXTS)
    expected = _reference(tiny_neurobiber, TEXTS, 3)
    assert got.shape == (5, 96) and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert not got[2].any() and (got[0] > 0).all()
    # the maximum over chunks is not the mean: the first text's chunks disagree
    one_chunk = _reference(tiny_neurobiber, [" ".join(TEXTS[0].split()[:3])], 3)[0]
    assert (got[0] >= one_chunk - 1e-6).all() and (got[0] > one_chunk + 1e-3).any()


def test_binary_flags_threshold_the_probabilities(tiny_neurobiber):
    probs = SPECS["neurobiber"].factory(model=str(tiny_neurobiber), device="cpu").encode(TEXTS)
    flags = SPECS["neurobiber"].factory(model=str(tiny_neurobiber), device="cpu", binary="true")
    got = flags.encode(TEXTS)
    np.testing.assert_array_equal(got, (probs > 0.5).astype(np.float32))
    assert 0 < got.sum() < got.size
    plain = SPECS["neurobiber"].factory(model=str(tiny_neurobiber), device="cpu")
    assert flags.fingerprint() != plain.fingerprint()


def test_protocol_keeps_the_models_own_chunking(tiny_neurobiber):
    enc = SPECS["neurobiber"].factory(model=str(tiny_neurobiber), device="cpu", chunk_words=3)
    for name in ("chunk-and-pool", "truncate"):
        np.testing.assert_allclose(
            enc.encode_with_protocol(TEXTS, LongTextProtocol(name=name)), enc.encode(TEXTS), atol=1e-6
        )


def test_batch_independence(tiny_neurobiber):
    enc = SPECS["neurobiber"].factory(model=str(tiny_neurobiber), device="cpu", batch_size=3)
    np.testing.assert_allclose(enc.encode(TEXTS[1:2]), enc.encode(TEXTS)[1:2], atol=1e-6)
