"""Reading release files and sampling records: helpers every dataset plugin shares.

They exist so that loaders report bad input the same way everywhere (file, record, field, what was
expected) and handle the encodings real releases use (UTF-8 with or without BOM, Windows line ends).
"""

from __future__ import annotations

import csv
import json
import os
import random
import sys
import tempfile
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Iterator, Sequence, TypeVar

from .errors import DataValidationError

__all__ = [
    "read_text",
    "read_lines",
    "read_json",
    "iter_jsonl",
    "read_tsv",
    "require_field",
    "located",
    "atomic_write_text",
    "atomic_write_bytes",
    "sample_per_class",
    "seeded_rng",
    "release_path",
    "unique_keys",
]

T = TypeVar("T")


def read_text(path: str | Path) -> str:
    """A text file as UTF-8 (a BOM is dropped) with Windows/old-Mac line ends normalised to ``\\n``."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataValidationError("file does not exist", path=path) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataValidationError(f"is not valid UTF-8 at byte {exc.start}", path=path, expected="UTF-8 text") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_lines(path: str | Path, *, keep_empty: bool = False) -> list[str]:
    """Lines of a text file (no line ends); empty lines dropped unless ``keep_empty``."""
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines if keep_empty else [ln for ln in lines if ln.strip()]


def read_json(path: str | Path) -> Any:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataValidationError(f"invalid JSON: {exc.msg}", path=path, record=f"line {exc.lineno}", expected="a JSON document") from None


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-empty line of a JSON-lines file, streaming."""
    path = Path(path)
    if not path.is_file():
        raise DataValidationError("file does not exist", path=path)
    with open(path, "r", encoding="utf-8-sig", newline=None) as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataValidationError(f"invalid JSON: {exc.msg}", path=path, record=f"line {lineno}", expected="one JSON object per line") from None
            if not isinstance(obj, dict):
                raise DataValidationError(f"is a {type(obj).__name__}", path=path, record=f"line {lineno}", expected="a JSON object")
            yield lineno, obj


def read_tsv(path: str | Path, *, required: Sequence[str] = (), delimiter: str = "\t") -> list[dict[str, str]]:
    """Rows of a delimited file with a header row, read by column name (quoted newlines allowed).

    ``required`` columns must be present in the header; the error lists what the file has instead.
    """
    path = Path(path)
    text = read_text(path)
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    reader = csv.DictReader(text.splitlines(keepends=True), delimiter=delimiter)
    header = reader.fieldnames or []
    missing = [c for c in required if c not in header]
    if missing:
        raise DataValidationError(
            f"missing column(s) {missing}; the header has {header}", path=path, record="header", expected=f"columns {list(required)}"
        )
    rows = []
    for i, row in enumerate(reader, start=1):
        if None in row:
            raise DataValidationError(f"has {len(header) + len(row[None])} fields for {len(header)} columns", path=path, record=f"row {i}")
        rows.append(row)
    return rows


def require_field(
    obj: dict[str, Any],
    field: str,
    *,
    path: str | Path | None = None,
    record: str | int | None = None,
    types: type | tuple[type, ...] | None = None,
    expected: str | None = None,
) -> Any:
    """``obj[field]``, checked for presence and type, or a :class:`DataValidationError` locating it."""
    if field not in obj:
        raise DataValidationError("is missing", path=path, record=record, field=field, expected=expected)
    value = obj[field]
    if types is not None and (not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types))):
        raise DataValidationError(
            f"has type {type(value).__name__} (value {str(value)[:60]!r})", path=path, record=record, field=field,
            expected=expected or " or ".join(t.__name__ for t in _as_tuple(types)),
        )
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


@contextmanager
def located(path: str | Path | None = None, record: str | int | None = None) -> Iterator[None]:
    """Add the file and record to any :class:`DataValidationError` raised inside (e.g. by a record type)."""
    try:
        yield
    except DataValidationError as exc:
        raise exc.located(path=path, record=record) from None


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write a file so that readers see the old content or the new, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; results should be readable like any file
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def seeded_rng(seed: int, *salt: Hashable) -> random.Random:
    """A ``random.Random`` seeded by the run seed and a salt (e.g. the dataset name), stable across runs."""
    key = "|".join([str(seed), *map(str, salt)])
    return random.Random(key)


def sample_per_class(
    items: Iterable[T], key: Callable[[T], Hashable], per_class: int | None, seed: int, *, salt: Hashable = ""
) -> list[T]:
    """At most ``per_class`` items of each class, drawn with a seeded RNG; input order is kept.

    STEB's sampling budgets are caps: a class with fewer items keeps them all.
    """
    items = list(items)
    if per_class is None:
        return items
    by_class: dict[Hashable, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        by_class[key(item)].append(i)
    rng = seeded_rng(seed, "sample_per_class", salt)
    keep: list[int] = []
    for cls in sorted(by_class, key=str):
        idx = by_class[cls]
        keep.extend(idx if len(idx) <= per_class else rng.sample(idx, per_class))
    keep.sort()
    return [items[i] for i in keep]


def release_path(
    root: str | Path,
    relative: str | Path,
    *,
    path: str | Path | None = None,
    record: str | int | None = None,
    field: str | None = None,
) -> Path:
    """``root / relative`` for a file name taken from a release, refusing anything outside ``root``.

    Release files name other files (PAN18's ``ground-truth.json`` and candidate folders, metadata CSVs
    with paths). A hostile or broken release could name ``../../secret`` or an absolute path; this
    helper is the one place that decides. The check is lexical (``..`` and absolute parts are resolved
    against ``root`` without following links), so a symlink the user made *inside* the release folder
    is still followed when the file is opened. ``path``/``record``/``field`` locate the offending value.
    """
    text = str(relative)
    if not text or "\x00" in text:
        raise DataValidationError(f"file name {text!r} is empty or contains NUL", path=path, record=record, field=field,
                                  expected="a file name inside the release folder")
    base = os.path.normpath(os.path.abspath(root))
    candidate = os.path.normpath(os.path.join(base, text.replace("\\", "/")))
    if os.path.isabs(text) or not (candidate == base or candidate.startswith(base + os.sep)):
        raise DataValidationError(
            f"file name {text!r} points outside the release folder {base}", path=path, record=record, field=field,
            expected="a path relative to the release folder, without '..' or a leading '/'",
        )
    return Path(candidate)


K = TypeVar("K", bound=Hashable)


def unique_keys(
    entries: Iterable[tuple[str | int, K, T]],
    *,
    path: str | Path | None = None,
    field: str = "id",
    what: str = "label",
) -> dict[K, T]:
    """A key -> value map from ``(record, key, value)`` entries, refusing any key seen twice.

    Loaders that join texts with labels through an id (PAN truth files, metadata CSVs, ground-truth
    JSON) must never let a later line silently overwrite an earlier one: a duplicated truth line with a
    flipped label would change the classes and the score with exit status 0. Both a repeated key with
    the same value and a conflicting one are errors naming both records.
    """
    out: dict[K, T] = {}
    first: dict[K, str | int] = {}
    for record, key, value in entries:
        if key in out:
            kind = "conflicting" if out[key] != value else "duplicate"
            raise DataValidationError(
                f"{kind} {field} {key!r}: first at {first[key]} ({what} {out[key]!r}), again here ({what} {value!r})",
                path=path, record=record, field=field, expected=f"each {field} once",
            )
        out[key] = value
        first[key] = record
    return out
