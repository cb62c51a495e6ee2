"""The named configurations (STEB's 33 neural models and a few more), built offline from tiny random models.

For every (family, architecture) of the catalogue a tiny random model of that transformers class is
saved in the layout of a hub download (sentence-transformers models with the pooling their model card
prescribes). Every named configuration is then built through its registered factory with model=FOLDER;
one per (family, architecture) also encodes, against an independent reference computed from the raw
transformers model (each text alone, pooled by hand).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from steb_core import StebError
from steb_models_neural.catalogue import LISA_NOTE, NAMED_MODELS, encoder_specs, reference_route
from steb_models_neural.errors import EncoderOptionError, ModelNotAvailableError

SPECS = {spec.name: spec for spec in encoder_specs()}
# configurations that embed with hidden states (NeuroBiber's classifier is tested in test_neural_neurobiber.py)
LOCAL = [m for m in NAMED_MODELS if not m.remote_code and m.family != "multi-label-classifier"]
COMBOS = sorted({(m.family, m.architecture) for m in LOCAL})
TEXTS = ["alpha beta gamma", "the author writes short text , and long text", "omega"]
_OFFSET = {"roberta", "xlm-roberta"}  # position tables start after padding_idx


def _config(arch: str, tokenizer, positions: int):
    from transformers import AutoConfig

    small = dict(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
    ids = dict(pad_token_id=tokenizer.pad_token_id)
    if arch in ("bert", "roberta", "xlm-roberta", "mpnet", "deberta-v2", "modernbert"):
        extra = {"max_position_embeddings": positions + (2 if arch in _OFFSET else 0), **ids}
        if arch == "modernbert":
            extra.update(
                cls_token_id=tokenizer.cls_token_id,
                sep_token_id=tokenizer.sep_token_id,
                bos_token_id=tokenizer.cls_token_id,
                eos_token_id=tokenizer.sep_token_id,
                global_attn_every_n_layers=1,
                local_attention=16,
            )
        if arch == "deberta-v2":
            extra.update(relative_attention=True, position_buckets=16, pos_att_type=["p2c", "c2p"])
        return AutoConfig.for_model(arch, vocab_size=len(tokenizer), **small, **extra)
    eos = tokenizer.eos_token_id
    if arch == "gpt2":
        return AutoConfig.for_model(
            "gpt2",
            vocab_size=len(tokenizer),
            n_embd=16,
            n_layer=1,
            n_head=2,
            n_positions=positions,
            bos_token_id=eos,
            eos_token_id=eos,
        )
    if arch == "opt":
        return AutoConfig.for_model(
            "opt",
            vocab_size=len(tokenizer),
            hidden_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            ffn_dim=32,
            max_position_embeddings=positions,
            word_embed_proj_dim=16,
            pad_token_id=eos,
            bos_token_id=eos,
            eos_token_id=eos,
        )
    text = dict(
        vocab_size=len(tokenizer),
        **small,
        num_key_value_heads=1,
        head_dim=8,
        max_position_embeddings=positions,
        bos_token_id=eos,
        eos_token_id=eos,
    )
    if arch in ("qwen2", "qwen3"):
        return AutoConfig.for_model(arch, **text)
    if arch == "qwen3_5":
        text.update(
            num_hidden_layers=2,
            layer_types=["linear_attention", "full_attention"],
            linear_key_head_dim=8,
            linear_value_head_dim=8,
            linear_num_key_heads=2,
            linear_num_value_heads=2,
        )
        vision = dict(depth=1, hidden_size=16, intermediate_size=32, num_heads=2, out_hidden_size=16)
        return AutoConfig.for_model("qwen3_5", text_config=text, vision_config=vision)
    raise AssertionError(f"no tiny builder for architecture {arch!r}")


@pytest.fixture(scope="module")
def tiny_folders(tmp_path_factory, tiny_kit):
    """(family, architecture) -> folder holding a tiny random model of that class."""
    from transformers import AutoModel

    folders = {}
    for family, arch in COMBOS:
        members = [m for m in LOCAL if (m.family, m.architecture) == (family, arch)]
        positions = max(m.max_length or 512 for m in members)
        causal = family == "causal-lm" or arch.startswith("qwen")
        tokenizer = tiny_kit.bytelevel(positions) if causal else tiny_kit.wordpiece(positions)
        if causal and family == "sentence-transformers":
            tokenizer.pad_token = tokenizer.eos_token
        torch.manual_seed(len(folders))
        model = AutoModel.from_config(_config(arch, tokenizer, positions)).eval()
        folder = tiny_kit.save(tmp_path_factory.mktemp(f"{family}-{arch}"), tokenizer, model)
        if family == "sentence-transformers":
            folder = _as_sentence_transformer(
                folder, members[0].pooling, tmp_path_factory.mktemp(f"st-{arch}"), positions
            )
        folders[family, arch] = folder
    return folders


def _as_sentence_transformer(folder, pooling, target, limit):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    word = Transformer(str(folder), max_seq_length=limit)
    SentenceTransformer(modules=[word, Pooling(word.get_embedding_dimension(), pooling)], device="cpu").save(
        str(target)
    )
    return target


def test_the_papers_neural_models_are_all_named():
    paper = {m.paper_name for m in NAMED_MODELS if m.paper_name}
    assert len(paper) == 32 and "lisa" in SPECS  # + LISA, which has no public checkpoint: 33
    assert {
        "styledistance_synthetic_only",
        "multilingual-style-representation",
        "star",
        "gte-base-en-v1.5",
        "gte-large-en-v1.5",
        "e5-base-v2",
        "bge-base-en-v1.5",
        "jina-embeddings-v3",
        "Qwen3-Embedding-8B",
        "bert-large-cased",
        "bert-large-uncased",
        "gpt2-xl",
        "Qwen2-0.5B",
        "Qwen3-0.6B-Base",
        "Qwen3.5-0.8B-Base",
        "Qwen3.5-2B-Base",
        "Qwen3.5-4B-Base",
    } <= paper
    for m in NAMED_MODELS:
        assert m.architecture and m.pooling and m.max_length and "/" in m.hub_id
        route = reference_route(m)  # issue 45: a paper model's default is the reference's class
        assert SPECS[m.name].family == (f"steb-reference-{route}" if route else m.family)
        assert m.hub_id in SPECS[m.name].description


def test_every_local_configuration_builds_from_a_tiny_model_without_loading(tiny_folders):
    for m in LOCAL:
        folder = str(tiny_folders[m.family, m.architecture])
        encoder = SPECS[m.name].factory(model=folder, device="cpu", pipeline="model-card")
        assert encoder.name == (f"{m.name}.model-card" if reference_route(m) else m.name) and not encoder.loaded
        # a configuration's own cap, else the checkpoint's limit (the tiny one: the largest of its architecture)
        combo_limit = max(n.max_length for n in LOCAL if (n.family, n.architecture) == (m.family, m.architecture))
        assert encoder.max_length == m.defaults.get("max_length", combo_limit)
        assert encoder.prompt == m.defaults.get("prompt", "")
        assert getattr(encoder, "task", None) == m.defaults.get("task")
        assert encoder.family == m.family and len(encoder.fingerprint()) == 64


def _reference(folder, family, pooling, texts, prompt=""):
    """Each text alone through the raw transformers model, pooled by hand."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    rows = []
    with torch.inference_mode():
        for text in texts:
            hidden = model(**tokenizer(prompt + text, return_tensors="pt")).last_hidden_state[0]
            rows.append(
                {"mean": hidden.mean(0), "cls": hidden[0], "last": hidden[-1], "lasttoken": hidden[-1]}[pooling].numpy()
            )
    return np.stack(rows)


