"""COMET (regression_metric) and BLEURT-20 (bleurt-pytorch format) without unbabel-comet / bleurt-pytorch.

Tiny random models are written in the published file layouts (COMET: ``hparams.yaml`` +
``checkpoints/model.ckpt`` Lightning checkpoint, encoder config/tokenizer in its own folder; BLEURT-20:
``config.json`` with model_type "bleurt", ``pytorch_model.bin`` with ``bleurt.*`` names, ``spm.model``,
``tokenizer_config.json``, ``special_tokens_map.json``) and scored against a numpy computation straight from
the saved tensors: BERT/RoBERTa layers, layer mix (softmax / sparsemax), pooling, COMET's features and
feed-forward, BLEURT's factorised embedding and [CLS] head. unbabel-comet is not installed in this
environment (and its 2.2.x releases need transformers < 5), so it cannot serve as a cross-check here.
"""

from __future__ import annotations

import json
import pathlib
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("yaml")

from steb_scorers.checkpoints import ModelNotFoundError  # noqa: E402
from steb_scorers.comet_model import UnsupportedCometModel, sparsemax  # noqa: E402
from steb_scorers.learned import BleurtScorer, CometScorer  # noqa: E402

WORDS = "the a cat dog sat on mat hello there how are you ready is it all depends when rewrite formal".split()


# -- numpy reference ---------------------------------------------------------------------------------


def _np(sd, key):
    return sd[key].detach().double().numpy()


