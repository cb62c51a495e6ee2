"""The learned and embedding-based metrics Lai et al. (2022) evaluate for formality transfer.

- **WMD** (Kusner et al. 2015, "From Word Embeddings To Document Distances", Sec. 4): the minimum
  cumulative Euclidean distance of moving one text's normalised bag of words onto the other's in a word
  embedding space, solved as an optimal-transport problem with ``pot`` (``ot.emd2``). Embeddings are the
  user's (a word2vec text file or a mapping); out-of-vocabulary tokens are dropped as in the paper.
  Lower is better (Lai et al. report absolute correlations for it).
- **BLEURT** (Sellam et al. 2020, Sec. 3): a BERT-style encoder over the pair (reference, candidate) and a
  linear regression head on the pooled [CLS] representation. BERT conversions (``Elron/bleurt-*``) load as a
  transformers sequence-regression model (``num_labels=1``); the bleurt-pytorch format (``model_type:
  "bleurt"``, e.g. ``lucadiliello/BLEURT-20`` and its D12/D6/D3 distillations) runs through
  :mod:`steb_scorers.bleurt_model`, a plain-torch re-implementation (:mod:`steb_scorers.encoder`).
- **COMET** (Rei et al. 2020, Sec. 2.4; Rei et al. 2022): the reference-based regression estimator
  re-implemented in :mod:`steb_scorers.comet_model` from the published checkpoint layout
  (``checkpoints/model.ckpt`` + ``hparams.yaml``) in plain torch; unbabel-comet is not used. Both are
  cross-checked against the reference packages by ``plugins/steb_scorers/reference/run_crosscheck.sh``.
- **Regression style metric**: a transformers sequence-regression model predicting a formality score
  (Lai et al. use a regressor trained on human formality ratings); the training recipe is not
  reproduced here, any such checkpoint loads.

Nothing is downloaded: hub ids resolve from the local Hugging Face cache or fail with
``ModelNotFoundError`` (see :mod:`steb_scorers.checkpoints`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import Scorer, refusing_unsafe_weights

from .checkpoints import resolve_checkpoint
from .result import ScoreResult, check_aligned, comparison_texts, per_item_styles

__all__ = [
    "BLEURT_CHECKPOINTS",
    "COMET_CHECKPOINTS",
    "load_word_vectors",
    "wmd",
    "WMDScorer",
    "BleurtScorer",
    "CometScorer",
    "RegressionStyleScorer",
]

#: PyTorch conversions of the original BLEURT checkpoints, by short name: BERT-based (transformers' BERT
#: format) and BLEURT-20 (bleurt-pytorch format, run by :mod:`steb_scorers.bleurt_model`)
BLEURT_CHECKPOINTS: Mapping[str, str] = {
    "bleurt-tiny-512": "Elron/bleurt-tiny-512",
    "bleurt-base-128": "Elron/bleurt-base-128",
    "bleurt-base-512": "Elron/bleurt-base-512",
    "bleurt-large-512": "Elron/bleurt-large-512",
    "BLEURT-20": "lucadiliello/BLEURT-20",
    "BLEURT-20-D12": "lucadiliello/BLEURT-20-D12",
    "BLEURT-20-D6": "lucadiliello/BLEURT-20-D6",
    "BLEURT-20-D3": "lucadiliello/BLEURT-20-D3",
}
#: reference-based COMET regression checkpoints on the hub (run by :mod:`steb_scorers.comet_model`)
COMET_CHECKPOINTS: Mapping[str, str] = {
    "wmt22-comet-da": "Unbabel/wmt22-comet-da",
    "wmt20-comet-da": "Unbabel/wmt20-comet-da",
}

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


# -- WMD ------------------------------------------------------------------------------------------


def load_word_vectors(path: str | Path, limit: int | None = None) -> dict[str, np.ndarray]:
    """Word vectors from a word2vec/GloVe text file: ``word v1 ... vd`` per line, an optional ``count dim`` header.

    Errors name the file, the line and what is wrong.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"word vectors {path}: no such file (expected a word2vec/GloVe text file: 'word v1 ... vd' per line)"
        )
    vectors: dict[str, np.ndarray] = {}
    dim: int | None = None
    with open(path, encoding="utf-8", errors="strict") as fh:
        for number, line in enumerate(fh, 1):
            parts = line.rstrip("\n").rstrip().split(" ")
            if number == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                dim = int(parts[1])
                continue
            if not line.strip():
                continue
            if len(parts) < 2:
                raise ValueError(
                    f"word vectors {path}, line {number}: expected a word and its vector components, got {line[:60]!r}"
                )
            try:
                vec = np.array([float(x) for x in parts[1:]], dtype=np.float64)
            except ValueError:
                raise ValueError(
                    f"word vectors {path}, line {number}, word {parts[0]!r}: a vector component is not a number"
                ) from None
            if dim is None:
                dim = vec.size
            if vec.size != dim:
                raise ValueError(
                    f"word vectors {path}, line {number}, word {parts[0]!r}: {vec.size} components, expected {dim}"
                )
            vectors.setdefault(parts[0], vec)
            if limit and len(vectors) >= limit:
                break
    if not vectors:
        raise ValueError(f"word vectors {path}: no vectors found")
    return vectors


