"""Scores computed elsewhere, read from tab-separated files, as a scorer: compare any released metric column with
steb's.

Each line of every file matching ``files`` (a glob, e.g. ``DIR/*.content.src.txt``) holds a source text, an
output text and numeric columns; ``column`` (0-based) is the score. Outputs are matched by the pair
(source, output), so the files need not be in the order the scorer is called with. A pair that is asked
for but is not in the files is an error naming it; a pair present twice with different scores is
reported in ``details['conflicts']`` (the first file, in sorted order, wins).

``complement_for=STYLE`` turns a probability of one style into the probability of the target style:
outputs whose target style is STYLE get 1 - value (e.g. Lai et al.'s classifier columns hold
P(formal); for formal->informal outputs the target-style probability is 1 - P(formal)). ``against``
only records what the released column compared the output with (``source`` or ``reference``).
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from typing import Any

import numpy as np

from steb_core import Scorer

from .result import ScoreResult, check_aligned

__all__ = ["PrecomputedScorer"]


class PrecomputedScorer(Scorer):
    name = "precomputed"

    def __init__(
        self,
        files: str | None = None,
        column: int | None = None,
        source_field: int = 1,
        output_field: int = 2,
        higher_is_better: bool = True,
        label: str | None = None,
        complement_for: str | None = None,
        against: str | None = None,
    ) -> None:
        if not files or column is None:
            raise ValueError(
                "precomputed needs files=GLOB (tab-separated files) and column=N (0-based index of the score column)"
            )
        paths = sorted(glob.glob(str(files)))
        if not paths:
            raise FileNotFoundError(f"precomputed: no file matches {files!r}")
        self.table: dict[tuple[str, str], float] = {}
        self.conflicts = 0
        for path in paths:
            with open(path, encoding="utf-8") as fh:
                for number, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    parts = line.rstrip("\n").split("\t")
                    need = max(source_field, output_field, column if column >= 0 else -column - 1)
                    if len(parts) <= need:
                        raise ValueError(
                            f"precomputed {path}, line {number}: {len(parts)} tab-separated fields, need more than "
                            f"{need}"
                        )
                    try:
                        value = float(parts[column])
                    except ValueError:
                        raise ValueError(
                            f"precomputed {path}, line {number}, field {column}: {parts[column]!r} is not a number"
                        ) from None
                    key = (parts[source_field], parts[output_field])
                    if key in self.table:
                        self.conflicts += not np.isclose(self.table[key], value, rtol=1e-9, atol=1e-12)
                        continue
                    self.table[key] = value
        if against not in (None, "source", "reference"):
            raise ValueError(
                f"precomputed: against must be 'source' or 'reference' (it is only recorded), not {against!r}"
            )
        self.files, self.column, self.higher_is_better = str(files), int(column), bool(higher_is_better)
        self.complement_for, self.against = complement_for, against
        self.name = label or f"precomputed[{column}]"

    def score(
        self, sources: Sequence[str], outputs: Sequence[str], references: Any = None, target_style: Any = None
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        scores = np.empty(len(outputs))
        for i, key in enumerate(zip(sources, outputs)):
            if key not in self.table:
                raise KeyError(
                    f"precomputed {self.files}: no line with source {key[0][:60]!r} and output {key[1][:60]!r} (item "
                    f"{i})"
                )
            scores[i] = self.table[key]
        if self.complement_for is not None:
            from .result import per_item_styles

            flip = np.array(
                [style == self.complement_for for style in per_item_styles(self.name, target_style, len(outputs))],
                dtype=bool,
            )
            scores = np.where(flip, 1.0 - scores, scores)
        details = {"files": self.files, "column": self.column, "conflicts": self.conflicts}
        details.update(
            {k: v for k, v in (("complement_for", self.complement_for), ("against", self.against)) if v is not None}
        )
        return ScoreResult(self.name, scores, higher_is_better=self.higher_is_better, details=details)