@pytest.mark.parametrize("combo", COMBOS, ids=[f"{f}-{a}" for f, a in COMBOS])
def test_each_architecture_encodes_through_its_named_factory(combo, tiny_folders):
    family, arch = combo
    named = next(m for m in LOCAL if (m.family, m.architecture) == combo)
    folder = tiny_folders[combo]
    encoder = SPECS[named.name].factory(model=str(folder), device="cpu", batch_size=2, pipeline="model-card")
    got = encoder.encode(TEXTS)
    assert got.shape == (3, 16) and np.isfinite(got).all()
    reference_folder = folder  # a sentence-transformers folder keeps the transformer files at its root
    expected = _reference(reference_folder, family, named.pooling, TEXTS, named.defaults.get("prompt", ""))
    np.testing.assert_allclose(got, expected, atol=2e-4)


@pytest.mark.parametrize("named", [m for m in NAMED_MODELS if m.remote_code], ids=lambda m: m.name)
def test_remote_code_models_are_refused_without_the_users_opt_in(named, tmp_path):
    (tmp_path / "config.json").write_text(
        json.dumps({"auto_map": {"AutoModel": "modeling.Model"}, "model_type": named.architecture})
    )
    with pytest.raises(EncoderOptionError, match="trust_remote_code=true"):
        SPECS[named.name].factory(model=str(tmp_path), device="cpu")
    with pytest.raises(EncoderOptionError, match="trust_remote_code=true"):  # refused before looking for weights
        SPECS[named.name].factory(device="cpu")


