"""Style change detection (PAN18, PAN22–PAN26) as predefined same/different-author pairs.

One parser serves every edition; an :class:`Edition` says what differs: how the truth files are
named, what a line of ``problem-N.txt`` is (paragraph or sentence), which folder names the release
uses for its difficulty levels, and whether pairs are down-sampled.

As the STEB reference builds the trials (``steb/loaders/pan.py`` @a8445f54 ``load_pan18_style_change``,
``_load_pan_style_change_dataset`` and the PAN22-26 wrappers):

- PAN22–26: documents ``problem-N.txt`` in sorted file-name order (``problem-10`` before ``problem-2``),
  read as text mode reads them (UTF-8, errors replaced); units = the non-blank lines of ``str.splitlines``,
  not stripped; ``truth-problem-N.json`` ``changes`` holds one 0/1 per pair of consecutive units
  (1 = the author changes). A document with fewer than two units or a ``changes`` list of another length
  is skipped, as the reference skips it (counted and named in the info). Each consecutive pair becomes a
  :class:`TextPair` with ``same = changes[i] == 0`` and ``group`` = the document; per document the
  same-author pairs come first, then the changes.
- PAN18: ``problem-N.txt`` and ``problem-N.truth`` with ``changes`` (a boolean for the whole document)
  and, for a document with changes, ``positions`` (character offsets where a new author starts). One
  trial per document: with changes, ``text[:p0]`` vs ``text[p0:p1]`` (or to the end), different
  authors; without, the text split after the whitespace nearest its character midpoint (searching
  left, then right, outward), same author; a trial with a blank side is skipped.
- PAN26 (balanced): the pairs are heavily imbalanced, so same-author pairs are kept at one global
  rate (all changes / all same-author pairs): per document ``round(rate x its same pairs)`` (at most
  all) drawn with ``random.Random(42).sample``, one generator running across the documents in order;
  every change is kept. ``downsample=per-document`` is steb's earlier seeded per-document rule (as many
  same-author pairs as changes), ``downsample=false`` keeps every pair.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steb_core import (
    DatasetBundle,
    DatasetNotFoundError,
    DataValidationError,
    LoadContext,
    TextPair,
    check_inside,
    decode_replacing,
    read_bytes,
    read_json,
    require_field,
    seeded_rng,
)

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
    2022: Edition(
        2022,
        "paragraph",
        {"basic": ("dataset1", "basic"), "advanced": ("dataset2", "advanced"), "sentence": ("dataset3", "sentence")},
    ),
    2023: Edition(
        2023,
        "paragraph",
        {"easy": ("dataset1", "easy"), "medium": ("dataset2", "medium"), "hard": ("dataset3", "hard")},
    ),
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
            return '<data-dir>/[train|validation|test/]problem-N.txt + problem-N.truth ({"changes": true|false})'
        names = "|".join(ed.levels[self.level])
        return (
            f"<data-dir>/[{names}/][train|validation|test/]problem-N.txt (one {self.unit_name} per line) + "
            f'truth-problem-N.json ({{"authors": n, "changes": [0|1 per pair of consecutive lines]}})'
        )

    @property
    def unit_name(self) -> str:
        """PAN22's third dataset is sentence-level; every other PAN22 file has one paragraph per line."""
        return "sentence" if (self.year == 2022 and self.level == "sentence") else self.edition.unit


#: ``downsample`` option values: the reference's global rate (PAN26's default), steb's earlier per-document rule, none
DOWNSAMPLE_RULES = ("reference", "per-document", "none")


def _downsample_rule(ctx: LoadContext, ed: Edition) -> str:
    value = ctx.options.get("downsample", ed.downsample)
    text = str(value).strip().lower()
    if isinstance(value, bool) or text in ("true", "false", "1", "0", "yes", "no"):
        return "reference" if text in ("true", "1", "yes") else "none"
    if text not in DOWNSAMPLE_RULES:
        raise DataValidationError(
            f"option downsample={value!r}",
            field="downsample",
            expected=" or ".join(DOWNSAMPLE_RULES) + " (or true/false)",
        )
    return text


