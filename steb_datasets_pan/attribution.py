"""PAN18 cross-domain authorship attribution (fanfiction, five languages) as authorship retrieval.

Release layout: ``collection-info.json`` (a list of ``{"problem-name", "language", "encoding"}``);
per problem ``problem-info.json`` (``{"unknown-folder": "unknown", "candidate-authors":
[{"author-name": "candidate00001"}, ...]}``), ``candidateXXXXX/known*.txt``, ``unknown/*.txt`` and
``ground-truth.json`` (``{"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author":
"candidate00003"}, ...]}``). Each candidate's known texts form one retrieval target, each unknown
text one query. As STEB §C.9 says, a candidate's known texts are concatenated (blank line between them)
into one document, so each target is a single text. Every file name taken from the release
(problem names, candidate folders, the unknown folder, ``unknown-text``) is resolved with
:func:`steb_core.release_path` (nothing outside the release folder is read) and every key joined with
labels (problem names, candidate names, ``unknown-text``) must be unique. Problems of the language are pooled; author
ids become ``problem/candidate`` so
candidates of different problems never collide. Unknown texts whose true author is ``<UNK>``
(open-set answers, not in any candidate list) have no target and are left out (counted in info).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from steb_core import (
    DatasetBundle,
    DataValidationError,
    LoadContext,
    RetrievalSet,
    TextCollection,
    check_inside,
    located,
    read_bytes,
    read_json,
    release_path,
    require_field,
    unique_keys,
)

from .files import find_folder, read_nonempty_text, release_dir

__all__ = ["AttributionSource", "load_attribution"]

_UTF8 = {"utf-8", "utf8", "utf_8", "utf-8-sig"}


@dataclass(frozen=True)
class AttributionSource:
    """Which language of the PAN18 collection a dataset takes (PAN codes: en, fr, it, pl, sp)."""

    language: str

    def layout(self) -> str:
        return (
            "<data-dir>/[release folder/]collection-info.json + problem00001/{problem-info.json, ground-truth.json, "
            "candidate00001/known00001.txt ..., unknown/unknown00001.txt ...}"
        )


def load_attribution(ctx: LoadContext, source: AttributionSource, obtain: str) -> DatasetBundle:
    root = release_dir(ctx, obtain, source.layout(), "pan18", ("attribution",))
    folder = find_folder(root, lambda f: (f / "collection-info.json").is_file())
    if folder is None:
        ctx.require_file("collection-info.json", obtain, source.layout())
        folder = root
    info_path = folder / "collection-info.json"
    collection = read_json(info_path)
    if not isinstance(collection, list):
        raise DataValidationError(f"is a {type(collection).__name__}", path=info_path, expected="a list of problems")
    queries: list[TextCollection] = []
    targets: list[TextCollection] = []
    problems, skipped_unk, languages = [], 0, set()
    names = unique_keys(
        (
            (f"item {i}", require_field(entry, "problem-name", path=info_path, record=i, types=str), entry)
            for i, entry in enumerate(collection)
        ),
        path=info_path,
        field="problem-name",
        what="entry",
    )
    for name, entry in names.items():
        language = str(require_field(entry, "language", path=info_path, record=name, types=str)).lower()
        languages.add(language)
        if language != source.language:
            continue
        encoding = str(entry.get("encoding", "UTF-8"))
        problem_dir = release_path(folder, name, path=info_path, record=name, field="problem-name")
        q, t, unk = _problem(problem_dir, name, encoding, root)
        queries.extend(q)
        targets.extend(t)
        skipped_unk += unk
        problems.append(name)
    if not problems:
        raise DataValidationError(
            f"lists no problem in language '{source.language}' (languages present: {sorted(languages)})",
            path=info_path,
            field="language",
        )
    with located(folder):
        retrieval = RetrievalSet(queries=tuple(queries), targets=tuple(targets))
    return DatasetBundle(
        retrieval=retrieval,
        info={
            "source": "PAN18 cross-domain authorship attribution",
            "folder": str(folder),
            "language": source.language,
            "problems": problems,
            "queries": len(queries),
            "targets": len(targets),
            "known_texts_concatenated_per_candidate": True,
            "unknown_texts_without_candidate": skipped_unk,
        },
    )


def _problem(
    folder: Path, name: str, encoding: str, root: Path
) -> tuple[list[TextCollection], list[TextCollection], int]:
    """One problem's candidates (targets) and unknown texts (queries); ``root`` is the release folder that
    every file found by listing a candidate folder must stay inside (a link out of it is refused)."""
    info_path = folder / "problem-info.json"
    if not info_path.is_file():
        raise DataValidationError(
            "is missing", path=info_path, record=name, expected="problem-info.json in every problem folder"
        )
    info = read_json(info_path)
    unknown_folder = require_field(info, "unknown-folder", path=info_path, record=name, types=str)
    listed = require_field(info, "candidate-authors", path=info_path, record=name, types=list)
    candidates = list(
        unique_keys(
            (
                (
                    f"{name} candidate-authors[{i}]",
                    require_field(c, "author-name", path=info_path, record=f"{name} candidate-authors[{i}]", types=str),
                    c,
                )
                for i, c in enumerate(listed)
            ),
            path=info_path,
            field="author-name",
            what="entry",
        )
    )
    targets = []
    for cand in candidates:
        cand_dir = release_path(folder, cand, path=info_path, record=name, field="candidate-authors")
        files = sorted(cand_dir.glob("*.txt")) if cand_dir.is_dir() else []
        if not files:
            raise DataValidationError(
                f"candidate {cand} has no known texts in {cand_dir}",
                path=info_path,
                record=name,
                field="candidate-authors",
            )
        for path in files:
            check_inside(path, root, record=f"{name}/{cand}", what="release folder")
        # STEB §C.9: a candidate's known texts are concatenated into one document (one target text per author)
        document = "\n\n".join(_read(p, encoding, f"{name}/{cand}") for p in files)
        targets.append(TextCollection(author=f"{name}/{cand}", texts_=(document,), id=f"{name}/{cand}"))

    truth_path = folder / "ground-truth.json"
    truth = read_json(truth_path)
    entries = require_field(truth, "ground_truth", path=truth_path, record=name, types=list)
    known = set(candidates)
    unknown_dir = release_path(folder, unknown_folder, path=info_path, record=name, field="unknown-folder")
    answers = unique_keys(
        (
            (
                f"ground_truth[{i}]",
                require_field(e, "unknown-text", path=truth_path, record=f"ground_truth[{i}]", types=str),
                require_field(e, "true-author", path=truth_path, record=f"ground_truth[{i}]", types=str),
            )
            for i, e in enumerate(entries)
        ),
        path=truth_path,
        field="unknown-text",
        what="true-author",
    )
    answered = set(answers)
    queries, unk = [], 0
    for text_name, author in answers.items():
        if author == "<UNK>":
            unk += 1
            continue
        if author not in known:
            raise DataValidationError(
                f"is '{author}', not a candidate of {name}",
                path=truth_path,
                record=text_name,
                field="true-author",
                expected=f"one of the candidate-authors in {info_path.name} or <UNK>",
            )
        path = release_path(unknown_dir, text_name, path=truth_path, record=text_name, field="unknown-text")
        if not path.is_file():
            raise DataValidationError(
                f"names a missing file {path}", path=truth_path, record=text_name, field="unknown-text"
            )
        text = _read(path, encoding, f"{name}/{text_name}")
        queries.append(TextCollection(author=f"{name}/{author}", texts_=(text,), id=f"{name}/{text_name}"))
    for path in sorted(unknown_dir.glob("*.txt")):
        if path.name not in answered:
            raise DataValidationError(
                f"has no entry for {path.name}",
                path=truth_path,
                record=path.name,
                expected="a ground-truth entry for every unknown text",
            )
    return queries, targets, unk


def _read(path: Path, encoding: str, record: str) -> str:
    """A text in the encoding collection-info.json declares (PAN18 says UTF-8; others are honoured)."""
    if encoding.lower() in _UTF8:
        return read_nonempty_text(path, record=record)
    try:
        codec = codecs.lookup(encoding).name
        text = read_bytes(path).decode(codec).replace("\r\n", "\n").replace("\r", "\n").strip()
    except (LookupError, UnicodeDecodeError) as exc:
        raise DataValidationError(f"cannot be decoded as {encoding}: {exc}", path=path, record=record) from None
    if not text:
        raise DataValidationError("is empty", path=path, record=record, field="text", expected="non-empty text")
    return text
