"""The generic loader: register a dataset from a CSV/TSV/JSONL/Parquet file with a few lines of spec.

A community author rarely needs a hand-written parser: most labelled corpora are a table with a text
and a label column. :func:`generic_loader` maps the columns of such a table onto one of the five task
shapes and returns a loader for :class:`~steb_core._specs.DatasetSpec`; :func:`generic_dataset` builds
the whole spec. Bad input is reported with the file, the row (CSV/TSV/Parquet) or line (JSONL) and
the column, as every steb loader does.

Only the standard library and numpy-free code run here; Parquet needs ``polars`` or ``pyarrow``,
imported lazily (``pip install steb-core[parquet]``), so the core stays light.

Column mapping per shape (defaults: the field's own name; a headerless CSV/TSV uses 0-based ints):

=================  ============================================  ====================================
shape              required fields                                optional fields
=================  ============================================  ====================================
``labelled_texts`` ``text``, ``label``                            ``id``
``pairs``          ``text_a``, ``text_b``, ``same``               ``id``, ``group``
``order_groups``   ``anchors``, ``alternatives`` (column lists)   ``answer``, ``distractor``, ``id``,
                                                                  ``style_type``
``retrieval``      ``author``, ``text``, ``split`` (or a          ``id`` (one collection per id)
                   ``{"queries": file, "targets": file}`` path)
``feature_texts``  ``text``, ``features`` (column list or "*")    ``id``
=================  ============================================  ====================================
"""

from __future__ import annotations

import csv
import glob as _glob
import io
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._errors import DatasetNotFoundError, DataValidationError
from ._io import (
    LINE_BREAKS,
    check_inside,
    located,
    open_gzip,
    parse_json,
    read_delimited_rows,
    release_file,
    sample_per_class,
    seeded_rng,
)
from ._records import (
    SHAPES,
    DatasetBundle,
    FeatureText,
    LabelledText,
    OrderGroup,
    RetrievalSet,
    TextCollection,
    TextPair,
)
from ._specs import DatasetSpec, LoadContext

__all__ = [
    "FORMATS",
    "SHAPE_FIELDS",
    "infer_format",
    "read_table",
    "label_text",
    "records_from_rows",
    "budgeted",
    "GenericLoader",
    "generic_loader",
    "generic_dataset",
]

#: file formats the generic loader reads (``.gz`` compression is allowed for the text formats).
FORMATS = ("csv", "tsv", "jsonl", "json", "parquet")

_SUFFIX_FORMAT = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}

#: shape -> (required fields, optional fields) of the column mapping.
SHAPE_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "labelled_texts": (("text", "label"), ("id",)),
    "pairs": (("text_a", "text_b", "same"), ("id", "group")),
    "order_groups": (("anchors", "alternatives"), ("answer", "distractor", "id", "style_type")),
    "retrieval": (("author", "text"), ("split", "id")),
    "feature_texts": (("text", "features"), ("id",)),
}

Column = str | int
Row = tuple[str, Mapping[Any, Any]]  # (location such as "row 3" or "line 7", values by column)


# --------------------------------------------------------------------------------------------
# reading tables
# --------------------------------------------------------------------------------------------
def infer_format(path: str | Path) -> str:
    """The format named by a file's suffix (``.gz`` ignored), or an error listing the known ones."""
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    fmt = _SUFFIX_FORMAT.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        raise DataValidationError(
            f"cannot tell the format from the name '{p.name}'",
            path=p,
            expected=f"a suffix among {sorted(_SUFFIX_FORMAT)} or format= one of {FORMATS}",
        )
    return fmt


def _open_text(path: Path) -> io.TextIOBase:
    """A text handle (UTF-8, BOM dropped, universal newlines off so csv sees quoted newlines)."""
    if path.suffix.lower() == ".gz":
        return io.TextIOWrapper(open_gzip(path), encoding="utf-8-sig", newline="")  # decompressed size capped
    return open(path, encoding="utf-8-sig", newline="")


def _checked(path: Path) -> Path:
    """``path`` when it is a file that stays inside its release (:func:`steb_core._containment.release_file`)."""
    if not path.is_file():
        raise DataValidationError("file does not exist", path=path)
    return release_file(path)


