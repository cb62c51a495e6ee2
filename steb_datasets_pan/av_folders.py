"""Folder-per-problem authorship verification (PAN13, PAN14, PAN15; Enron in PAN-style folders with ``layout=pan``).

Layout: one folder per problem (``EN001/known01.txt ... known05.txt, unknown.txt``) and a
``truth.txt`` beside the problem folders with lines ``PROBLEM Y|N``. The problem id's letter prefix
encodes the language and genre (PAN14: ``EE`` English essays, ``EN`` English novels, ``DE``/``DR``
Dutch essays/reviews, ``GR`` Greek, ``SP`` Spanish; PAN15 Dutch is ``DU``), so one release folder can
serve several datasets.

One trial per problem, as the STEB reference builds it (``steb/loaders/pan.py`` @a8445f54, also
@2a17f034): problems in sorted id order; side A = ``known01.txt`` only for PAN14 and PAN15
(``load_pan15_dataset``; the PAN14 configs, e.g. ``pan14_authorship_verification_corpus1_english_essays_test``
@489a3d18, name that loader too), or every ``known*.txt`` in name order joined by a blank line for PAN13
(``load_pan13_dataset``); side B = ``unknown.txt``. Texts are read as the reference reads them
(:func:`steb_datasets_pan.files.read_reference_text`: not stripped). ``--dataset-option known=all|first``
overrides the side-A rule (``all`` was steb's reading of PAN14/15 before protocol 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from steb_core import (
    DatasetBundle,
    DataValidationError,
    LoadContext,
    TextPair,
    check_inside,
    located,
    read_lines,
    release_path,
    unique_keys,
)

from .files import read_reference_text, release_dir

#: ``--dataset-option known=...``: which known texts form side A of a trial
KNOWN_RULES = ("first", "all")

__all__ = ["AVFolderSource", "load_av_folders", "parse_truth_txt"]

_ANSWERS = {"Y": True, "N": False, "1": True, "0": False, "1.0": True, "0.0": False}
_KNOWN_RE = re.compile(r"^known\d*\.txt$", re.IGNORECASE)


@dataclass(frozen=True)
class AVFolderSource:
    """Which problems of a folder-per-problem release a dataset takes (by id prefix; empty = all)."""

    prefixes: tuple[str, ...] = ()
    release: str = "PAN authorship verification"
    edition: str = ""  # official release folder prefix (pan13, pan14, pan15, enron)
    #: side A: ``first`` (known01.txt, the reference's PAN14/15 loader) or ``all`` (known*.txt joined, PAN13)
    known: str = "all"
    #: PAN14 ships two test corpora with the same problem ids (EE001 ...) in one archive: when set, only
    #: truth.txt files under a folder whose name carries this token (``corpus1``/``corpus2``) are read.
    corpus: str = ""

    def layout(self) -> str:
        ex = (self.prefixes[0] if self.prefixes else "CASE") + "001"
        return (
            f"<data-dir>/[release folder/]truth.txt (lines 'PROBLEM Y|N') + {ex}/known01.txt ... {ex}/unknown.txt, "
            "one folder per problem"
        )

    def wants(self, problem: str) -> bool:
        return not self.prefixes or any(problem.upper().startswith(p) for p in self.prefixes)


def parse_truth_txt(path: Path) -> dict[str, tuple[bool, int]]:
    """``truth.txt`` as problem -> (same author, line number); BOM, CRLF and extra blanks tolerated."""

    def rows() -> Iterator[tuple[str, str, bool]]:
        for lineno, line in enumerate(read_lines(path, keep_empty=True), start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 2:
                raise DataValidationError(
                    f"has {len(fields)} fields: {line[:60]!r}",
                    path=path,
                    record=f"line {lineno}",
                    expected="'PROBLEM Y|N'",
                )
            problem, answer = fields
            if answer.upper() not in _ANSWERS:
                raise DataValidationError(
                    f"answer {answer!r}", path=path, record=problem, field="answer", expected="Y or N"
                )
            yield f"line {lineno}", problem, _ANSWERS[answer.upper()]

    # unique_keys: a problem listed twice (same or flipped answer) is an error, never a silent overwrite
    entries = list(rows())
    answers = unique_keys(entries, path=path, field="problem", what="answer")
    first_line = {problem: int(record.split()[1]) for record, problem, _ in reversed(entries)}
    return {problem: (same, first_line[problem]) for problem, same in answers.items()}


def load_av_folders(ctx: LoadContext, source: AVFolderSource, obtain: str) -> DatasetBundle:
    """Every matching problem of every ``truth.txt`` under the data folder, as one predefined pair each."""
    known_rule = str(ctx.options.get("known", source.known)).strip().lower()
    if known_rule not in KNOWN_RULES:
        raise DataValidationError(f"option known={known_rule!r}", field="known", expected=" or ".join(KNOWN_RULES))
    root = release_dir(
        ctx,
        obtain,
        source.layout(),
        source.edition or "pan",
        ("verification", "") if source.edition == "enron" else ("verification",),
    )
    truth_files = _of_corpus(
        sorted(p for p in root.rglob("truth.txt") if len(p.relative_to(root).parts) <= 4), root, source.corpus
    )
    if not truth_files:
        ctx.require_file("truth.txt", obtain, source.layout())  # raises the standard "missing file" error
    pairs: list[TextPair] = []
    seen_prefixes: set[str] = set()
    used: list[str] = []
    for truth_path in truth_files:
        check_inside(truth_path, root, what="release folder")  # found by rglob: a link may lead outside the release
        answers = parse_truth_txt(truth_path)
        folder = truth_path.parent
        problems = {p.name for p in folder.iterdir() if p.is_dir() and _has_texts(p)}
        seen_prefixes.update(re.sub(r"\d+$", "", p) for p in answers)
        for name in sorted(problems):
            if source.wants(name) and name not in answers:
                raise DataValidationError(
                    f"has no line for problem folder {name}",
                    path=truth_path,
                    record=name,
                    expected="a truth line for every problem",
                )
        wanted = sorted(p for p in answers if source.wants(p))  # the reference sorts the problem ids
        if wanted:
            used.append(str(truth_path))
        for problem in wanted:
            same, _lineno = answers[problem]
            release_path(
                folder, problem, path=truth_path, record=problem, field="problem"
            )  # no '../' out of the release
            if problem not in problems:
                raise DataValidationError(
                    f"names a problem with no folder {folder / problem} (known*.txt + unknown.txt)",
                    path=truth_path,
                    record=problem,
                )
            pairs.append(_problem_pair(folder / problem, problem, same, root, known_rule))
    if not pairs:
        raise DataValidationError(
            f"holds no problems with id prefix {list(source.prefixes)}; truth.txt files list prefixes "
            f"{sorted(seen_prefixes)}",
            path=root,
            expected=source.layout(),
        )
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise DataValidationError("appears in two truth.txt files", path=root, record=dup)
    n_same = sum(p.same for p in pairs)
    return DatasetBundle(
        pairs=pairs,
        info={
            "source": source.release,
            "truth_files": used,
            "problem_prefixes": list(source.prefixes),
            "trials": len(pairs),
            "same": n_same,
            "different": len(pairs) - n_same,
            "pairing": (
                "known01.txt vs unknown.txt"
                if known_rule == "first"
                else "known texts joined with a blank line vs the unknown text"
            ),
        },
    )


def _corpus_tokens(path: Path, root: Path) -> set[str]:
    """The ``corpusN`` tokens in the folder names between ``root`` and a truth file."""
    parts = path.relative_to(root).parts[:-1]
    return {t for part in parts for t in re.split(r"[^a-z0-9]+", part.lower()) if re.fullmatch(r"corpus\d+", t)}


def _of_corpus(truth_files: list[Path], root: Path, corpus: str) -> list[Path]:
    """The truth files of one test corpus when the folders name their corpus; all of them when none does.

    Why: a user who keeps one corpus under the dataset's own folder (names without ``corpusN``) must
    still be served, while a full PAN14 release (both corpora, same problem ids) must never be mixed.
    """
    if not corpus or not any(_corpus_tokens(p, root) for p in truth_files):
        return truth_files
    return [p for p in truth_files if corpus in _corpus_tokens(p, root)]


def _has_texts(folder: Path) -> bool:
    return any(folder.glob("*.txt"))


def _problem_pair(folder: Path, problem: str, same: bool, root: Path, known_rule: str) -> TextPair:
    """One problem folder's texts as a pair; the texts are found by listing it, so each must stay inside ``root``."""
    known_paths = sorted((p for p in folder.iterdir() if _KNOWN_RE.match(p.name)), key=lambda p: p.name)
    if known_rule == "first":
        known_paths = [p for p in known_paths if p.name == "known01.txt"]
    if not known_paths:
        raise DataValidationError(
            "has no known01.txt" if known_rule == "first" else "has no known*.txt",
            path=folder,
            record=problem,
            expected="known01.txt" if known_rule == "first" else "one or more known texts",
        )
    unknown_paths = sorted(
        p for p in folder.iterdir() if p.name.lower().startswith("unknown") and p.suffix.lower() == ".txt"
    )
    if len(unknown_paths) != 1:
        raise DataValidationError(
            f"has {len(unknown_paths)} unknown*.txt files",
            path=folder,
            record=problem,
            expected="exactly one unknown.txt",
        )
    for path in (*known_paths, unknown_paths[0]):
        check_inside(path, root, record=problem, what="release folder")
    known = "\n\n".join(read_reference_text(p, record=problem) for p in known_paths)
    unknown = read_reference_text(unknown_paths[0], record=problem)
    with located(folder, problem):
        return TextPair(known, unknown, same=same, id=problem, group=problem)
