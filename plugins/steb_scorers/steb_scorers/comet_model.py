"""COMET's reference-based regression estimator, run on transformers 5 without unbabel-comet.

COMET (Rei et al. 2020, "COMET: A Neural Framework for MT Evaluation", Sec. 2.4 "Estimator model";
Rei et al. 2022, "COMET-22", for ``Unbabel/wmt22-comet-da``) encodes source, hypothesis and reference
*separately* with a pretrained multilingual encoder, mixes the encoder's layers, pools each text into one
vector and feeds ``[h; r; h*r; |h-r|; h*s; |h-s|]`` to a feed-forward regressor.

The facts below were read from Unbabel/COMET at commit da61b810ea06f67bbd5d96031f55082167a16e80 (the
code unbabel-comet 2.2.7 ships); this module is written from them, not copied:

- ``comet/models/__init__.py`` (``load_from_checkpoint``): a model is ``FOLDER/checkpoints/model.ckpt`` (a
  PyTorch-Lightning checkpoint: ``state_dict`` and, when Lightning saved them, ``hyper_parameters``) with
  ``FOLDER/hparams.yaml``; ``class_identifier`` in the yaml picks the class; the model is rebuilt from the
  checkpoint's own hyper-parameters (the yaml is not reloaded), *except* that ``layer_transformation:
  sparsemax_patch`` in the yaml means softmax (the #244 workaround, commit 01049f1). The encoder is built from
  ``pretrained_model``'s config and tokenizer only (``load_pretrained_weights=False``): its weights come from
  the checkpoint.
- ``comet/encoders/{xlmr,bert,minilm,xlmr_xl,rembert}.py``: encoder classes by ``encoder_model``; all hidden
  states (embedding output + every layer: ``num_hidden_layers + 1`` tensors) feed the mix; texts are
  tokenised one at a time (``<s> text </s>``), truncated to ``max_position_embeddings - 4`` tokens.
- ``comet/modules/layerwise_attention.py``: ``gamma * sum_k w_k * H_k`` with ``w = softmax(s)`` or
  ``sparsemax(s)`` over the per-layer scalars; with ``layer_norm`` each ``H_k`` is first normalised per
  sentence over all its non-padding positions and dimensions (no affine, eps 1e-12).
- ``comet/models/pooling_utils.py``: average pooling sums the token vectors whose id is not the pad id and
  divides by the attention-mask count; max pooling takes the maximum over non-pad tokens; ``cls`` the first.
- ``comet/models/regression/regression_metric.py`` and ``comet/modules/feedforward.py``: the features above
  (in that order), then ``Linear -> activation -> Dropout`` per hidden size, a final ``Linear(., 1)`` and the
  optional final activation (``activations.title()`` names a ``torch.nn`` class); the segment score is its
  output and the system score the mean.

Only ``regression_metric`` (wmt20-comet-da, wmt22-comet-da and other reference-based DA models) is
implemented. ``referenceless_regression_metric`` (wmt20/21 QE models), ``unified_metric``
(``wmt22-cometkiwi-da``, ``wmt23-cometkiwi-da-*``), ``xcomet_metric`` (XCOMET) and ``ranking_metric`` raise
:class:`UnsupportedCometModel` naming the class found.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from .checkpoints import resolve_pretrained

__all__ = ["CometHParams", "CometRegression", "UnsupportedCometModel", "load_comet", "read_hparams", "sparsemax", "load_lightning_checkpoint"]

#: COMET's ``encoder_model`` names and the transformers model class that holds the same weights
ENCODERS: Mapping[str, str] = {
    "XLM-RoBERTa": "XLMRobertaModel",
    "BERT": "BertModel",
    "MiniLM": "BertModel",          # COMET's MiniLM encoder is a BertModel with an XLM-R tokenizer
    "XLM-RoBERTa-XL": "XLMRobertaXLModel",
    "RemBERT": "RemBertModel",
}
OTHER_CLASSES: Mapping[str, str] = {
    "referenceless_regression_metric": "ReferencelessRegression (QE without a reference, e.g. wmt20/wmt21 comet-qe)",
    "unified_metric": "UnifiedMetric (e.g. Unbabel/wmt22-cometkiwi-da, wmt23-cometkiwi-da-xl/xxl)",
    "xcomet_metric": "XCOMETMetric (e.g. Unbabel/XCOMET-XL/XXL)",
    "ranking_metric": "RankingMetric (wmt21-comet-rank style)",
}
_POOLS = ("avg", "max", "cls")
_TRANSFORMS = ("softmax", "sparsemax", "sparsemax_patch")


class UnsupportedCometModel(NotImplementedError):
    """A COMET checkpoint of a class this re-implementation does not cover."""


def sparsemax(scores: "Any") -> "Any":
    """Sparsemax of a 1-D tensor (Martins & Astudillo 2016, "From Softmax to Sparsemax", Alg. 1).

    The Euclidean projection onto the probability simplex: sort descending, keep the largest ``k`` with
    ``1 + k z_(k) > sum_{j<=k} z_(j)``, threshold ``tau = (sum_{j<=k} z_(j) - 1) / k``, ``p = max(z - tau, 0)``.
    """
    import torch

    z = scores.double()
    ordered, _ = torch.sort(z, descending=True)
    k = torch.arange(1, z.numel() + 1, dtype=z.dtype, device=z.device)
    cumulative = torch.cumsum(ordered, 0)
    support = (1 + k * ordered) > cumulative
    k_max = int(support.nonzero().max()) + 1
    tau = (cumulative[k_max - 1] - 1) / k_max
    return torch.clamp(z - tau, min=0).to(scores.dtype)


# -- reading the published files ----------------------------------------------------------------


class _Stub:
    """Stands in for any non-tensor object a Lightning checkpoint pickles (callback states, paths, ...)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def __setitem__(self, key: Any, value: Any) -> None:  # dict subclasses are rebuilt item by item
        self.__dict__.setdefault("items", {})[key] = value

    def append(self, value: Any) -> None:  # list subclasses likewise
        self.__dict__.setdefault("values", []).append(value)

    def extend(self, values: Any) -> None:
        self.__dict__.setdefault("values", []).extend(values)

    def __call__(self, *args: Any, **kwargs: Any) -> "_Stub":
        return _Stub(*args)