def read_table(
    path: str | Path,
    format: str | None = None,
    *,
    header: bool = True,
    delimiter: str | None = None,
    line_breaks: str = "any",
) -> Iterator[Row]:
    """Stream the rows of a table as ``(location, values)``; values are keyed by column name.

    CSV/TSV rows are numbered from 1 after the header ("row 1" is the first data row); JSON-lines
    records by their line number. A headerless CSV/TSV (``header=False``) keys values by 0-based
    column index. Rows with more fields than the header are errors (a stray delimiter usually means
    a broken quote, and guessing would silently shift every column). ``line_breaks`` (CSV/TSV): what
    the format allows inside a quoted value, ``"any"``, ``"trailing"`` or ``"none"`` (one record per
    line; see :func:`steb_core._io.read_delimited_rows`).
    """
    path = _checked(Path(path))
    fmt = format or infer_format(path)
    if fmt not in FORMATS:
        raise DataValidationError(f"unknown format '{fmt}'", path=path, expected=f"one of {FORMATS}")
    try:
        if fmt in ("csv", "tsv"):
            yield from _read_delimited(path, delimiter or ("\t" if fmt == "tsv" else ","), header, line_breaks)
        elif fmt == "jsonl":
            yield from _read_jsonl(path)
        elif fmt == "json":
            yield from _read_json_array(path)
        else:
            yield from _read_parquet(path)
    except UnicodeDecodeError as exc:
        raise _utf8_error(path, exc, None) from None


def _utf8_error(
    path: Path, exc: UnicodeDecodeError, row: int | None, delimiter: str | None = None, header: bool = True
) -> DataValidationError:
    """Where the first byte that is not UTF-8 is: the data row it falls in, its line and the byte offset."""
    try:
        if path.suffix.lower() == ".gz":
            with open_gzip(path) as handle:
                raw = handle.read()
        else:
            raw = path.read_bytes()
        raw.decode("utf-8-sig")
        offset, line = None, None
    except UnicodeDecodeError as full:
        bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
        offset = full.start + bom
        line = raw.count(b"\n", 0, offset) + 1
        if delimiter is not None:  # count the records that start before the bad byte (quoted newlines included)
            prefix = raw[bom:offset].decode("utf-8")
            started = sum(1 for _ in csv.reader(io.StringIO(prefix, newline=""), delimiter=delimiter))
            row = max(started - (1 if header else 0), 1)
    except OSError:
        offset, line = None, None
    where = (
        " ".join(
            x for x in (f"row {row}" if row is not None else "", f"(line {line}, byte {offset})" if line else "") if x
        )
        or None
    )
    return DataValidationError(
        f"is not valid UTF-8 ({exc.reason})",
        path=path,
        record=where,
        expected="UTF-8 text (re-save the file as UTF-8, e.g. iconv -f latin1 -t utf-8)",
    )


def _read_delimited(path: Path, delimiter: str, header: bool, line_breaks: str = "any") -> Iterator[Row]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with _open_text(path) as handle:
        # strict quoting, and no quote may swallow the rows after it (read_delimited_rows says where)
        records = read_delimited_rows(handle, path=path, delimiter=delimiter, header=header, line_breaks=line_breaks)
        names: list[Any] | None = None
        if header:
            try:
                _, names = next(records)
            except UnicodeDecodeError as exc:
                raise _utf8_error(path, exc, None, delimiter, header) from None
            except StopIteration:
                raise DataValidationError("is empty", path=path, record="header", expected="a header row") from None
            dupes = [n for n, c in Counter(names).items() if c > 1]
            if dupes:
                raise DataValidationError(f"repeats column name(s) {dupes}", path=path, record="header")
        n = 0
        while True:
            try:
                line, fields = next(records)
            except StopIteration:
                break
            except UnicodeDecodeError as exc:
                raise _utf8_error(path, exc, n + 1, delimiter, header) from None
            n += 1
            where = f"row {n} (line {line})"
            if names is None:
                yield where, dict(enumerate(fields))
                continue
            if len(fields) > len(names):
                raise DataValidationError(
                    f"has {len(fields)} fields for {len(names)} columns (unbalanced quote or stray delimiter?)",
                    path=path,
                    record=where,
                )
            values: dict[Any, Any] = dict(zip(names, fields))
            for missing in names[len(fields) :]:
                values[missing] = None
            yield where, values


def _read_jsonl(path: Path) -> Iterator[Row]:
    with _open_text(path) as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"line {lineno}"
            obj = parse_json(line, path=path, record=where, expected="one JSON object per line")
            if not isinstance(obj, dict):
                raise DataValidationError(
                    f"is a JSON {type(obj).__name__}", path=path, record=where, expected="a JSON object"
                )
            yield where, obj


