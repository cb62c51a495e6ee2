"""Human-judgement sets as data: the typed table a :class:`~steb_core.JudgementSetSpec`'s loader returns.

A judgement set is what a meta-evaluation of style-transfer metrics correlates scorers with: rated outputs
(item id, source, output, references, the system that wrote it where there are systems, the subset it belongs
to) and, per aspect (content, style, fluency, ...), every annotator's rating on a declared scale. The table is
the one shape every protocol reads, so a set published by a third party (a plugin registering a
:class:`~steb_core.JudgementSetSpec`) is evaluated exactly as the built-in ones.

:func:`judgement_table` builds and checks a table: a rating outside its scale, a subset with a single row (no
correlation can be computed on it) or misaligned columns are errors naming the file, row and field the value
came from, so a loader only has to say where each row and each annotator column was read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._errors import DataValidationError

__all__ = ["RatingScale", "AspectRatings", "JudgementTable", "judgement_table", "RowOrigin"]

#: the Likert kinds a scale may declare (how Krippendorff's alpha should treat it by default)
SCALE_KINDS = ("ordinal", "interval", "nominal")


@dataclass(frozen=True)
class RatingScale:
    """The scale annotators rated on: lowest and highest value, and its kind (ordinal Likert, interval DA)."""

    low: float
    high: float
    kind: str = "ordinal"
    labels: Mapping[float, str] = field(default_factory=dict)  # e.g. {1: "very poor", 5: "very good"}

    def __post_init__(self) -> None:
        if not self.low < self.high:
            raise ValueError(f"a rating scale needs low < high, not {self.low}..{self.high}")
        if self.kind not in SCALE_KINDS:
            raise ValueError(f"scale kind must be one of {SCALE_KINDS}, not {self.kind!r}")

    def describe(self) -> str:
        return f"{self.low:g}-{self.high:g} ({self.kind})"


@dataclass(frozen=True)
class RowOrigin:
    """Where one row was read: the file and the record (a 1-based row number, or a key)."""

    path: str
    record: str | int


@dataclass(frozen=True, eq=False)
class AspectRatings:
    """Every annotator's rating of one aspect: ``values[i, j]`` is annotator slot ``j``'s rating of row ``i``
    (NaN where that annotator did not rate the row).

    ``annotators`` names the slots (``rater-1``...); ``annotator_ids`` (optional, one per row and slot) says who
    the person in a slot was where a set records it (a crowd worker id), since the same slot can be different
    people on different rows. ``fields`` are the columns the slots were read from, for error messages.
    """

    aspect: str
    scale: RatingScale
    annotators: tuple[str, ...]
    values: np.ndarray
    fields: tuple[str, ...] = ()
    annotator_ids: tuple[tuple[str, ...], ...] | None = None

    def mean(self) -> np.ndarray:
        """Mean rating per row over the annotators who rated it."""
        with np.errstate(invalid="ignore"):
            return np.asarray(np.nanmean(self.values, axis=1), dtype=np.float64)


@dataclass(frozen=True, eq=False)
class JudgementTable:
    """Rated outputs of one human-judgement set, as parallel columns (one row per rated output).

    ``references[i]`` holds the human references of row ``i`` (empty where the set has none); ``system`` is
    None when the set's outputs do not come from systems (a constructed test set); ``subset`` names the part of
    the set a row belongs to (a style, a transfer direction; one name for all rows when the set has no parts).
    ``target_style`` is the style the output was meant to have (for style scorers). ``origins`` say where each
    row was read, so a protocol's error can name it.
    """

    name: str
    item_id: tuple[str, ...]
    source: tuple[str, ...]
    output: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    subset: tuple[str, ...]
    ratings: Mapping[str, AspectRatings]
    system: tuple[str, ...] | None = None
    target_style: tuple[str, ...] = ()
    origins: tuple[RowOrigin, ...] = ()
    files: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.output)

    @property
    def aspects(self) -> tuple[str, ...]:
        return tuple(self.ratings)

    def subsets(self) -> list[str]:
        """Subset names in the order they first occur."""
        return list(dict.fromkeys(self.subset))

    def systems(self) -> list[str]:
        return list(dict.fromkeys(self.system)) if self.system is not None else []

    def mean(self, aspect: str) -> np.ndarray:
        """Mean rating of ``aspect`` per row (over its annotators)."""
        if aspect not in self.ratings:
            raise KeyError(f"judgement set '{self.name}' has no ratings of {aspect!r}; it has {list(self.ratings)}")
        return self.ratings[aspect].mean()

    def first_references(self) -> list[str] | None:
        """Each row's first reference, or None when some row has none."""
        if not self.references or any(not refs for refs in self.references):
            return None
        return [refs[0] for refs in self.references]

    def has_references(self, rows: np.ndarray | None = None) -> bool:
        chosen = self.references if rows is None else [self.references[i] for i in np.flatnonzero(rows)]
        return bool(chosen) and all(refs for refs in chosen)


