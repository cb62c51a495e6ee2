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
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ._containment import check_inside, release_file, release_path, release_scope
from ._decompress import (
    DECOMPRESSED_ENV_VAR,
    MAX_DECOMPRESSED_BYTES,
    CappedReader,
    check_zip_members,
    decompression_limit,
    open_gzip,
    read_zip_member,
)
from ._errors import DataValidationError
from ._replacements import REPLACED_BYTES_INFO, decode_replacing, replaced_bytes_info

__all__ = [
    "read_text",
    "decode_replacing",
    "replaced_bytes_info",
    "REPLACED_BYTES_INFO",
    "read_lines",
    "read_json",
    "parse_json",
    "reject_duplicate_keys",
    "iter_jsonl",
    "read_tsv",
    "require_field",
    "located",
    "atomic_write_text",
    "atomic_write_bytes",
    "sample_per_class",
    "seeded_rng",
    "release_path",
    "release_scope",
    "release_file",
    "read_bytes",
    "open_release",
    "unique_keys",
    "read_delimited_rows",
    "swallowed_rows",
    "LINE_BREAKS",
    "open_gzip",
    "check_inside",
    "read_zip_member",
    "CappedReader",
    "decompression_limit",
    "MAX_DECOMPRESSED_BYTES",
    "DECOMPRESSED_ENV_VAR",
    "check_zip_members",
]

T = TypeVar("T")


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a release file, after the containment check (:func:`steb_core._containment.release_file`)."""
    path = release_file(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise DataValidationError("file does not exist", path=path) from None


def open_release(path: str | Path, mode: str = "rb", **kwargs: Any) -> Any:
    """``open(path, mode, **kwargs)`` for reading a release file, after the containment check.

    The one way a loader opens a release file itself (to stream it, seek in it, or decode it its own
    way): like :func:`read_text` and the other readers, it refuses a link leading out of the release.
    """
    if any(c in mode for c in "wax+"):
        raise ValueError(f"open_release is for reading, not mode {mode!r}")
    path = release_file(path)
    try:
        return open(path, mode, **kwargs)
    except FileNotFoundError:
        raise DataValidationError("file does not exist", path=path) from None


def read_text(path: str | Path) -> str:
    """A text file as UTF-8 (a BOM is dropped) with Windows/old-Mac line ends normalised to ``\\n``."""
    path = Path(path)
    raw = read_bytes(path)
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


def reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :mod:`json`: an object naming one key twice is an error, not the last value.

    Why: the JSON standard leaves duplicate keys undefined and Python keeps the last one silently, so a
    truth file with ``"changes"`` twice would score the second list with exit status 0. Every JSON
    reader of steb and its plugins parses through this hook (via :func:`parse_json`, :func:`read_json`,
    :func:`iter_jsonl`); the error names the key as the field, and the caller adds file and record.
    """
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    values = [v for k, v in pairs if k == key]
    raise DataValidationError(
        f"appears {len(values)} times in one JSON object (values {', '.join(repr(v)[:40] for v in values)})",
        field=key,
        expected="each key once per object (JSON readers would silently keep the last)",
    )


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=reject_duplicate_keys)


def parse_json(
    text: str, *, path: str | Path | None = None, record: str | int | None = None, expected: str = "a JSON document"
) -> Any:
    """``text`` parsed as JSON, refusing objects with a duplicate key; errors name ``path`` and ``record``.

    Syntax errors without a ``record`` are located at their line. This is the one JSON parser for
    data files: loaders and plugins call it (or :func:`read_json` / :func:`iter_jsonl`) instead of
    ``json.loads`` so no reader can let a repeated key overwrite a label.
    """
    try:
        return _STRICT_DECODER.decode(text)
    except json.JSONDecodeError as exc:
        where = record if record is not None else f"line {exc.lineno}"
        raise DataValidationError(
            f"invalid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})"
            if record is not None
            else f"invalid JSON: {exc.msg}",
            path=path,
            record=where,
            expected=expected,
        ) from None
    except DataValidationError as exc:
        raise exc.located(path=path, record=record) from None
    except RecursionError:  # e.g. 100,000 nested '[': the decoder recurses once per level
        raise DataValidationError(
            "is nested too deeply to parse (a recursion limit was reached)",
            path=path,
            record=record,
            expected=f"{expected} of ordinary depth",
        ) from None