def _read_json_array(path: Path) -> Iterator[Row]:
    with _open_text(path) as handle:
        data = parse_json(handle.read(), path=path, expected="a JSON array of objects")
    if isinstance(data, dict):  # {"data": [...]} and similar single-key wrappers
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise DataValidationError(
                "is an object without exactly one list of records", path=path, expected="a JSON array of objects"
            )
        data = lists[0]
    if not isinstance(data, list):
        raise DataValidationError(f"is a JSON {type(data).__name__}", path=path, expected="a JSON array of objects")
    for i, obj in enumerate(data):
        if not isinstance(obj, dict):
            raise DataValidationError(
                f"is a JSON {type(obj).__name__}", path=path, record=f"item {i}", expected="a JSON object"
            )
        yield f"item {i}", obj


def _read_parquet(path: Path) -> Iterator[Row]:
    """Parquet through polars, else pyarrow; both optional (``steb-core[parquet]``)."""
    try:
        import polars as pl  # optional dependency, imported on use

        frame = pl.read_parquet(path)
        rows: Iterable[dict[str, Any]] = frame.iter_rows(named=True)
    except ImportError:
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise DataValidationError(
                "needs polars or pyarrow to read Parquet",
                path=path,
                expected="`pip install steb-core[parquet]` (or polars / pyarrow)",
            ) from None
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # noqa: BLE001 - a corrupt file: say which
        raise DataValidationError(f"cannot be read as Parquet: {exc}", path=path) from None
    for i, row in enumerate(rows, start=1):
        yield f"row {i}", row


# --------------------------------------------------------------------------------------------
# turning rows into records
# --------------------------------------------------------------------------------------------
def _get(row: Mapping[Any, Any], col: Column, path: Path | None, where: str, field_name: str) -> Any:
    if col not in row:
        raise DataValidationError(
            "is missing" if isinstance(col, str) else f"column {col} is missing (row has {len(row)} fields)",
            path=path,
            record=where,
            field=str(col),
            expected=f"the column mapped to '{field_name}'",
        )
    value = row[col]
    if value is None:
        raise DataValidationError(
            "is empty (null)", path=path, record=where, field=str(col), expected=f"a value for '{field_name}'"
        )
    return value


def _as_text(value: Any, col: Column, path: Path | None, where: str) -> str:
    if not isinstance(value, str):
        raise DataValidationError(
            f"holds a {type(value).__name__} ({str(value)[:40]!r})",
            path=path,
            record=where,
            field=str(col),
            expected="text",
        )
    return value


#: cell values that mean "no value" in every format: JSON null/NaN, and the NaN/NA spellings of CSV
#: writers (pandas writes NaN as an empty cell or "NaN"); a missing label is refused, never a class
_MISSING_LABELS = {"", "nan", "na", "n/a", "null", "none"}


def label_text(
    value: Any, *, path: str | Path | None = None, record: str | int | None = None, field: str | None = "label"
) -> str:
    """A label as the text that names its class: a string as written (trimmed), a whole number as its digits
    (``1``, ``1.0`` and ``"1"`` are one class), a boolean as JSON writes it (``true``/``false``). Every loader
    that turns a parsed value into a class or author name goes through this one rule.

    Why booleans as ``true``: ``str(True)`` is ``"True"``, so a JSON-lines file holding both ``true`` and the
    string ``"true"`` (the same label, written by two tools) split one class into two. Strings keep their case
    (``"True"`` stays ``True``): labels are case-sensitive. A missing value (JSON null or NaN, CSV's empty,
    NaN or NA cells), an object or a list is an error naming ``path``, ``record`` and ``field``.
    """
    if (
        value is None
        or isinstance(value, float)
        and value != value
        or isinstance(value, str)
        and value.strip().lower() in _MISSING_LABELS
    ):
        raise DataValidationError(
            f"holds {value!r}, a missing value",
            path=path,
            record=record,
            field=field,
            expected="a non-empty label (CSV NaN/NA and JSON NaN/null are missing values)",
        )
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (str, int)) and str(value).strip():
        return str(value).strip()
    raise DataValidationError(f"holds {value!r}", path=path, record=record, field=field, expected="a non-empty label")


def _as_label(value: Any, col: Column, path: Path | None, where: str) -> str:
    """:func:`label_text` of a table cell, located by its column."""
    return label_text(value, path=path, record=where, field=str(col))


_TRUE = {"1", "true", "t", "yes", "y", "same"}
_FALSE = {"0", "false", "f", "no", "n", "different", "diff"}


