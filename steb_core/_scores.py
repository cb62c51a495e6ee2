"""What a style-transfer scorer is (:class:`Scorer`) and what it returns (:class:`ScoreResult`).

Part of the core API so the meta-evaluation, reports and any plugin can call any scorer and consume its
output: a :class:`~steb_core._specs.ScorerSpec`'s factory builds a :class:`Scorer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["ScoreResult", "Scorer"]


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
                raise ValueError(
                    f"scorer '{self.name}': component '{key}' has {value.size} values for {self.scores.size} items"
                )

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


@runtime_checkable
class Scorer(Protocol):
    """A style-transfer metric, as a :class:`~steb_core._specs.ScorerSpec`'s factory builds it.

    ``score`` takes aligned lists: ``sources[i]`` was rewritten as ``outputs[i]``; ``references[i]`` is one
    reference text or a list of them (metrics that compare with references; the others ignore it), and
    ``target_style`` one style name for every item or one per item (style and judge metrics). It returns one
    score per output (:class:`ScoreResult`). A scorer declares the protocol by subclassing it (as the
    ``steb-scorers`` classes do), so a type checker holds every ``score`` to this signature; any object with a
    ``name`` and such a ``score`` satisfies it.
    """

    name: str

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[str | Sequence[str]] | None = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        """Score each output against its source (and reference or target style, where the metric uses one)."""
        ...
