"""Overall style-transfer quality: harmonic or geometric mean of normalised aspect scores.

Aspects live on different scales (BLEU 0-100, probabilities 0-1, perplexity 1-inf, lower better), so
each is first mapped to [0, 1]: with a fixed range ``(lo, hi)`` when one is given (e.g. (0, 100) for
BLEU), else min-max over the scored batch; lower-is-better aspects are flipped. The harmonic mean
punishes a system that wins one aspect by sacrificing another, as the literature intends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from steb_core import Scorer

from .result import ScoreResult

__all__ = ["normalise", "combine", "OverallScorer"]

EPS = 1e-12


def normalise(
    values: np.ndarray, higher_is_better: bool = True, value_range: tuple[float, float] | None = None
) -> np.ndarray:
    """Map scores to [0, 1] (1 = best) by a fixed range or batch min-max; NaN stays NaN."""
    values = np.asarray(values, dtype=np.float64)
    if value_range is not None:
        lo, hi = map(float, value_range)
    else:
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if hi <= lo:
        out = np.where(np.isfinite(values), 1.0, np.nan)  # a constant aspect does not discriminate
    else:
        out = np.clip((values - lo) / (hi - lo), 0.0, 1.0)
    return out if higher_is_better else 1.0 - out


def combine(normalised: Mapping[str, np.ndarray], method: str = "harmonic") -> np.ndarray:
    """Harmonic or geometric mean across aspects of per-item normalised scores (a 0 gives 0)."""
    if not normalised:
        raise ValueError("combine needs at least one aspect")
    stack = np.vstack([np.asarray(v, dtype=np.float64) for v in normalised.values()])
    if method == "harmonic":
        with np.errstate(divide="ignore"):
            inv = np.where(stack > EPS, 1.0 / np.maximum(stack, EPS), np.inf)
        return np.where(np.isinf(inv).any(axis=0), 0.0, stack.shape[0] / inv.sum(axis=0))
    if method == "geometric":
        return np.asarray(np.exp(np.log(np.maximum(stack, EPS)).mean(axis=0)) * (stack > EPS).all(axis=0))
    raise ValueError(f"method must be 'harmonic' or 'geometric', not {method!r}")


class OverallScorer(Scorer):
    """Runs component scorers (objects or registered names) and combines their normalised scores."""

    def __init__(
        self,
        components: Mapping[str, Any] | None = None,
        ranges: Mapping[str, tuple[float, float]] | None = None,
        method: str = "harmonic",
    ) -> None:
        from steb_core import get_scorer

        if not components:
            raise ValueError("overall needs components={label: scorer or registered scorer name, ...}")
        self.components = {k: (get_scorer(v) if isinstance(v, str) else v) for k, v in components.items()}
        self.ranges = dict(ranges or {})
        self.method = method
        self.name = f"overall-{'hm' if method == 'harmonic' else 'gm'}"

    def score(
        self, sources: Sequence[str], outputs: Sequence[str], references: Any = None, target_style: Any = None
    ) -> ScoreResult:
        parts = {
            k: s.score(sources, outputs, references=references, target_style=target_style)
            for k, s in self.components.items()
        }
        norm = {k: normalise(r.scores, r.higher_is_better, self.ranges.get(k)) for k, r in parts.items()}
        scores = combine(norm, self.method)
        return ScoreResult(
            self.name,
            scores,
            corpus=float(np.nanmean(scores)) if len(scores) else None,
            components=norm,
            details={
                "method": self.method,
                "ranges": {k: list(v) for k, v in self.ranges.items()},
                "normalisation": {k: ("fixed" if k in self.ranges else "batch min-max") for k in parts},
            },
        )