def _ln(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x):
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def _bert_layers(sd, prefix, x, n_layers, heads, eps):
    """Post-LayerNorm transformer layers (Vaswani et al. 2017; BERT's layout) on one unpadded sequence."""
    states = [x]
    for i in range(n_layers):
        p = f"{prefix}encoder.layer.{i}."
        lin = lambda name, v, p=p: v @ _np(sd, p + name + ".weight").T + _np(sd, p + name + ".bias")  # noqa: E731
        n, width = x.shape
        d = width // heads
        q, k, v = (
            lin(f"attention.self.{m}", x).reshape(n, heads, d).transpose(1, 0, 2) for m in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(1, 0, 2).reshape(n, width)
        a = _ln(
            lin("attention.output.dense", ctx) + x,
            _np(sd, p + "attention.output.LayerNorm.weight"),
            _np(sd, p + "attention.output.LayerNorm.bias"),
            eps,
        )
        x = _ln(
            lin("output.dense", _gelu(lin("intermediate.dense", a))) + a,
            _np(sd, p + "output.LayerNorm.weight"),
            _np(sd, p + "output.LayerNorm.bias"),
            eps,
        )
        states.append(x)
    return states


# -- COMET -------------------------------------------------------------------------------------------

ENC = dict(hidden=16, layers=2, heads=2, inter=32, positions=40, eps=1e-5)
#: sparsemax of (0.9, 0.2, 0.6) by hand: support {0.9, 0.6}, tau = (1.5 - 1) / 2 = 0.25 -> (0.65, 0, 0.35)
SCALARS, SPARSEMAX_BY_HAND = [0.9, 0.2, 0.6], np.array([0.65, 0.0, 0.35])
WMT22_YAML = """nr_frozen_epochs: 0.3
class_identifier: regression_metric
keep_embeddings_frozen: True
optimizer: AdamW
encoder_learning_rate: 1.0e-06
learning_rate: 1.5e-05
layerwise_decay: 0.95
encoder_model: XLM-RoBERTa
pretrained_model: {pretrained}
pool: {pool}
layer: mix
layer_transformation: {transform}
layer_norm: {layer_norm}
loss: mse
dropout: 0.1
batch_size: 16
train_data:
- data/1720-da.csv
validation_data:
- data/wmt-ende-newstest2021.csv
hidden_sizes:
- 24
- 8
activations: Tanh
{final}"""


def _tiny_xlmr_folder(folder):
    """A pretrained-encoder folder as the hub has it (config.json, tokenizer files and *unrelated* weights)."""
    from transformers import XLMRobertaConfig, XLMRobertaModel, XLMRobertaTokenizer

    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + [
        ("\u2581" + w, -1.0 - 0.1 * i) for i, w in enumerate(WORDS)
    ]
    vocab += [(c, -8.0) for c in "abcdefghijklmnopqrstuvwxyz?.,"] + [("\u2581", -4.0), ("<mask>", 0.0)]
    tok = XLMRobertaTokenizer(vocab=vocab)
    tok.save_pretrained(folder)
    config = XLMRobertaConfig(
        vocab_size=len(vocab),
        hidden_size=ENC["hidden"],
        num_hidden_layers=ENC["layers"],
        num_attention_heads=ENC["heads"],
        intermediate_size=ENC["inter"],
        max_position_embeddings=ENC["positions"],
        layer_norm_eps=ENC["eps"],
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    torch.manual_seed(123)
    XLMRobertaModel(config, add_pooling_layer=False).save_pretrained(
        folder
    )  # a different random encoder: must not be used
    return folder, config


def build_tiny_comet(
    root,
    transform="sparsemax",
    layer_norm=False,
    pool="avg",
    final=None,
    ckpt_hparams=True,
    odd_objects=False,
    yaml_overrides=None,
    sizes=(24, 8),
):
    """``root/comet`` laid out as the Unbabel/wmt22-comet-da snapshot, encoder in ``root/xlmr``."""
    from transformers import XLMRobertaModel

    enc_folder, config = _tiny_xlmr_folder(root / "xlmr")
    torch.manual_seed(7)
    encoder = XLMRobertaModel(config, add_pooling_layer=False)
    sd = OrderedDict(("encoder.model." + k, v.clone()) for k, v in encoder.state_dict().items())
    sd["encoder.model.embeddings.position_ids"] = torch.arange(ENC["positions"]).expand(
        (1, -1)
    )  # older checkpoints persist it
    for i, s in enumerate(SCALARS):
        sd[f"layerwise_attention.scalar_parameters.{i}"] = torch.tensor([s])
    sd["layerwise_attention.gamma"] = torch.tensor([1.3])
    sd["layerwise_attention.dropout_mask"] = torch.zeros(3)  # buffers LayerwiseAttention registers when dropout > 0
    sd["layerwise_attention.dropout_fill"] = torch.full((3,), -1e20)
    width = 6 * ENC["hidden"]
    for idx, size in zip((0, 3, 6), (*sizes, 1)):
        sd[f"estimator.ff.{idx}.weight"] = torch.randn(size, width) * 2.0 / width**0.5
        sd[f"estimator.ff.{idx}.bias"] = torch.randn(size) * 0.1
        width = size
    final_line = f"final_activation: {final}\n" if final else ""
    text = WMT22_YAML.format(
        pretrained=enc_folder, pool=pool, transform=transform, layer_norm=layer_norm, final=final_line
    )
    import yaml

    hp = yaml.safe_load(text)
    hp.update(yaml_overrides or {})
    folder = root / "comet"
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "hparams.yaml").write_text(yaml.safe_dump(hp, sort_keys=False))
    blob = {"epoch": 1, "global_step": 100, "pytorch-lightning_version": "1.9.5", "state_dict": sd}
    if ckpt_hparams:
        blob["hyper_parameters"] = {
            **hp,
            "layer_transformation": "softmax" if transform == "sparsemax_patch" else transform,
        }
    if odd_objects:  # what Lightning's callback states can hold: not loadable with weights_only=True
        blob["callbacks"] = {
            "ModelCheckpoint{'monitor': 'val_kendall'}": {
                "dirpath": pathlib.PurePosixPath("/lightning_logs/checkpoints")
            }
        }
    torch.save(blob, folder / "checkpoints" / "model.ckpt")
    return folder, sd


def _comet_by_hand(folder, sd, src, mt, ref, weights, layer_norm=False, pool="avg", final=None):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder.parent / "xlmr")

    def embed(text):
        ids = np.array(tok(text)["input_ids"])
        pos = 1 + 1 + np.arange(len(ids))  # RoBERTa positions: padding_idx + 1 + index
        p = "encoder.model.embeddings."
        x = (
            _np(sd, p + "word_embeddings.weight")[ids]
            + _np(sd, p + "position_embeddings.weight")[pos]
            + _np(sd, p + "token_type_embeddings.weight")[0]
        )
        x = _ln(x, _np(sd, p + "LayerNorm.weight"), _np(sd, p + "LayerNorm.bias"), ENC["eps"])
        states = _bert_layers(sd, "encoder.model.", x, ENC["layers"], ENC["heads"], ENC["eps"])
        if layer_norm:
            states = [(h - h.mean()) / np.sqrt(h.var() + 1e-12) for h in states]
        mixed = 1.3 * sum(w * h for w, h in zip(weights, states))
        return mixed.mean(0) if pool == "avg" else mixed.max(0)

    h, r, s = embed(mt), embed(ref), embed(src)
    x = np.concatenate([h, r, h * r, np.abs(h - r), h * s, np.abs(h - s)])
    x = np.tanh(_np(sd, "estimator.ff.0.weight") @ x + _np(sd, "estimator.ff.0.bias"))
    x = np.tanh(_np(sd, "estimator.ff.3.weight") @ x + _np(sd, "estimator.ff.3.bias"))
    y = float((_np(sd, "estimator.ff.6.weight") @ x + _np(sd, "estimator.ff.6.bias"))[0])
    return 1 / (1 + np.exp(-y)) if final == "Sigmoid" else y