def read_json(path: str | Path, *, record: str | int | None = None) -> Any:
    """A JSON file (UTF-8, BOM dropped) parsed by :func:`parse_json`: duplicate keys are refused."""
    return parse_json(read_text(path), path=path, record=record)


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-empty line of a JSON-lines file, streaming."""
    path = Path(path)
    if not path.is_file():
        raise DataValidationError("file does not exist", path=path)
    with open_release(path, "r", encoding="utf-8-sig", newline=None) as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            obj = parse_json(line, path=path, record=f"line {lineno}", expected="one JSON object per line")
            if not isinstance(obj, dict):
                raise DataValidationError(
                    f"is a {type(obj).__name__}", path=path, record=f"line {lineno}", expected="a JSON object"
                )
            yield lineno, obj


def read_tsv(
    path: str | Path, *, required: Sequence[str] = (), delimiter: str = "\t", line_breaks: str = "any"
) -> list[dict[str, str]]:
    """Rows of a delimited file with a header row, read by column name (quoted newlines allowed unless
    ``line_breaks`` says the format has none, see :func:`read_delimited_rows`).

    ``required`` columns must be present in the header; the error lists what the file has instead.
    Quoting is checked by :func:`read_delimited_rows`: an unbalanced quote that would merge the rows
    after it into one value is an error naming the row and column.
    """
    path = Path(path)
    text = read_text(path)
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    records = read_delimited_rows(
        text.splitlines(keepends=True), path=path, delimiter=delimiter, line_breaks=line_breaks
    )
    header = next(records, (0, []))[1]
    missing = [c for c in required if c not in header]
    if missing:
        raise DataValidationError(
            f"missing column(s) {missing}; the header has {header}",
            path=path,
            record="header",
            expected=f"columns {list(required)}",
        )
    rows = []
    for i, (_line, fields) in enumerate(records, start=1):
        if len(fields) > len(header):
            raise DataValidationError(
                f"has {len(fields)} fields for {len(header)} columns", path=path, record=f"row {i}"
            )
        row = dict(zip(header, fields))
        for name in header[len(fields) :]:
            row.setdefault(name, None)  # type: ignore[arg-type]  # csv.DictReader's restval
        rows.append(row)
    return rows


#: a quoted field holding at least this many lines that look like rows of the file swallowed them
_SWALLOWED_MIN_ROWS = 2


def swallowed_rows(fields: Sequence[str], width: int, delimiter: str) -> tuple[int, int] | None:
    """``(field index, rows)`` when a parsed field holds lines that are rows of the file, else None.

    Why: a quote opened and never closed (``1,"He said hi,a``) makes the csv module read every
    following line into that one field until the next quote closes it; the record still has the
    right number of fields, so 20 rows vanish with exit status 0. Lines *inside* the field (not the
    first, which is the rest of the opening row, nor the last, which is the start of the row whose
    quote closed it) that parse into exactly ``width`` fields are counted; at least two, and at least
    half of the field's non-empty inner lines, is taken as swallowed rows. Prose spanning lines rarely
    has exactly ``width - 1`` delimiters on most of its lines; a one-column file cannot tell, so it is
    never flagged.
    """
    if width < 2:
        return None
    for i, value in enumerate(fields):
        if "\n" not in value:
            continue
        inner = [ln.rstrip("\r") for ln in value.split("\n")[1:-1]]
        inner = [ln for ln in inner if ln.strip()]
        if len(inner) < _SWALLOWED_MIN_ROWS:
            continue
        rows = sum(1 for ln in inner if len(next(csv.reader([ln], delimiter=delimiter), [])) == width)
        if rows >= _SWALLOWED_MIN_ROWS and 2 * rows >= len(inner):
            return i, rows
    return None


def open_quote_field(line: str, delimiter: str, quotechar: str = '"') -> int | None:
    """Index of the field on a record's first physical line whose quote is not closed properly: closed and
    followed by something other than the delimiter, or still open at the end of the line. Used to name
    the column when the csv module reports a quoting error for the record (strict mode)."""
    index, i, n = 0, 0, len(line)
    while i <= n:
        if i < n and line[i] == quotechar:
            i += 1
            while True:
                j = line.find(quotechar, i)
                if j < 0:
                    return index  # open to the end of the line
                if line[j + 1 : j + 2] == quotechar:  # "" inside a quoted value
                    i = j + 2
                    continue
                i = j + 1
                break
            if i < n and line[i] != delimiter:
                return index
        else:
            j = line.find(delimiter, i)
            i = n if j < 0 else j
        if i >= n:
            return None
        index += 1
        i += 1
    return None


#: what a delimited format allows of line breaks inside a (quoted) value: ``any`` (a value may span lines; only
#: :func:`swallowed_rows` guards it), ``trailing`` (a value may end with one, as STEL's em-subj-pronoun file
#: quotes every sentence with its newline, but hold none before its end), ``none`` (one record per line)
LINE_BREAKS = ("any", "trailing", "none")


def read_delimited_rows(
    handle: Iterable[str], *, path: str | Path, delimiter: str, header: bool = True, line_breaks: str = "any"
) -> Iterator[tuple[int, list[str]]]:
    """``(first line number, fields)`` per non-empty record of a delimited file (the header too), refusing broken
    quoting.

    The csv module runs in strict mode (a quote closed in the middle of a value, or never closed before
    the end of the file, is an error instead of a silent merge of lines), and every record is checked
    by :func:`swallowed_rows` against the width of the first record (the header, or the first row of a
    headerless file). Errors name the file, the record (its data row number, counted from 1 after the
    header, and its first line) and the column. ``handle`` must be opened with ``newline=""``.

    ``line_breaks`` (:data:`LINE_BREAKS`) says what the format allows inside a value. Where it allows none
    (or only a final one), a value holding a line break is an error: that is how a quote opened on one row
    and closed by a stray quote a few rows later shows, even when it swallows a single row, which
    :func:`swallowed_rows` cannot tell from a text that spans lines (30 rows read as 28, exit status 0).
    """
    if line_breaks not in LINE_BREAKS:
        raise ValueError(f"line_breaks={line_breaks!r}; expected one of {', '.join(LINE_BREAKS)}")
    lines: list[str] = []  # the physical lines of the record being read, to locate a quoting error

    def physical() -> Iterator[str]:
        for line in handle:
            lines.append(line)
            yield line

    reader = csv.reader(physical(), delimiter=delimiter, strict=True)
    first_record: list[str] | None = None
    names: list[str] | None = None  # column names for messages
    records = 0
    while True:
        lines.clear()
        start = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            first = lines[0] if lines else ""
            col = open_quote_field(first.rstrip("\r\n"), delimiter)
            name = None if col is None else (names[col] if names and col < len(names) else f"column {col}")
            row = "header" if header and records == 0 else f"row {records + 1 - int(header)}"
            raise DataValidationError(
                f"has an unbalanced quote ({exc}); the value opened with a quote at line {start} is not closed where "
                "the value ends, "
                f"so the lines after it would be read into it",
                path=path,
                record=f"{row} (line {start})",
                field=name,
                expected="a quoted value closed by a quote followed by the delimiter (a quote inside it written "
                'twice: "")',
            ) from None
        if not fields:
            continue
        records += 1
        if first_record is None:
            first_record = fields
            names = fields if header else None
        swallowed = swallowed_rows(fields, len(first_record), delimiter)
        if swallowed is not None:
            col, n = swallowed
            name = names[col] if names and col < len(names) else f"column {col}"
            row = "header" if header and records == 1 else f"row {records - int(header)}"
            raise DataValidationError(
                f"holds {n} lines that look like rows of this file (lines {start}-{reader.line_num}): a quote opened "
                f"at line {start} "
                f"is closed only at line {reader.line_num}",
                path=path,
                record=f"{row} (line {start})",
                field=name,
                expected="each row on its own (check the quoting of this value)",
            )
        if line_breaks != "any":
            _refuse_line_break(
                fields,
                line_breaks,
                names,
                path=path,
                start=start,
                end=reader.line_num,
                row="header" if header and records == 1 else f"row {records - int(header)}",
            )
        yield start, fields


def _refuse_line_break(
    fields: Sequence[str],
    line_breaks: str,
    names: Sequence[str] | None,
    *,
    path: str | Path,
    start: int,
    end: int,
    row: str,
) -> None:
    """Refuse the first value holding a line break the format does not allow (see :func:`read_delimited_rows`)."""
    for col, value in enumerate(fields):
        body = value.rstrip("\r\n") if line_breaks == "trailing" else value
        if "\n" in body or "\r" in body:
            name = names[col] if names and col < len(names) else f"column {col}"
            what = (
                "holds a line break before its end, but in this file a value may only end with one"
                if line_breaks == "trailing"
                else "holds a line break, but this file has one record per line"
            )
            raise DataValidationError(
                f"{what}: the quoted value opened at line {start} runs to line {end}, so any rows on the lines in "
                "between were read into it",
                path=path,
                record=f"{row} (line {start})",
                field=name,
                expected="each row on its own line: check the quoting of this value (a table whose values may span "
                "lines declares it, e.g. the generic loader's line_breaks='any')",
            )


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
    if not isinstance(obj, dict):  # e.g. a list entry that is 7 or null where an object was expected
        raise DataValidationError(
            f"is a {_json_type(obj)} (value {str(obj)[:60]!r}), not an object",
            path=path,
            record=record,
            expected=f"a JSON object with the field {field!r}",
        )
    if field not in obj:
        raise DataValidationError("is missing", path=path, record=record, field=field, expected=expected)
    value = obj[field]
    if types is not None and (
        not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types))
    ):
        raise DataValidationError(
            f"has type {type(value).__name__} (value {str(value)[:60]!r})",
            path=path,
            record=record,
            field=field,
            expected=expected or " or ".join(t.__name__ for t in _as_tuple(types)),
        )
    return value


def _json_type(value: Any) -> str:
    """JSON's name for a parsed value's type, for messages about data files."""
    names = {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _naming(exc, path) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; results should be readable like any file
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise _naming(exc, path) from None
        raise


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` with the file being written named in it. Why: a full disk (ENOSPC) or a read-only file system
    (EROFS) raises from write/fsync with no file name, so the user was told "No space left on device" with
    no hint of which folder (results, cache) to free or make writable."""
    if exc.filename is not None and str(path) in str(exc.filename):
        return exc
    return type(exc)(exc.errno, f"{exc.strerror or exc} while writing", str(path))


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def atomic_write_text(path: str | Path, text: str) -> None:
    """:func:`atomic_write_bytes` of ``text`` in UTF-8: a reader sees the old file or the whole new one."""
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
                path=path,
                record=record,
                field=field,
                expected=f"each {field} once",
            )
        out[key] = value
        first[key] = record
    return out
