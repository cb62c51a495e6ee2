"""Offline model resolution, remote-code refusal, registration, options, and episode (LUAR-style) batching."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from steb_models_neural.catalogue import NAMED_MODELS, encoder_specs
from steb_models_neural.errors import EncoderOptionError, ModelNotAvailableError
from steb_models_neural.loading import check_remote_code, resolve_model
from steb_models_neural.runtime import resolve_device, resolve_dtype


def test_missing_hub_model_says_how_to_obtain_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(ModelNotAvailableError) as err:
        resolve_model("some-owner/not-downloaded", revision="abc123")
    message = str(err.value)
    assert "hf download some-owner/not-downloaded --revision abc123" in message
    assert "steb models get some-owner/not-downloaded --revision abc123" in message and "HF_HOME" in message


def test_missing_folder_is_reported_as_a_folder(tmp_path):
    with pytest.raises(ModelNotAvailableError, match="does not exist"):
        resolve_model(str(tmp_path / "nowhere" / "model"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotAvailableError, match="neither config.json nor modules.json"):
        resolve_model(str(tmp_path / "empty"))


def test_named_encoder_without_weights_fails_with_instructions(tmp_path, monkeypatch):
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    spec = next(s for s in encoder_specs() if s.name == "styledistance")
    with pytest.raises(ModelNotAvailableError, match="hf download StyleDistance/styledistance"):
        spec.factory(device="cpu")


def test_local_folder_identity_changes_with_its_files(tiny_bert, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tiny_bert, copy)
    first = resolve_model(str(copy))
    assert first.revision.startswith("content:") and first.source == "local"
    assert resolve_model(str(copy)).revision == first.revision
    config = json.loads((copy / "config.json").read_text())
    config["hidden_dropout_prob"] = 0.5
    (copy / "config.json").write_text(json.dumps(config))
    assert resolve_model(str(copy)).revision != first.revision


def test_remote_code_runs_only_when_asked(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"auto_map": {"AutoModel": "modeling_x.X"}}))
    resolved = resolve_model(str(tmp_path))
    with pytest.raises(EncoderOptionError, match="trust_remote_code=true"):
        check_remote_code(resolved, False)
    check_remote_code(resolved, True)  # allowed when the user says so


def test_options_are_validated():
    assert resolve_device("cpu").type == "cpu"
    assert resolve_dtype("bf16") == torch.bfloat16
    with pytest.raises(EncoderOptionError, match="unknown device"):
        resolve_device("tpu")
    with pytest.raises(EncoderOptionError, match="unknown dtype"):
        resolve_dtype("int4")


def test_registration_lists_families_and_named_models_without_loading_anything():
    names = {s.name: s for s in encoder_specs()}
    for family in ("sentence-transformers", "masked-lm", "causal-lm", "episode", "all-MiniLM-L6-v2"):
        assert family in names
    assert {m.name for m in NAMED_MODELS} <= set(names)
    assert names["luar-mud"].family == "steb-reference-luar" and names["gpt2"].family == "causal-lm"
    assert all("device" in s.options_help for s in names.values())


def test_plugin_is_found_through_its_entry_point():
    from steb_core import new_manager

    manager = new_manager(env=False)
    assert not [f for f in manager.failures if "neural" in f.name], manager.failures
    assert manager.encoders().provider("all-MiniLM-L6-v2") == "neural"


def test_max_length_over_the_model_limit_is_refused(tiny_bert):
    from steb_models_neural.transformer import TransformerEncoder

    with pytest.raises(EncoderOptionError, match="exceeds the model's limit of 64"):
        TransformerEncoder(str(tiny_bert), device="cpu", max_length=65)


class _MaxOverTexts(torch.nn.Module):
    """Stands in for LUAR: (collections, texts, tokens) -> (collections, dim), not a mean of single texts."""

    def __init__(self, vocab: int) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.emb = torch.nn.Embedding(vocab, 8)
        self.shapes: list[tuple[int, ...]] = []

    def forward(self, input_ids, attention_mask):
        self.shapes.append(tuple(input_ids.shape))
        mask = attention_mask.unsqueeze(-1).float()
        per_text = (self.emb(input_ids) * mask).sum(2) / mask.sum(2)
        return per_text.max(dim=1).values


def _episode_encoder(folder, batch_size, max_length=64):
    from transformers import AutoTokenizer

    from steb_models_neural.episode import EpisodeEncoder

    encoder = object.__new__(EpisodeEncoder)  # LUAR needs hub code; its batching is what we test
    encoder.tokenizer = AutoTokenizer.from_pretrained(folder)
    encoder.model = _MaxOverTexts(len(encoder.tokenizer))
    encoder._device = torch.device("cpu")
    encoder.batch_size, encoder.max_length = batch_size, max_length
    return encoder


def test_episode_encoder_batches_equal_sizes_and_keeps_order(tiny_bert):
    encoder = _episode_encoder(tiny_bert, batch_size=2)
    collections = [
        ["alpha beta", "gamma"],
        ["delta epsilon zeta", "eta", "theta iota"],
        ["kappa lambda mu nu", "xi"],
        ["omicron"],
        ["pi rho", "sigma", "tau upsilon phi"],
        ["chi psi omega", "the author"],
    ]
    got = encoder.encode_collections(collections)
    alone = np.vstack([_episode_encoder(tiny_bert, 1).encode_collections([c]) for c in collections])
    np.testing.assert_allclose(got, alone, atol=1e-6)
    # every forward pass held collections of one size only, at most batch_size of them
    assert all(shape[0] <= 2 for shape in encoder.model.shapes)
    assert sorted(shape[1] for shape in encoder.model.shapes) == [1, 2, 2, 3]
    # a single text is a collection of one
    np.testing.assert_allclose(encoder.encode(["omicron"]), got[3:4], atol=1e-6)


class _RunsCommand:
    """Unpickles to ``os.system(command)``."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        import os

        return os.system, (self.command,)


def test_weights_that_would_run_code_are_refused_naming_the_file(tiny_bert, tmp_path):
    """Issue 41: a pickled pytorch_model.bin that imports os.system is refused by torch's weights-only reader (nothing
    runs); the error used to be torch's page naming no file and suggesting weights_only=False."""
    import shlex
    import shutil

    import torch

    from steb_core import DataValidationError
    from steb_models_neural.transformer import TransformerEncoder

    folder = tmp_path / "evil-bert"
    shutil.copytree(tiny_bert, folder)
    state = TransformerEncoder(str(tiny_bert), pooling="mean", device="cpu").model.state_dict()
    (folder / "model.safetensors").unlink()
    torch.save(
        {**state, "extra": _RunsCommand(f"touch {shlex.quote(str(tmp_path / 'ran'))}")}, folder / "pytorch_model.bin"
    )
    encoder = TransformerEncoder(str(folder), pooling="mean", device="cpu", name="evil")
    with pytest.raises(DataValidationError) as err:
        encoder.encode(["a text"])
    message = str(err.value)
    assert str(folder / "pytorch_model.bin") in message and "posix.system" in message and "encoder 'evil'" in message
    assert "weights_only" not in message and not (tmp_path / "ran").exists()
