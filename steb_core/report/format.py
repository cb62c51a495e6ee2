"""Number formatting and missing-input summaries shared by the renderers."""

from __future__ import annotations

from ..aggregators.result import Column, MissingInput

__all__ = ["MISSING", "fmt", "summarise_missing", "column_gap_reason"]

#: Shown in place of a score that could not be computed from all its inputs.
MISSING = "–"


def fmt(value: float | None, scale: float = 100.0, digits: int = 1) -> str:
    """A score for display (x100, one decimal), or :data:`MISSING`."""
    return MISSING if value is None else f"{value * scale:.{digits}f}"


def summarise_missing(gaps: list[MissingInput], limit: int = 3) -> str:
    """'a / clustering: no result; b / retrieval: ... (+4 more)' for a one-line note."""
    shown = "; ".join(g.describe() for g in gaps[:limit])
    return shown + (f" (+{len(gaps) - limit} more)" if len(gaps) > limit else "")


def column_gap_reason(column: Column) -> str:
    """The reason shared by every encoder when a column has no score for anyone (e.g. no inputs in scope)."""
    if any(v is not None for v in column.scores.values()):
        return ""
    if column.note:
        return column.note
    reasons = {tuple(column.missing.get(enc, ())) for enc in column.scores}
    if len(reasons) == 1:
        (gaps,) = reasons
        whole = [g for g in gaps if not g.dataset]
        if whole:
            return "; ".join(dict.fromkeys(g.reason for g in whole))
    return ""