def test_lisa_explains_that_it_needs_a_local_checkpoint(tiny_folders):
    with pytest.raises(ModelNotAvailableError, match="no public Hugging Face id"):
        SPECS["lisa"].factory(device="cpu")
    assert "EncT5" in LISA_NOTE
    folder = tiny_folders["sentence-transformers", "roberta"]
    assert SPECS["lisa"].factory(model=str(folder), device="cpu").name == "lisa"
    assert issubclass(ModelNotAvailableError, StebError)


@pytest.mark.parametrize("side", ["right", "left"])
def test_causal_lm_can_mean_pool_like_the_papers_reference_code(tiny_gpt2, side):
    card = {"device": "cpu", "pipeline": "model-card"}
    last = SPECS["gpt2-xl"].factory(model=str(tiny_gpt2), **card)
    mean = SPECS["gpt2-xl"].factory(model=str(tiny_gpt2), pooling="mean", padding_side=side, batch_size=3, **card)
    assert (last.pooling, mean.pooling) == ("last", "mean") and last.fingerprint() != mean.fingerprint()
    np.testing.assert_allclose(mean.encode(TEXTS), _reference(tiny_gpt2, "causal-lm", "mean", TEXTS), atol=1e-5)


def test_labse_runs_its_checkpoints_own_modules(tiny_folders, tmp_path):
    """LaBSE's layout (CLS pooling, Dense with tanh, Normalize) on a tiny random BERT: the named factory gives what
    sentence-transformers itself encodes, unit-length vectors (so Pauli et al.'s cosine is their dot product)."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense, Normalize, Pooling, Transformer

    assert (SPECS["labse"].family, next(m for m in NAMED_MODELS if m.name == "labse").hub_id) == (
        "sentence-transformers",
        "sentence-transformers/LaBSE",
    )
    word = Transformer(str(tiny_folders["sentence-transformers", "bert"]), max_seq_length=64)
    torch.manual_seed(7)
    modules = [
        word,
        Pooling(word.get_embedding_dimension(), "cls"),
        Dense(16, 16, activation_function=torch.nn.Tanh()),
        Normalize(),
    ]
    SentenceTransformer(modules=modules, device="cpu").save(str(tmp_path / "labse"))
    got = SPECS["labse"].factory(model=str(tmp_path / "labse"), device="cpu").encode(TEXTS)
    expected = SentenceTransformer(str(tmp_path / "labse"), device="cpu").encode(TEXTS)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