def load_style_change(ctx: LoadContext, source: StyleChangeSource, obtain: str) -> DatasetBundle:
    """Read one edition/level of style-change data into predefined pairs (see the module docstring).

    Options: ``split`` (``train``/``validation``/``test``; default: the first present of test,
    validation, train), ``downsample`` (``reference``/true -- PAN26's default --, ``per-document``, or
    ``none``/false), ``max_documents`` (first N documents, for quick runs).
    """
    root, folder = _find_problem_folder(ctx, source, obtain)
    ed = source.edition
    rule = _downsample_rule(ctx, ed)
    max_docs = ctx.options.get("max_documents")
    documents = _documents(folder, ed)
    if max_docs is not None:
        documents = documents[: int(max_docs)]

    read: list[tuple[str, Path, list[str], list[bool]]] = []
    skipped: list[str] = []
    for number, text_path in documents:
        doc = f"problem-{number}"
        truth_path = folder / ed.truth_name(number)
        for path in (text_path, truth_path):  # found by listing the folder: a link may lead outside the release
            check_inside(path, root, record=doc, what="release folder")
        got = _read_document(text_path, truth_path, doc, ed)
        if got is None:
            skipped.append(doc)
        else:
            read.append((doc, text_path, *got))
    keep = _kept_indices([same for *_, same in read], rule, ctx.seed, ctx.dataset, [doc for doc, *_ in read])
    pairs: list[TextPair] = []
    for (doc, text_path, units, same), kept in zip(read, keep):
        pairs.extend(_make_pairs(units, same, kept, doc, text_path, ed.document_level))
    if not pairs:
        raise DataValidationError("yields no pairs", path=folder, expected="documents with at least two units")
    n_same = sum(sum(same) for *_, same in read)
    n_pairs = sum(len(same) for *_, same in read)
    kept_same = sum(p.same for p in pairs)
    info = {
        "source": f"PAN{ed.year % 100} style change" + (f" ({source.level})" if source.level else ""),
        "folder": str(folder),
        "split": folder.name,
        "unit": source.unit_name,
        "pairing": "document halves at the truth's positions / midpoint, same = not changes"
        if ed.document_level
        else "consecutive units, same = (changes[i] == 0)",
        "documents": len(read),
        "documents_skipped": len(skipped),
        "documents_skipped_first": skipped[:10],
        "pairs_total": n_pairs,
        "same_total": n_same,
        "different_total": n_pairs - n_same,
        "same_kept": kept_same,
        "different_kept": len(pairs) - kept_same,
        "downsample": rule,
        "pairs_kept": len(pairs),
    }
    if skipped:
        info["documents_skipped_why"] = (
            "fewer than two non-blank units or a changes list of another length (the reference skips them)"
            if not ed.document_level
            else "a blank half (the reference skips it)"
        )
    if rule == "per-document":
        info["sampling"] = (
            "per document: all different-author pairs + an equal number of same-author pairs drawn without "
            "replacement (seeded)"
        )
        info["seed"] = ctx.seed
    elif rule == "reference":
        info["sampling"] = (
            "same-author pairs kept at the global rate all changes / all same pairs, per document round(rate x "
            "its same pairs), drawn with one random.Random(42) across the documents in order (the STEB reference)"
        )
    return DatasetBundle(pairs=pairs, info=info)


def _kept_indices(docs_same: list[list[bool]], rule: str, seed: int, dataset: str, names: list[str]) -> list[list[int]]:
    """Per document, the pair indices kept, in emission order: the same-author pairs kept, then every change."""
    if rule == "per-document":
        return [_downsample(same, seed, dataset, doc) for same, doc in zip(docs_same, names)]
    same_idx = [[i for i, s in enumerate(same) if s] for same in docs_same]
    diff_idx = [[i for i, s in enumerate(same) if not s] for same in docs_same]
    if rule == "none":
        return [a + b for a, b in zip(same_idx, diff_idx)]
    total_same, total_diff = sum(map(len, same_idx)), sum(map(len, diff_idx))
    if total_same == 0 or total_diff == 0:
        raise DataValidationError(
            f"has {total_same} same-author and {total_diff} different-author pairs",
            field="changes",
            expected="both kinds, to balance them (or --dataset-option downsample=none)",
        )
    rate = total_diff / total_same
    rng = random.Random(42)  # the reference's generator, whatever the run seed (it is the reference's fixed sample)
    out = []
    for same, diff in zip(same_idx, diff_idx):
        n = min(len(same), round(rate * len(same)))
        out.append((rng.sample(same, n) if n > 0 else []) + diff)
    return out


#: Words in PAN's official release folder names for this task (``pan26-style-change-smoketest``,
#: ``pan23-multi-author-writing-style-analysis-dataset1`` ...).
RELEASE_WORDS = ("style-change", "multi-author", "writing-style", "style-analysis")


