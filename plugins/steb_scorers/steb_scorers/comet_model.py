"""COMET's reference-based regression estimator, run without unbabel-comet or transformers' model classes.

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
  tokenised one at a time (``<s> text </s>``), truncated to ``max_position_embeddings - 4`` tokens. The
  encoders are transformers' XLM-R, BERT, XLM-R XL and RemBERT models; here they are
  :class:`steb_scorers.encoder.TransformerEncoder` (plain torch) with the checkpoint's ``encoder.model.*``
  weights loaded by name, so a transformers release cannot change the forward pass. The tokenizer is the
  ``pretrained_model`` folder's ``tokenizer.json`` (:mod:`steb_scorers.tokenizer_files`; ``AutoTokenizer`` without
  one). unbabel-comet's MiniLM encoder always takes the tokenizer of ``xlm-roberta-base``; steb takes the
  ``pretrained_model`` folder's (Multilingual-MiniLM ships XLM-R's vocabulary).
- Reading ``model.ckpt``: ``torch.load(weights_only=True)`` with inert stand-ins for the few Lightning /
  pathlib / argparse names a Lightning checkpoint pickles (:func:`load_lightning_checkpoint`); nothing else.
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import parse_json, unsafe_pickle_reason

from .checkpoints import resolve_pretrained

__all__ = [
    "CometHParams",
    "CometRegression",
    "UnsupportedCometModel",
    "load_comet",
    "read_hparams",
    "sparsemax",
    "load_lightning_checkpoint",
]

#: COMET's ``encoder_model`` names -> how its checkpoint lays the encoder out (see :mod:`steb_scorers.encoder`).
#: MiniLM is a BERT with XLM-R's tokenizer; the tokenizer always comes from the ``pretrained_model`` folder.
ENCODERS: Mapping[str, Mapping[str, Any]] = {
    "XLM-RoBERTa": {
        "roberta_positions": True,
        "defaults": {"pad_token_id": 1, "type_vocab_size": 2, "layer_norm_eps": 1e-12},
    },
    "BERT": {"defaults": {"pad_token_id": 0, "type_vocab_size": 2, "layer_norm_eps": 1e-12}},
    "MiniLM": {"defaults": {"pad_token_id": 0, "type_vocab_size": 2, "layer_norm_eps": 1e-12}},
    "XLM-RoBERTa-XL": {
        "roberta_positions": True,
        "pre_norm": True,
        "defaults": {"pad_token_id": 1, "type_vocab_size": 1, "layer_norm_eps": 1e-5},
    },
    "RemBERT": {
        "embedding_field": "input_embedding_size",
        "renames": {"encoder.embedding_hidden_mapping_in.": "projection."},
        "defaults": {"pad_token_id": 0, "type_vocab_size": 2, "layer_norm_eps": 1e-12, "input_embedding_size": 256},
    },
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


def sparsemax(scores: Any) -> Any:
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


class _Namespace:
    """Inert stand-in for ``argparse.Namespace`` (older Lightning checkpoints pickle hyper-parameters as one)."""


class _AttributeDict:
    """Stand-in for Lightning's ``AttributeDict`` (a dict subclass): creating one gives a plain dict, which the
    pickle's own items then fill (the weights-only unpickler sets items on plain dicts only)."""

    def __new__(cls, *args: Any) -> dict[Any, Any]:  # type: ignore[misc]
        return dict(*args)


def _path_text(*parts: Any) -> str:
    """Stand-in for ``pathlib`` paths in callback states: their text, never a live path object."""
    return "/".join(str(p) for p in parts).replace("//", "/")


