"""Build tiny random BLEURT and COMET models with the reference packages themselves, and score with them.

Runs in the reference venv (bleurt-pytorch, unbabel-comet, transformers 4.x; see run_crosscheck.sh), never in
steb's. Everything is built offline from configs: SentencePiece models are trained here on a few synthetic
sentences, encoders are randomly initialised, and each model is written in its published layout by the
package's own code:

- BLEURT: ``BleurtForSequenceClassification.save_pretrained`` plus its tokenizer's ``save_pretrained``
  (``BleurtSPTokenizer`` over ``spm.model`` for BLEURT-20-style models, ``BleurtTokenizerFast`` over
  ``vocab.txt`` for the BERT-based ones); scored as bleurt-pytorch's README does
  (``model(**tokenizer(references, candidates, padding="longest", return_tensors="pt")).logits``).
- COMET: a ``RegressionMetric`` built by unbabel-comet around a local encoder folder (config + tokenizer),
  saved by a Lightning ``Trainer.save_checkpoint`` as ``checkpoints/model.ckpt`` with ``hparams.yaml`` beside
  ``checkpoints/``, reloaded with ``comet.load_from_checkpoint`` and scored with ``model.predict``.

Writes ``OUT/reference.json``: per model its folder, kind, the inputs and the package's segment and
system scores, plus the versions of the packages. ``crosscheck.py`` (in steb's venv) scores the same inputs.

Usage: python build_reference.py OUT
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
warnings.filterwarnings("ignore")

import torch  # noqa: E402

WORDS = (
    "the a cat dog sat ran on mat is are you it all depends when ready rewrite following sentence formal informal "
    "hello there how do yes no text style which of two texts better matches writing answer with one letter word "
    "not present very good bad movie was great terrible i think that this we they go home now later please thanks"
).split()

SENTENCES = [
    "the cat sat on the mat",
    "a dog ran home",
    "hello there how are you",
    "are you ready",
    "it all depends on the text",
    "rewrite the following sentence to be formal",
    "this movie was great",
    "this movie was terrible",
    "i think that is very good",
    "we go home now",
    "they go home later",
    "please answer with one letter",
    "thanks a lot",
    "which of two texts is better",
    "the style matches the writing",
    "not present in the text",
    "yes no maybe",
    "how do you do",
    "the dog is on the mat",
    "a cat and a dog",
    "good movie bad movie",
    "is it ready now",
    "writing style transfer is hard",
    "one word two words",
]

#: (source, hypothesis, reference) triples; the last one is longer than the tiny encoders' positions (truncated)
TRIPLES = [
    ("the cat sat on the mat", "a cat sat on a mat", "the cat is on the mat"),
    ("hello there", "hello", "hello there how are you"),
    ("how are you", "how are you ready ?", "are you ready"),
    ("this movie was great", "the movie was very good", "i think this movie was great"),
    ("we go home now", "they go home later", "we go home now please"),
    ("it all depends", "It all DEPENDS!", "all depends on it"),
    ("rewrite the following sentence to be formal", "please rewrite this sentence", "rewrite the sentence formally"),
    (
        " ".join(["the cat sat on the mat"] * 8),
        " ".join(["a dog ran home"] * 9),
        " ".join(["hello there how are you"] * 7),
    ),
]


def _train_spm(path: Path, specials: dict) -> None:
    """A unigram SentencePiece model trained here on the synthetic sentences (``path`` gets the model bytes)."""
    import io

    import sentencepiece as spm

    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(SENTENCES * 4 + WORDS),
        model_writer=buffer,
        vocab_size=120,
        model_type="unigram",
        hard_vocab_limit=False,
        character_coverage=1.0,
        minloglevel=2,
        **specials,
    )
    path.write_bytes(buffer.getvalue())


def _wordpiece_vocab() -> list[str]:
    """A BERT WordPiece vocabulary (each entry once: its line number is its id)."""
    entries = (
        ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(set(WORDS)) + list("abcdefghijklmnopqrstuvwxyz?!.,")
    )
    entries += ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    return list(dict.fromkeys(entries))


def _randomise(module: torch.nn.Module, seed: int, std: float = 0.2) -> None:
    """Replace the packages' small-std initialisation by larger random values, so differences would show."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "LayerNorm" in name or "layer_norm" in name:
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(std * torch.randn(p.shape, generator=g))


# -- BLEURT ----------------------------------------------------------------------------------------------