SRC = ["the cat sat on the mat", "hello there", "how are you"]
MT = ["a cat sat on a mat", "hello", "how are you ready ?"]
REF = ["the cat is on the mat", "hello there how are you", "are you ready"]


def test_sparsemax_matches_the_simplex_projection_by_hand():
    got = sparsemax(torch.tensor(SCALARS)).numpy()
    np.testing.assert_allclose(got, SPARSEMAX_BY_HAND, atol=1e-6)
    np.testing.assert_allclose(sparsemax(torch.tensor([1.0, 0.5, -1.0])).numpy(), [0.75, 0.25, 0.0], atol=1e-6)
    np.testing.assert_allclose(sparsemax(torch.tensor([0.3, 0.3])).numpy(), [0.5, 0.5], atol=1e-6)


def test_comet_wmt22_layout_matches_the_hand_computation(tmp_path):
    """wmt22-comet-da's settings: sparsemax mix without layer norm, average pooling, Tanh estimator."""
    folder, sd = build_tiny_comet(tmp_path, odd_objects=True)
    scorer = CometScorer(model=str(folder), batch_size=2)  # two batches, padding inside the first
    res = scorer.score(SRC, MT, references=REF)
    expected = [_comet_by_hand(folder, sd, s, m, r, SPARSEMAX_BY_HAND) for s, m, r in zip(SRC, MT, REF)]
    np.testing.assert_allclose(res.scores, expected, atol=1e-5)
    assert res.corpus == pytest.approx(np.mean(expected), abs=1e-5)
    assert res.details["layer_transformation"] == "sparsemax"
    # the checkpoint path itself works too, and against=source compares with the source
    src_res = CometScorer(model=str(folder / "checkpoints" / "model.ckpt"), against="source").score(SRC[:1], MT[:1])
    assert src_res.scores[0] == pytest.approx(
        _comet_by_hand(folder, sd, SRC[0], MT[0], SRC[0], SPARSEMAX_BY_HAND), abs=1e-5
    )


def test_comet_w_runs_the_estimator_with_an_empty_source(tmp_path):
    """COMET-w (Lai et al.): src is the empty string; the hand computation embeds "" (only the special tokens) as s."""
    folder, sd = build_tiny_comet(tmp_path)
    res = CometScorer(model=str(folder), batch_size=2, empty_source=True).score(SRC, MT, references=REF)
    expected = [_comet_by_hand(folder, sd, "", m, r, SPARSEMAX_BY_HAND) for m, r in zip(MT, REF)]
    np.testing.assert_allclose(res.scores, expected, atol=1e-5)
    with_source = [_comet_by_hand(folder, sd, s, m, r, SPARSEMAX_BY_HAND) for s, m, r in zip(SRC, MT, REF)]
    assert np.abs(np.asarray(expected) - with_source).max() > 1e-4  # the source does enter plain COMET
    assert res.details["src"] == "empty string (COMET-w)"
    against_source = CometScorer(model=str(folder), against="source", empty_source=True).score(SRC[:1], MT[:1])
    assert against_source.scores[0] == pytest.approx(
        _comet_by_hand(folder, sd, "", MT[0], SRC[0], SPARSEMAX_BY_HAND), abs=1e-5
    )
    with pytest.raises(ValueError, match="empty_source"):
        CometScorer(model=str(folder), empty_source="yes")


