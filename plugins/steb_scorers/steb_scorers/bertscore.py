"""BERTScore (bert-score library) from a local model folder, with baseline rescaling when available.

No hub downloads here, so the model is a path (``model``) with the layer to use (``num_layers``).
Rescaling needs the baseline file for that model: bert-score ships them for the hub model names
(pass ``model_type`` naming it when the local folder is a copy of such a model) or give
``baseline_path``; ``rescale='auto'`` rescales exactly when a baseline is found and records which.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from steb_core import Scorer

from .result import ScoreResult, check_aligned, comparison_texts

__all__ = ["BertScoreScorer", "packaged_baseline"]


def packaged_baseline(model_type: str, lang: str = "en") -> str | None:
    """The baseline file bert-score ships for a hub model name, if any."""
    import bert_score

    path = os.path.join(os.path.dirname(bert_score.__file__), "rescale_baseline", lang, f"{model_type}.tsv")
    return path if os.path.isfile(path) else None


class BertScoreScorer(Scorer):
    """Per-item BERTScore F1 (or P / R via ``component``); the best reference counts with several."""

    name = "bertscore"

    def __init__(
        self,
        model: str | None = None,
        num_layers: int | None = None,
        against: str = "reference",
        component: str = "F",
        rescale: str | bool = "auto",
        baseline_path: str | None = None,
        model_type: str | None = None,
        lang: str = "en",
        batch_size: int = 32,
        idf: bool = False,
        device: str = "cpu",
    ) -> None:
        try:
            from bert_score import BERTScorer
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise RuntimeError("bertscore needs the bert-score package: pip install 'steb-scorers[neural]'") from exc
        if model is None or num_layers is None:
            raise ValueError(
                "bertscore needs model=PATH (a local transformers folder) and num_layers=L (the layer to use)"
            )
        if component not in ("P", "R", "F"):
            raise ValueError("component must be P, R or F")
        baseline = baseline_path or (packaged_baseline(model_type, lang) if model_type else None)
        do_rescale = bool(baseline) if rescale == "auto" else bool(rescale)
        if do_rescale and not baseline:
            raise ValueError(
                "bertscore rescale=True needs a baseline: pass baseline_path= or model_type= naming a model "
                "bert-score ships a baseline for"
            )
        self.against, self.component = against, component
        self.details = {
            "model": str(model),
            "num_layers": num_layers,
            "rescaled": do_rescale,
            "baseline": baseline,
            "idf": idf,
            "lang": lang,
        }
        self.scorer = BERTScorer(
            model_type=str(model),
            num_layers=num_layers,
            batch_size=batch_size,
            lang=lang,
            idf=idf,
            rescale_with_baseline=do_rescale,
            baseline_path=baseline if do_rescale else None,
            device=device,
        )

    def score(
        self, sources: Sequence[str], outputs: Sequence[str], references: Any = None, target_style: Any = None
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        if self.scorer.idf:
            self.scorer.compute_idf([t for refs in compare for t in refs])
        p, r, f = self.scorer.score(list(outputs), compare, batch_size=self.scorer.batch_size)
        parts = {"P": p.numpy(), "R": r.numpy(), "F": f.numpy()}
        return ScoreResult(
            self.name,
            parts[self.component],
            corpus=float(parts[self.component].mean()) if len(outputs) else None,
            components=parts,
            details={"against": self.against, **self.details},
        )
