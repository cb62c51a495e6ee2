"""The typed data model: one record type per task shape, validated when it is built.

Loaders turn official release files into these records and return them in a :class:`DatasetBundle`.
Validation happens in ``__post_init__`` so a malformed record can never reach a task; loaders add the
file and record location with :func:`steb_core._io.located` so the user sees where the bad value is.
Plain dataclasses (not pydantic) because PAN-scale datasets hold hundreds of thousands of records
and construction cost matters.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, overload

from ._errors import DataValidationError

__all__ = [
    "LabelledText",
    "TextPair",
    "OrderGroup",
    "TextCollection",
    "RetrievalSet",
    "FeatureText",
    "DatasetBundle",
    "RecordSequence",
    "SHAPES",
    "data_fingerprint",
]


def _restore(cls: type, values: tuple[Any, ...]) -> Any:
    """A record rebuilt from its pickled field values (see :func:`_pickled_by_fields`)."""
    record: Any = object.__new__(cls)
    for name, value in zip(_FIELDS[cls], values):
        object.__setattr__(record, name, value)
    return record


_FIELDS: dict[type, tuple[str, ...]] = {}


def _pickled_by_fields(cls: type) -> type:
    """Pickle a frozen record as its field values, restored without ``__post_init__``.

    Why: the prefetch worker sends every loaded record to the runner pickled (an order-alignment set is 60,000
    to 115,000 groups), and a slotted dataclass's default state goes through ``dataclasses.fields()`` per record
    on both sides: about twice the time of this. Only records steb built, and so validated, are pickled (the
    worker is a fork of the runner); an unpickled record is equal to the one sent, field by field.
    """
    names = tuple(f.name for f in fields(cls))
    _FIELDS[cls] = names

    def __reduce__(self: Any) -> tuple[Any, ...]:
        return (_restore, (cls, tuple([getattr(self, n) for n in names])))

    cls.__reduce__ = __reduce__  # type: ignore[method-assign,assignment]
    return cls


def _check_text(value: Any, field_name: str) -> None:
    if not isinstance(value, str):
        raise DataValidationError(f"must be a string, got {type(value).__name__}", field=field_name, expected="text")
    if not value or value.isspace():  # = not value.strip(): the same whitespace, without copying the text
        raise DataValidationError("is empty", field=field_name, expected="non-empty text")


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class LabelledText:
    """A text with one gold class label (clustering and all-to-all pair classification).

    A multi-label document (e.g. CORE) is represented as one record per label.
    """

    text: str
    label: str
    id: str | None = None

    def __post_init__(self) -> None:
        _check_text(self.text, "text")
        if not isinstance(self.label, str) or not self.label:
            raise DataValidationError("must be a non-empty string", field="label", expected="class label")

    def texts(self) -> Iterator[str]:
        yield self.text


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class TextPair:
    """A predefined trial: two texts and whether they share the property (e.g. the same author)."""

    text_a: str
    text_b: str
    same: bool
    id: str | None = None
    group: str | None = None  # e.g. the document a style-change pair comes from

    def __post_init__(self) -> None:
        _check_text(self.text_a, "text_a")
        _check_text(self.text_b, "text_b")
        if not isinstance(self.same, bool):
            raise DataValidationError(f"must be a boolean, got {self.same!r}", field="same", expected="true/false")

    def texts(self) -> Iterator[str]:
        yield self.text_a
        yield self.text_b


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class OrderGroup:
    """An order-alignment instance (STEL generalised).

    ``anchors`` is set A in its order along a style axis (e.g. informal, formal). ``alternatives`` is
    set B as presented (paraphrases of *other* content on the same axis, shuffled). ``answer[i]`` is the
    index into ``alternatives`` of the text that matches ``anchors[i]``. ``distractor`` is an optional text
    with the same content as the anchors in a style none of them has (STEL-or-Content when there is one
    anchor). A group with a distractor is scored only in ``distractor_accuracy``, against the candidates
    ``alternatives + (distractor,)``; a group without one only in the plain ``accuracy`` (STEB §3).

    STEL quadruple: anchors (A1, A2), alternatives (S1, S2), answer (0, 1) for "Correct Alternative" 1
    and (1, 0) for 2. STEL triple: anchors (A1,), alternatives (S1, S2), answer (index of the match,).

    ``distractor_at`` is where the distractor stands among the candidates (:meth:`candidates`); None puts
    it after the alternatives. Why it matters: the STEB reference solves the assignment with
    ``scipy.optimize.linear_sum_assignment``, whose answer on an exact tie depends on the column order,
    and its "first" distractor variant puts the distractor in the first column (``steb/tasks/
    order_alignment.py`` @8a036408 ``OrderAlignmentTask.evaluate``).
    """

    anchors: tuple[str, ...]
    alternatives: tuple[str, ...]
    answer: tuple[int, ...]
    distractor: str | None = None
    id: str | None = None
    style_type: str | None = None
    distractor_at: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "anchors", tuple(self.anchors))
        object.__setattr__(self, "alternatives", tuple(self.alternatives))
        object.__setattr__(self, "answer", tuple(self.answer))
        if not self.anchors:
            raise DataValidationError("needs at least one anchor", field="anchors", expected="1 or more texts")
        for i, t in enumerate(self.anchors):
            _check_text(t, f"anchors[{i}]")
        for i, t in enumerate(self.alternatives):
            _check_text(t, f"alternatives[{i}]")
        if len(self.answer) != len(self.anchors):
            raise DataValidationError(
                f"has {len(self.answer)} entries for {len(self.anchors)} anchors",
                field="answer",
                expected="one alternative index per anchor",
            )
        if len(self.alternatives) < len(self.anchors) or (len(self.anchors) == 1 and len(self.alternatives) < 1):
            raise DataValidationError(
                f"has {len(self.alternatives)} texts for {len(self.anchors)} anchors",
                field="alternatives",
                expected="at least as many alternatives as anchors",
            )
        if len(set(self.answer)) != len(self.answer) or any(
            not isinstance(a, int) or a < 0 or a >= len(self.alternatives) for a in self.answer
        ):
            raise DataValidationError(
                f"{self.answer!r} is not a set of distinct alternative indices",
                field="answer",
                expected=f"distinct integers in 0..{len(self.alternatives) - 1}",
            )
        if self.distractor is not None:
            _check_text(self.distractor, "distractor")
        if self.distractor_at is not None and (
            self.distractor is None
            or isinstance(self.distractor_at, bool)
            or not isinstance(self.distractor_at, int)
            or not 0 <= self.distractor_at <= len(self.alternatives)
        ):
            raise DataValidationError(
                f"is {self.distractor_at!r}" + (" without a distractor" if self.distractor is None else ""),
                field="distractor_at",
                expected=f"None, or with a distractor an integer in 0..{len(self.alternatives)}",
            )

    def candidates(self) -> tuple[str, ...]:
        """The texts the anchors are aligned with: the alternatives, the distractor at ``distractor_at``."""
        if self.distractor is None:
            return self.alternatives
        at = len(self.alternatives) if self.distractor_at is None else self.distractor_at
        return self.alternatives[:at] + (self.distractor,) + self.alternatives[at:]

    def candidate_answer(self) -> tuple[int, ...]:
        """``answer`` as indices into :meth:`candidates` (shifted past the distractor where it precedes them)."""
        if self.distractor is None or self.distractor_at is None:
            return self.answer
        return tuple(a + 1 if a >= self.distractor_at else a for a in self.answer)

    def texts(self) -> Iterator[str]:
        yield from self.anchors
        yield from self.alternatives
        if self.distractor is not None:
            yield self.distractor


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class TextCollection:
    """One or more texts by one author: a retrieval query or target."""

    author: str
    texts_: tuple[str, ...]
    id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "texts_", tuple(self.texts_))
        if not isinstance(self.author, str) or not self.author:
            raise DataValidationError("must be a non-empty string", field="author", expected="author id")
        if not self.texts_:
            raise DataValidationError("holds no text", field="texts", expected="one or more texts")
        for i, t in enumerate(self.texts_):
            _check_text(t, f"texts[{i}]")

    def texts(self) -> Iterator[str]:
        yield from self.texts_


@dataclass(frozen=True, slots=True)
class RetrievalSet:
    """Query and target collections; a query's relevant targets are those with the same author."""

    queries: tuple[TextCollection, ...]
    targets: tuple[TextCollection, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "queries", tuple(self.queries))
        object.__setattr__(self, "targets", tuple(self.targets))
        if not self.queries:
            raise DataValidationError("is empty", field="queries", expected="one or more query collections")
        if not self.targets:
            raise DataValidationError("is empty", field="targets", expected="one or more target collections")
        target_authors = {t.author for t in self.targets}
        for i, q in enumerate(self.queries):
            if q.author not in target_authors:
                raise DataValidationError(
                    f"author '{q.author}' has no target collection",
                    record=q.id or i,
                    field="author",
                    expected="every query author to appear among the targets",
                )

    def texts(self) -> Iterator[str]:
        for c in self.queries:
            yield from c.texts_
        for c in self.targets:
            yield from c.texts_