def judgement_table(
    *,
    name: str,
    item_id: Sequence[str],
    source: Sequence[str],
    output: Sequence[str],
    subset: Sequence[str],
    ratings: Mapping[str, AspectRatings],
    references: Sequence[Sequence[str]] | None = None,
    system: Sequence[str] | None = None,
    target_style: Sequence[str] = (),
    origins: Sequence[RowOrigin] = (),
    files: Sequence[str] = (),
    min_subset_rows: int = 2,
) -> JudgementTable:
    """Build a :class:`JudgementTable` and check it; errors name the file, row and field (from ``origins``).

    Checked: every column has one value per row; every rating is within its scale (or missing, NaN); every row
    has at least one rating of each aspect; every subset has at least ``min_subset_rows`` rows (a Pearson
    correlation needs two).
    """
    n = len(output)
    refs = tuple(tuple(r) for r in references) if references is not None else tuple(() for _ in range(n))
    columns: dict[str, Sequence[object]] = {
        "item_id": item_id,
        "source": source,
        "subset": subset,
        "references": refs,
        "origins": origins or [None] * n,
    }
    if system is not None:
        columns["system"] = system
    if target_style:
        columns["target_style"] = target_style
    for column, values in columns.items():
        if len(values) != n:
            raise DataValidationError(
                f"{len(values)} values in column '{column}' for {n} outputs", path=files[0] if files else None
            )
    where = list(origins) or [RowOrigin(files[0] if files else name, i + 1) for i in range(n)]
    for aspect, block in ratings.items():
        matrix = np.asarray(block.values, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != n or matrix.shape[1] != len(block.annotators):
            raise DataValidationError(
                f"ratings of {aspect!r} have shape {matrix.shape}, expected ({n}, {len(block.annotators)})",
                path=files[0] if files else None,
            )
        outside = np.isfinite(matrix) & ((matrix < block.scale.low) | (matrix > block.scale.high))
        if outside.any():
            i, j = (int(x) for x in np.argwhere(outside)[0])
            column = block.fields[j] if block.fields else block.annotators[j]
            raise DataValidationError(
                f"rating {matrix[i, j]:g} of {aspect!r} is outside the scale",
                path=where[i].path,
                record=f"row {where[i].record}",
                field=column,
                expected=f"a rating in {block.scale.describe()}",
            )
        unrated = ~np.isfinite(matrix).any(axis=1)
        if unrated.any():
            i = int(np.flatnonzero(unrated)[0])
            raise DataValidationError(
                f"no annotator rated {aspect!r}",
                path=where[i].path,
                record=f"row {where[i].record}",
                field=", ".join(block.fields or block.annotators),
                expected=f"at least one rating in {block.scale.describe()}",
            )
    counts: dict[str, list[int]] = {}
    for i, s in enumerate(subset):
        counts.setdefault(s, []).append(i)
    for s, rows in counts.items():
        if len(rows) < min_subset_rows:
            first = where[rows[0]]
            raise DataValidationError(
                f"subset {s!r} has {len(rows)} row(s); a correlation needs at least {min_subset_rows}",
                path=first.path,
                record=f"row {first.record}",
                field="subset",
                expected=f"at least {min_subset_rows} rows per subset",
            )
    return JudgementTable(
        name=name,
        item_id=tuple(str(x) for x in item_id),
        source=tuple(source),
        output=tuple(output),
        references=refs,
        subset=tuple(subset),
        ratings=dict(ratings),
        system=tuple(system) if system is not None else None,
        target_style=tuple(target_style),
        origins=tuple(where),
        files=tuple(files),
    )
