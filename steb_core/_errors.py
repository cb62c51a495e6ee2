"""Exceptions that steb raises on purpose.

Every error a user can cause carries enough context to fix it without a debugger: for data, the
file, the record (line or id) and the field at fault plus what was expected; for plugins, the
plugin names on both sides of a collision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

__all__ = [
    "StebError",
    "DataValidationError",
    "DatasetNotFoundError",
    "ModelNotFoundError",
    "PluginError",
    "DuplicateComponentError",
    "UnknownComponentError",
    "retry_may_help",
]


def _rebuild(cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]) -> BaseException:
    """Unpickle an exception without calling its ``__init__`` (whose signature need not match ``args``)."""
    exc: BaseException = cls.__new__(cls, *args)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class StebError(Exception):
    """Base class of all deliberate steb errors (the CLI prints these without a traceback).

    Every subclass survives pickling whatever its ``__init__`` takes: errors travel from worker
    processes (Ray, multiprocessing) to the process that reports them, and plain pickling would call
    ``cls(*args)`` with the formatted message, which a custom signature rejects (Ray then shows
    ``UnserializableException`` instead of the message). :meth:`__reduce__` rebuilds the object from
    its ``args`` and attributes instead.

    ``transient`` says whether the same call can succeed when simply tried again (see
    :func:`retry_may_help`): deliberate steb errors are about the user's input (unknown names, bad
    options, bad data, missing files), which a retry cannot change, so the default is False.
    """

    transient: ClassVar[bool] = False

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


#: built-in exceptions that say the input or the code is wrong: the same call fails the same way again
_DETERMINISTIC: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    LookupError,
    AttributeError,
    NotImplementedError,
    AssertionError,
    ImportError,
    ArithmeticError,
    FileNotFoundError,
    NotADirectoryError,
    IsADirectoryError,
    PermissionError,
)


def retry_may_help(exc: BaseException) -> bool:
    """Whether running the same job again could end differently.

    False for deliberate steb errors (``StebError.transient`` is False unless a class says otherwise)
    and for built-in errors about input or code (``ValueError``, ``TypeError``, ``KeyError``, a missing
    file, ...). True for everything else (lost connections, timeouts, ``MemoryError``, ``RuntimeError``
    from a library, a killed worker). A steb error raised *from* another exception (``raise ... from
    exc``, e.g. an :class:`~steb_core._executors.EncodingError` wrapping what the encoder raised)
    follows its cause when its class is transient. Executors use this to skip retries that can only
    repeat the failure.
    """
    if isinstance(exc, StebError):
        if not type(exc).transient:
            return False
        cause = exc.__cause__
        return True if cause is None else retry_may_help(cause)
    return not isinstance(exc, _DETERMINISTIC)


class DataValidationError(StebError, ValueError):
    """A data file or record does not have the shape a loader or record type expects."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        record: str | int | None = None,
        field: str | None = None,
        expected: str | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.record = record
        self.field = field
        self.expected = expected
        self.reason = message
        parts = []
        if self.path is not None:
            parts.append(f"file {self.path}")
        if record is not None:
            parts.append(f"record {record}")
        if field is not None:
            parts.append(f"field '{field}'")
        where = ", ".join(parts)
        text = f"{where}: {message}" if where else message
        if expected:
            text += f" (expected {expected})"
        super().__init__(text)

    def located(self, *, path: str | Path | None = None, record: str | int | None = None) -> DataValidationError:
        """Return a copy with missing location parts filled in (used when a record error bubbles up to a loader)."""
        return DataValidationError(
            self.reason,
            path=self.path if self.path is not None else path,
            record=self.record if self.record is not None else record,
            field=self.field,
            expected=self.expected,
        )


class DatasetNotFoundError(StebError, FileNotFoundError):
    """The local copy of a dataset is missing; the message says what to download and where to put it."""


class ModelNotFoundError(StebError, FileNotFoundError):
    """An encoder's or scorer's weights are not on this machine; the message says how to obtain them."""


class PluginError(StebError):
    """A plugin could not be loaded or registered something invalid."""


class DuplicateComponentError(PluginError):
    """Two plugins registered a component of the same kind under the same name."""

    def __init__(self, kind: str, name: str, first: str, second: str) -> None:
        self.kind, self.name, self.first, self.second = kind, name, first, second
        super().__init__(
            f"{kind} '{name}' is registered by two plugins: '{first}' and '{second}'. "
            f"Uninstall or disable one of them (steb never lets one silently shadow the other)."
        )


class UnknownComponentError(StebError, KeyError):
    """A name given by the user matches no registered component.

    The message suggests close names ("did you mean ...") and lists known names, saying how many more
    there are when the list is cut, plus any plugin failure that may explain why the name is missing.
    """

    LIST_LIMIT = 30

    def __init__(self, kind: str, name: str, known: list[str], notes: list[str] | None = None) -> None:
        import difflib

        self.kind, self.name = kind, name
        ordered = sorted(known)
        close = (
            difflib.get_close_matches(name, ordered, n=3, cutoff=0.6)
            or [k for k in ordered if name.lower() in k.lower()][:3]
        )
        shown = ordered[: self.LIST_LIMIT]
        hint = ", ".join(shown) or "none registered"
        if len(ordered) > len(shown):
            hint += f" ... and {len(ordered) - len(shown)} more"
        text = f"unknown {kind} '{name}'"
        if close:
            text += f"; did you mean {' or '.join(repr(c) for c in close)}?"
        text += f" Known {kind}s: {hint}. Run `steb list {kind}s` or `steb plugins`."
        for note in notes or ():
            text += f" Note: {note}"
        super().__init__(text)

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])