def _as_bool(value: Any, col: Column, path: Path | None, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise DataValidationError(
        f"holds {value!r}",
        path=path,
        record=where,
        field=str(col),
        expected="true/false, 1/0, yes/no or same/different",
    )


def _as_number(value: Any, col: Column, path: Path | None, where: str) -> float:
    if isinstance(value, bool):
        raise DataValidationError(f"holds {value!r}", path=path, record=where, field=str(col), expected="a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise DataValidationError(
            f"holds {str(value)[:40]!r}", path=path, record=where, field=str(col), expected="a number"
        ) from None
    if number != number or number in (float("inf"), float("-inf")):
        raise DataValidationError(
            f"holds {value!r}", path=path, record=where, field=str(col), expected="a finite number"
        )
    return number


def _as_indices(value: Any, col: Column, path: Path | None, where: str) -> tuple[int, ...]:
    if isinstance(value, str):
        text = value.strip()
        try:
            value = json.loads(text) if text.startswith("[") else [int(t) for t in text.replace(",", " ").split()]
        except (ValueError, json.JSONDecodeError):
            raise DataValidationError(
                f"holds {value!r}", path=path, record=where, field=str(col), expected="indices such as '1 0' or [1, 0]"
            ) from None
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise DataValidationError(
            f"holds {value!r}", path=path, record=where, field=str(col), expected="a list of integer indices"
        )
    return tuple(value)


def _texts_of(value: Any, col: Column, path: Path | None, where: str) -> list[str]:
    """One text, or a list of texts (LUAR-style collections)."""
    if isinstance(value, list):
        return [_as_text(v, f"{col}[{i}]", path, where) for i, v in enumerate(value)]
    return [_as_text(value, col, path, where)]


def _column_list(value: Any) -> list[Column]:
    return [value] if isinstance(value, (str, int)) else list(value)


def _mapping_for(shape: str, columns: Mapping[str, Any] | None) -> dict[str, Any]:
    if shape not in SHAPE_FIELDS:
        raise ValueError(f"unknown shape '{shape}'; known: {', '.join(SHAPE_FIELDS)}")
    required, optional = SHAPE_FIELDS[shape]
    columns = dict(columns or {})
    unknown = [k for k in columns if k not in required + optional]
    if unknown:
        raise ValueError(f"shape '{shape}' has no field(s) {unknown}; fields: {', '.join(required + optional)}")
    mapping = {f: columns.get(f, f) for f in required}
    mapping.update({f: columns[f] for f in optional if f in columns})
    return mapping


def _apply_label_map(label: str, label_map: Mapping[str, Any] | Callable[[str], Any] | None) -> str | None:
    if label_map is None:
        return label
    if callable(label_map):
        mapped = label_map(label)
    else:
        mapped = label_map.get(label, label)
    return None if mapped is None else label_text(mapped)


def records_from_rows(
    rows: Iterable[Row],
    shape: str,
    columns: Mapping[str, Any] | None = None,
    *,
    path: str | Path | None = None,
    where: Callable[[Mapping[Any, Any]], bool] | None = None,
    label_map: Mapping[str, Any] | Callable[[str], Any] | None = None,
    multi_label: str | None = None,
    skip_empty: bool = False,
    split_values: tuple[str, str] = ("query", "target"),
    split: str | None = None,
    stats: Counter[str] | None = None,
) -> list[Any]:
    """Build the records of ``shape`` from table rows (see the module docstring for the mapping).

    ``where`` keeps only rows it accepts; ``label_map`` renames labels (a ``None`` value drops the row);
    ``multi_label`` splits a label cell on a separator into one record per label; ``skip_empty`` drops
    rows whose text is blank instead of failing (counted in ``stats['skipped_empty']``). For retrieval
    the result is a list of ``(split, TextCollection)`` with split "query" or "target"; pass ``split``
    when the whole file is one side.
    """
    mapping = _mapping_for(shape, columns)
    p = Path(path) if path is not None else None
    stats = stats if stats is not None else Counter()
    grouped: dict[tuple[str, str, Any], list[str]] = {}
    ids: dict[str, tuple[str, Any]] = {}  # id -> (where first seen, what it names)
    out: list[Any] = []
    for loc, row in rows:
        stats["rows"] += 1
        if where is not None and not where(row):
            stats["filtered"] += 1
            continue
        try:
            made = _one_row(shape, mapping, row, p, loc, label_map, multi_label, skip_empty, split_values, split, stats)
        except DataValidationError as exc:
            raise _in_column(exc, mapping).located(path=p, record=loc) from None
        if shape == "retrieval":
            for key, texts in made:
                grouped.setdefault(key, []).extend(texts)
                if key[2] is not None:
                    _check_id(ids, key[2], key[1], "another author", p, loc, mapping)
        else:
            for rec in made:
                if rec.id is not None:
                    _check_id(
                        ids,
                        rec.id,
                        _id_content(rec),
                        "another text" if isinstance(rec, LabelledText) else "other texts or values",
                        p,
                        loc,
                        mapping,
                    )
            out.extend(made)
    if shape == "retrieval":
        for (side, author, cid), texts in grouped.items():
            with located(p, f"{side} collection of author '{author}'"):
                out.append(
                    (side, TextCollection(author=author, texts_=tuple(texts), id=None if cid is None else str(cid)))
                )
    return out


def _id_content(rec: Any) -> Any:
    """What an id stands for: the record without its id. A labelled text's label is left out, since one text
    may carry several labels (one record per label, as multi-label corpora are stored)."""
    if isinstance(rec, LabelledText):
        return rec.text
    return tuple(getattr(rec, f) for f in rec.__dataclass_fields__ if f != "id")


def _check_id(
    ids: dict[str, tuple[str, Any]],
    rid: str,
    content: Any,
    what: str,
    path: Path | None,
    loc: str,
    mapping: Mapping[str, Any],
) -> None:
    """Refuse an id that names two different records (a row copied and edited, rows shifted by a broken quote):
    which of the two is right cannot be known, and a join by id downstream would pick one silently."""
    first = ids.setdefault(rid, (loc, content))
    if first[1] != content:
        raise DataValidationError(
            f"id {rid!r} was first used at {first[0]}, with {what}",
            path=path,
            record=loc,
            field=str(mapping.get("id", "id")),
            expected="each id to name one record",
        )


def _in_column(exc: DataValidationError, mapping: Mapping[str, Any]) -> DataValidationError:
    """A record type names its own field ('text'); tell the user the file's column behind it."""
    col = mapping.get(exc.field or "")
    if col is None or not isinstance(col, (str, int)) or str(col) == exc.field:
        return exc
    return DataValidationError(
        exc.reason, path=exc.path, record=exc.record, field=f"{col} ({exc.field})", expected=exc.expected
    )


def _one_row(
    shape: str,
    mapping: Mapping[str, Any],
    row: Mapping[Any, Any],
    p: Path | None,
    loc: str,
    label_map: Mapping[str, Any] | Callable[[str], Any] | None,
    multi_label: str | None,
    skip_empty: bool,
    split_values: tuple[str, str],
    split: str | None,
    stats: Counter[str],
) -> list[Any]:
    def opt(name: str) -> Any:
        return row.get(mapping[name]) if name in mapping else None

    rid = opt("id")
    rid = None if rid is None or rid == "" else str(rid)
    if shape == "labelled_texts":
        text = _as_text(_get(row, mapping["text"], p, loc, "text"), mapping["text"], p, loc)
        if skip_empty and not text.strip():
            stats["skipped_empty"] += 1
            return []
        raw = _as_label(_get(row, mapping["label"], p, loc, "label"), mapping["label"], p, loc)
        labels = [s for s in raw.split(multi_label) if s.strip()] if multi_label is not None else [raw]
        made = []
        for raw_label in labels:
            label = _apply_label_map(raw_label.strip(), label_map)
            if label is None:
                stats["dropped_label"] += 1
                continue
            made.append(LabelledText(text=text, label=label, id=rid))
        return made
    if shape == "pairs":
        a = _as_text(_get(row, mapping["text_a"], p, loc, "text_a"), mapping["text_a"], p, loc)
        b = _as_text(_get(row, mapping["text_b"], p, loc, "text_b"), mapping["text_b"], p, loc)
        if skip_empty and not (a.strip() and b.strip()):
            stats["skipped_empty"] += 1
            return []
        same = _as_bool(_get(row, mapping["same"], p, loc, "same"), mapping["same"], p, loc)
        group = opt("group")
        return [TextPair(text_a=a, text_b=b, same=same, id=rid, group=None if group in (None, "") else str(group))]
    if shape == "order_groups":
        anchors = [_as_text(_get(row, c, p, loc, "anchors"), c, p, loc) for c in _column_list(mapping["anchors"])]
        alternatives = [
            _as_text(_get(row, c, p, loc, "alternatives"), c, p, loc) for c in _column_list(mapping["alternatives"])
        ]
        if "answer" in mapping:
            answer = _as_indices(_get(row, mapping["answer"], p, loc, "answer"), mapping["answer"], p, loc)
        else:
            answer = tuple(range(len(anchors)))  # alternatives listed in the anchors' order
        distractor = opt("distractor")
        distractor = None if distractor in (None, "") else _as_text(distractor, mapping["distractor"], p, loc)
        style = opt("style_type")
        return [
            OrderGroup(
                anchors=tuple(anchors),
                alternatives=tuple(alternatives),
                answer=answer,
                distractor=distractor,
                id=rid,
                style_type=None if style in (None, "") else str(style),
            )
        ]
    if shape == "retrieval":
        author = _as_label(_get(row, mapping["author"], p, loc, "author"), mapping["author"], p, loc)
        texts = _texts_of(_get(row, mapping["text"], p, loc, "text"), mapping["text"], p, loc)
        if skip_empty:
            kept = [t for t in texts if t.strip()]
            stats["skipped_empty"] += len(texts) - len(kept)
            texts = kept
            if not texts:
                return []
        side = split
        if side is None:
            if "split" not in mapping:
                raise DataValidationError(
                    "names no split column",
                    field="split",
                    expected="columns={'split': ...} or separate query/target files",
                )
            value = _as_label(_get(row, mapping["split"], p, loc, "split"), mapping["split"], p, loc)
            if value not in split_values:
                raise DataValidationError(
                    f"holds {value!r}",
                    field=str(mapping["split"]),
                    expected=f"'{split_values[0]}' or '{split_values[1]}'",
                )
            side = "query" if value == split_values[0] else "target"
        return [((side, author, rid), texts)]
    # feature_texts
    text = _as_text(_get(row, mapping["text"], p, loc, "text"), mapping["text"], p, loc)
    if skip_empty and not text.strip():
        stats["skipped_empty"] += 1
        return []
    feats = mapping["features"]
    if feats == "*":
        skip = {mapping["text"], mapping.get("id")}
        feats = [c for c in row if c not in skip]
    values = {str(c): _as_number(_get(row, c, p, loc, "features"), c, p, loc) for c in _column_list(feats)}
    return [FeatureText(text=text, features=values, id=rid)]


def budgeted(
    records: Sequence[Any],
    key: Callable[[Any], Hashable],
    per_class: int | None,
    seed: int,
    *,
    salt: Hashable = "",
) -> tuple[list[Any], dict[str, Any]]:
    """Apply a per-class sampling cap (seeded, STEB-style) and describe what was kept, for ``bundle.info``."""
    before = Counter(str(key(r)) for r in records)
    kept = sample_per_class(records, key, per_class, seed, salt=salt)
    after = Counter(str(key(r)) for r in kept)
    info = {
        "per_class": per_class,
        "seed": seed,
        "sampling_salt": str(salt),
        "class_counts_available": dict(sorted(before.items())),
        "class_counts": dict(sorted(after.items())),
        "n_classes": len(after),
        "n_records": len(kept),
    }
    return kept, info


# --------------------------------------------------------------------------------------------
# the loader
# --------------------------------------------------------------------------------------------
PathSpec = str | Path | Mapping[str, str | Path]


@dataclass(frozen=True)
class GenericLoader:
    """A :class:`DatasetSpec` loader for a table file; build it with :func:`generic_loader`.

    ``path`` is absolute (a file shipped with a plugin) or relative to the dataset folder the user
    gave (``--data-dir`` / ``$STEB_DATA_DIR``); it may be a glob (files read in sorted order). For
    retrieval it may be ``{"queries": ..., "targets": ...}`` instead of a split column.
    ``ctx.options`` may override ``per_class``, ``limit``, ``path`` and ``line_breaks``.

    ``line_breaks`` (CSV/TSV) says whether a quoted value may span lines: ``"none"`` (the default: one
    record per line, so a value holding a line break is an error naming file, line and column), ``"any"``
    (texts that span lines, e.g. posts with paragraphs) or ``"trailing"`` (a value may end with one).
    Why "none" by default: a stray quote that opens a value on one row and another that closes it two
    rows later merges those rows into one text, silently (30 rows read as 28); only a table that says its
    values may span lines is read that way.
    """

    path: PathSpec
    shape: str
    format: str | None = None
    columns: Mapping[str, Any] = field(default_factory=dict)
    per_class: int | None = None
    limit: int | None = None
    header: bool = True
    delimiter: str | None = None
    where: Callable[[Mapping[Any, Any]], bool] | None = None
    label_map: Mapping[str, Any] | Callable[[str], Any] | None = None
    multi_label: str | None = None
    skip_empty: bool = False
    split_values: tuple[str, str] = ("query", "target")
    obtain: str = ""
    line_breaks: str = "none"

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"unknown shape '{self.shape}'; known: {', '.join(SHAPES)}")
        if self.line_breaks not in LINE_BREAKS:
            raise ValueError(f"line_breaks={self.line_breaks!r}; known: {', '.join(LINE_BREAKS)}")
        _mapping_for(self.shape, self.columns)  # fail at registration, not at run time
        if self.format is not None and self.format not in FORMATS:
            raise ValueError(f"unknown format '{self.format}'; known: {', '.join(FORMATS)}")
        if isinstance(self.path, Mapping) and (self.shape != "retrieval" or set(self.path) != {"queries", "targets"}):
            raise ValueError("a mapping path is only for retrieval and needs exactly the keys 'queries' and 'targets'")

    # -- files ---------------------------------------------------------------------------------
    def resolve(self, ctx: LoadContext, relative: str | Path) -> list[Path]:
        """The files one path entry names, checked to exist (a missing file says what to download)."""
        rel = Path(relative)
        if rel.is_absolute():
            base, pattern = None, str(rel)
        else:
            base = ctx.require_dir(self.obtain or "see the dataset's description")
            pattern = str(base / rel)
        if any(ch in pattern for ch in "*?["):
            files = sorted(Path(f) for f in _glob.glob(pattern, recursive=True) if Path(f).is_file())
            if not files:
                raise DatasetNotFoundError(
                    f"dataset '{ctx.dataset}': no file matches {pattern}. Obtain it: {self.obtain}"
                )
            return _inside(files, base)
        path = Path(pattern)
        if not path.is_file():
            raise DatasetNotFoundError(f"dataset '{ctx.dataset}': missing file {path}. Obtain it: {self.obtain}")
        return _inside([path], base)

    def _records(
        self, files: list[Path], stats: Counter[str], split: str | None = None, line_breaks: str | None = None
    ) -> list[Any]:
        out: list[Any] = []
        for f in files:
            rows = read_table(
                f,
                self.format,
                header=self.header,
                delimiter=self.delimiter,
                line_breaks=line_breaks or self.line_breaks,
            )
            out.extend(
                records_from_rows(
                    rows,
                    self.shape,
                    self.columns,
                    path=f,
                    where=self.where,
                    label_map=self.label_map,
                    multi_label=self.multi_label,
                    skip_empty=self.skip_empty,
                    split_values=self.split_values,
                    split=split,
                    stats=stats,
                )
            )
        return out

    # -- loading -------------------------------------------------------------------------------
    def __call__(self, ctx: LoadContext) -> DatasetBundle:
        opts = dict(ctx.options or {})
        path = opts.get("path", self.path)
        per_class = opts.get("per_class", self.per_class)
        limit = opts.get("limit", self.limit)
        breaks = str(opts.get("line_breaks", self.line_breaks))
        if breaks not in LINE_BREAKS:
            raise DataValidationError(
                f"is {breaks!r}",
                record="dataset option",
                field="line_breaks",
                expected=f"one of {', '.join(LINE_BREAKS)}",
            )
        stats: Counter[str] = Counter()
        if isinstance(path, Mapping):
            files = {side: self.resolve(ctx, p) for side, p in path.items()}
            records = self._records(files["queries"], stats, "query", breaks) + self._records(
                files["targets"], stats, "target", breaks
            )
            file_names = [str(f) for fs in files.values() for f in fs]
        else:
            file_list = self.resolve(ctx, path)
            records = self._records(file_list, stats, line_breaks=breaks)
            file_names = [str(f) for f in file_list]
        info: dict[str, Any] = {
            "loader": "steb_core.generic",  # the loader's recorded name (in results), kept across the rename
            "files": file_names,
            "format": self.format or infer_format(file_names[0]),
            "shape": self.shape,
            "columns": {
                k: (list(v) if isinstance(v, (list, tuple)) else v)
                for k, v in _mapping_for(self.shape, self.columns).items()
            },
            "seed": ctx.seed,
            **{k: v for k, v in stats.items()},
        }
        if not records:
            raise DataValidationError(
                "holds no usable record", path=file_names[0], expected=f"rows for shape '{self.shape}'"
            )
        if self.shape == "retrieval":
            return DatasetBundle(retrieval=self._retrieval(records, limit, ctx, info), info=info)
        if self.shape in ("labelled_texts", "pairs") and per_class is not None:
            key = (lambda r: r.label) if self.shape == "labelled_texts" else (lambda r: r.same)
            records, sampling = budgeted(records, key, per_class, ctx.seed, salt=ctx.dataset)
            info.update(sampling)
        elif self.shape == "labelled_texts":
            info["class_counts"] = dict(sorted(Counter(r.label for r in records).items()))
        if limit is not None and len(records) > limit:
            rng = seeded_rng(ctx.seed, "generic-limit", ctx.dataset)
            keep = sorted(rng.sample(range(len(records)), limit))
            records = [records[i] for i in keep]
            info["limit"] = limit
        info["n_records"] = len(records)
        records_of: dict[str, Any] = {self.shape: records}
        return DatasetBundle(**records_of, info=info)

    @staticmethod
    def _retrieval(
        records: list[tuple[str, TextCollection]], limit: int | None, ctx: LoadContext, info: dict[str, Any]
    ) -> RetrievalSet:
        """Queries and targets; ``limit`` caps the number of authors (seeded), keeping both sides of each."""
        queries = [c for side, c in records if side == "query"]
        targets = [c for side, c in records if side == "target"]
        if limit is not None:
            authors = sorted({c.author for c in queries})
            if len(authors) > limit:
                rng = seeded_rng(ctx.seed, "generic-authors", ctx.dataset)
                chosen = set(rng.sample(authors, limit))
                queries = [c for c in queries if c.author in chosen]
                targets = [c for c in targets if c.author in chosen]
                info["limit_authors"] = limit
        info["n_queries"], info["n_targets"] = len(queries), len(targets)
        info["n_authors"] = len({c.author for c in queries})
        return RetrievalSet(queries=tuple(queries), targets=tuple(targets))


