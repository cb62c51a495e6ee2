"""steb fits the ecosystem's habits: MTEB-style getters, DataFrames as datasets, models from
sentence-transformers and MTEB run unchanged, results as a DataFrame (issue 19)."""

from __future__ import annotations

import inspect

import pytest

import steb
from steb_core import DataValidationError, StebError

ROWS = [
    ("hello there my dear friend", "informal"),
    ("good day to you sir", "formal"),
    ("yo whats up dude", "informal"),
    ("I remain your obedient servant", "formal"),
] * 6


def test_evaluate_shows_its_real_signature_and_docstring():
    params = inspect.signature(steb.evaluate).parameters
    assert {"encoder", "datasets", "suite", "output", "protocol", "threads", "max_memory"} <= set(params)
    assert "content hash" in steb.evaluate.__doc__


def test_get_datasets_filters_like_mteb_get_tasks():
    demo = steb.get_datasets(suite="demo")
    assert {s.name for s in demo} >= {"demo_formality", "demo_registers"}
    assert all("order_alignment" in s.tasks for s in steb.get_datasets(suite="demo", task="order_alignment"))
    assert {s.name for s in steb.get_datasets(language="nl")} and all(
        "nl" in s.languages for s in steb.get_datasets(language="nl")
    )
    with pytest.raises(StebError, match="known suites"):
        steb.get_datasets(suite="nope")
    assert any(e.name == "function-words" for e in steb.get_encoders())
    assert steb.ResultRecord and steb.load_results


@pytest.mark.parametrize("kind", ["pandas", "polars", "hf", "list"])
def test_dataset_from_memory(tmp_path, kind):
    records = [{"sentence": t, "reg": r} for t, r in ROWS]
    if kind == "pandas":
        import pandas as pd

        data = pd.DataFrame(records)
    elif kind == "polars":
        import polars as pl

        data = pl.DataFrame(records)
    elif kind == "hf":
        import datasets

        data = datasets.Dataset.from_list(records)
    else:
        data = records
    spec = steb.dataset_from(data, shape="labelled_texts", text="sentence", label="reg", name="mine")
    summary = steb.evaluate(
        "function-words", datasets=[spec], output=tmp_path / "o", cache_dir=tmp_path / "c", progress=False
    )
    frame = summary.to_frame()
    assert list(frame["task"]) == ["clustering", "pair_all"] and frame["main_score"].notna().all()
    again = steb.evaluate(
        "function-words",
        datasets=[steb.dataset_from(data, shape="labelled_texts", text="sentence", label="reg", name="mine")],
        output=tmp_path / "o",
        cache_dir=tmp_path / "c",
        progress=False,
    )
    assert len(again.reused) == 2  # same content, same version


def test_dataset_from_validates_like_files(tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"sentence": ["fine text", None, "more"], "reg": ["a", "b", "a"]})
    spec = steb.dataset_from(frame, shape="labelled_texts", text="sentence", label="reg", name="broken")
    with pytest.raises(DataValidationError) as info:
        steb.evaluate(
            "function-words", datasets=[spec], output=tmp_path, progress=False, fail_fast=True, cache_dir=tmp_path / "c"
        )
    assert info.value.record == "row 2" and info.value.field == "sentence"
    edited = steb.dataset_from(
        frame.fillna("now filled"), shape="labelled_texts", text="sentence", label="reg", name="broken"
    )
    assert edited.version != spec.version


@pytest.fixture(scope="module")
def tiny_st_model(tmp_path_factory):
    transformers = pytest.importorskip("transformers")
    st = pytest.importorskip("sentence_transformers")
    root = tmp_path_factory.mktemp("tiny-st")
    words = sorted({w for t, _ in ROWS for w in t.split()} | {"style", "probe"})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, *"abcdefghijklmnopqrstuvwxyz"]
    (root / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(root / "vocab.txt"), do_lower_case=True)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    import torch

    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(root / "hf")
    tokenizer.save_pretrained(root / "hf")
    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Pooling, Transformer
    word = Transformer(str(root / "hf"), max_seq_length=32)
    model = st.SentenceTransformer(modules=[word, Pooling(word.get_word_embedding_dimension(), "mean")], device="cpu")
    model.save(str(root / "st"))
    return root / "st"


def test_sentence_transformer_object_and_mteb_model_run_unchanged(tiny_st_model, tmp_path):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(tiny_st_model), device="cpu")
    spec = steb.dataset_from(
        [{"t": t, "l": r} for t, r in ROWS], shape="labelled_texts", text="t", label="l", name="mem"
    )
    kw = dict(datasets=[spec], cache_dir=tmp_path / "c", progress=False)
    plain = steb.evaluate(model, output=tmp_path / "st", **kw)
    assert plain.results and plain.identity.get("weights_hash") and plain.identity.get("tokenizer_hash")
    truncated = steb.evaluate(
        SentenceTransformer(str(tiny_st_model), device="cpu", truncate_dim=8), output=tmp_path / "st", **kw
    )
    assert truncated.results and not truncated.reused  # another behaviour, another identity
    mteb = pytest.importorskip("mteb")
    wrapped = mteb.models.SentenceTransformerEncoderWrapper(model)
    via_mteb = steb.evaluate(wrapped, output=tmp_path / "mteb", **kw)
    assert via_mteb.results and not via_mteb.failures
    a = {r.task: r.main_score for r in plain.results}
    b = {r.task: r.main_score for r in via_mteb.results}
    assert a == pytest.approx(b, abs=1e-6)  # the same model through MTEB's calling convention