class _StubUnpickler(pickle.Unpickler):
    """Unpickles tensors and plain containers; every other global becomes :class:`_Stub` (nothing is executed)."""

    _ALLOWED = {("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "slice"),
                ("torch", "Size"), ("torch", "device"), ("torch._utils", "_rebuild_tensor_v2"), ("torch._utils", "_rebuild_parameter"),
                ("torch._utils", "_rebuild_tensor"), ("torch.serialization", "_get_layout")}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._ALLOWED or (module == "torch" and (name.endswith("Storage") or name in {"float32", "float16", "bfloat16", "int64"})) \
                or module == "torch.storage":
            return super().find_class(module, name)
        return _Stub


class _StubPickle:
    Unpickler = _StubUnpickler
    load = staticmethod(lambda f, **kw: _StubUnpickler(f, **kw).load())


def load_lightning_checkpoint(path: str | Path) -> dict:
    """A PyTorch-Lightning ``.ckpt`` as a dict, without running code from it.

    ``torch.load(weights_only=True)`` first; if the file pickles other objects (Lightning stores callback
    states, sometimes paths or namespaces), they are replaced by inert stubs instead of being imported.
    """
    import torch

    try:
        return torch.load(str(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        return torch.load(str(path), map_location="cpu", weights_only=False, pickle_module=_StubPickle)


def read_hparams(folder: Path) -> tuple[dict, Path]:
    """``FOLDER/hparams.yaml`` as a dict (errors name the file)."""
    import yaml

    path = folder / "hparams.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"COMET: {path} is missing (a COMET model folder holds hparams.yaml and checkpoints/model.ckpt)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"COMET: {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"COMET: {path} must be a mapping of hyper-parameters, got {type(data).__name__}")
    return data, path


@dataclass(frozen=True)
class CometHParams:
    """The hyper-parameters that shape the forward pass, validated."""

    encoder_model: str
    pretrained_model: str
    layer: str | int
    layer_transformation: str
    layer_norm: bool
    pool: str
    hidden_sizes: tuple[int, ...]
    activations: str
    final_activation: str | None

    @classmethod
    def parse(cls, yaml_hp: Mapping[str, Any], yaml_path: Path, ckpt_hp: Mapping[str, Any] | None, ckpt_path: Path) -> "CometHParams":
        """As unbabel-comet: the class from the yaml, everything else from the checkpoint when it has it.

        When the ``.ckpt`` holds no ``hyper_parameters`` the yaml's values are used (unbabel-comet would fall
        back to its classes' defaults there; Lightning normally saves both, with the same values). Errors name
        the file a value came from and the field.
        """
        klass = yaml_hp.get("class_identifier")
        if klass is None:
            raise ValueError(f"COMET: {yaml_path}, field 'class_identifier': missing (expected 'regression_metric')")
        if klass != "regression_metric":
            what = OTHER_CLASSES.get(str(klass), "an unknown COMET class")
            raise UnsupportedCometModel(f"COMET: {yaml_path} has class_identifier '{klass}' ({what}); steb implements only "
                                        f"'regression_metric' (reference-based models such as Unbabel/wmt22-comet-da)")
        merged: dict[str, Any] = dict(yaml_hp)
        origin = {k: yaml_path for k in merged}
        for key, value in dict(ckpt_hp or {}).items():
            merged[key] = value
            origin[key] = ckpt_path
        if yaml_hp.get("layer_transformation") == "sparsemax_patch":
            merged["layer_transformation"], origin["layer_transformation"] = "softmax", yaml_path
        defaults = {"encoder_model": "XLM-RoBERTa", "pretrained_model": "xlm-roberta-large", "layer": "mix", "layer_transformation": "softmax",
                    "layer_norm": True, "pool": "avg", "hidden_sizes": [3072, 1024], "activations": "Tanh", "final_activation": None}

        def field(name: str) -> Any:
            return merged.get(name, defaults[name])

        def bad(name: str, why: str) -> ValueError:
            return ValueError(f"COMET: {origin.get(name, yaml_path)}, field '{name}': {why} (got {merged.get(name)!r})")

        encoder = field("encoder_model")
        if encoder not in ENCODERS:
            raise bad("encoder_model", f"expected one of {', '.join(ENCODERS)}")
        pretrained = field("pretrained_model")
        if not isinstance(pretrained, str) or not pretrained:
            raise bad("pretrained_model", "expected a hub id or a folder")
        layer = field("layer")
        if not (layer == "mix" or (isinstance(layer, int) and not isinstance(layer, bool) and layer >= 0)):
            raise bad("layer", "expected 'mix' or a layer number")
        transform = field("layer_transformation")
        if transform not in _TRANSFORMS:
            raise bad("layer_transformation", f"expected one of {', '.join(_TRANSFORMS)}")
        layer_norm = field("layer_norm")
        if not isinstance(layer_norm, bool):
            raise bad("layer_norm", "expected true or false")
        pool = field("pool")
        if pool not in _POOLS:
            raise bad("pool", f"expected one of {', '.join(_POOLS)}")
        sizes = field("hidden_sizes")
        if not (isinstance(sizes, (list, tuple)) and sizes and all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes)):
            raise bad("hidden_sizes", "expected a non-empty list of positive integers")
        import torch

        act = field("activations")
        if not isinstance(act, str) or not hasattr(torch.nn, act.title()):
            raise bad("activations", "expected the name of a torch.nn activation (e.g. Tanh)")
        final = field("final_activation")
        if final is not None and (not isinstance(final, str) or not hasattr(torch.nn, final.title())):
            raise bad("final_activation", "expected null or the name of a torch.nn activation (e.g. Sigmoid)")
        return cls(encoder, pretrained, layer, "softmax" if transform == "sparsemax_patch" else transform, layer_norm, pool,
                   tuple(sizes), act, final)


# -- the model ---------------------------------------------------------------------------------


def _load_encoder(hp: CometHParams, folder: str) -> tuple[Any, Any]:
    """The encoder skeleton (config only, weights come from the COMET checkpoint) and its tokenizer."""
    import transformers
    from transformers import AutoConfig, AutoTokenizer

    config = AutoConfig.from_pretrained(folder, local_files_only=True)
    model = getattr(transformers, ENCODERS[hp.encoder_model])(config, add_pooling_layer=False)
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    except Exception as exc:
        raise ValueError(f"COMET: no usable tokenizer in {folder} for pretrained_model '{hp.pretrained_model}' "
                         f"(tokenizer.json from the hub snapshot is needed): {exc}") from None
    return model, tokenizer


class CometRegression:
    """The ``regression_metric`` forward pass over an encoder and the checkpoint's mix and estimator weights."""

    def __init__(self, hp: CometHParams, state_dict: Mapping[str, Any], encoder_folder: str, ckpt: Path, device: str = "cpu") -> None:
        import torch
        from torch import nn

        self.hp, self.device = hp, device
        self.encoder, self.tokenizer = _load_encoder(hp, encoder_folder)
        self.num_layers = int(self.encoder.config.num_hidden_layers) + 1
        self.max_tokens = int(self.encoder.config.max_position_embeddings) - 4
        enc_sd = {k[len("encoder.model."):]: v for k, v in state_dict.items() if k.startswith("encoder.model.")}
        own = self.encoder.state_dict()
        missing = sorted(k for k in own if k not in enc_sd and not k.endswith("position_ids"))
        if missing:
            raise ValueError(f"COMET: {ckpt} lacks encoder weights for {hp.encoder_model} ({len(missing)} missing, e.g. "
                             f"'encoder.model.{missing[0]}'); is pretrained_model '{hp.pretrained_model}' the encoder it was trained with?")
        for k, v in enc_sd.items():
            if k in own and tuple(own[k].shape) != tuple(v.shape):
                raise ValueError(f"COMET: {ckpt}: 'encoder.model.{k}' has shape {tuple(v.shape)} but the config of "
                                 f"'{hp.pretrained_model}' gives {tuple(own[k].shape)}")
        self.encoder.load_state_dict({k: v for k, v in enc_sd.items() if k in own}, strict=False)
        self.encoder.to(device).eval()

        if hp.layer == "mix":
            keys = [f"layerwise_attention.scalar_parameters.{i}" for i in range(self.num_layers)]
            absent = [k for k in keys + ["layerwise_attention.gamma"] if k not in state_dict]
            if absent:
                raise ValueError(f"COMET: {ckpt} lacks '{absent[0]}' (layer: mix over {self.num_layers} layers)")
            self.mix_scalars = torch.cat([state_dict[k].reshape(-1).float() for k in keys]).to(device)
            self.gamma = state_dict["layerwise_attention.gamma"].reshape(()).float().to(device)
        elif hp.layer >= self.num_layers:
            raise ValueError(f"COMET: field 'layer' is {hp.layer} but the encoder has {self.num_layers} hidden states")

        modules: list[Any] = []
        width = 6 * int(self.encoder.config.hidden_size)
        for size in hp.hidden_sizes:
            modules += [nn.Linear(width, size), getattr(nn, hp.activations.title())(), nn.Identity()]  # Identity: Dropout's slot
            width = size
        modules.append(nn.Linear(width, 1))
        if hp.final_activation is not None:
            modules.append(getattr(nn, hp.final_activation.title())())
        self.estimator = nn.Sequential(*modules)
        est_sd = {k[len("estimator.ff."):]: v for k, v in state_dict.items() if k.startswith("estimator.ff.")}
        need = self.estimator.state_dict()
        gaps = [k for k in need if k not in est_sd or tuple(est_sd[k].shape) != tuple(need[k].shape)]
        if gaps:
            got = tuple(est_sd[gaps[0]].shape) if gaps[0] in est_sd else "absent"
            raise ValueError(f"COMET: {ckpt}: 'estimator.ff.{gaps[0]}' is {got}, expected {tuple(need[gaps[0]].shape)} "
                             f"from hidden_sizes {list(hp.hidden_sizes)}")
        self.estimator.load_state_dict({k: est_sd[k] for k in need})
        self.estimator.to(device).eval()

    # the three steps of CometModel.compute_sentence_embedding
    def _mix(self, layers: Sequence[Any], mask: Any) -> Any:
        import torch

        if self.hp.layer != "mix":
            return layers[self.hp.layer]
        weights = torch.softmax(self.mix_scalars, 0) if self.hp.layer_transformation == "softmax" else sparsemax(self.mix_scalars)
        m = mask.unsqueeze(-1).to(layers[0].dtype)
        total = None
        for w, h in zip(weights, layers):
            if self.hp.layer_norm:
                count = m.sum((1, 2), keepdim=True) * h.shape[-1]
                mean = (h * m).sum((1, 2), keepdim=True) / count
                var = (((h - mean) * m) ** 2).sum((1, 2), keepdim=True) / count
                h = (h - mean) / torch.sqrt(var + 1e-12)
            total = w * h if total is None else total + w * h
        return self.gamma * total

    def _pool(self, ids: Any, hidden: Any, mask: Any) -> Any:
        keep = ids.ne(self.tokenizer.pad_token_id).unsqueeze(-1)
        if self.hp.pool == "avg":
            return hidden.masked_fill(~keep, 0.0).sum(1) / mask.sum(1, keepdim=True).to(hidden.dtype)
        if self.hp.pool == "max":
            return hidden.masked_fill(~keep, float("-inf")).max(1).values
        return hidden[:, 0, :]

    def embed(self, texts: Sequence[str]) -> Any:
        """One pooled vector per text, each text encoded on its own (padded in the batch)."""
        import torch

        enc = self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt")
        ids, mask = enc["input_ids"].to(self.device), enc["attention_mask"].to(self.device)
        with torch.no_grad():
            layers = self.encoder(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states
            return self._pool(ids, self._mix(layers, mask), mask)

    def predict(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[str], batch_size: int = 16) -> np.ndarray:
        """Segment scores (RegressionMetric.estimate): features [h, r, h*r, |h-r|, h*s, |h-s|] through the estimator."""
        import torch

        out = np.empty(len(hypotheses))
        for start in range(0, len(hypotheses), batch_size):
            stop = start + batch_size
            s, h, r = self.embed(sources[start:stop]), self.embed(hypotheses[start:stop]), self.embed(references[start:stop])
            features = torch.cat((h, r, h * r, (h - r).abs(), h * s, (h - s).abs()), dim=1)
            with torch.no_grad():
                out[start: start + len(h)] = self.estimator(features).view(-1).double().cpu().numpy()
        return out


def load_comet(ckpt: Path, encoder: str | None = None, device: str = "cpu") -> CometRegression:
    """A COMET model from ``FOLDER/checkpoints/model.ckpt`` and ``FOLDER/hparams.yaml`` (the hub snapshot layout).

    ``encoder`` overrides the hparams' ``pretrained_model`` (a folder or a cached hub id holding its config and
    tokenizer; its weights are not read).
    """
    ckpt = Path(ckpt)
    yaml_hp, yaml_path = read_hparams(ckpt.parent.parent)
    blob = load_lightning_checkpoint(ckpt)
    if not isinstance(blob, dict) or not isinstance(blob.get("state_dict"), dict):
        raise ValueError(f"COMET: {ckpt} is not a PyTorch-Lightning checkpoint (no 'state_dict')")
    ckpt_hp = blob.get("hyper_parameters")
    hp = CometHParams.parse(yaml_hp, yaml_path, ckpt_hp if isinstance(ckpt_hp, dict) else None, ckpt)
    folder = resolve_pretrained(encoder or hp.pretrained_model, f"COMET encoder (pretrained_model of {yaml_path})",
                                files="config.json tokenizer.json tokenizer_config.json sentencepiece.bpe.model")
    return CometRegression(hp, blob["state_dict"], folder, ckpt, device)
