"""Style change detection (PAN18, PAN22–PAN26) as predefined same/different-author pairs.

One parser serves every edition; an :class:`Edition` says what differs: how the truth files are
named, what a line of ``problem-N.txt`` is (paragraph or sentence), which folder names the release
uses for its difficulty levels, and whether pairs are down-sampled.

- PAN22–26: ``problem-N.txt`` with one unit per line and ``truth-problem-N.json`` whose ``changes``
  holds one 0/1 per pair of consecutive units (1 = the author changes). Each consecutive pair
  becomes a :class:`TextPair` with ``same = changes[i] == 0`` and ``group`` = the document.
- PAN18: ``problem-N.txt`` and ``problem-N.truth`` whose ``changes`` is a single boolean for the
  whole document (no positions). The edition defines no per-paragraph labels, so one trial is made
  per document: its first half against its second half (split at a paragraph boundary), ``same``
  when the document has no style change. This uses the label only as the edition defines it.
- PAN26: pairs are heavily imbalanced (most consecutive sentences share an author), so per document
  every different-author pair is kept and the same number of same-author pairs is drawn, seeded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from steb_core import (
    DataValidationError,
    DatasetNotFoundError,
    DatasetBundle,
    LoadContext,
    TextPair,
    read_json,
    read_lines,
    read_text,
    require_field,
    seeded_rng,
)
from steb_core.io import check_inside

from .files import find_folder, name_matches, release_candidates

__all__ = ["Edition", "EDITIONS", "StyleChangeSource", "load_style_change", "SPLIT_PREFERENCE"]

#: Splits tried in order when the user names none: held-out data first, "" = the folder itself.
SPLIT_PREFERENCE = ("test", "validation", "train", "")

_PROBLEM_RE = re.compile(r"^problem-(\d+)\.txt$")


@dataclass(frozen=True)
class Edition:
    """What differs between PAN style-change editions."""

    year: int
    unit: str  # what one line of problem-N.txt is: "paragraph" or "sentence"; "document" for PAN18
    levels: dict[str, tuple[str, ...]]  # STEB level name -> release folder names for it
    document_level: bool = False  # PAN18: one boolean `changes` per document
    downsample: bool = False  # PAN26: keep all different-author pairs + as many same-author pairs

    def truth_name(self, number: str) -> str:
        return f"problem-{number}.truth" if self.document_level else f"truth-problem-{number}.json"


EDITIONS: dict[int, Edition] = {
    2018: Edition(2018, "document", {"": ("",)}, document_level=True),
    2022: Edition(2022, "paragraph", {"basic": ("dataset1", "basic"), "advanced": ("dataset2", "advanced"), "sentence": ("dataset3", "sentence")}),
    2023: Edition(2023, "paragraph", {"easy": ("dataset1", "easy"), "medium": ("dataset2", "medium"), "hard": ("dataset3", "hard")}),
    2024: Edition(2024, "paragraph", {"easy": ("easy",), "medium": ("medium",), "hard": ("hard",)}),
    2025: Edition(2025, "paragraph", {"easy": ("easy",), "medium": ("medium",), "hard": ("hard",)}),
    2026: Edition(2026, "sentence", {"easy": ("easy",), "medium": ("medium",), "hard": ("hard",)}, downsample=True),
}


@dataclass(frozen=True)
class StyleChangeSource:
    """One STEB style-change dataset: an edition and a difficulty level (loader options can change the split)."""

    year: int
    level: str = ""

    @property
    def edition(self) -> Edition:
        return EDITIONS[self.year]

    def layout(self) -> str:
        ed = self.edition
        if ed.document_level:
            return "<data-dir>/[train|validation|test/]problem-N.txt + problem-N.truth ({\"changes\": true|false})"
        names = "|".join(ed.levels[self.level])
        return (
            f"<data-dir>/[{names}/][train|validation|test/]problem-N.txt (one {self.unit_name} per line) + "
            f"truth-problem-N.json ({{\"authors\": n, \"changes\": [0|1 per pair of consecutive lines]}})"
        )

    @property
    def unit_name(self) -> str:
        """PAN22's third dataset is sentence-level; every other PAN22 file has one paragraph per line."""
        return "sentence" if (self.year == 2022 and self.level == "sentence") else self.edition.unit