#: the split names of released probing files (the STEB reference's ``split_<feature>`` values)
PROBING_SPLITS = ("train", "val", "test")


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class FeatureText:
    """A text with numeric linguistic feature values (probing); the task bins them.

    ``bins`` and ``splits`` carry a release's own bin label (an int) and split (``train``, ``val``,
    ``test``) per feature, None where the text is not used for that feature: the STEB authors' probing
    files hold them as ``label_<feature>`` / ``split_<feature>`` (made with unseeded draws, so only the
    released ones reproduce their numbers). A record with ``bins`` may have no ``features``.
    """

    text: str
    features: Mapping[str, float]
    id: str | None = None
    bins: Mapping[str, int | None] | None = None
    splits: Mapping[str, str | None] | None = None

    def __post_init__(self) -> None:
        _check_text(self.text, "text")
        if not self.features and not self.bins:
            raise DataValidationError(
                "is empty", field="features", expected="feature name -> number (or released bins)"
            )
        for k, v in self.features.items():
            if not isinstance(v, (int, float)) or v != v:
                raise DataValidationError(
                    f"value {v!r} is not a number", field=f"features.{k}", expected="a finite number"
                )
        mismatched = self.bins is not None and set(self.bins) != set(self.splits or {})
        if (self.bins is None) != (self.splits is None) or mismatched:
            raise DataValidationError(
                "bins and splits name different features",
                field="splits",
                expected="a split for every released bin (label_<f> with split_<f>)",
            )
        for k, b in (self.bins or {}).items():
            if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 0):
                raise DataValidationError(
                    f"value {b!r}", field=f"label_{k}", expected="a bin index (integer >= 0) or null"
                )
        for k, split in (self.splits or {}).items():
            if split is not None and split not in PROBING_SPLITS:
                raise DataValidationError(
                    f"value {split!r}", field=f"split_{k}", expected=" or ".join(PROBING_SPLITS) + " or null"
                )

    def texts(self) -> Iterator[str]:
        yield self.text


