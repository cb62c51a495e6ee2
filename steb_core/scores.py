"""What every style-transfer scorer returns: per-item scores, an optional corpus score, the direction.

Part of the core API so the meta-evaluation, reports and any plugin can consume any scorer's output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ScoreResult"]


@dataclass
class ScoreResult:
    """Per-item scores of one scorer over aligned inputs.

    ``scores`` has one float per output (NaN where a score is undefined, e.g. a judge whose every
    sample failed to parse); ``corpus`` is the corpus-level score where the metric defines one
    (corpus BLEU is *not* the mean of sentence BLEU). ``components`` holds further per-item arrays a
    scorer computes at no extra cost (ROUGE's three variants, the likelihood metric's C and S);
    ``details`` records options and diagnostics (parse failures, model paths) for the result file.
    """

    name: str
    scores: np.ndarray
    corpus: float | None = None
    higher_is_better: bool = True
    components: dict[str, np.ndarray] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.scores = np.asarray(self.scores, dtype=np.float64).reshape(-1)
        self.components = {k: np.asarray(v, dtype=np.float64).reshape(-1) for k, v in self.components.items()}
        for key, value in self.components.items():
            if value.shape != self.scores.shape:
                raise ValueError(f"scorer '{self.name}': component '{key}' has {value.size} values for {self.scores.size} items")

    def __len__(self) -> int:
        return int(self.scores.size)

    @property
    def mean(self) -> float:
        """Mean of the defined per-item scores (NaN when none is defined)."""
        finite = self.scores[np.isfinite(self.scores)]
        return float(finite.mean()) if finite.size else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN becomes None)."""
        def clean(arr: np.ndarray) -> list[float | None]:
            return [float(x) if np.isfinite(x) else None for x in arr]

        return {
            "name": self.name,
            "scores": clean(self.scores),
            "corpus": self.corpus,
            "higher_is_better": self.higher_is_better,
            "components": {k: clean(v) for k, v in self.components.items()},
            "details": self.details,
        }