def _bag(tokens: Sequence[str], vectors: Mapping[str, np.ndarray]) -> tuple[list[str], np.ndarray]:
    counts: dict[str, int] = {}
    for t in tokens:
        if t in vectors:
            counts[t] = counts.get(t, 0) + 1
    words = sorted(counts)
    weights = np.array([counts[w] for w in words], dtype=np.float64)
    return words, weights / weights.sum() if words else weights


def wmd(tokens_a: Sequence[str], tokens_b: Sequence[str], vectors: Mapping[str, np.ndarray]) -> float:
    """Word Mover's Distance of two token lists (NaN when either has no in-vocabulary token)."""
    import ot

    wa, a = _bag(tokens_a, vectors)
    wb, b = _bag(tokens_b, vectors)
    if not wa or not wb:
        return float("nan")
    ea, eb = np.stack([vectors[w] for w in wa]), np.stack([vectors[w] for w in wb])
    cost = np.sqrt(np.maximum(((ea[:, None, :] - eb[None, :, :]) ** 2).sum(-1), 0.0))
    return float(ot.emd2(a, b, cost))


class WMDScorer(Scorer):
    """Word Mover's Distance of each output to its source or reference(s) (the closest reference); lower is better."""

    name = "wmd"

    def __init__(
        self,
        embeddings: Any = None,
        against: str = "source",
        lowercase: bool = True,
        stopwords: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> None:
        if embeddings is None:
            raise ValueError(
                "wmd needs embeddings=PATH to word vectors (word2vec/GloVe text format) or a {word: vector} mapping"
            )
        self.vectors = (
            load_word_vectors(embeddings, limit)
            if isinstance(embeddings, (str, Path))
            else {k: np.asarray(v, float) for k, v in dict(embeddings).items()}
        )
        self.source = (
            str(embeddings) if isinstance(embeddings, (str, Path)) else f"mapping of {len(self.vectors)} words"
        )
        self.against, self.lowercase = against, lowercase
        self.stopwords = set(stopwords or ())

    def tokens(self, text: str) -> list[str]:
        toks = _TOKEN.findall(text.lower() if self.lowercase else text)
        return [t for t in toks if t not in self.stopwords]

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        scores = np.array(
            [
                min((wmd(self.tokens(o), self.tokens(r), self.vectors) for r in refs), default=float("nan"))
                for o, refs in zip(outputs, compare)
            ]
        )
        return ScoreResult(
            self.name,
            scores,
            higher_is_better=False,
            details={
                "against": self.against,
                "embeddings": self.source,
                "lowercase": self.lowercase,
                "stopwords": len(self.stopwords),
                "undefined": int(np.isnan(scores).sum()),
            },
        )


# -- transformers regression models (BLEURT, regression style metric) -----------------------------


def _load_regressor(model: Any, what: str, device: str) -> tuple[Any, Any, str]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = resolve_checkpoint(model, what)
    tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    with refusing_unsafe_weights(folder, what):
        net = AutoModelForSequenceClassification.from_pretrained(folder, local_files_only=True).to(device).eval()
    if int(getattr(net.config, "num_labels", 0)) != 1:
        raise ValueError(
            f"{what}: {folder} has {net.config.num_labels} outputs; a regression checkpoint has exactly 1 "
            "(num_labels=1)"
        )
    return tok, net, folder


def _regress(
    tok: Any,
    net: Any,
    first: Sequence[str],
    second: Sequence[str] | None,
    batch_size: int,
    max_length: int,
    device: str,
) -> np.ndarray:
    import torch

    out = np.empty(len(first))
    for start in range(0, len(first), batch_size):
        a = list(first[start : start + batch_size])
        b = list(second[start : start + batch_size]) if second is not None else None
        enc = (
            tok(a, b, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
            if b is not None
            else tok(a, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        )
        with torch.no_grad():
            logits = net(**{k: v.to(device) for k, v in enc.items()}).logits
        out[start : start + len(a)] = logits[:, 0].float().cpu().numpy()
    return out


class BleurtScorer(Scorer):
    """BLEURT of each output given its reference (or source): the regression head's output on (reference, candidate).

    ``model`` is a local folder, a hub id in the local cache, or a short name of :data:`BLEURT_CHECKPOINTS`.
    A folder whose config.json says ``model_type: "bleurt"`` (BLEURT-20 and the other bleurt-pytorch
    conversions) runs through :class:`steb_scorers.bleurt_model.BleurtRegressor`, truncated to the
    checkpoint's positions (512 for BLEURT-20). With several references the best score counts.
    """

    name = "bleurt"

    def __init__(
        self,
        model: Any = "bleurt-base-128",
        against: str = "reference",
        batch_size: int = 16,
        max_length: int = 512,
        device: str = "cpu",
    ) -> None:
        from .bleurt_model import is_bleurt_folder, load_bleurt

        model = BLEURT_CHECKPOINTS.get(model, model) if isinstance(model, str) else model
        folder = resolve_checkpoint(model, "BLEURT")
        self.bleurt = load_bleurt(folder, device) if is_bleurt_folder(folder) else None
        if self.bleurt is None:
            self.tok, self.net, self.path = _load_regressor(folder, "BLEURT", device)
        else:
            self.path = folder
        self.model_id, self.against, self.batch_size, self.max_length, self.device = (
            str(model),
            against,
            batch_size,
            max_length,
            device,
        )

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        refs = [r for rs in compare for r in rs]
        cands = [o for o, rs in zip(outputs, compare) for _ in rs]
        if self.bleurt is not None:
            flat = self.bleurt.score(refs, cands, self.batch_size, self.max_length)
        else:
            flat = _regress(self.tok, self.net, refs, cands, self.batch_size, self.max_length, self.device)
        scores, k = np.empty(len(outputs)), 0
        for i, rs in enumerate(compare):
            scores[i] = flat[k : k + len(rs)].max()
            k += len(rs)
        return ScoreResult(
            self.name,
            scores,
            details={
                "model": self.model_id,
                "path": self.path,
                "against": self.against,
                "input": "(reference, candidate) pair",
                "format": "bleurt-pytorch" if self.bleurt is not None else "transformers sequence regression",
            },
        )


class RegressionStyleScorer(Scorer):
    """Style strength from a sequence-regression model predicting a style score (e.g. formality) per output.

    The prediction is the score for items whose target style is the model's positive style; for a target
    in ``negative_styles`` (default ``informal``) it is negated, so higher always means "more of the
    target style". ``components['predicted']`` keeps the raw prediction.
    """

    name = "style-regression"

    def __init__(
        self,
        model: Any = None,
        negative_styles: Sequence[str] = ("informal",),
        batch_size: int = 32,
        max_length: int = 256,
        device: str = "cpu",
    ) -> None:
        if model is None:
            raise ValueError(
                "style-regression needs model=PATH (a transformers sequence-regression folder, num_labels=1) or a "
                "cached hub id"
            )
        self.tok, self.net, self.path = _load_regressor(model, "style-regression", device)
        self.negative = set(negative_styles)
        self.batch_size, self.max_length, self.device = batch_size, max_length, device

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        raw = _regress(self.tok, self.net, list(outputs), None, self.batch_size, self.max_length, self.device)
        sign = np.array([-1.0 if s in self.negative else 1.0 for s in styles])
        return ScoreResult(
            self.name,
            raw * sign,
            components={"predicted": raw},
            details={"path": self.path, "negative_styles": sorted(self.negative)},
        )


# -- COMET ---------------------------------------------------------------------------------------


def _comet_checkpoint(model: Any) -> Path:
    """``FOLDER/checkpoints/model.ckpt`` for a ``.ckpt`` path, a model folder, a cached hub id or a short name."""
    model = COMET_CHECKPOINTS.get(model, model) if isinstance(model, str) else model
    path = Path(str(model)).expanduser()
    if path.is_file():
        return path
    ckpt = Path(resolve_checkpoint(model, "COMET")) / "checkpoints" / "model.ckpt"
    if not ckpt.is_file():
        raise FileNotFoundError(
            f"COMET: no checkpoint at {ckpt} (a COMET model folder holds hparams.yaml and checkpoints/model.ckpt)"
        )
    return ckpt


class CometScorer(Scorer):
    """COMET's reference-based regression estimator (:mod:`steb_scorers.comet_model`): src = source, mt = output,
    ref = reference (the first one; or the source with ``against=source``).

    ``model`` is a checkpoint file (``.../checkpoints/model.ckpt`` beside ``../hparams.yaml``), a folder holding
    one, a hub id in the local cache, or a short name of :data:`COMET_CHECKPOINTS`. ``encoder`` overrides the
    hparams' ``pretrained_model`` (default: that hub id from the local cache; only its config and tokenizer
    are read). Only the ``regression_metric`` class is supported (not cometkiwi/XCOMET/QE models).

    ``empty_source=True`` is COMET-w (Lai et al. 2022): the same estimator with an empty string as src, so the
    source's features h*s and |h-s| carry no information about the source text (the comparison text,
    ``against``, is unchanged: with ``against=source`` the source still serves as the reference).
    """

    name = "comet"

    def __init__(
        self,
        model: Any = "wmt22-comet-da",
        against: str = "reference",
        batch_size: int = 16,
        encoder: str | None = None,
        device: str = "cpu",
        empty_source: bool = False,
    ) -> None:
        from .comet_model import load_comet

        if not isinstance(empty_source, bool):
            raise ValueError(f"comet: empty_source must be true or false, not {empty_source!r}")
        self.ckpt = _comet_checkpoint(model)
        self.model = load_comet(self.ckpt, encoder=encoder, device=device)
        self.against, self.batch_size, self.empty_source = against, batch_size, empty_source

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        src = [""] * len(outputs) if self.empty_source else list(sources)
        scores = self.model.predict(src, list(outputs), [r[0] for r in compare], batch_size=self.batch_size)
        hp = self.model.hp
        return ScoreResult(
            self.name,
            scores,
            corpus=float(scores.mean()) if len(scores) else float("nan"),
            details={
                "checkpoint": str(self.ckpt),
                "against": self.against,
                "encoder": hp.encoder_model,
                "src": "empty string (COMET-w)" if self.empty_source else "the source",
                "pretrained_model": hp.pretrained_model,
                "layer_transformation": hp.layer_transformation,
                "pool": hp.pool,
                "system_score": "mean of segment scores",
            },
        )
