"""The value every steb scorer returns, and the input checks every scorer shares.

:class:`ScoreResult` lives in the core (``steb_core.ScoreResult``) and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from steb_core import ScoreResult

__all__ = ["ScoreResult", "check_aligned", "normalise_references", "comparison_texts", "per_item_styles"]


def check_aligned(
    name: str, sources: Sequence[str], outputs: Sequence[str], references: Sequence[Any] | None = None
) -> None:
    """Raise a ValueError naming the scorer when the aligned lists differ in length or hold non-strings."""
    if len(sources) != len(outputs):
        raise ValueError(f"scorer '{name}': {len(sources)} sources but {len(outputs)} outputs (lists must be aligned)")
    if references is not None and len(references) != len(outputs):
        raise ValueError(
            f"scorer '{name}': {len(references)} references but {len(outputs)} outputs (lists must be aligned)"
        )
    for label, seq in (("source", sources), ("output", outputs)):
        for i, text in enumerate(seq):
            if not isinstance(text, str):
                raise ValueError(f"scorer '{name}': {label} {i} is a {type(text).__name__}, expected str")


def normalise_references(name: str, references: Sequence[Any] | None, n: int) -> list[list[str]]:
    """References as one list of strings per item (a single string becomes a one-element list)."""
    if references is None:
        raise ValueError(
            f"scorer '{name}' compares against references, but none were given (pass references= or use "
            "against='source')"
        )
    out: list[list[str]] = []
    for i, ref in enumerate(references):
        refs = [ref] if isinstance(ref, str) else list(ref)
        if not refs or not all(isinstance(r, str) for r in refs):
            raise ValueError(f"scorer '{name}': reference {i} must be a string or a non-empty list of strings")
        out.append(refs)
    if len(out) != n:
        raise ValueError(f"scorer '{name}': {len(out)} references for {n} outputs")
    return out


def comparison_texts(
    name: str, against: str, sources: Sequence[str], references: Sequence[Any] | None, n: int
) -> list[list[str]]:
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
