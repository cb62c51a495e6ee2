"""Style strength: P(target style | output) from a classifier.

Two kinds: a logistic regression over any steb encoder's embeddings, trained on labelled texts given
as lists or one-text-per-line files per style (the usual formal/informal training set); or a
fine-tuned transformers sequence classifier given by path, whose ``id2label`` names the styles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import DataValidationError, Scorer, encoder_name, read_lines, refusing_unsafe_weights, to_float32_matrix

from .embedding import resolve_encoder
from .result import ScoreResult, check_aligned, per_item_styles

__all__ = ["EncoderStyleClassifier", "TransformersStyleClassifier", "load_labelled_texts"]


def load_labelled_texts(train: Mapping[str, str | Path | Sequence[str]]) -> tuple[list[str], list[str]]:
    """Texts and labels from ``{style: [texts] or path to a one-text-per-line file}``."""
    texts: list[str] = []
    labels: list[str] = []
    for style, value in train.items():
        items = read_lines(value) if isinstance(value, (str, Path)) else list(value)
        if not items:
            raise DataValidationError(
                "holds no texts", path=value if isinstance(value, (str, Path)) else None, record=f"style {style!r}"
            )
        texts.extend(items)
        labels.extend([str(style)] * len(items))
    if len(set(labels)) < 2:
        raise ValueError(f"a style classifier needs texts of at least two styles; got {sorted(set(labels))}")
    return texts, labels


def _column_for(name: str, classes: Sequence[str], styles: Sequence[str]) -> np.ndarray:
    lookup = {str(c).lower(): j for j, c in enumerate(classes)}
    cols = []
    for st in styles:
        if st.lower() not in lookup:
            raise ValueError(
                f"scorer '{name}': target style {st!r} is not a class of the classifier; classes: {list(classes)}"
            )
        cols.append(lookup[st.lower()])
    return np.asarray(cols, dtype=np.int64)


class EncoderStyleClassifier(Scorer):
    """Logistic regression on encoder embeddings; ``scores`` = P(target style)."""

    name = "style-classifier"

    def __init__(
        self,
        encoder: Any = None,
        train: Mapping[str, Any] | None = None,
        encoder_options: Mapping[str, Any] | None = None,
        C: float = 1.0,
        seed: int = 0,
    ) -> None:
        from sklearn.linear_model import LogisticRegression

        if not train:
            raise ValueError("style-classifier needs train={style: texts or file path, ...} with at least two styles")
        self.encoder = resolve_encoder(encoder, encoder_options)
        texts, labels = load_labelled_texts(train)
        x = to_float32_matrix(self.encoder.encode(texts), len(texts), who=encoder_name(self.encoder))
        self.model = LogisticRegression(C=C, max_iter=2000, random_state=seed).fit(x, labels)
        self.n_train = len(texts)

    def predict_proba(self, texts: Sequence[str]) -> tuple[np.ndarray, list[str]]:
        x = to_float32_matrix(self.encoder.encode(list(texts)), len(texts), who=encoder_name(self.encoder))
        return self.model.predict_proba(x), [str(c) for c in self.model.classes_]

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        proba, classes = self.predict_proba(outputs)
        cols = _column_for(self.name, classes, styles)
        scores = proba[np.arange(len(outputs)), cols]
        return ScoreResult(
            self.name,
            scores,
            corpus=float(scores.mean()) if len(scores) else None,
            details={"encoder": encoder_name(self.encoder), "classes": classes, "n_train": self.n_train},
        )


class TransformersStyleClassifier(Scorer):
    """A fine-tuned sequence classifier (local folder); ``scores`` = softmax probability of the target style."""

    name = "style-transformer"

    def __init__(self, model: Any = None, batch_size: int = 16, max_length: int = 256, device: str = "cpu") -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        if model is None:
            raise ValueError("style-transformer needs model=PATH to a fine-tuned sequence-classification folder")
        self.path = str(model)
        self.tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        with refusing_unsafe_weights(self.path, "style-transformer"):
            self.model = (
                AutoModelForSequenceClassification.from_pretrained(self.path, local_files_only=True).to(device).eval()
            )
        self.batch_size, self.max_length, self.device = batch_size, max_length, device
        id2label = getattr(self.model.config, "id2label", None) or {}
        self.classes = [str(id2label.get(i, i)) for i in range(self.model.config.num_labels)]

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        out = []
        for start in range(0, len(texts), self.batch_size):
            enc = self.tokenizer(
                list(texts[start : start + self.batch_size]),
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            )
            with torch.no_grad():
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float()
            out.append(torch.softmax(logits, dim=-1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, len(self.classes)))

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        cols = _column_for(self.name, self.classes, styles)
        scores = self.predict_proba(outputs)[np.arange(len(outputs)), cols]
        return ScoreResult(
            self.name,
            scores,
            corpus=float(scores.mean()) if len(scores) else None,
            details={"model": self.path, "classes": self.classes},
        )