def load_style_change(ctx: LoadContext, source: StyleChangeSource, obtain: str) -> DatasetBundle:
    """Read one edition/level of style-change data into predefined pairs (see the module docstring).

    Options: ``split`` (``train``/``validation``/``test``; default: the first present of test,
    validation, train), ``downsample`` (PAN26 only, default true), ``max_documents`` (first N documents,
    for quick runs).
    """
    root, folder = _find_problem_folder(ctx, source, obtain)
    ed = source.edition
    downsample = bool(ctx.options.get("downsample", ed.downsample))
    max_docs = ctx.options.get("max_documents")
    documents = _documents(folder, ed)
    if max_docs is not None:
        documents = documents[: int(max_docs)]

    pairs: list[TextPair] = []
    stats = {"documents": 0, "pairs_total": 0, "same_total": 0, "different_total": 0, "same_kept": 0, "different_kept": 0}
    for number, text_path in documents:
        doc = f"problem-{number}"
        truth_path = folder / ed.truth_name(number)
        for path in (text_path, truth_path):  # found by listing the folder: a link may lead outside the release
            check_inside(path, root, record=doc, what="release folder")
        units, same = _read_document(text_path, truth_path, doc, ed)
        n_same = sum(same)
        stats["documents"] += 1
        stats["pairs_total"] += len(same)
        stats["same_total"] += n_same
        stats["different_total"] += len(same) - n_same
        keep = _downsample(same, ctx.seed, ctx.dataset, doc) if downsample else range(len(same))
        doc_pairs = _make_pairs(units, same, keep, doc, text_path, ed.document_level)
        kept_same = sum(p.same for p in doc_pairs)
        stats["same_kept"] += kept_same
        stats["different_kept"] += len(doc_pairs) - kept_same
        pairs.extend(doc_pairs)
    if not pairs:
        raise DataValidationError("yields no pairs", path=folder, expected="documents with at least two units")
    info = {
        "source": f"PAN{ed.year % 100} style change" + (f" ({source.level})" if source.level else ""),
        "folder": str(folder),
        "split": folder.name,
        "unit": source.unit_name,
        "pairing": "document halves, same = not changes" if ed.document_level else "consecutive units, same = (changes[i] == 0)",
        "downsampled": downsample,
        "seed": ctx.seed,
        **stats,
        "pairs_kept": len(pairs),
    }
    if downsample:
        info["sampling"] = "per document: all different-author pairs + an equal number of same-author pairs drawn without replacement (fewer if the document has fewer)"
    return DatasetBundle(pairs=pairs, info=info)


#: Words in PAN's official release folder names for this task (``pan26-style-change-smoketest``,
#: ``pan23-multi-author-writing-style-analysis-dataset1`` ...).
RELEASE_WORDS = ("style-change", "multi-author", "writing-style", "style-analysis")


def _find_problem_folder(ctx: LoadContext, source: StyleChangeSource, obtain: str) -> tuple[Path, Path]:
    """The release root and the problem folder under ``<data-dir>/<dataset name>`` or, when that is absent, under a release folder
    kept beside it with its official name (``<data-dir>/pan26-style-change-smoketest/easy/train``) or a
    pan-code clone (``<data-dir>/pan-code/clef26/multi-author-analysis/smoketest/easy/train``)."""
    candidates = release_candidates(ctx, f"pan{source.year % 100}", RELEASE_WORDS, task="style-change")
    ed = source.edition
    other_levels = {a for lvl, names in ed.levels.items() if lvl != source.level for a in names if a}
    # PAN23 ships one archive per level (pan23-multi-author-analysis-dataset1/ ... dataset3/): never take another level's
    candidates = [c for c in candidates if c == ctx.data_dir or not any(name_matches(c.name, a) for a in other_levels)]
    if not candidates:
        ctx.require_dir(obtain, source.layout())  # raises the standard "no data" error
    error: DatasetNotFoundError | None = None
    for root in candidates:
        try:
            return root, _problem_folder(root, source, ctx.options.get("split"), obtain)
        except DatasetNotFoundError as exc:
            error = error or exc
    assert error is not None
    raise error


def _problem_folder(root: Path, source: StyleChangeSource, split: str | None, obtain: str) -> Path:
    ed = source.edition
    truth_glob = "problem-*.truth" if ed.document_level else "truth-problem-*.json"

    other_levels = {a for lvl, names in ed.levels.items() if lvl != source.level for a in names if a}

    def holds_problems(folder: Path) -> bool:
        # A folder under another level's name (e.g. dataset2/ when loading dataset1) is never taken.
        if any(name_matches(part, a) for part in folder.relative_to(root).parts for a in other_levels):
            return False
        return folder.is_dir() and any(folder.glob(truth_glob))

    levels = list(ed.levels.get(source.level, ("",))) + ([""] if source.level else [])
    splits = [split] if split else list(SPLIT_PREFERENCE)
    folder = find_folder(root, holds_problems, aliases=[levels, splits])
    if folder is None:
        want = f"split '{split}'" if split else "any split"
        raise DatasetNotFoundError(
            f"dataset '{root.name}': no {truth_glob} files for {want} under {root}. Obtain it: {obtain}. "
            f"Expected layout: {source.layout()}"
        )
    return folder