def _find_problem_folder(ctx: LoadContext, source: StyleChangeSource, obtain: str) -> tuple[Path, Path]:
    """The release root and the problem folder under ``<data-dir>/<dataset name>`` or, when that is absent, under a
    release folder
    kept beside it with its official name (``<data-dir>/pan26-style-change-smoketest/easy/train``) or a
    pan-code clone (``<data-dir>/pan-code/clef26/multi-author-analysis/smoketest/easy/train``)."""
    candidates = release_candidates(ctx, f"pan{source.year % 100}", RELEASE_WORDS, task="style-change")
    ed = source.edition
    other_levels = {a for lvl, names in ed.levels.items() if lvl != source.level for a in names if a}
    # PAN23 ships one archive per level (pan23-multi-author-analysis-dataset1/ ... dataset3/): never take another
    # level's
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
    """(number, text path) for every ``problem-N.txt`` in sorted file-name order, as the reference's
    ``sorted(glob(...))``
    gives them (``problem-10`` before ``problem-2``); truth files without a text are errors."""
    docs = sorted(
        ((m.group(1), path) for path in folder.iterdir() if (m := _PROBLEM_RE.match(path.name))),
        key=lambda d: d[1].name,
    )
    numbers = {n for n, _ in docs}
    glob = "problem-*.truth" if ed.document_level else "truth-problem-*.json"
    for truth in sorted(folder.glob(glob)):
        number = truth.name.removeprefix("truth-").removeprefix("problem-").split(".")[0]
        if number not in numbers:
            raise DataValidationError(
                f"has no text file problem-{number}.txt beside it", path=truth, record=f"problem-{number}"
            )
    return docs


def _reference_text(path: Path) -> str:
    """A document as the reference reads it: ``open(path, encoding="utf-8", errors="replace").read()``
    (universal newlines)."""
    return decode_replacing(read_bytes(path), path=path).replace("\r\n", "\n").replace("\r", "\n")


def _read_document(text_path: Path, truth_path: Path, doc: str, ed: Edition) -> tuple[list[str], list[bool]] | None:
    """A document's units and, per pair of consecutive units, whether they share an author; None for a document the
    reference skips (fewer than two units, or ``changes`` of another length than units - 1)."""
    if not truth_path.is_file():
        raise DataValidationError(
            f"has no truth file {truth_path.name}",
            path=text_path,
            record=doc,
            expected="a truth file for every problem",
        )
    truth = read_json(truth_path, record=doc)  # a key given twice ("changes") is refused, never the last kept
    if not isinstance(truth, dict):
        raise DataValidationError(f"is a {type(truth).__name__}", path=truth_path, record=doc, expected="a JSON object")
    if ed.document_level:
        return _halves(text_path, truth_path, truth, doc)
    changes = require_field(truth, "changes", path=truth_path, record=doc, types=list, expected="a list of 0/1")
    units = [u for u in _reference_text(text_path).splitlines() if u.strip()]
    if len(units) < 2 or len(changes) != len(units) - 1:
        return None
    for i, change in enumerate(changes):
        if change not in (0, 1) or isinstance(change, float):
            raise DataValidationError(
                f"entry {i} is {change!r}", path=truth_path, record=doc, field="changes", expected="0 or 1"
            )
    return units, [c == 0 for c in changes]


def _make_pairs(
    units: list[str], same: list[bool], keep: Iterable[int], doc: str, text_path: Path, document_level: bool
) -> list[TextPair]:
    """TextPairs for the kept pair indices; a record error is located at its lines (one try block: this is the hot
    loop)."""
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


def _midpoint_split(text: str) -> int:
    """Where the reference cuts a document without changes: after the whitespace nearest ``len(text) // 2``, looking
    left then right at each distance; the midpoint itself when the text has no whitespace."""
    mid = len(text) // 2
    for offset in range(len(text)):
        left, right = mid - offset, mid + offset
        if left >= 0 and text[left].isspace():
            return left + 1
        if right < len(text) and text[right].isspace():
            return right + 1
    return mid


def _halves(text_path: Path, truth_path: Path, truth: dict[str, Any], doc: str) -> tuple[list[str], list[bool]] | None:
    """PAN18: two sides per document (module docstring); None when a side is blank (the reference skips the trial)."""
    changes = require_field(truth, "changes", path=truth_path, record=doc, types=bool, expected="true or false")
    text = _reference_text(text_path)
    if changes:
        positions = require_field(
            truth, "positions", path=truth_path, record=doc, types=list, expected="the change positions"
        )
        if not positions or not all(isinstance(p, int) and not isinstance(p, bool) for p in positions):
            raise DataValidationError(
                f"is {positions!r}",
                path=truth_path,
                record=doc,
                field="positions",
                expected="character offsets of the changes (a document with changes has at least one)",
            )
        end = positions[1] if len(positions) > 1 else len(text)
        a, b = text[: positions[0]], text[positions[0] : end]
    else:
        split = _midpoint_split(text)
        a, b = text[:split], text[split:]
    if not a.strip() or not b.strip():
        return None
    return [a, b], [not changes]


def _downsample(same: list[bool], seed: int, dataset: str, doc: str) -> list[int]:
    """``downsample=per-document`` (steb before protocol 2): all different-author pairs plus as many same-author pairs,
    drawn with a per-document seeded RNG, in document order."""
    different = [i for i, s in enumerate(same) if not s]
    same_idx = [i for i, s in enumerate(same) if s]
    rng = seeded_rng(seed, "pan-style-change-downsample", dataset, doc)
    kept_same = same_idx if len(same_idx) <= len(different) else rng.sample(same_idx, len(different))
    return sorted(different + kept_same)