def test_comet_softmax_layer_norm_max_pool_and_final_activation(tmp_path):
    """The #244 ``sparsemax_patch`` yaml value means softmax; hparams from the yaml alone (no copy in the .ckpt)."""
    folder, sd = build_tiny_comet(
        tmp_path, transform="sparsemax_patch", layer_norm=True, pool="max", final="Sigmoid", ckpt_hparams=False
    )
    res = CometScorer(model=str(folder), batch_size=3).score(SRC, MT, references=REF)
    w = np.exp(SCALARS) / np.exp(SCALARS).sum()
    expected = [
        _comet_by_hand(folder, sd, s, m, r, w, layer_norm=True, pool="max", final="Sigmoid")
        for s, m, r in zip(SRC, MT, REF)
    ]
    np.testing.assert_allclose(res.scores, expected, atol=1e-5)
    assert ((res.scores > 0) & (res.scores < 1)).all()


def test_comet_unsupported_classes_and_bad_hparams_are_named(tmp_path):
    folder, _ = build_tiny_comet(tmp_path / "kiwi", yaml_overrides={"class_identifier": "unified_metric"})
    with pytest.raises(
        UnsupportedCometModel, match=r"hparams\.yaml has class_identifier 'unified_metric' \(UnifiedMetric.*cometkiwi"
    ):
        CometScorer(model=str(folder))
    folder, _ = build_tiny_comet(
        tmp_path / "bad", ckpt_hparams=False, yaml_overrides={"layer_transformation": "entmax"}
    )
    with pytest.raises(ValueError, match=r"hparams\.yaml, field 'layer_transformation': expected one of .*'entmax'"):
        CometScorer(model=str(folder))
    folder, _ = build_tiny_comet(tmp_path / "pool", ckpt_hparams=False, yaml_overrides={"pool": "mean"})
    with pytest.raises(ValueError, match=r"hparams\.yaml, field 'pool'"):
        CometScorer(model=str(folder))
    folder, _ = build_tiny_comet(tmp_path / "sizes", ckpt_hparams=False, yaml_overrides={"hidden_sizes": [32, 8]})
    with pytest.raises(
        ValueError,
        match=r"model\.ckpt: 'estimator\.ff\.0\.weight' is \(24, 96\), expected \(32, 96\) from hidden_sizes \[32, 8\]",
    ):
        CometScorer(model=str(folder))
    (folder / "hparams.yaml").unlink()
    with pytest.raises(FileNotFoundError, match=r"hparams\.yaml is missing"):
        CometScorer(model=str(folder))


