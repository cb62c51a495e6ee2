"""Loader for the formality-transfer human-judgement release (Lai et al. 2022).

One file per system, ``SYSTEM.human.txt``: tab-separated, no header; the first half of the lines are
informal->formal, the second half formal->informal (40 + 40 in the release). Fields: survey id,
source, output, reference, content-1, style-1, fluency-1, content-2, style-2, fluency-2 (0-100).
Each survey has its own two annotators, so "annotator 1" is a different person in each survey:
z-scores are computed per (survey, annotator slot, aspect) over every item that person rated.

The release also holds four human references per source (``data/xformal/fr.80.ref0`` ... ``ref3``, one
line per source in the human files' order, next to ``data/outputs``). The human files' reference column
is the release's copy of the first one (it differs from ``ref0`` on a few lines: whitespace and small
edits; the released metric scores were computed against the column), so reference 1 is that column and
references 2-4 are ``ref1``-``ref3``; where ``ref0`` differs from the column is recorded. ``ref0`` itself, as the
file holds it, is the reference choice ``"ref0"``: Table 3's corpus BLEU against the reference is reproduced with
that file, not with the column (``evaluate.score_judgements``'s ``corpus_references``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import DataValidationError, read_lines

__all__ = [
    "ASPECTS",
    "DIRECTIONS",
    "HumanJudgements",
    "load_human_judgements",
    "find_reference_files",
    "REFERENCE_FOLDER",
]

ASPECTS = ("content", "style", "fluency")
DIRECTIONS = ("informal-to-formal", "formal-to-informal")
TARGET_STYLE = {"informal-to-formal": "formal", "formal-to-informal": "informal"}
FIELDS = (
    "survey",
    "source",
    "output",
    "reference",
    "content-1",
    "style-1",
    "fluency-1",
    "content-2",
    "style-2",
    "fluency-2",
)
REFERENCE_SYSTEM = "REF"
REFERENCE_FOLDER = "../xformal"  # where the release keeps the references, relative to data/outputs


@dataclass
class HumanJudgements:
    """All rated outputs as parallel arrays, one row per (system, line).

    ``ratings[aspect]`` has shape (n, 2): the two annotators' raw ratings. ``item`` identifies the
    source (line index within a file, shared by all systems) so bootstrap can resample sources.
    """

    systems: list[str]
    system: np.ndarray  # (n,) str
    item: np.ndarray  # (n,) int, 0-based line index
    survey: np.ndarray  # (n,) int
    direction: np.ndarray  # (n,) str
    sources: list[str]
    outputs: list[str]
    references: list[str]
    ratings: dict[str, np.ndarray]
    files: dict[str, str] = field(default_factory=dict)
    extra_references: list[list[str]] = field(
        default_factory=list
    )  # per source: references 2..k (read from the reference files)
    reference_files: list[str] = field(default_factory=list)
    reference_column_differs: list[int] = field(
        default_factory=list
    )  # 1-based lines where the first reference file differs from the column
    first_reference_file: list[str] = field(
        default_factory=list
    )  # per source: the first reference file's line as released (PREFIX.ref0), where reference 1 is the column

    def __len__(self) -> int:
        return len(self.outputs)

    @property
    def n_references(self) -> int:
        return 1 + (len(self.extra_references[0]) if self.extra_references else 0)

    def reference_choice(self, which: str | int = "1") -> list[str] | list[list[str]]:
        """References per rated output: ``"1"`` (the files' reference column), ``k`` (the k-th reference alone),
        ``"all"``, or ``"ref0"`` (the first reference file as released, which reference 1 copies with a few edits)."""
        which = str(which)
        if which == "1":
            return list(self.references)
        if which == "ref0":
            if not self.first_reference_file:
                raise ValueError(
                    "references='ref0' needs the release's reference files (*.ref0 ... *.ref3); none were loaded "
                    "(pass the folder holding them)"
                )
            return [self.first_reference_file[int(i)] for i in self.item]
        if which != "all" and not (which.isdigit() and 1 <= int(which) <= self.n_references):
            raise ValueError(
                f"references must be 'all', 'ref0' or a number from 1 to {self.n_references}, not {which!r}"
                + (
                    ""
                    if self.extra_references
                    else " (no reference files were loaded: pass the folder holding *.ref0..*.ref3)"
                )
            )
        if which == "all":
            if not self.extra_references:
                raise ValueError(
                    "references='all' needs the release's reference files (*.ref0 ... *.ref3); none were loaded"
                )
            return [[ref, *self.extra_references[int(i)]] for ref, i in zip(self.references, self.item)]
        return [self.extra_references[int(i)][int(which) - 2] for i in self.item]

    @property
    def target_styles(self) -> list[str]:
        return [TARGET_STYLE[d] for d in self.direction]

    def raw(self, aspect: str) -> np.ndarray:
        """Mean of the two annotators' raw ratings per output."""
        return np.asarray(self.ratings[aspect].mean(axis=1))

    def zscores(self, aspect: str) -> np.ndarray:
        """Per-annotator z-scores (within survey, over all items that annotator rated, REF included), averaged per
        output."""
        r = self.ratings[aspect]
        z = np.empty_like(r)
        for s in np.unique(self.survey):
            rows = self.survey == s
            for slot in range(r.shape[1]):
                vals = r[rows, slot]
                sd = vals.std(ddof=0)
                z[rows, slot] = (vals - vals.mean()) / sd if sd > 0 else 0.0
        return np.asarray(z.mean(axis=1))

    def human(self, aspect: str, scale: str = "z") -> np.ndarray:
        if aspect not in ASPECTS:
            raise ValueError(f"unknown aspect {aspect!r}; known: {ASPECTS}")
        if scale == "z":
            return self.zscores(aspect)
        if scale == "raw":
            return self.raw(aspect)
        raise ValueError(f"human scale must be 'z' or 'raw', not {scale!r}")


def _parse_file(path: Path, system: str) -> list[tuple[Any, ...]]:
    lines = read_lines(path, keep_empty=True)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or len(lines) % 2:
        raise DataValidationError(
            f"has {len(lines)} lines",
            path=path,
            expected="an even number of lines: first half informal->formal, second half formal->informal",
        )
    half = len(lines) // 2
    rows = []
    for idx, line in enumerate(lines):
        rec = f"line {idx + 1}"
        parts = line.split("\t")
        if len(parts) != len(FIELDS):
            raise DataValidationError(
                f"has {len(parts)} tab-separated fields",
                path=path,
                record=rec,
                expected=f"{len(FIELDS)} fields: {', '.join(FIELDS)}",
            )
        try:
            survey = int(parts[0])
        except ValueError:
            raise DataValidationError(
                f"is {parts[0]!r}", path=path, record=rec, field="survey", expected="an integer survey id"
            ) from None
        for name, text in zip(FIELDS[1:4], parts[1:4]):
            if not text.strip():
                raise DataValidationError("is empty", path=path, record=rec, field=name, expected="a sentence")
        scores = []
        for name, text in zip(FIELDS[4:], parts[4:]):
            try:
                value = float(text)
            except ValueError:
                raise DataValidationError(
                    f"is {text!r}", path=path, record=rec, field=name, expected="a number from 0 to 100"
                ) from None
            if not np.isfinite(value) or not 0 <= value <= 100:
                raise DataValidationError(
                    f"is {value}", path=path, record=rec, field=name, expected="a number from 0 to 100"
                )
            scores.append(value)
        rows.append(
            (system, idx, survey, DIRECTIONS[0] if idx < half else DIRECTIONS[1], parts[1], parts[2], parts[3], scores)
        )
    return rows


def find_reference_files(folder: Path) -> list[Path]:
    """``PREFIX.ref0``, ``PREFIX.ref1``, ... in ``folder`` (one prefix, consecutive numbers from 0), or [] when there
    are none."""
    found = sorted(p for p in folder.glob("*.ref[0-9]") if p.is_file())
    if not found:
        return []
    prefixes = {p.name[:-5] for p in found}
    if len(prefixes) != 1:
        raise DataValidationError(
            f"holds reference files with several prefixes {sorted(prefixes)}",
            path=folder,
            expected="one set PREFIX.ref0, PREFIX.ref1, ...",
        )
    numbers = sorted(int(p.name[-1]) for p in found)
    if numbers != list(range(len(numbers))):
        raise DataValidationError(
            f"has reference files numbered {numbers}",
            path=folder,
            expected="PREFIX.ref0, PREFIX.ref1, ... numbered from 0 without gaps",
        )
    return sorted(found, key=lambda p: int(p.name[-1]))


def _read_references(files: list[Path], n_sources: int) -> list[list[str]]:
    columns = []
    for path in files:
        lines = read_lines(path, keep_empty=True)
        while lines and not lines[-1].strip():
            lines.pop()
        if len(lines) != n_sources:
            raise DataValidationError(
                f"has {len(lines)} lines",
                path=path,
                expected=f"one reference per source: {n_sources} lines, in the human files' order",
            )
        for k, line in enumerate(lines):
            if not line.strip():
                raise DataValidationError(
                    "is empty", path=path, record=f"line {k + 1}", expected="a reference sentence"
                )
        columns.append([line.strip() for line in lines])
    return [list(refs) for refs in zip(*columns)]


def load_human_judgements(
    folder: str | Path, systems: list[str] | None = None, references: str | Path | None = None
) -> HumanJudgements:
    """Read every ``*.human.txt`` in ``folder`` (or the named systems) and check they rate the same sources.

    ``references``: a folder with the release's reference files (``*.ref0`` ... ``*.ref3``); by default
    ``folder/../xformal`` (the release's layout) when it holds them, else only the reference column is used.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise DataValidationError(
            "is not a folder", path=folder, expected="the formality_human_judgements folder with SYSTEM.human.txt files"
        )
    files = {p.name[: -len(".human.txt")]: p for p in sorted(folder.glob("*.human.txt"))}
    if systems:
        missing = [s for s in systems if s not in files]
        if missing:
            raise DataValidationError(f"has no file for system(s) {missing}; found {sorted(files)}", path=folder)
        files = {s: files[s] for s in systems}
    if not files:
        raise DataValidationError("holds no SYSTEM.human.txt files", path=folder)
    rows: list[tuple[Any, ...]] = []
    first: tuple[str, list[tuple[Any, ...]]] | None = None
    for system, path in files.items():
        got = _parse_file(path, system)
        if first is None:
            first = (str(path), got)
        else:
            ref_path, ref_rows = first
            if len(got) != len(ref_rows):
                raise DataValidationError(
                    f"has {len(got)} lines but {ref_path} has {len(ref_rows)}",
                    path=path,
                    expected="the same sources in every system file",
                )
            for a, b in zip(got, ref_rows):
                for j, name in ((2, "survey"), (4, "source")):
                    if a[j] != b[j]:
                        raise DataValidationError(
                            f"differs from {ref_path} ({b[j]!r})",
                            path=path,
                            record=f"line {a[1] + 1}",
                            field=name,
                            expected="the same survey and source on the same line of every system file",
                        )
        rows.extend(got)
    ratings = np.asarray([r[7] for r in rows], dtype=np.float64)
    ref_folder = Path(references) if references is not None else folder / REFERENCE_FOLDER
    if references is not None and not ref_folder.is_dir():
        raise DataValidationError(
            "is not a folder",
            path=ref_folder,
            expected="the folder holding the reference files PREFIX.ref0 ... PREFIX.ref3",
        )
    ref_files = find_reference_files(ref_folder) if ref_folder.is_dir() else []
    if references is not None and not ref_files:
        raise DataValidationError(
            "holds no reference files", path=ref_folder, expected="PREFIX.ref0 ... PREFIX.ref3, one line per source"
        )
    n_sources = len(first[1]) if first else 0
    all_refs = _read_references(ref_files, n_sources) if ref_files else []
    column = {r[1]: r[6] for r in (first[1] if first else [])}
    differs = [k + 1 for k, refs in enumerate(all_refs) if refs[0] != column[k].strip()]
    return HumanJudgements(
        systems=list(files),
        system=np.asarray([r[0] for r in rows]),
        item=np.asarray([r[1] for r in rows], dtype=np.int64),
        survey=np.asarray([r[2] for r in rows], dtype=np.int64),
        direction=np.asarray([r[3] for r in rows]),
        sources=[r[4] for r in rows],
        outputs=[r[5] for r in rows],
        references=[r[6] for r in rows],
        ratings={a: ratings[:, [k, k + 3]] for k, a in enumerate(ASPECTS)},
        files={s: str(p) for s, p in files.items()},
        extra_references=[refs[1:] for refs in all_refs],
        reference_files=[str(p) for p in ref_files],
        reference_column_differs=differs,
        first_reference_file=[refs[0] for refs in all_refs],
    )