#: the only non-tensor globals a Lightning checkpoint may reference, each mapped to an inert stand-in.
#: Everything else (``torch.storage._load_from_bytes`` -- a nested ``torch.load(weights_only=False)`` --,
#: ``os.system``, ``builtins.eval``, ...) is refused by torch's weights-only unpickler.
_CHECKPOINT_STAND_INS: tuple[tuple[Any, str], ...] = (
    *(
        (_AttributeDict, f"{module}.AttributeDict")
        for module in (
            "pytorch_lightning.utilities.parsing",
            "lightning.pytorch.utilities.parsing",
            "lightning.fabric.utilities.data",
            "lightning_fabric.utilities.data",
        )
    ),
    *(
        (_path_text, f"pathlib.{name}")
        for name in ("Path", "PosixPath", "WindowsPath", "PurePath", "PurePosixPath", "PureWindowsPath")
    ),
    (_Namespace, "argparse.Namespace"),
)


def load_lightning_checkpoint(path: str | Path) -> dict[str, Any]:
    """A PyTorch-Lightning ``.ckpt`` as a dict, without running code from it.

    Always ``torch.load(weights_only=True)``: tensors, plain containers and the few Lightning / pathlib /
    argparse names of :data:`_CHECKPOINT_STAND_INS`, each replaced by an inert stand-in (a dict, a string, an
    attribute bag). A checkpoint that pickles anything else is refused with a ``ValueError`` naming the file
    and what torch refused; nothing from it is imported or called.
    """
    import torch

    try:
        with torch.serialization.safe_globals(list(_CHECKPOINT_STAND_INS)):
            blob = torch.load(str(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        reason = unsafe_pickle_reason(exc)  # e.g. "the global torch.storage._load_from_bytes", or an opcode
        raise ValueError(
            f"COMET: {path} is not a checkpoint steb can read safely: it pickles objects other than tensors, plain "
            f"containers and Lightning's hyper-parameter dicts ({reason}). Nothing from it was run; "
            f"re-save it as {{'state_dict': ..., 'hyper_parameters': ...}} with torch.save if you trust it."
        ) from None
    if not isinstance(blob, dict):
        raise ValueError(
            f"COMET: {path} is not a PyTorch-Lightning checkpoint (a {type(blob).__name__}, expected a dict with "
            "'state_dict')"
        )
    return blob


def read_hparams(folder: Path) -> tuple[dict[str, Any], Path]:
    """``FOLDER/hparams.yaml`` as a dict (errors name the file)."""
    import yaml

    path = folder / "hparams.yaml"
    if not path.is_file():
        raise FileNotFoundError(
            f"COMET: {path} is missing (a COMET model folder holds hparams.yaml and checkpoints/model.ckpt)"
        )
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
    def parse(
        cls, yaml_hp: Mapping[str, Any], yaml_path: Path, ckpt_hp: Mapping[str, Any] | None, ckpt_path: Path
    ) -> CometHParams:
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
            raise UnsupportedCometModel(
                f"COMET: {yaml_path} has class_identifier '{klass}' ({what}); steb implements only "
                f"'regression_metric' (reference-based models such as Unbabel/wmt22-comet-da)"
            )
        merged: dict[str, Any] = dict(yaml_hp)
        origin = {k: yaml_path for k in merged}
        for key, value in dict(ckpt_hp or {}).items():
            merged[key] = value
            origin[key] = ckpt_path
        if yaml_hp.get("layer_transformation") == "sparsemax_patch":
            merged["layer_transformation"], origin["layer_transformation"] = "softmax", yaml_path
        defaults = {
            "encoder_model": "XLM-RoBERTa",
            "pretrained_model": "xlm-roberta-large",
            "layer": "mix",
            "layer_transformation": "softmax",
            "layer_norm": True,
            "pool": "avg",
            "hidden_sizes": [3072, 1024],
            "activations": "Tanh",
            "final_activation": None,
        }

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
        if not (
            isinstance(sizes, (list, tuple))
            and sizes
            and all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes)
        ):
            raise bad("hidden_sizes", "expected a non-empty list of positive integers")
        import torch

        act = field("activations")
        if not isinstance(act, str) or not hasattr(torch.nn, act.title()):
            raise bad("activations", "expected the name of a torch.nn activation (e.g. Tanh)")
        final = field("final_activation")
        if final is not None and (not isinstance(final, str) or not hasattr(torch.nn, final.title())):
            raise bad("final_activation", "expected null or the name of a torch.nn activation (e.g. Sigmoid)")
        return cls(
            encoder,
            pretrained,
            layer,
            "softmax" if transform == "sparsemax_patch" else transform,
            layer_norm,
            pool,
            tuple(sizes),
            act,
            final,
        )


# -- the model ---------------------------------------------------------------------------------


def _load_encoder(hp: CometHParams, folder: str, state_dict: Mapping[str, Any], ckpt: Path) -> tuple[Any, Any]:
    """The encoder (shape from ``folder/config.json``, weights from the COMET checkpoint) and its tokenizer."""

    from transformers import AutoTokenizer

    from .encoder import EncoderConfig, TransformerEncoder, load_encoder_weights
    from .tokenizer_files import json_tokenizer

    layout = dict(ENCODERS[hp.encoder_model])
    cfg_path = Path(folder) / "config.json"
    try:
        cfg = parse_json(cfg_path.read_text(encoding="utf-8"), path=cfg_path)
    except OSError:
        raise FileNotFoundError(
            f"COMET: {cfg_path} is missing (the encoder's config.json, for pretrained_model '{hp.pretrained_model}')"
        ) from None
    except ValueError as exc:
        raise ValueError(f"COMET: {cfg_path} is not valid JSON: {exc}") from None
    if not isinstance(cfg, dict):
        raise ValueError(f"COMET: {cfg_path} must be a JSON object")
    config = EncoderConfig.from_json(
        cfg,
        cfg_path,
        what="COMET encoder",
        embedding_field=layout.get("embedding_field"),
        roberta_positions=layout.get("roberta_positions", False),
        pre_norm=layout.get("pre_norm", False),
        defaults=layout["defaults"],
    )
    encoder = TransformerEncoder(config)
    load_encoder_weights(
        encoder,
        state_dict,
        prefix="encoder.model.",
        renames=layout.get("renames", {}),
        what=f"COMET ({hp.encoder_model} encoder of '{hp.pretrained_model}')",
        source=str(ckpt),
    )
    try:
        tokenizer = json_tokenizer(folder, "COMET") or AutoTokenizer.from_pretrained(folder, local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - tokenizer loading raises many types: say which folder
        raise ValueError(
            f"COMET: no usable tokenizer in {folder} for pretrained_model '{hp.pretrained_model}' "
            f"(tokenizer.json from the hub snapshot is needed): {exc}"
        ) from None
    return encoder, tokenizer


class CometRegression:
    """The ``regression_metric`` forward pass over an encoder and the checkpoint's mix and estimator weights."""

    def __init__(
        self, hp: CometHParams, state_dict: Mapping[str, Any], encoder_folder: str, ckpt: Path, device: str = "cpu"
    ) -> None:
        import torch
        from torch import nn

        self.hp, self.device = hp, device
        self.encoder, self.tokenizer = _load_encoder(hp, encoder_folder, state_dict, ckpt)
        self.num_layers = self.encoder.config.num_layers + 1
        # COMET's Encoder.prepare_sample truncates to max_positions - 2, and max_positions is the config's - 2
        self.max_tokens = self.encoder.config.max_positions - 4
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
        width = 6 * self.encoder.config.hidden_size
        for size in hp.hidden_sizes:
            modules += [
                nn.Linear(width, size),
                getattr(nn, hp.activations.title())(),
                nn.Identity(),
            ]  # Identity: Dropout's slot
            width = size
        modules.append(nn.Linear(width, 1))
        if hp.final_activation is not None:
            modules.append(getattr(nn, hp.final_activation.title())())
        self.estimator = nn.Sequential(*modules)
        est_sd = {k[len("estimator.ff.") :]: v for k, v in state_dict.items() if k.startswith("estimator.ff.")}
        need = self.estimator.state_dict()
        gaps = [k for k in need if k not in est_sd or tuple(est_sd[k].shape) != tuple(need[k].shape)]
        if gaps:
            got = tuple(est_sd[gaps[0]].shape) if gaps[0] in est_sd else "absent"
            raise ValueError(
                f"COMET: {ckpt}: 'estimator.ff.{gaps[0]}' is {got}, expected {tuple(need[gaps[0]].shape)} "
                f"from hidden_sizes {list(hp.hidden_sizes)}"
            )
        self.estimator.load_state_dict({k: est_sd[k] for k in need})
        self.estimator.to(device).eval()

    # the three steps of CometModel.compute_sentence_embedding
    def _mix(self, layers: Sequence[Any], mask: Any) -> Any:
        import torch

        if self.hp.layer != "mix":
            if not isinstance(self.hp.layer, int):
                raise ValueError(f"COMET: layer {self.hp.layer!r} is neither 'mix' nor a layer index")
            return layers[self.hp.layer]
        weights = (
            torch.softmax(self.mix_scalars, 0)
            if self.hp.layer_transformation == "softmax"
            else sparsemax(self.mix_scalars)
        )
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

        enc = self.tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt"
        )
        ids, mask = enc["input_ids"].to(self.device), enc["attention_mask"].to(self.device)
        with torch.no_grad():
            layers = self.encoder(ids, mask)
            return self._pool(ids, self._mix(layers, mask), mask)

    def predict(
        self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[str], batch_size: int = 16
    ) -> np.ndarray:
        """Segment scores (RegressionMetric.estimate): features [h, r, h*r, |h-r|, h*s, |h-s|] through the estimator."""
        import torch

        out = np.empty(len(hypotheses))
        for start in range(0, len(hypotheses), batch_size):
            stop = start + batch_size
            s, h, r = (
                self.embed(sources[start:stop]),
                self.embed(hypotheses[start:stop]),
                self.embed(references[start:stop]),
            )
            features = torch.cat((h, r, h * r, (h - r).abs(), h * s, (h - s).abs()), dim=1)
            with torch.no_grad():
                out[start : start + len(h)] = self.estimator(features).view(-1).double().cpu().numpy()
        return out


def load_comet(ckpt: Path, encoder: str | None = None, device: str = "cpu") -> CometRegression:
    """A COMET model from ``FOLDER/checkpoints/model.ckpt`` and ``FOLDER/hparams.yaml`` (the hub snapshot layout).

    ``encoder`` overrides the hparams' ``pretrained_model`` (a folder or a cached hub id holding its config and
    tokenizer; its weights are not read).
    """
    ckpt = Path(ckpt)
    yaml_hp, yaml_path = read_hparams(ckpt.parent.parent)
    blob = load_lightning_checkpoint(ckpt)
    if not isinstance(blob.get("state_dict"), dict):
        raise ValueError(f"COMET: {ckpt} is not a PyTorch-Lightning checkpoint (no 'state_dict')")
    import torch

    odd = next((k for k, v in blob["state_dict"].items() if not isinstance(v, torch.Tensor)), None)
    if odd is not None:
        raise ValueError(
            f"COMET: {ckpt}: state_dict entry '{odd}' is a {type(blob['state_dict'][odd]).__name__}, expected a tensor"
        )
    ckpt_hp = blob.get("hyper_parameters")
    hp = CometHParams.parse(yaml_hp, yaml_path, ckpt_hp if isinstance(ckpt_hp, dict) else None, ckpt)
    folder = resolve_pretrained(
        encoder or hp.pretrained_model,
        f"COMET encoder (pretrained_model of {yaml_path})",
        files="config.json tokenizer.json tokenizer_config.json sentencepiece.bpe.model",
    )
    return CometRegression(hp, blob["state_dict"], folder, ckpt, device)