def test_comet_offline_errors_name_the_download(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(ModelNotFoundError, match="steb models get Unbabel/wmt22-comet-da"):
        CometScorer()
    folder, _ = build_tiny_comet(
        tmp_path / "m", ckpt_hparams=False, yaml_overrides={"pretrained_model": "xlm-roberta-large"}
    )
    with pytest.raises(
        ModelNotFoundError,
        match=r"'xlm-roberta-large' is not in the local Hugging Face cache.*steb models get "
        r"FacebookAI/xlm-roberta-large",
    ):
        CometScorer(model=str(folder))
    # an explicit encoder folder overrides the hparams' hub id
    assert CometScorer(model=str(folder), encoder=str(tmp_path / "m" / "xlmr")).score(
        SRC[:1], MT[:1], references=REF[:1]
    ).scores.shape == (1,)


# -- BLEURT-20 -----------------------------------------------------------------------------------------

BL = dict(emb=8, hidden=16, layers=2, heads=2, inter=32, positions=24, eps=1e-12)
BLEURT20_TOKENIZER_CONFIG = {
    "bos_token": "[CLS]",
    "cls_token": "[CLS]",
    "do_lower_case": False,
    "eos_token": "[SEP]",
    "mask_token": "[MASK]",
    "model_max_length": 1000000000000000019884624838656,
    "name_or_path": "BLEURT-20",
    "pad_token": "[PAD]",
    "sep_token": "[SEP]",
    "sp_model_kwargs": {},
    "split_by_punct": False,
    "tokenizer_class": "BleurtSPTokenizer",
    "unk_token": "[UNK]",
}


def _write_spm(path):
    """A unigram SentencePiece model written with the SentencePiece protobuf schema (as spm_train would)."""
    from transformers.convert_slow_tokenizer import import_protobuf

    proto = import_protobuf().ModelProto()
    pieces = [("[PAD]", 0.0, 4), ("[UNK]", 0.0, 2), ("[CLS]", 0.0, 4), ("[SEP]", 0.0, 4), ("[MASK]", 0.0, 4)]
    pieces += [("\u2581" + w, -1.0 - 0.1 * i, 1) for i, w in enumerate(WORDS)]
    pieces += [(c, -8.0, 1) for c in "abcdefghijklmnopqrstuvwxyz?.,"] + [("\u2581", -4.0, 1)]
    for text, score, kind in pieces:
        p = proto.pieces.add()
        p.piece, p.score, p.type = text, score, kind
    proto.trainer_spec.model_type = 1
    proto.trainer_spec.unk_id = 1
    proto.normalizer_spec.name = "identity"
    proto.normalizer_spec.add_dummy_prefix = True
    path.write_bytes(proto.SerializeToString())
    return [p[0] for p in pieces]


def build_tiny_bleurt20(folder):
    folder.mkdir(parents=True, exist_ok=True)
    pieces = _write_spm(folder / "spm.model")
    (folder / "tokenizer_config.json").write_text(json.dumps(BLEURT20_TOKENIZER_CONFIG))
    (folder / "special_tokens_map.json").write_text(
        json.dumps(
            {
                "bos_token": "[CLS]",
                "cls_token": "[CLS]",
                "eos_token": "[SEP]",
                "mask_token": "[MASK]",
                "pad_token": "[PAD]",
                "sep_token": "[SEP]",
                "unk_token": "[UNK]",
            }
        )
    )
    config = {
        "architectures": ["BleurtForSequenceClassification"],
        "attention_probs_dropout_prob": 0,
        "classifier_dropout": None,
        "embedding_dropout_prob": 0,
        "embedding_size": BL["emb"],
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0,
        "hidden_size": BL["hidden"],
        "id2label": {"0": "LABEL_0"},
        "initializer_range": 0.02,
        "intermediate_size": BL["inter"],
        "label2id": {"LABEL_0": 0},
        "layer_norm_eps": BL["eps"],
        "max_position_embeddings": BL["positions"],
        "model_type": "bleurt",
        "num_attention_heads": BL["heads"],
        "num_hidden_layers": BL["layers"],
        "output_embedding_size": 32,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
        "transformers_version": "4.25.1",
        "type_vocab_size": 2,
        "use_cache": False,
        "vocab_size": len(pieces),
    }
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    g = torch.Generator().manual_seed(3)
    rnd = lambda *shape, s=0.3: torch.randn(*shape, generator=g) * s  # noqa: E731
    e, h, i = BL["emb"], BL["hidden"], BL["inter"]
    sd = OrderedDict()
    sd["bleurt.embeddings.position_ids"] = torch.arange(BL["positions"]).expand((1, -1))
    sd["bleurt.embeddings.word_embeddings.weight"] = rnd(len(pieces), e)
    sd["bleurt.embeddings.position_embeddings.weight"] = rnd(BL["positions"], e)
    sd["bleurt.embeddings.token_type_embeddings.weight"] = rnd(2, e)
    sd["bleurt.embeddings.LayerNorm.weight"], sd["bleurt.embeddings.LayerNorm.bias"] = 1 + rnd(e, s=0.1), rnd(e, s=0.1)
    sd["bleurt.encoder.embedding_projection.weight"], sd["bleurt.encoder.embedding_projection.bias"] = (
        rnd(h, e),
        rnd(h, s=0.1),
    )
    for n in range(BL["layers"]):
        p = f"bleurt.encoder.layer.{n}."
        for name, shape in (
            ("attention.self.query", (h, h)),
            ("attention.self.key", (h, h)),
            ("attention.self.value", (h, h)),
            ("attention.output.dense", (h, h)),
            ("intermediate.dense", (i, h)),
            ("output.dense", (h, i)),
        ):
            sd[p + name + ".weight"], sd[p + name + ".bias"] = rnd(*shape), rnd(shape[0], s=0.1)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            sd[p + name + ".weight"], sd[p + name + ".bias"] = 1 + rnd(h, s=0.1), rnd(h, s=0.1)
    sd["bleurt.pooler.dense.weight"], sd["bleurt.pooler.dense.bias"] = rnd(h, h), rnd(h, s=0.1)
    sd["classifier.weight"], sd["classifier.bias"] = rnd(1, h), rnd(1, s=0.1)
    torch.save(sd, folder / "pytorch_model.bin")
    return folder, sd, pieces


def _bleurt_by_hand(sd, ids, types):
    ids, types = np.asarray(ids), np.asarray(types)
    p = "bleurt.embeddings."
    x = (
        _np(sd, p + "word_embeddings.weight")[ids]
        + _np(sd, p + "token_type_embeddings.weight")[types]
        + _np(sd, p + "position_embeddings.weight")[np.arange(len(ids))]
    )
    x = _ln(x, _np(sd, p + "LayerNorm.weight"), _np(sd, p + "LayerNorm.bias"), BL["eps"])
    x = x @ _np(sd, "bleurt.encoder.embedding_projection.weight").T + _np(
        sd, "bleurt.encoder.embedding_projection.bias"
    )
    last = _bert_layers(sd, "bleurt.", x, BL["layers"], BL["heads"], BL["eps"])[-1]
    pooled = np.tanh(_np(sd, "bleurt.pooler.dense.weight") @ last[0] + _np(sd, "bleurt.pooler.dense.bias"))
    return float(_np(sd, "classifier.weight")[0] @ pooled + _np(sd, "classifier.bias")[0])


@pytest.fixture(scope="module")
def tiny_bleurt20(tmp_path_factory):
    return build_tiny_bleurt20(tmp_path_factory.mktemp("bleurt20") / "BLEURT-20")


def test_bleurt20_reads_spm_pairs_reference_then_candidate(tiny_bleurt20):
    folder, _, pieces = tiny_bleurt20
    scorer = BleurtScorer(model=str(folder))
    enc = scorer.bleurt.tokenizer(["the cat"], ["a dog sat"])
    idx = {p: n for n, p in enumerate(pieces)}
    u = "\u2581"
    assert enc["input_ids"][0] == [
        idx["[CLS]"],
        idx[u + "the"],
        idx[u + "cat"],
        idx["[SEP]"],
        idx[u + "a"],
        idx[u + "dog"],
        idx[u + "sat"],
        idx["[SEP]"],
    ]
    assert enc["token_type_ids"][0] == [0, 0, 0, 0, 1, 1, 1, 1]


def test_bleurt20_matches_the_hand_computation(tiny_bleurt20):
    folder, sd, _ = tiny_bleurt20
    scorer = BleurtScorer(model=str(folder), batch_size=2)
    long_mt = " ".join(
        ["the cat sat on the mat"] * 6
    )  # longer than the 24 positions: truncated, as the checkpoint allows
    outputs, refs = (
        ["you are ready", "the cat sat", long_mt],
        ["are you ready ?", "the dog sat on the mat", ["hello", "how are you"]],
    )
    res = scorer.score(["s1", "s2", "s3"], outputs, references=refs)
    assert res.details["format"] == "bleurt-pytorch"

    def by_hand(ref, cand):
        enc = scorer.bleurt.tokenizer(ref, cand, truncation=True, max_length=BL["positions"])
        assert len(enc["input_ids"]) <= BL["positions"]
        return _bleurt_by_hand(sd, enc["input_ids"], enc["token_type_ids"])

    assert res.scores[0] == pytest.approx(by_hand("are you ready ?", "you are ready"), abs=1e-5)
    assert res.scores[1] == pytest.approx(by_hand("the dog sat on the mat", "the cat sat"), abs=1e-5)
    assert res.scores[2] == pytest.approx(max(by_hand("hello", long_mt), by_hand("how are you", long_mt)), abs=1e-5)
    assert (
        abs(by_hand("you are ready", "are you ready ?") - res.scores[0]) > 1e-6
    )  # (reference, candidate) order matters


def test_bleurt20_offline_and_broken_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(ModelNotFoundError, match="steb models get lucadiliello/BLEURT-20"):
        BleurtScorer(model="BLEURT-20")
    folder, _, _ = build_tiny_bleurt20(tmp_path / "b")
    (folder / "pytorch_model.bin").unlink()
    with pytest.raises(FileNotFoundError, match=r"no weights in .*pytorch_model\.bin"):
        BleurtScorer(model=str(folder))
    folder, sd, _ = build_tiny_bleurt20(tmp_path / "c")
    del sd["bleurt.encoder.embedding_projection.weight"]
    torch.save(sd, folder / "pytorch_model.bin")
    with pytest.raises(ValueError, match=r"lacks weight 'bleurt\.encoder\.embedding_projection\.weight'"):
        BleurtScorer(model=str(folder))
    config = json.loads((folder / "config.json").read_text())
    config["hidden_size"] = "big"
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"config\.json, field 'hidden_size'"):
        BleurtScorer(model=str(folder))