class RecordSequence(Sequence[Any]):
    """A read-only sequence of records of one type, held in a compact form and built when asked for.

    Why: a shape's records may be a function of far fewer values than they hold -- the reference
    construction's 114,660 order groups are 392 parallel items and their pair indices
    (:class:`steb_core._paired_groups.PairedOrderGroups`). Such a sequence validated its values when it was
    built; a :class:`DatasetBundle` keeps it as it is, and the places that read every record read it the
    compact way: the data fingerprint (:meth:`field_rows`, the same byte stream as the records' list) and the
    texts to embed (:meth:`texts`). Everything else sees the records themselves (``seq[i]``, iteration), equal
    field by field to those a list would hold.
    """

    #: the record type this sequence holds (one of :data:`SHAPES`' values)
    record_type: type

    def field_rows(self) -> Iterator[tuple[Any, ...]]:
        """Each record's field values in field order, as ``attrgetter(*field names)`` of the record gives them."""
        return _field_rows(self, tuple(f.name for f in fields(self.record_type)))

    def texts(self) -> Iterator[str]:
        """Every record's :meth:`texts`, records in order, duplicates included."""
        for record in self:
            yield from record.texts()

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self.record(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"record {index} of {n}")
        return self.record(index % n)

    def record(self, index: int) -> Any:
        """Record ``index`` (0 <= index < len), built from the compact form."""
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]