def _bleurt(out: Path, name: str, factorised: bool, seed: int) -> dict:
    from bleurt_pytorch import BleurtConfig, BleurtForSequenceClassification
    from bleurt_pytorch.bleurt.tokenization_bleurt_fast import BleurtTokenizerFast
    from bleurt_pytorch.bleurt.tokenization_bleurt_sp import BleurtSPTokenizer

    folder = out / name
    folder.mkdir(parents=True)
    if factorised:  # BLEURT-20: DeBERTa-v2-style SentencePiece tokenizer over spm.model
        _train_spm(
            out / f"{name}.spm.model",
            dict(
                pad_id=0,
                unk_id=1,
                bos_id=-1,
                eos_id=-1,
                pad_piece="[PAD]",
                unk_piece="[UNK]",
                user_defined_symbols=["[CLS]", "[SEP]", "[MASK]"],
            ),
        )
        tokenizer = BleurtSPTokenizer(vocab_file=str(out / f"{name}.spm.model"))
    else:  # the BERT-based BLEURT checkpoints: WordPiece over vocab.txt
        vocab = _wordpiece_vocab()
        (out / f"{name}.vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
        tokenizer = BleurtTokenizerFast(vocab_file=str(out / f"{name}.vocab.txt"), do_lower_case=True)
    config = BleurtConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=128,
        type_vocab_size=2,
        embedding_size=16 if factorised else None,
        num_labels=1,
        pad_token_id=tokenizer.pad_token_id,
        hidden_act="gelu",
    )
    torch.manual_seed(seed)
    model = BleurtForSequenceClassification(config).eval()
    _randomise(model, seed)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)

    # score as bleurt-pytorch's README does, from the saved folder
    model = BleurtForSequenceClassification.from_pretrained(folder).eval()
    tokenizer = (BleurtSPTokenizer if factorised else BleurtTokenizerFast).from_pretrained(folder)
    refs, cands = [t[2] for t in TRIPLES[:-1]], [t[1] for t in TRIPLES[:-1]]
    with torch.no_grad():
        inputs = tokenizer(refs, cands, padding="longest", return_tensors="pt")
        scores = model(**inputs).logits.flatten().tolist()
    return {
        "kind": "bleurt",
        "folder": name,
        "references": refs,
        "candidates": cands,
        "scores": scores,
        "system_score": sum(scores) / len(scores),
        "settings": {"factorised_embeddings": factorised, "tokenizer": type(tokenizer).__name__},
    }


# -- COMET ------------------------------------------------------------------------------------------------