def _inside(files: list[Path], base: Path | None) -> list[Path]:
    """``files``, refusing one inside the dataset folder ``base`` whose links lead out of it (a release's link to
    ``/etc/passwd`` matched by ``*.csv``); files named outside ``base`` (an absolute path, ``../shared``) are the
    dataset author's choice and not judged."""
    if base is None:
        return files
    root = os.path.normpath(os.path.abspath(base))
    for f in files:
        full = os.path.normpath(os.path.abspath(f))
        if full.startswith(root.rstrip(os.sep) + os.sep):
            check_inside(f, base, what="dataset folder")
    return files


def generic_loader(
    path_or_name: PathSpec,
    *,
    shape: str,
    format: str | None = None,
    columns: Mapping[str, Any] | None = None,
    **options: Any,
) -> GenericLoader:
    """A loader reading ``path_or_name`` into records of ``shape`` with the given column mapping.

    Options (see :class:`GenericLoader`): ``per_class`` (seeded cap per label, or per same/different
    for pairs), ``limit`` (seeded cap on records; on authors for retrieval), ``header``, ``delimiter``,
    ``where`` (row filter), ``label_map``, ``multi_label`` (label separator), ``skip_empty``,
    ``split_values`` (query/target values of the split column), ``obtain`` (download hint),
    ``line_breaks`` (``"none"``, ``"any"`` or ``"trailing"``: may a CSV/TSV value span lines).

    Example::

        DatasetSpec(name="my-formality", description="...", tasks=("clustering", "pair_all"),
                    loader=generic_loader("posts.csv", shape="labelled_texts",
                                          columns={"text": "body", "label": "register"}, per_class=200))
    """
    return GenericLoader(path=path_or_name, shape=shape, format=format, columns=dict(columns or {}), **options)