#: bundle field -> record type: the five task shapes.
SHAPES: dict[str, type] = {
    "labelled_texts": LabelledText,
    "pairs": TextPair,
    "order_groups": OrderGroup,
    "retrieval": RetrievalSet,
    "feature_texts": FeatureText,
}


@dataclass
class DatasetBundle:
    """What a dataset loader returns: the records for each task shape the dataset feeds.

    ``info`` records how the data was made (sampling budgets, seeds, file names, counts) and is copied
    into every result so a number can be traced back to its inputs.
    """

    labelled_texts: list[LabelledText] | None = None
    pairs: list[TextPair] | None = None
    order_groups: Sequence[OrderGroup] | None = None  # a list, or a compact RecordSequence
    retrieval: RetrievalSet | None = None
    feature_texts: list[FeatureText] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    #: task -> option -> value: this load's own task defaults, for a loader option that changes what the records
    #: are (another construction of the groups scored by another rule); they come before the spec's
    #: (:attr:`steb_core.DatasetSpec.task_defaults`, :meth:`steb_core.TaskContext.task_default`). The loader
    #: options are in the run key, so these need not be.
    task_defaults: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.task_defaults, Mapping) or not all(
            isinstance(v, Mapping) for v in self.task_defaults.values()
        ):
            raise DataValidationError(
                f"is {self.task_defaults!r}", field="task_defaults", expected="a mapping task -> {option: value}"
            )
        self.task_defaults = {str(task): dict(options) for task, options in self.task_defaults.items()}
        for name, record_type in SHAPES.items():
            value = getattr(self, name)
            if value is None:
                continue
            if name == "retrieval":
                if not isinstance(value, RetrievalSet):
                    raise DataValidationError("must be a RetrievalSet", field=name)
                continue
            if isinstance(value, RecordSequence):  # validated when built; kept compact
                if value.record_type is not record_type:
                    raise DataValidationError(
                        f"holds {value.record_type.__name__} records", field=name, expected=record_type.__name__
                    )
                if not len(value):
                    raise DataValidationError(
                        "is empty", field=name, expected=f"one or more {record_type.__name__} records"
                    )
                continue
            if not isinstance(value, list):
                value = list(value)
                setattr(self, name, value)
            if not value:
                raise DataValidationError(
                    "is empty", field=name, expected=f"one or more {record_type.__name__} records"
                )
            for i, rec in enumerate(value):
                if not isinstance(rec, record_type):
                    raise DataValidationError(
                        f"holds a {type(rec).__name__}", record=i, field=name, expected=record_type.__name__
                    )

    def shapes(self) -> list[str]:
        """Names of the shapes this bundle holds."""
        return [name for name in SHAPES if getattr(self, name) is not None]

    def get(self, shape: str) -> Any:
        if shape not in SHAPES:
            raise KeyError(f"unknown record shape '{shape}'; known: {', '.join(SHAPES)}")
        return getattr(self, shape)

    def iter_texts(self, shapes: Iterable[str] | None = None) -> Iterator[str]:
        """Every text of the given shapes (all by default), duplicates included."""
        for name in shapes if shapes is not None else self.shapes():
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, (RetrievalSet, RecordSequence)):
                yield from value.texts()
            else:
                for rec in value:
                    yield from rec.texts()

    def fingerprint(self, shape: str) -> str:
        """:func:`data_fingerprint` of one shape's records (what the tasks of that shape see), '' if absent."""
        value = self.get(shape)
        return "" if value is None else data_fingerprint([shape, value])

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for name in self.shapes():
            value = getattr(self, name)
            out[name] = len(value.queries) + len(value.targets) if name == "retrieval" else len(value)
        return out


