"""What an aggregator returns: leaderboard columns with per-encoder scores and what each one lacks.

A score is only ever computed from *all* of its inputs. When an encoder lacks any input the score is
``None`` and :attr:`Column.missing` lists the (dataset, task) pairs with the reason, so a report can
say "incomplete: 3 results missing" instead of quietly averaging over fewer datasets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["MissingInput", "Column", "AggregateResult"]


@dataclass(frozen=True)
class MissingInput:
    """One input a score needed but did not have.

    ``dataset`` and ``task`` are empty when the gap is a whole column (e.g. no dataset in scope is
    tagged ``dialect``), so a mean over columns cannot be formed either.
    """

    dataset: str
    task: str
    reason: str

    def describe(self) -> str:
        if not self.dataset:
            return self.reason
        return f"{self.dataset} / {self.task}: {self.reason}"


@dataclass
class Column:
    """One leaderboard column: a score per encoder (``None`` when incomplete) and its inputs."""

    name: str
    label: str
    scores: dict[str, float | None]
    missing: dict[str, list[MissingInput]] = field(default_factory=dict)
    inputs: list[tuple[str, str]] = field(default_factory=list)
    note: str = ""
    short: str = ""  # a header for narrow terminals; defaults to the label
    #: the rows averaged into this column, when it is a mean of rows (STEB Table 13: Blog = age + gender,
    #: PAN by year, ...): each row a column of its own, the mean over its (dataset, task) inputs.
    rows: list[Column] = field(default_factory=list)

    @property
    def structural_gap(self) -> str:
        """Why no encoder can ever be complete here (a whole input column has nothing in scope), else ''."""
        reasons = [gap.reason for gaps in self.missing.values() for gap in gaps if not gap.dataset]
        if reasons:
            return "; ".join(dict.fromkeys(reasons))
        return self.note if not self.inputs and self.note else ""

    def is_complete(self, encoder: str) -> bool:
        return self.scores.get(encoder) is not None and not self.missing.get(encoder)

    @property
    def complete(self) -> dict[str, bool]:
        """Encoder -> whether its score was computed from every input."""
        return {enc: self.is_complete(enc) for enc in self.scores}


@dataclass
class AggregateResult(Column):
    """An aggregator's main column plus its sub-columns and inspectable details.

    ``details`` holds what a reader needs to audit the number, e.g. the operational score's discovered
    dataset clusters and rank correlations per task type. It must stay JSON-serialisable.
    """

    description: str = ""
    sub_columns: list[Column] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    order: int = 100

    @classmethod
    def from_column(cls, column: Column, **extra: Any) -> AggregateResult:
        """Promote a single column to an aggregate (``extra``: short, description, sub_columns, details, order)."""
        base = {f: getattr(column, f) for f in Column.__dataclass_fields__}
        return cls(**{**base, **extra})

    def columns(self) -> list[Column]:
        """The main column followed by the sub-columns."""
        return [self, *self.sub_columns]