_LOADER_OPTIONS = {f for f in GenericLoader.__dataclass_fields__ if f not in ("path", "shape", "format", "columns")}


def generic_dataset(
    name: str,
    *,
    path: PathSpec,
    shape: str,
    tasks: Sequence[str],
    description: str,
    format: str | None = None,
    columns: Mapping[str, Any] | None = None,
    **fields: Any,
) -> DatasetSpec:
    """A complete :class:`DatasetSpec` around :func:`generic_loader`: loader options and spec fields in one call.

    Keyword arguments that are :class:`GenericLoader` options (``per_class``, ``where``, ...) go to the
    loader, the rest (``categories``, ``languages``, ``citation``, ``license``, ``obtain``, ...) to the
    spec. The budget and column mapping are recorded in ``spec.extra['generic']`` for listings.
    """
    loader_opts = {k: fields.pop(k) for k in list(fields) if k in _LOADER_OPTIONS}
    if "obtain" in fields:
        loader_opts.setdefault("obtain", fields["obtain"])
    loader = generic_loader(path, shape=shape, format=format, columns=columns, **loader_opts)
    if isinstance(path, (str, Path)) and Path(path).is_absolute():
        fields.setdefault("needs_data", False)
    extra = dict(fields.pop("extra", {}) or {})
    extra.setdefault("generic", {"shape": shape, "columns": dict(columns or {}), "per_class": loader.per_class})
    return DatasetSpec(name=name, description=description, tasks=tuple(tasks), loader=loader, extra=extra, **fields)