def data_fingerprint(value: Any) -> str:
    """A content hash of task-shaped records (a shape's list, a :class:`RetrievalSet`, a whole bundle's shape).

    Why: a stored result may be reused only for the data it was computed on. The hash covers every
    field of every record in order (texts, labels, answers, pair flags, groups, ids, feature values),
    so flipping one label, editing one text, re-sampling or re-ordering gives another fingerprint,
    while where the files live (``bundle.info`` paths) does not count. Each value is written with its
    type and length (no separator can be forged by a text), floats bit-exactly (``float.hex``), and
    mappings in sorted key order. blake2b over the already loaded strings.

    :class:`_Stream` writes that byte stream; ``tests/core/test_data_fingerprint.py`` writes it independently,
    value by value, and compares. The loader's worker hashes 60,000 to 115,000 groups per order-alignment set,
    so the writer keeps each distinct text's encoding (a text recurs in about a hundred groups) and writes a
    list of records field by field in one loop.
    """
    h = hashlib.blake2b(digest_size=16, person=b"steb-data-v1")
    _Stream(h).feed(value)
    return h.hexdigest()


def _length(n: int) -> bytes:
    return b"l" + struct.pack("<Q", n)


class _Stream:
    """The fingerprint's byte stream for one hash: each value's type tag, length or content, in order."""

    #: records written before the gathered bytes go to the hash (the digest is the same for any split)
    RECORDS_PER_UPDATE = 4096
    #: texts whose encoding is kept for their next occurrence: at most this long, this much in all (memory stays
    #: bounded on a PAN-sized corpus of long documents, which seldom recur)
    KEEP_TEXT_BYTES = 4096
    KEEP_TOTAL_BYTES = 64 << 20
    #: tuple objects whose encoding one list of records keeps (by identity) for their next occurrence
    KEEP_TUPLES = 1 << 16

    def __init__(self, h: Any) -> None:
        self.h = h
        self.parts: list[bytes] = []
        self.texts: dict[str, bytes] = {}  # a text's encoding (tag, length, UTF-8): texts recur across records
        self.kept = 0  # bytes in self.texts
        self.heads: dict[type, tuple[bytes, tuple[str, ...]]] = {}  # a record type's tag and name, and its fields
        self.ints: dict[int, bytes] = {}  # an int's encoding (answers and positions recur)

    def feed(self, value: Any) -> None:
        self._value(value)
        self._flush()

    def _flush(self) -> None:
        self.h.update(b"".join(self.parts))
        self.parts.clear()

    def _text(self, value: str) -> bytes:
        raw = self.texts.get(value)
        if raw is None:
            raw = b"s" + _utf8_sized(value)
            if len(raw) <= self.KEEP_TEXT_BYTES and self.kept < self.KEEP_TOTAL_BYTES:  # sentences, not books
                self.texts[value] = raw
                self.kept += len(raw)
        return raw

    def _int(self, value: int) -> bytes:
        raw = self.ints.get(value)
        if raw is None:
            raw = b"i" + str(value).encode() + b";"
            if -1024 <= value <= 1024:  # answers, positions, bins: small and recurring
                self.ints[value] = raw
        return raw

    def _head(self, kind: type) -> tuple[bytes, tuple[str, ...]]:
        head = self.heads.get(kind)
        if head is None:
            head = self.heads[kind] = (b"d" + self._text(kind.__name__), tuple(f.name for f in fields(kind)))
        return head

    def _records(self, kind: type, n_records: int, rows: Iterable[tuple[Any, ...]]) -> None:
        """``n_records`` records of one dataclass type given as their field values in field order, in the stream's
        format (each as :meth:`_value` writes a dataclass), with the common values inline."""
        put, value_of, texts, ints = self.parts.append, self._value, self.texts, self.ints
        # a tuple object's encoding, by identity, for this call: records share their tuples (an order group's texts
        # and answer); the tuple is kept with it, so its id is not reused by another object meanwhile
        same: dict[int, tuple[tuple[Any, ...], bytes]] = {}
        head, _ = self._head(kind)
        put(_length(n_records))
        for n, row in enumerate(rows):
            put(head)
            for v in row:
                kind = type(v)
                if kind is str:
                    raw = texts.get(v)
                    put(raw if raw is not None else self._text(v))
                elif v is None:
                    put(b"n")
                elif kind is tuple:  # an order group's texts and answer
                    known = same.get(id(v))
                    if known is not None and known[0] is v:
                        put(known[1])
                        continue
                    pieces = self._plain_tuple(v)
                    if pieces is None:  # other values inside: written one by one
                        put(_length(len(v)))
                        for x in v:
                            value_of(x)
                        continue
                    put(pieces)
                    if len(same) < self.KEEP_TUPLES:
                        same[id(v)] = (v, pieces)
                elif kind is int:
                    raw = ints.get(v)
                    put(raw if raw is not None else self._int(v))
                else:
                    value_of(v)
            if n % self.RECORDS_PER_UPDATE == self.RECORDS_PER_UPDATE - 1:
                self._flush()

    def _plain_tuple(self, value: tuple[Any, ...]) -> bytes | None:
        """A tuple of only ``str`` and ``int`` values (not their subclasses) in the stream's format, else None."""
        texts, ints = self.texts, self.ints
        pieces = [_length(len(value))]
        for x in value:
            item = type(x)
            if item is str:
                raw = texts.get(x)
                pieces.append(raw if raw is not None else self._text(x))
            elif item is int:
                raw = ints.get(x)
                pieces.append(raw if raw is not None else self._int(x))
            else:
                return None
        return b"".join(pieces)

    def _value(self, value: Any) -> None:
        put = self.parts.append
        if isinstance(value, str):
            put(self._text(value) if type(value) is str else b"s" + _utf8_sized(value))
        elif value is None:
            put(b"n")
        elif isinstance(value, bool):
            put(b"T" if value else b"F")
        elif isinstance(value, int):
            put(self._int(value) if type(value) is int else b"i" + str(value).encode() + b";")
        elif isinstance(value, float):
            put(b"f" + value.hex().encode() + b";")
        elif isinstance(value, (list, tuple)):
            first = type(value[0]) if value else None
            if first is not None and hasattr(first, "__dataclass_fields__") and all(type(r) is first for r in value):
                self._records(first, len(value), _field_rows(value, self._head(first)[1]))
                return
            put(_length(len(value)))
            for item in value:
                self._value(item)
        elif isinstance(value, RecordSequence):  # the stream of the list of its records
            if len(value):
                self._records(value.record_type, len(value), value.field_rows())
            else:
                put(_length(0))
        elif isinstance(value, Mapping):
            put(b"m" + struct.pack("<Q", len(value)))
            for key in sorted(value, key=str):
                self._value(str(key))
                self._value(value[key])
        elif hasattr(value, "__dataclass_fields__"):
            head, names = self._head(type(value))
            put(head)
            for name in names:
                self._value(getattr(value, name))
        elif hasattr(value, "item"):  # numpy scalars in feature values
            self._value(value.item())
        else:
            raise TypeError(f"cannot fingerprint a {type(value).__name__} in a dataset record")


def _field_rows(records: Iterable[Any], names: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
    """Each record's values of ``names``, as a tuple (``attrgetter`` gives a bare value for one name)."""
    if len(names) == 1:
        return ((getattr(r, names[0]),) for r in records)
    return map(attrgetter(*names), records)


def _utf8_sized(value: str) -> bytes:
    body = value.encode("utf-8", "surrogatepass")
    return struct.pack("<Q", len(body)) + body