# -- reading checkpoints safely --------------------------------------------------------------------------


class _RunsCommand:
    """Unpickles to ``os.system(command)``: the inner payload."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        import os

        return os.system, (self.command,)


class _NestedTorchLoad:
    """Unpickles to ``torch.storage._load_from_bytes(payload)``, i.e. ``torch.load(payload, weights_only=False)``."""

    def __init__(self, payload):
        self.payload = payload

    def __reduce__(self):
        return torch.storage._load_from_bytes, (self.payload,)


def _malicious_checkpoint(folder, marker):
    """A COMET folder whose model.ckpt state_dict runs ``touch marker`` when unpickled without restrictions."""
    import io
    import shlex

    inner = io.BytesIO()
    torch.save(_RunsCommand(f"touch {shlex.quote(str(marker))}"), inner)
    build_tiny_comet(folder)
    ckpt = folder / "comet" / "checkpoints" / "model.ckpt"
    torch.save({"epoch": 1, "state_dict": _NestedTorchLoad(inner.getvalue())}, ckpt, pickle_protocol=4)
    return ckpt


@pytest.mark.filterwarnings("ignore:Detected pickle protocol 4")
def test_a_checkpoint_that_would_run_code_is_refused_and_nothing_runs(tmp_path):
    ckpt = _malicious_checkpoint(tmp_path / "evil", tmp_path / "ran")
    with pytest.raises(
        ValueError, match=r"model\.ckpt is not a checkpoint steb can read safely.*Nothing from it was run"
    ):
        CometScorer(model=str(tmp_path / "evil" / "comet"))
    assert not (tmp_path / "ran").exists()
    # the payload is live: an unrestricted load does run it (so the assertion above can fail)
    torch.load(ckpt, weights_only=False)
    assert (tmp_path / "ran").exists()


def test_the_same_payload_as_plain_protocol_2_pickle_is_refused_by_name(tmp_path):
    import io
    import shlex

    inner = io.BytesIO()
    torch.save(_RunsCommand(f"touch {shlex.quote(str(tmp_path / 'ran'))}"), inner)
    build_tiny_comet(tmp_path / "evil")
    ckpt = tmp_path / "evil" / "comet" / "checkpoints" / "model.ckpt"
    torch.save({"state_dict": _NestedTorchLoad(inner.getvalue())}, ckpt)
    with pytest.raises(ValueError, match=r"torch\.storage\._load_from_bytes"):
        CometScorer(model=str(tmp_path / "evil" / "comet"))
    assert not (tmp_path / "ran").exists()


def test_lightning_attribute_dict_hyper_parameters_load_as_a_plain_dict(tmp_path, monkeypatch):
    """Lightning 1.x pickles hyper_parameters as its AttributeDict; steb reads it without importing Lightning."""
    import sys
    import types

    names = ["pytorch_lightning", "pytorch_lightning.utilities", "pytorch_lightning.utilities.parsing"]
    for name in names:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))

    class AttributeDict(dict):
        pass

    AttributeDict.__module__, AttributeDict.__qualname__ = names[-1], "AttributeDict"
    sys.modules[names[-1]].AttributeDict = AttributeDict
    folder, sd = build_tiny_comet(
        tmp_path, transform="softmax", ckpt_hparams=False, yaml_overrides={"layer_transformation": "sparsemax"}
    )
    ckpt = folder / "checkpoints" / "model.ckpt"
    blob = torch.load(ckpt, weights_only=True)
    import yaml

    hp = yaml.safe_load((folder / "hparams.yaml").read_text())
    blob["hyper_parameters"] = AttributeDict(
        {**hp, "layer_transformation": "softmax"}
    )  # the checkpoint's value wins over the yaml's
    torch.save(blob, ckpt)
    for name in names:  # Lightning is not importable when steb reads the file
        monkeypatch.delitem(sys.modules, name)
    from steb_scorers.comet_model import load_lightning_checkpoint

    loaded = load_lightning_checkpoint(ckpt)
    assert type(loaded["hyper_parameters"]) is dict and loaded["hyper_parameters"]["layer_transformation"] == "softmax"
    res = CometScorer(model=str(folder)).score(SRC[:1], MT[:1], references=REF[:1])
    w = np.exp(SCALARS) / np.exp(SCALARS).sum()
    assert res.scores[0] == pytest.approx(_comet_by_hand(folder, sd, SRC[0], MT[0], REF[0], w), abs=1e-5)


# -- the forward passes are plain torch ------------------------------------------------------------------


def test_forward_passes_use_no_transformers_model_class(tiny_bleurt20, tmp_path):
    """The scorers' forward modules are steb's own: they import only tokenizers from transformers, and no
    transformers nn.Module is anywhere in the networks they build."""
    import ast
    import inspect

    from steb_scorers import bleurt_model, comet_model, encoder, tokenizer_files

    tokenizers_only = {
        "AutoTokenizer",
        "PreTrainedTokenizerFast",
        "DebertaV2Tokenizer",
        "BertTokenizer",
        "import_protobuf",
    }
    for module in (encoder, bleurt_model, comet_model, tokenizer_files):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] == "transformers" for a in node.names), (
                    f"{module.__name__} imports transformers wholesale"
                )
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("transformers"):
                names = {a.name for a in node.names}
                assert names <= tokenizers_only, (
                    f"{module.__name__} imports {sorted(names - tokenizers_only)} from {node.module}"
                )
    folder, _, _ = tiny_bleurt20
    scorer = BleurtScorer(model=str(folder))
    comet_folder, _ = build_tiny_comet(tmp_path)
    comet = CometScorer(model=str(comet_folder))
    for net in (scorer.bleurt.net, scorer.bleurt.head, comet.model.encoder, comet.model.estimator):
        foreign = [
            type(m).__module__ for m in net.modules() if not type(m).__module__.startswith(("torch.", "steb_scorers."))
        ]
        assert not foreign, foreign


def test_bleurt_weights_that_would_run_code_are_refused_naming_the_file(tmp_path):
    """Issue 41: torch's raw refusal named no file and suggested weights_only=False; now the file and the reason."""
    import shlex

    folder, sd, _ = build_tiny_bleurt20(tmp_path / "evil" / "BLEURT-20")
    torch.save(
        {**sd, "extra": _RunsCommand(f"touch {shlex.quote(str(tmp_path / 'ran'))}")}, folder / "pytorch_model.bin"
    )
    with pytest.raises(ValueError) as err:
        BleurtScorer(model=str(folder))
    message = str(err.value)
    assert str(folder / "pytorch_model.bin") in message and "posix.system" in message
    assert "nothing from it was run" in message
    assert "weights_only" not in message
    assert not (tmp_path / "ran").exists()
