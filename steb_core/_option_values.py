"""What an option's value means: a flag, one of several choices, a list of names, a whole number.

Options reach a loader as ``--dataset-option KEY=VALUE`` (the CLI parses VALUE as JSON where it can, so ``true``
is a boolean and ``3`` a number, and keeps any other text as a string) or as Python values through
``evaluate(dataset_options=...)``. Every dataset plugin used to read them with its own helper, and the helpers
disagreed: one took ``keep_unchanged=maybe`` as true, another compared a release name case-sensitively. These
rules are the one reading (:meth:`steb_core.LoadContext.flag`, ``choice``, ``names``, ``integer`` call them); each
refuses a value it cannot read, naming the option and what it accepts, instead of guessing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._errors import DataValidationError

__all__ = ["as_flag", "as_choice", "as_names", "as_integer", "TRUE_WORDS", "FALSE_WORDS"]

#: the spellings of a flag's two values (compared after stripping and lower-casing)
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


def _refuse(name: str, value: Any, expected: str) -> DataValidationError:
    return DataValidationError(f"option {name}={value!r}", field=name, expected=expected)


def as_flag(name: str, value: Any) -> bool:
    """``value`` as a boolean: True/False, 1/0, or one of :data:`TRUE_WORDS` / :data:`FALSE_WORDS`."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise _refuse(name, value, f"a flag: {'/'.join(TRUE_WORDS)} or {'/'.join(FALSE_WORDS)}")


def as_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` as one of ``choices`` (compared case-insensitively; the choice is returned as spelled there)."""
    if not choices:
        raise ValueError(f"option {name}: no choices to choose from")
    if isinstance(value, str):
        wanted = value.strip().lower()
        for choice in choices:
            if choice.lower() == wanted:
                return choice
    raise _refuse(name, value, " or ".join(choices))


def as_names(name: str, value: Any) -> tuple[str, ...]:
    """``value`` as names: a comma-separated string (``a,b``) or a list of strings; blanks dropped, order kept."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    raise _refuse(name, value, "names: a comma-separated string or a list of strings")


def as_integer(name: str, value: Any, minimum: int | None = None) -> int:
    """``value`` as a whole number (an int, or a string of digits with an optional sign), at least ``minimum``."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().lstrip("+-").isdecimal() and value.strip().isascii():
        number = int(value.strip())
    if number is None or (minimum is not None and number < minimum):
        expected = "a whole number" + (f" of at least {minimum}" if minimum is not None else "")
        raise _refuse(name, value, expected)
    return number