def _documents(folder: Path, ed: Edition) -> list[tuple[str, Path]]:
    """(number, text path) for every ``problem-N.txt``, numerically ordered; truth files without a text are errors."""
    docs = []
    for path in folder.iterdir():
        m = _PROBLEM_RE.match(path.name)
        if m:
            docs.append((int(m.group(1)), m.group(1), path))
    docs.sort()
    numbers = {n for _, n, _ in docs}
    glob = "problem-*.truth" if ed.document_level else "truth-problem-*.json"
    for truth in sorted(folder.glob(glob)):
        number = truth.name.removeprefix("truth-").removeprefix("problem-").split(".")[0]
        if number not in numbers:
            raise DataValidationError(f"has no text file problem-{number}.txt beside it", path=truth, record=f"problem-{number}")
    return [(n, p) for _, n, p in docs]


def _read_document(text_path: Path, truth_path: Path, doc: str, ed: Edition) -> tuple[list[str], list[bool]]:
    """A document's units and, per pair of consecutive units, whether they share an author (validated)."""
    if not truth_path.is_file():
        raise DataValidationError(f"has no truth file {truth_path.name}", path=text_path, record=doc, expected="a truth file for every problem")
    truth = read_json(truth_path, record=doc)  # a key given twice ("changes") is refused, never the last kept
    if not isinstance(truth, dict):
        raise DataValidationError(f"is a {type(truth).__name__}", path=truth_path, record=doc, expected="a JSON object")
    if ed.document_level:
        return _halves(text_path, truth_path, truth, doc)
    changes = require_field(truth, "changes", path=truth_path, record=doc, types=list, expected="a list of 0/1")
    units = [u.strip() for u in read_lines(text_path)]
    if len(changes) != len(units) - 1:
        raise DataValidationError(
            f"has {len(changes)} entries but {text_path.name} has {len(units)} non-empty lines",
            path=truth_path, record=doc, field="changes", expected=f"lines - 1 = {len(units) - 1} entries",
        )
    for i, change in enumerate(changes):
        if change not in (0, 1) or isinstance(change, float):
            raise DataValidationError(f"entry {i} is {change!r}", path=truth_path, record=doc, field="changes", expected="0 or 1")
    return units, [c == 0 for c in changes]


def _make_pairs(units: list[str], same: list[bool], keep, doc: str, text_path: Path, document_level: bool) -> list[TextPair]:
    """TextPairs for the kept pair indices; a record error is located at its lines (one try block: this is the hot loop)."""
    out: list[TextPair] = []
    i = 0
    try:
        if document_level:
            return [TextPair(units[0], units[1], same=same[0], id=doc, group=doc)]
        for i in keep:
            out.append(TextPair(units[i], units[i + 1], same=same[i], id=f"{doc}:{i}", group=doc))
        return out
    except DataValidationError as exc:
        raise exc.located(path=text_path, record=f"{doc} lines {i + 1}-{i + 2}") from None


def _halves(text_path: Path, truth_path: Path, truth: dict, doc: str) -> tuple[list[str], list[bool]]:
    """PAN18: the document's first and second half (at a paragraph boundary), same = no style change."""
    changes = require_field(truth, "changes", path=truth_path, record=doc, types=bool, expected="true or false")
    text = read_text(text_path).strip()
    parts = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    if len(parts) < 2:
        parts = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if len(parts) < 2:
        raise DataValidationError(
            f"has {len(parts)} paragraph(s)", path=text_path, record=doc, field="text", expected="at least two paragraphs to split in halves"
        )
    mid = len(parts) // 2
    return ["\n\n".join(parts[:mid]), "\n\n".join(parts[mid:])], [not changes]


def _downsample(same: list[bool], seed: int, dataset: str, doc: str) -> list[int]:
    """Indices of all different-author pairs plus as many same-author pairs, drawn with a per-document seeded RNG."""
    different = [i for i, s in enumerate(same) if not s]
    same_idx = [i for i, s in enumerate(same) if s]
    rng = seeded_rng(seed, "pan-style-change-downsample", dataset, doc)
    kept_same = same_idx if len(same_idx) <= len(different) else rng.sample(same_idx, len(different))
    return sorted(different + kept_same)