def _encoder_folder(out: Path, name: str, encoder_model: str) -> Path:
    """A pretrained-encoder folder as the hub has one: config.json and tokenizer files (its weights are never read)."""
    from transformers import (
        BertConfig,
        BertTokenizerFast,
        RemBertConfig,
        RemBertTokenizerFast,
        XLMRobertaConfig,
        XLMRobertaTokenizerFast,
        XLMRobertaXLConfig,
    )

    folder = out / name
    folder.mkdir(parents=True)
    shape = dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=48, hidden_act="gelu")
    if encoder_model in ("XLM-RoBERTa", "XLM-RoBERTa-XL", "MiniLM"):
        _train_spm(out / f"{name}.spm.model", {})
        tok = XLMRobertaTokenizerFast(vocab_file=str(out / f"{name}.spm.model"))
        if encoder_model == "MiniLM":  # BERT layers and positions under XLM-R's tokenizer
            config = BertConfig(
                vocab_size=len(tok),
                max_position_embeddings=40,
                type_vocab_size=2,
                pad_token_id=tok.pad_token_id,
                **shape,
            )
            config.tokenizer_class = "XLMRobertaTokenizer"
        else:
            klass = XLMRobertaXLConfig if encoder_model == "XLM-RoBERTa-XL" else XLMRobertaConfig
            config = klass(
                vocab_size=len(tok),
                max_position_embeddings=40,
                type_vocab_size=1,
                pad_token_id=1,
                bos_token_id=0,
                eos_token_id=2,
                layer_norm_eps=1e-5,
                **shape,
            )
    elif encoder_model == "BERT":
        vocab = _wordpiece_vocab()
        (out / f"{name}.vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
        tok = BertTokenizerFast(vocab_file=str(out / f"{name}.vocab.txt"), do_lower_case=False)
        config = BertConfig(vocab_size=len(tok), max_position_embeddings=38, type_vocab_size=2, pad_token_id=0, **shape)
    elif encoder_model == "RemBERT":
        _train_spm(
            out / f"{name}.spm.model",
            dict(
                pad_id=0,
                unk_id=1,
                bos_id=-1,
                eos_id=-1,
                pad_piece="[PAD]",
                unk_piece="[UNK]",
                user_defined_symbols=["[CLS]", "[SEP]", "[MASK]"],
            ),
        )
        tok = RemBertTokenizerFast(vocab_file=str(out / f"{name}.spm.model"))
        config = RemBertConfig(
            vocab_size=len(tok),
            max_position_embeddings=40,
            type_vocab_size=2,
            pad_token_id=tok.pad_token_id,
            input_embedding_size=16,
            output_embedding_size=24,
            **shape,
        )
    else:
        raise ValueError(encoder_model)
    config.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _comet(out: Path, name: str, seed: int, encoder_model: str = "XLM-RoBERTa", **hparams: object) -> dict:
    import pytorch_lightning as ptl
    import yaml
    from comet import load_from_checkpoint
    from comet.models import RegressionMetric
    from torch.utils.data import DataLoader

    encoder = _encoder_folder(out, f"{name}-encoder", encoder_model).resolve()
    if encoder_model == "MiniLM":
        # unbabel-comet's MiniLM encoder always loads the tokenizer named "xlm-roberta-base"; a folder of that name
        # in the working directory stands in for the hub's (the same tokenizer files as the encoder folder's)
        import shutil

        shutil.copytree(encoder, out / "xlm-roberta-base", dirs_exist_ok=True)
        os.chdir(out)
    settings = dict(
        layer="mix",
        layer_transformation="sparsemax",
        layer_norm=False,
        pool="avg",
        hidden_sizes=[24, 8],
        activations="Tanh",
        final_activation=None,
    )
    settings.update(hparams)
    yaml_transformation = settings["layer_transformation"]
    if (
        yaml_transformation == "sparsemax_patch"
    ):  # as unbabel-comet's own #244 fix: trained with sparsemax, the yaml says _patch
        settings["layer_transformation"] = "sparsemax"
    torch.manual_seed(seed)
    model = RegressionMetric(
        encoder_model=encoder_model,
        pretrained_model=str(encoder),
        load_pretrained_weights=False,
        local_files_only=True,
        **settings,
    )
    _randomise(model, seed)
    with torch.no_grad():
        if model.layerwise_attention is not None:
            model.layerwise_attention.gamma.fill_(1.3)
        for p in model.estimator.parameters():
            p.mul_(2.0 / p.shape[-1] ** 0.5 / 0.2)
    model.eval()

    folder = out / name
    (folder / "checkpoints").mkdir(parents=True)
    samples = [{"src": s, "mt": m, "ref": r} for s, m, r in TRIPLES]
    trainer = ptl.Trainer(
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        accelerator="cpu",
        devices=1,
        enable_model_summary=False,
    )
    trainer.predict(model, dataloaders=DataLoader(samples, batch_size=4, collate_fn=model.prepare_for_inference))
    trainer.save_checkpoint(folder / "checkpoints" / "model.ckpt")
    hp = dict(model.hparams)
    hp["class_identifier"] = "regression_metric"
    hp["layer_transformation"] = yaml_transformation
    (folder / "hparams.yaml").write_text(yaml.safe_dump(hp, sort_keys=False), encoding="utf-8")

    loaded = load_from_checkpoint(str(folder / "checkpoints" / "model.ckpt"), local_files_only=True)
    prediction = loaded.predict(samples, batch_size=3, gpus=0, progress_bar=False)
    return {
        "kind": "comet",
        "folder": name,
        "encoder": f"{name}-encoder",
        "sources": [t[0] for t in TRIPLES],
        "hypotheses": [t[1] for t in TRIPLES],
        "references": [t[2] for t in TRIPLES],
        "scores": list(prediction.scores),
        "system_score": float(prediction.system_score),
        "settings": {"encoder_model": encoder_model, **hparams},
    }


def _versions() -> dict:
    from importlib.metadata import version

    return {
        p: version(p)
        for p in (
            "bleurt-pytorch",
            "unbabel-comet",
            "transformers",
            "torch",
            "pytorch-lightning",
            "sentencepiece",
            "tokenizers",
        )
    }


def main(out: Path) -> None:
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    models = [
        _bleurt(out, "bleurt20-tiny", factorised=True, seed=1),
        _bleurt(out, "bleurt-bert-tiny", factorised=False, seed=2),
        _comet(out, "comet-xlmr-wmt22", seed=3),  # wmt22-comet-da's settings
        _comet(
            out,
            "comet-xlmr-softmax-ln-max",
            seed=4,
            layer_transformation="softmax",
            layer_norm=True,
            pool="max",
            final_activation="Sigmoid",
        ),
        _comet(out, "comet-xlmr-patch-cls", seed=5, layer_transformation="sparsemax_patch", pool="cls"),
        _comet(out, "comet-xlmr-layer2", seed=6, layer=2),
        _comet(out, "comet-bert", seed=7, encoder_model="BERT", layer_norm=True),
        _comet(out, "comet-minilm", seed=8, encoder_model="MiniLM", layer_transformation="softmax"),
        _comet(out, "comet-xlmr-xl", seed=9, encoder_model="XLM-RoBERTa-XL"),
        _comet(out, "comet-rembert", seed=10, encoder_model="RemBERT", layer_norm=True),
    ]
    (out / "reference.json").write_text(
        json.dumps({"versions": _versions(), "models": models}, indent=1), encoding="utf-8"
    )
    print(f"wrote {out / 'reference.json'}: {len(models)} models")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(Path(sys.argv[1]))
