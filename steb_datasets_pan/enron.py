"""The Enron Authorship Verification Corpus as Halvani released it on Mendeley Data (dataset n77w7mygwg, v1).

What is established (the STEB authors' download script and loader, found with the code search): the
Mendeley "Download All" archive ``n77w7mygwg-1.zip`` holds ``Enron-Authorship-Verification-Corpus.zip``,
which unpacks to one folder ``Enron (80 authors)/``; the STEB authors rename that folder to
``enron_authorship_corpus`` and read every sub-folder of it as one case whose name minus its last three
characters is the author. Halvani's description: 80 cases, evenly true/false, each of 4 known + 1
questioned text of 3-4 KB (aggregated mails, headers and signatures removed).

What is assumed (the archive itself could not be opened offline): the three-character suffix is the
answer mark ``[Y]``/``[N]``; the answers are also in a ``truth.txt`` (``CASE Y|N``) beside the case
folders; the texts of a case are the files whose names start with ``known`` (four) and ``unknown`` (one).
The reader is built so that a wrong guess fails loudly rather than silently: ``truth.txt`` is optional
(labels then come from the marks), a contradiction between the two stops the load, and a case without
exactly one ``unknown`` text is an error naming its folder.

A case becomes one predefined pair, as the STEB reference builds it (``steb/loaders/pan.py`` @a8445f54
``load_enron_authorship_dataset``, config @39e4722e): the known texts joined with a blank line, in file-name
order, against the unknown text, texts read as the reference reads them (not stripped). The older reading of
PAN-style case folders (``known01.txt``/``unknown.txt``) stays available as the loader option ``layout=pan``
(see :mod:`steb_datasets_pan.av_folders`).
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
    unique_keys,
)

from .av_folders import AVFolderSource, load_av_folders
from .files import read_reference_text, release_dir

__all__ = ["EnronSource", "load_enron", "LAYOUTS"]

#: Loader option ``layout``: the Mendeley release (default) or PAN-style case folders.
LAYOUTS = ("mendeley", "pan")

_CASE_RE = re.compile(r"^(?P<name>.+?)\s*\[(?P<mark>[YN])\]$", re.IGNORECASE)
_ANSWERS = {"Y": True, "N": False}


@dataclass(frozen=True)
class EnronSource:
    """Where the Enron AV release is described; ``pan`` is the reader used for ``layout=pan``."""

    release: str = "Enron Authorship Verification Corpus (Halvani 2017, Mendeley Data n77w7mygwg v1)"
    pan: AVFolderSource = AVFolderSource(
        (), "Enron authorship verification corpus (PAN-style case folders)", edition="enron"
    )

    def layout(self) -> str:
        return (
            "<data-dir>/[Enron (80 authors)/]truth.txt (lines 'CASE Y|N') + one folder per case named "
            "'<Author.name>[Y]' or "
            "'<Author.name>[N]' holding 'known - <Author> - Mail_<n>.txt' (4) and one 'unknown - ... - Mail_<n>.txt'"
        )


def load_enron(ctx: LoadContext, source: EnronSource, obtain: str) -> DatasetBundle:
    """Every case of the release as one pair (option ``layout``: ``mendeley`` (default) or ``pan``)."""
    layout = str(ctx.options.get("layout", "mendeley")).lower()
    if layout not in LAYOUTS:
        raise DataValidationError(f"option layout={layout!r}", field="layout", expected=" or ".join(LAYOUTS))
    if layout == "pan":
        return load_av_folders(ctx, source.pan, obtain)
    root = release_dir(ctx, obtain, source.layout(), "enron", ("verification", ""))
    folder = _case_folder(root, ctx, obtain, source)
    cases = _cases(folder, root)
    truth_path = folder / "truth.txt"
    answers = _truth(truth_path, cases) if truth_path.is_file() else {name: mark for name, (mark, _) in cases.items()}
    pairs = [_pair(cases[name][1], name, answers[name], root) for name in sorted(cases)]
    n_same = sum(p.same for p in pairs)
    return DatasetBundle(
        pairs=pairs,
        info={
            "source": source.release,
            "folder": str(folder),
            "labels_from": "truth.txt" if truth_path.is_file() else "folder marks [Y]/[N]",
            "trials": len(pairs),
            "same": n_same,
            "different": len(pairs) - n_same,
            "pairing": "known texts (file-name order) joined with a blank line vs the unknown text",
        },
    )


def _case_folder(root: Path, ctx: LoadContext, obtain: str, source: EnronSource) -> Path:
    """The folder holding the ``NAME[Y]``/``NAME[N]`` case folders: the data folder or one below it (at most 3
    levels)."""
    frontier = [root]
    for _ in range(4):
        for folder in frontier:
            if any(_CASE_RE.match(p.name) for p in folder.iterdir() if p.is_dir()):
                return folder
        frontier = [p for f in frontier for p in sorted(f.iterdir()) if p.is_dir() and not p.name.startswith(".")]
    pan_style = any(root.rglob("known01.txt"))
    hint = (
        " It holds PAN-style case folders (known01.txt): load them with --dataset-option layout=pan."
        if pan_style
        else ""
    )
    raise DataValidationError(
        f"holds no case folders named '<Author.name>[Y]' or '<Author.name>[N]'.{hint} Obtain the release: {obtain}",
        path=root,
        expected=source.layout(),
    )


def _cases(folder: Path, root: Path) -> dict[str, tuple[bool, Path]]:
    """Case name (without the mark) -> (the folder's mark, the folder); a name used twice is an error."""
    entries = []
    for path in sorted(p for p in folder.iterdir() if p.is_dir()):
        match = _CASE_RE.match(path.name)
        if match is None:
            continue
        check_inside(path, root, record=path.name, what="release folder")
        entries.append((path.name, match.group("name"), (_ANSWERS[match.group("mark").upper()], path)))
    return unique_keys(entries, path=folder, field="case", what="folder")


def _truth(path: Path, cases: dict[str, tuple[bool, Path]]) -> dict[str, bool]:
    """``truth.txt`` answers by case name; ids may carry the folder's mark (``A.b[Y] Y``) or not (``A.b Y``).

    Every case folder needs a line and every line a folder; a line that contradicts its folder's mark is
    an error, since one of the two would silently flip a label.
    """

    def rows() -> Iterator[tuple[str, str, bool]]:
        for lineno, line in enumerate(read_lines(path, keep_empty=True), start=1):
            if not line.strip():
                continue
            fields = line.rsplit(None, 1)
            if len(fields) != 2 or fields[1].upper() not in _ANSWERS:
                raise DataValidationError(
                    f"reads {line[:80]!r}", path=path, record=f"line {lineno}", expected="'CASE Y|N'"
                )
            case, answer = fields[0].strip(), fields[1].upper()
            match = _CASE_RE.match(case)
            yield f"line {lineno}", (match.group("name") if match else case), _ANSWERS[answer]

    answers = unique_keys(rows(), path=path, field="case", what="answer")
    for name, same in answers.items():
        if name not in cases:
            raise DataValidationError(
                f"names case {name!r}, which has no folder '{name}[Y]' or '{name}[N]'", path=path, record=name
            )
        if cases[name][0] != same:
            folder = cases[name][1]
            raise DataValidationError(
                f"answers {'Y' if same else 'N'} but the folder is named {folder.name!r}",
                path=path,
                record=name,
                field="answer",
                expected="the answer the folder name carries",
            )
    missing = sorted(set(cases) - set(answers))
    if missing:
        raise DataValidationError(
            f"has no line for case folder(s) {missing[:5]}",
            path=path,
            record=missing[0],
            expected="a truth line for every case",
        )
    return answers


def _pair(folder: Path, name: str, same: bool, root: Path) -> TextPair:
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
    known = [p for p in files if p.name.lower().startswith("known")]
    unknown = [p for p in files if p.name.lower().startswith("unknown")]
    if not known:
        raise DataValidationError(
            "has no 'known - ...' text", path=folder, record=name, expected="known - <Author> - Mail_<n>.txt files"
        )
    if len(unknown) != 1:
        raise DataValidationError(
            f"has {len(unknown)} 'unknown - ...' texts", path=folder, record=name, expected="exactly one unknown text"
        )
    for path in (*known, *unknown):
        check_inside(path, root, record=name, what="release folder")
    known_text = "\n\n".join(read_reference_text(p, record=name) for p in known)
    unknown_text = read_reference_text(unknown[0], record=name)
    with located(folder, name):
        return TextPair(known_text, unknown_text, same=same, id=name, group=name)
