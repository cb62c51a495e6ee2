"""BLEURT checkpoints in the ``bleurt-pytorch`` format (``model_type: "bleurt"``), run without bleurt-pytorch.

BLEURT (Sellam et al. 2020, "BLEURT: Learning Robust Metrics for Text Generation", Sec. 3) is a BERT-style
encoder over the pair (reference, candidate) with a linear regression head on the pooled [CLS] vector.
BLEURT-20 (Pu et al. 2021, "Learning Compact Metrics for MT", the RemBERT-based checkpoint and its
distillations D12/D6/D3) adds a RemBERT-style factorised embedding: token, position and segment embeddings
of width ``embedding_size``, layer-normalised, then a linear projection to ``hidden_size``.

Facts read from lucadiliello/bleurt-pytorch at commit 279ca1bb4106bde5a89f0f82723197e23d8446cb (whose model
code no longer imports under transformers 5); this module is written from them, not copied:

- ``bleurt/configuration_bleurt.py``: BERT's fields plus ``embedding_size`` (``null`` for the older
  BERT-based BLEURT checkpoints: no projection); absolute positions.
- ``bleurt/modeling_bleurt.py``: embeddings = LayerNorm(word + token type + position) of width
  ``embedding_size``; the encoder applies ``embedding_projection`` (Linear embedding_size -> hidden_size)
  first, then post-LayerNorm BERT layers (``hidden_act`` from the config); pooler = tanh(Linear([CLS]));
  ``classifier`` = Linear(hidden_size, 1). Weight names: ``bleurt.embeddings.*``,
  ``bleurt.encoder.embedding_projection.*``, ``bleurt.encoder.layer.N.*`` (BERT's), ``bleurt.pooler.dense.*``,
  ``classifier.*``.
- ``bleurt/tokenization_bleurt_sp.py``: BLEURT-20's tokenizer is DeBERTa-v2's SentencePiece tokenizer over
  ``spm.model`` (``[CLS] reference [SEP] candidate [SEP]``, segment ids 0 then 1); the BERT-based checkpoints
  use BERT's WordPiece (``vocab.txt``). The README scores ``tokenizer(references, candidates)``.

The forward pass is :class:`steb_scorers.encoder.TransformerEncoder` (plain torch, factorised embeddings,
post-LayerNorm BERT layers, pooler) with the checkpoint's weights loaded by name; transformers' model
classes are not used, so a new transformers release cannot change it. Only the tokenizers come from
transformers' public API. ``spm.model`` is read with protobuf through transformers' copy of the
SentencePiece schema (the ``sentencepiece`` package is not needed); only unigram models are supported, as
transformers itself builds them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import parse_json, refusing_unsafe_weights

__all__ = ["BleurtRegressor", "is_bleurt_folder", "load_bleurt", "spm_tokenizer"]

_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def is_bleurt_folder(folder: str | Path) -> bool:
    """Whether ``folder/config.json`` declares ``model_type: "bleurt"`` (the bleurt-pytorch format)."""
    path = Path(folder) / "config.json"
    try:
        return bool(parse_json(path.read_text(encoding="utf-8"), path=path).get("model_type") == "bleurt")
    except (OSError, ValueError, AttributeError):
        return False


def _read_weights(folder: Path) -> dict[str, Any]:
    import torch

    for name in _WEIGHTS:
        path = folder / name
        if path.is_file():
            if name.endswith(".safetensors"):
                from safetensors.torch import load_file

                return load_file(str(path))
            with refusing_unsafe_weights(folder, "BLEURT", file=path):
                weights: dict[str, Any] = torch.load(str(path), map_location="cpu", weights_only=True)
                return weights
    raise FileNotFoundError(f"BLEURT: no weights in {folder} (expected {' or '.join(_WEIGHTS)})")


def spm_tokenizer(folder: Path, settings: Mapping[str, Any]) -> Any:
    """DeBERTa-v2's tokenizer over a unigram ``spm.model``, read with protobuf (no ``sentencepiece`` needed)."""
    from tokenizers import normalizers
    from transformers import DebertaV2Tokenizer
    from transformers.convert_slow_tokenizer import import_protobuf

    path = folder / "spm.model"
    proto = import_protobuf("BLEURT-20's spm.model").ModelProto()
    try:
        proto.ParseFromString(path.read_bytes())
    except Exception as exc:  # noqa: BLE001 - protobuf's decode errors differ by version: say which file
        raise ValueError(f"BLEURT: {path} is not a SentencePiece model: {exc}") from None
    if proto.trainer_spec.model_type != 1:  # 1 = UNIGRAM in sentencepiece_model.proto
        raise ValueError(
            f"BLEURT: {path} is not a unigram SentencePiece model (model_type {proto.trainer_spec.model_type}); "
            f"reading it needs the sentencepiece package"
        )
    vocab = [(p.piece, float(p.score)) for p in proto.pieces]
    specials = {
        k: settings[k]
        for k in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
        if isinstance(settings.get(k), str)
    }
    tok = DebertaV2Tokenizer(
        vocab=vocab,
        unk_id=int(proto.trainer_spec.unk_id),
        do_lower_case=bool(settings.get("do_lower_case", False)),
        split_by_punct=bool(settings.get("split_by_punct", False)),
        **specials,
    )
    charsmap = bytes(proto.normalizer_spec.precompiled_charsmap)
    if charsmap:  # the model's own normalisation (e.g. nmt_nfkc), as SentencePiece applies it before DeBERTa's rules
        tok.backend_tokenizer.normalizer = normalizers.Sequence(
            [normalizers.Precompiled(charsmap), tok.backend_tokenizer.normalizer]
        )
    return tok


