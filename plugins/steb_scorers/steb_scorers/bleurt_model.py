"""BLEURT checkpoints in the ``bleurt-pytorch`` format (``model_type: "bleurt"``), run on transformers 5.

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

The layers themselves are transformers' ``BertModel`` (only its embeddings are replaced), so attention and
masking are the library's. ``spm.model`` is read with protobuf through transformers' copy of the
SentencePiece schema (the ``sentencepiece`` package is not needed); only unigram models are supported, as
transformers itself builds them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["BleurtRegressor", "is_bleurt_folder", "load_bleurt", "spm_tokenizer"]

_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def is_bleurt_folder(folder: str | Path) -> bool:
    """Whether ``folder/config.json`` declares ``model_type: "bleurt"`` (the bleurt-pytorch format)."""
    path = Path(folder) / "config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("model_type") == "bleurt"
    except (OSError, ValueError, AttributeError):
        return False


def _embeddings_module(vocab: int, positions: int, types: int, width: int | None, hidden: int, eps: float, pad: int) -> Any:
    """``width`` None: no factorised embedding (the BERT-based BLEURT checkpoints), no projection."""
    import torch
    from torch import nn

    class BleurtEmbeddings(nn.Module):
        """Word + segment + absolute position embeddings, LayerNorm, then the projection to the hidden size."""

        def __init__(self) -> None:
            super().__init__()
            size = hidden if width is None else width
            self.word_embeddings = nn.Embedding(vocab, size, padding_idx=pad)
            self.position_embeddings = nn.Embedding(positions, size)
            self.token_type_embeddings = nn.Embedding(types, size)
            self.LayerNorm = nn.LayerNorm(size, eps=eps)
            self.projection = nn.Identity() if width is None else nn.Linear(width, hidden)

        def forward(self, input_ids: Any = None, token_type_ids: Any = None, position_ids: Any = None, inputs_embeds: Any = None,
                    past_key_values_length: int = 0) -> Any:
            x = self.word_embeddings(input_ids) if inputs_embeds is None else inputs_embeds
            length = x.shape[1]
            if position_ids is None:
                position_ids = torch.arange(past_key_values_length, past_key_values_length + length, device=x.device).unsqueeze(0)
            if token_type_ids is None:
                token_type_ids = torch.zeros(x.shape[:2], dtype=torch.long, device=x.device)
            x = x + self.token_type_embeddings(token_type_ids) + self.position_embeddings(position_ids)
            return self.projection(self.LayerNorm(x))

    return BleurtEmbeddings()


def _read_weights(folder: Path) -> dict:
    import torch

    for name in _WEIGHTS:
        path = folder / name
        if path.is_file():
            if name.endswith(".safetensors"):
                from safetensors.torch import load_file

                return load_file(str(path))
            return torch.load(str(path), map_location="cpu", weights_only=True)
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
    except Exception as exc:
        raise ValueError(f"BLEURT: {path} is not a SentencePiece model: {exc}") from None
    if proto.trainer_spec.model_type != 1:  # 1 = UNIGRAM in sentencepiece_model.proto
        raise ValueError(f"BLEURT: {path} is not a unigram SentencePiece model (model_type {proto.trainer_spec.model_type}); "
                         f"reading it needs the sentencepiece package")
    vocab = [(p.piece, float(p.score)) for p in proto.pieces]
    specials = {k: settings[k] for k in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
                if isinstance(settings.get(k), str)}
    tok = DebertaV2Tokenizer(vocab=vocab, unk_id=int(proto.trainer_spec.unk_id), do_lower_case=bool(settings.get("do_lower_case", False)),
                             split_by_punct=bool(settings.get("split_by_punct", False)), **specials)
    charsmap = bytes(proto.normalizer_spec.precompiled_charsmap)
    if charsmap:  # the model's own normalisation (e.g. nmt_nfkc), as SentencePiece applies it before DeBERTa's rules
        tok.backend_tokenizer.normalizer = normalizers.Sequence([normalizers.Precompiled(charsmap), tok.backend_tokenizer.normalizer])
    return tok


def _tokenizer(folder: Path) -> Any:
    cfg_path = folder / "tokenizer_config.json"
    settings: dict = {}
    if cfg_path.is_file():
        settings = json.loads(cfg_path.read_text(encoding="utf-8"))
    special_path = folder / "special_tokens_map.json"
    if special_path.is_file():
        for k, v in json.loads(special_path.read_text(encoding="utf-8")).items():
            settings.setdefault(k, v["content"] if isinstance(v, dict) else v)
    if (folder / "spm.model").is_file():
        return spm_tokenizer(folder, settings)
    if (folder / "vocab.txt").is_file():
        from transformers import BertTokenizer

        return BertTokenizer(vocab=str(folder / "vocab.txt"), do_lower_case=bool(settings.get("do_lower_case", True)))
    raise FileNotFoundError(f"BLEURT: no tokenizer in {folder} (expected spm.model for BLEURT-20 or vocab.txt)")


class BleurtRegressor:
    """The bleurt-pytorch ``BleurtForSequenceClassification`` forward pass on transformers 5's BertModel."""

    def __init__(self, folder: str | Path, device: str = "cpu") -> None:
        import torch
        from transformers import BertConfig, BertModel

        folder = Path(folder)
        cfg_path = folder / "config.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))

        def need(name: str) -> int:
            value = cfg.get(name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"BLEURT: {cfg_path}, field '{name}': expected a positive integer (got {value!r})")
            return value

        hidden, labels = need("hidden_size"), int(cfg.get("num_labels", len(cfg.get("id2label", {})) or 1))
        if labels != 1:
            raise ValueError(f"BLEURT: {folder} has {labels} outputs; a regression checkpoint has exactly 1 (num_labels=1)")
        width = cfg.get("embedding_size")
        if width is not None and (not isinstance(width, int) or width <= 0):
            raise ValueError(f"BLEURT: {cfg_path}, field 'embedding_size': expected null or a positive integer (got {width!r})")
        bert = BertConfig(vocab_size=need("vocab_size"), hidden_size=hidden, num_hidden_layers=need("num_hidden_layers"),
                          num_attention_heads=need("num_attention_heads"), intermediate_size=need("intermediate_size"),
                          hidden_act=cfg.get("hidden_act", "gelu"), max_position_embeddings=need("max_position_embeddings"),
                          type_vocab_size=need("type_vocab_size"), layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
                          pad_token_id=int(cfg.get("pad_token_id", 0)), hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        self.net = BertModel(bert, add_pooling_layer=True)
        self.net.embeddings = _embeddings_module(bert.vocab_size, bert.max_position_embeddings, bert.type_vocab_size, width,
                                                 hidden, bert.layer_norm_eps, bert.pad_token_id)
        self.head = torch.nn.Linear(hidden, 1)

        raw = _read_weights(folder)
        body: dict = {}
        for key, value in raw.items():
            if key.startswith("bleurt."):
                key = key[len("bleurt."):].replace("encoder.embedding_projection.", "embeddings.projection.")
                if key != "embeddings.position_ids":
                    body[key] = value
        want = self.net.state_dict()
        missing = [k for k in want if k not in body]
        missing += [k for k in ("classifier.weight", "classifier.bias") if k not in raw]
        if missing:
            shown = missing[0] if missing[0].startswith("classifier") else "bleurt." + missing[0].replace("embeddings.projection.", "encoder.embedding_projection.")
            raise ValueError(f"BLEURT: {folder} lacks weight '{shown}' ({len(missing)} missing); is it a bleurt-pytorch checkpoint matching its config.json?")
        for k, v in body.items():
            if k in want and tuple(want[k].shape) != tuple(v.shape):
                raise ValueError(f"BLEURT: {folder}: weight '{k}' has shape {tuple(v.shape)}, config.json implies {tuple(want[k].shape)}")
        self.net.load_state_dict({k: v for k, v in body.items() if k in want})
        self.head.load_state_dict({"weight": raw["classifier.weight"], "bias": raw["classifier.bias"]})
        self.net.to(device).eval()
        self.head.to(device).eval()
        self.tokenizer = _tokenizer(folder)
        self.max_positions, self.device, self.folder = bert.max_position_embeddings, device, str(folder)

    def score(self, references: Sequence[str], candidates: Sequence[str], batch_size: int = 16, max_length: int | None = None) -> np.ndarray:
        """The regression output for each (reference, candidate) pair, truncated to the checkpoint's positions."""
        import torch

        limit = min(max_length or self.max_positions, self.max_positions)
        out = np.empty(len(candidates))
        for start in range(0, len(candidates), batch_size):
            refs, cands = list(references[start: start + batch_size]), list(candidates[start: start + batch_size])
            enc = self.tokenizer(refs, cands, padding=True, truncation=True, max_length=limit, return_tensors="pt")
            with torch.no_grad():
                pooled = self.net(input_ids=enc["input_ids"].to(self.device), attention_mask=enc["attention_mask"].to(self.device),
                                  token_type_ids=enc["token_type_ids"].to(self.device)).pooler_output
                out[start: start + len(cands)] = self.head(pooled)[:, 0].double().cpu().numpy()
        return out


def load_bleurt(folder: str | Path, device: str = "cpu") -> BleurtRegressor:
    """A bleurt-pytorch folder (config.json with model_type "bleurt", weights, tokenizer files)."""
    return BleurtRegressor(folder, device)
