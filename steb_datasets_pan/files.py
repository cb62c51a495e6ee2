"""File helpers shared by every PAN loader: finding the release folder, reading texts, scanning jsonl.

PAN releases are unzipped by users in slightly different ways (the archive's own top folder kept or
not, ``train``/``validation``/``test`` sub-folders, level folders such as ``easy``/``dataset1``), so
loaders look for the folder that actually holds the files instead of insisting on one exact path.
Large jsonl releases (PAN20/21 pairs, PAN25/26 generative detection) are scanned once for ids,
labels and byte offsets only; texts are re-read by offset for the records a sample keeps, which
keeps memory bounded by the sample, not by the corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steb_core import (
    DataValidationError,
    LoadContext,
    decode_replacing,
    open_release,
    parse_json,
    read_bytes,
    read_text,
)

__all__ = [
    "JsonlRow",
    "find_folder",
    "name_matches",
    "read_nonempty_text",
    "read_reference_text",
    "scan_jsonl",
    "read_jsonl_at",
    "choose_one",
    "truth_beside",
    "release_candidates",
    "release_dir",
]

_BOM = b"\xef\xbb\xbf"


def read_reference_text(path: Path, *, record: str | None = None) -> str:
    """A text file as the STEB reference's PAN loaders read it (``steb/loaders/pan.py`` @a8445f54: ``open(path, "r",
    encoding="utf-8", errors="replace").read()``): UTF-8 with undecodable bytes replaced, universal newlines, *not*
    stripped (a BOM stays as U+FEFF). A file of whitespace only is an error naming it (it cannot be embedded)."""
    text = decode_replacing(read_bytes(path), path=path).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise DataValidationError("is empty", path=path, record=record, field="text", expected="non-empty text")
    return text


def read_nonempty_text(path: Path, *, record: str | None = None) -> str:
    """A UTF-8 text file (BOM dropped, CRLF normalised), stripped; empty files are an error naming the file."""
    text = read_text(path).strip()
    if not text:
        raise DataValidationError("is empty", path=path, record=record, field="text", expected="non-empty text")
    return text


def find_folder(
    root: Path, accept: Callable[[Path], bool], aliases: Sequence[Sequence[str]] = (), max_depth: int = 3
) -> Path | None:
    """The first folder at or below ``root`` that ``accept`` says holds the files, or None.

    ``aliases`` is a list of levels, each a list of sub-folder names tried in order (e.g. the
    difficulty level, then the split); a name matches a folder named exactly so or ending in
    ``-name``/``_name`` (release archives prefix their folders, e.g. ``pan23-...-dataset1``).
    Without a match through the aliases, a breadth-first search up to ``max_depth`` levels is
    tried, so an extra top folder kept from the zip archive does not matter.
    """
    for candidate in _alias_paths(root, aliases):
        if accept(candidate):
            return candidate
    if aliases:
        return None
    frontier = [root]
    for _ in range(max_depth + 1):
        nxt: list[Path] = []
        for folder in frontier:
            if accept(folder):
                return folder
            nxt.extend(sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")))
        frontier = nxt
    return None


def _alias_paths(root: Path, aliases: Sequence[Sequence[str]]) -> Iterator[Path]:
    """Every path reachable by picking one alias per level, also through one unnamed wrapper folder."""
    if not aliases:
        return
    starts = [root] + sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    for start in starts:
        yield from _walk_aliases(start, list(aliases))


def _walk_aliases(folder: Path, levels: list[Sequence[str]]) -> Iterator[Path]:
    if not levels:
        yield folder
        return
    head, rest = levels[0], levels[1:]
    children = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    for name in head:
        if name == "":
            yield from _walk_aliases(folder, rest)
            continue
        for child in children:
            if name_matches(child.name, name):
                yield from _walk_aliases(child, rest)


def name_matches(folder_name: str, alias: str) -> bool:
    """True when a release folder name is ``alias`` or ends in ``-alias``/``_alias`` (case-insensitive)."""
    low = folder_name.lower()
    return low == alias or low.endswith("-" + alias) or low.endswith("_" + alias)


@dataclass(frozen=True, slots=True)
class JsonlRow:
    """One jsonl line: where it is (line number, byte offset) and its parsed object."""

    lineno: int
    offset: int
    obj: dict[str, Any]


def scan_jsonl(path: Path) -> Iterator[JsonlRow]:
    """Stream ``(line number, byte offset, object)`` for each non-empty line (BOM and CRLF tolerated)."""
    with open_release(path, "rb") as handle:
        offset = 0
        for lineno, raw in enumerate(handle, start=1):
            start = offset
            offset += len(raw)
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
                start += len(_BOM)
            if not raw.strip():
                continue
            yield JsonlRow(lineno, start, _parse_line(path, lineno, raw))


def read_jsonl_at(path: Path, positions: Iterable[tuple[int, int]]) -> Iterator[dict[str, Any]]:
    """Re-read the jsonl objects at ``(byte offset, line number)`` positions (from :func:`scan_jsonl`), in order.

    One file handle serves all reads, so pulling a sample of records out of a large file costs one
    seek and one line parse per record.
    """
    with open_release(path, "rb") as handle:
        for offset, lineno in positions:
            handle.seek(offset)
            yield _parse_line(path, lineno, handle.readline())


def _parse_line(path: Path, lineno: int, raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataValidationError(
            f"is not valid UTF-8 at byte {exc.start}", path=path, record=f"line {lineno}", expected="UTF-8 text"
        ) from None
    # parse_json refuses an object with a key twice (a second "same" or "label" would win silently)
    obj = parse_json(text, path=path, record=f"line {lineno}", expected="one JSON object per line")
    if not isinstance(obj, dict):
        raise DataValidationError(
            f"is a {type(obj).__name__}", path=path, record=f"line {lineno}", expected="a JSON object"
        )
    return obj


def choose_one(candidates: Iterable[Path], what: str, folder: Path, option: str, preferred: Sequence[str] = ()) -> Path:
    """The single file among ``candidates``; with several, the first whose name contains a preferred word.

    Ambiguity is an error that lists the files and names the loader option that picks one, so a
    folder holding e.g. both the small and the large PAN20 training sets is never read silently.
    """
    files = sorted(candidates)
    if not files:
        raise DataValidationError(f"holds no {what}", path=folder, expected=what)
    if len(files) == 1:
        return files[0]
    for word in preferred:
        hits = [f for f in files if word in f.name.lower()]
        if len(hits) == 1:
            return hits[0]
    names = ", ".join(f.name for f in files)
    raise DataValidationError(
        f"holds several {what} ({names}); choose one with the loader option '{option}'",
        path=folder,
        expected=f"one {what}",
    )


def truth_beside(texts_path: Path, candidates: Sequence[Path]) -> Path | None:
    """The truth file named after a texts file (``X.jsonl`` -> ``X-truth.jsonl``; ``pairs.jsonl`` ->
    ``truth.jsonl``)."""
    stem = texts_path.stem.lower()
    names = {f"{stem}-truth.jsonl", f"{stem}_truth.jsonl"} | ({"truth.jsonl"} if stem == "pairs" else set())
    hits = [p for p in candidates if p.name.lower() in names]
    return hits[0] if len(hits) == 1 else None


#: Sub-folders of a clone of github.com/pan-webis-de/pan-code that hold a task's sample data.
_PAN_CODE_TASKS = {
    "style-change": ("multi-author-analysis", "style-change-detection"),
    "generative": ("generative-authorship-verification",),
}


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(" ", "-")


def release_candidates(ctx: LoadContext, edition: str, words: Sequence[str], task: str = "") -> list[Path]:
    """Folders that may hold dataset ``ctx.dataset`` (issue 16: accept PAN's official folder names).

    ``ctx.data_dir`` itself when it exists; otherwise the folders beside it under their *official*
    names -- ``pan26-style-change-smoketest``, ``pan23-multi-author-writing-style-analysis-...``: a name
    starting with ``edition`` (``pan26``) and containing one of ``words`` -- and, for a clone of
    pan-code kept in the data root (as ``pan-code/`` or the root itself), ``clef26/<task folder>``.
    """
    data_dir = ctx.data_dir
    if data_dir is None:
        return []
    if data_dir.is_dir():
        return [data_dir]
    root = data_dir.parent
    if not root.is_dir():
        return []
    hits = [
        p
        for p in sorted(root.iterdir())
        if p.is_dir() and _normal(p.name).startswith(edition) and any(w in _normal(p.name) for w in words)
    ]
    clef = "clef" + edition.removeprefix("pan")
    for base in (root, root / "pan-code"):
        for sub in _PAN_CODE_TASKS.get(task, ()):
            if (base / clef / sub).is_dir():
                hits.append(base / clef / sub)
    return hits


def release_dir(ctx: LoadContext, obtain: str, layout: str, edition: str, words: Sequence[str], task: str = "") -> Path:
    """The first of :func:`release_candidates`, else the standard "no data" error naming what to get."""
    hits = release_candidates(ctx, edition, words, task)
    return hits[0] if hits else ctx.require_dir(obtain, layout)