def _tokenizer(folder: Path) -> Any:
    from .tokenizer_files import tokenizer_settings

    settings = tokenizer_settings(folder, "BLEURT")
    if (folder / "spm.model").is_file():
        return spm_tokenizer(folder, settings)
    if (folder / "vocab.txt").is_file():
        from transformers import BertTokenizer

        return BertTokenizer(vocab=str(folder / "vocab.txt"), do_lower_case=bool(settings.get("do_lower_case", True)))
    raise FileNotFoundError(f"BLEURT: no tokenizer in {folder} (expected spm.model for BLEURT-20 or vocab.txt)")


class BleurtRegressor:
    """bleurt-pytorch's ``BleurtForSequenceClassification`` forward pass: encoder, pooler, ``classifier`` (one
    output)."""

    def __init__(self, folder: str | Path, device: str = "cpu") -> None:
        import torch

        from .encoder import EncoderConfig, TransformerEncoder, load_encoder_weights

        folder = Path(folder)
        cfg_path = folder / "config.json"
        cfg = parse_json(cfg_path.read_text(encoding="utf-8"), path=cfg_path)
        labels = int(cfg.get("num_labels", len(cfg.get("id2label", {})) or 1))
        if labels != 1:
            raise ValueError(
                f"BLEURT: {folder} has {labels} outputs; a regression checkpoint has exactly 1 (num_labels=1)"
            )
        # bleurt-pytorch's BleurtConfig defaults (BERT's) for fields a config.json may omit
        config = EncoderConfig.from_json(
            cfg,
            cfg_path,
            what="BLEURT",
            embedding_field="embedding_size",
            pooler=True,
            defaults={"type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu", "pad_token_id": 0},
        )
        self.net = TransformerEncoder(config)
        self.head = torch.nn.Linear(config.hidden_size, 1)
        raw = _read_weights(folder)
        source = str(folder)
        load_encoder_weights(
            self.net,
            raw,
            prefix="bleurt.",
            renames={"encoder.embedding_projection.": "projection."},
            what="BLEURT",
            source=source,
        )
        head = {k: raw.get("classifier." + k) for k in ("weight", "bias")}
        for k, v in head.items():
            if v is None:
                raise ValueError(
                    f"BLEURT: {source} lacks weight 'classifier.{k}'; is it a bleurt-pytorch "
                    "BleurtForSequenceClassification checkpoint?"
                )
            want = tuple(getattr(self.head, k).shape)
            if tuple(v.shape) != want:
                raise ValueError(
                    f"BLEURT: {source}: weight 'classifier.{k}' has shape {tuple(v.shape)}, expected {want} (one "
                    "regression output)"
                )
        self.head.load_state_dict(head)
        self.net.to(device).eval()
        self.head.to(device).eval()
        self.tokenizer = _tokenizer(folder)
        self.max_positions, self.device, self.folder = config.max_positions, device, str(folder)

    def score(
        self, references: Sequence[str], candidates: Sequence[str], batch_size: int = 16, max_length: int | None = None
    ) -> np.ndarray:
        """The regression output for each (reference, candidate) pair, truncated to the checkpoint's positions."""
        import torch

        limit = min(max_length or self.max_positions, self.max_positions)
        out = np.empty(len(candidates))
        for start in range(0, len(candidates), batch_size):
            refs, cands = list(references[start : start + batch_size]), list(candidates[start : start + batch_size])
            enc = self.tokenizer(refs, cands, padding=True, truncation=True, max_length=limit, return_tensors="pt")
            with torch.no_grad():
                states = self.net(
                    enc["input_ids"].to(self.device),
                    enc["attention_mask"].to(self.device),
                    enc["token_type_ids"].to(self.device),
                )
                out[start : start + len(cands)] = self.head(self.net.pooled(states[-1]))[:, 0].double().cpu().numpy()
        return out


def load_bleurt(folder: str | Path, device: str = "cpu") -> BleurtRegressor:
    """A bleurt-pytorch folder (config.json with model_type "bleurt", weights, tokenizer files)."""
    return BleurtRegressor(folder, device)
