"""The value every steb scorer returns, and the input checks every scorer shares.

:class:`ScoreResult` is a candidate for the core API (``steb_core``): the meta-evaluation and any
report only need per-item scores, an optional corpus-level score and the direction of the metric.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["ScoreResult", "check_aligned", "normalise_references", "comparison_texts", "per_item_styles"]


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


def check_aligned(name: str, sources: Sequence[str], outputs: Sequence[str], references: Sequence[Any] | None = None) -> None:
    """Raise a ValueError naming the scorer when the aligned lists differ in length or hold non-strings."""
    if len(sources) != len(outputs):
        raise ValueError(f"scorer '{name}': {len(sources)} sources but {len(outputs)} outputs (lists must be aligned)")
    if references is not None and len(references) != len(outputs):
        raise ValueError(f"scorer '{name}': {len(references)} references but {len(outputs)} outputs (lists must be aligned)")
    for label, seq in (("source", sources), ("output", outputs)):
        for i, text in enumerate(seq):
            if not isinstance(text, str):
                raise ValueError(f"scorer '{name}': {label} {i} is a {type(text).__name__}, expected str")


def normalise_references(name: str, references: Sequence[Any] | None, n: int) -> list[list[str]]:
    """References as one list of strings per item (a single string becomes a one-element list)."""
    if references is None:
        raise ValueError(f"scorer '{name}' compares against references, but none were given (pass references= or use against='source')")
    out: list[list[str]] = []
    for i, ref in enumerate(references):
        refs = [ref] if isinstance(ref, str) else list(ref)
        if not refs or not all(isinstance(r, str) for r in refs):
            raise ValueError(f"scorer '{name}': reference {i} must be a string or a non-empty list of strings")
        out.append(refs)
    if len(out) != n:
        raise ValueError(f"scorer '{name}': {len(out)} references for {n} outputs")
    return out


def comparison_texts(name: str, against: str, sources: Sequence[str], references: Sequence[Any] | None, n: int) -> list[list[str]]:
    """What a content metric compares each output with: its source (``against='source'``) or its references."""
    if against == "source":
        return [[s] for s in sources]
    if against == "reference":
        return normalise_references(name, references, n)
    raise ValueError(f"scorer '{name}': against must be 'source' or 'reference', not {against!r}")


def per_item_styles(name: str, target_style: str | Sequence[str] | None, n: int) -> list[str]:
    """The target style of every item (one string broadcast, or one per item)."""
    if target_style is None:
        raise ValueError(f"scorer '{name}' needs target_style (one style name, or one per item)")
    if isinstance(target_style, str):
        return [target_style] * n
    styles = list(target_style)
    if len(styles) != n:
        raise ValueError(f"scorer '{name}': {len(styles)} target styles for {n} outputs")
    return [str(s) for s in styles]


def as_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options as a JSON-friendly dict for ``ScoreResult.details`` (objects become their repr)."""
    return {k: (v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)) for k, v in options.items()}
