"""Bytes that are not valid UTF-8, read as U+FFFD as the STEB reference reads them, and counted (issue 47).

The reference reads PAN's texts with ``open(path, encoding="utf-8", errors="replace")``; steb does the same
(:func:`decode_replacing` gives exactly that text), but a release whose files are not UTF-8 would then lose
characters without a word. So every replaced byte is counted: into the tally a caller passes, and into the
tally of the load in progress (:func:`counting_replacements`, entered by the core around every loader
call, :class:`steb_core._containment.ScopedLoader`), which puts the count into the dataset's info under
:data:`REPLACED_BYTES_INFO`; the runner turns that into a note of the run, and every result record keeps it
in ``dataset_info``. Bytes decoded in a loader's worker threads count towards an explicit tally only.
"""

from __future__ import annotations

import codecs
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

__all__ = [
    "REPLACED_BYTES_INFO",
    "decode_replacing",
    "replaced_bytes_info",
    "counting_replacements",
    "replacement_note",
]

#: the key of ``DatasetBundle.info`` (and so of each record's ``dataset_info``) that counts replaced bytes:
#: ``{"bytes": N, "files": K, "example": "<a file with replaced bytes>"}``
REPLACED_BYTES_INFO = "invalid_utf8_replaced"
_ERRORS = "steb-counted-replace"
_PER_THREAD = threading.local()
_LOAD_TALLY: ContextVar[Counter[str] | None] = ContextVar("steb_replaced_bytes", default=None)


def _count_and_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _PER_THREAD.n = getattr(_PER_THREAD, "n", 0) + (exc.end - exc.start)
    return "\ufffd", exc.end


codecs.register_error(_ERRORS, _count_and_replace)


def decode_replacing(raw: bytes, *, path: str | Path | None = None, tally: Counter[str] | None = None) -> str:
    """``raw.decode("utf-8", errors="replace")`` (the same text: one U+FFFD per invalid sequence), counting the
    bytes replaced under ``str(path)`` into ``tally`` and into the tally of the load in progress."""
    _PER_THREAD.n = 0
    text = raw.decode("utf-8", errors=_ERRORS)
    replaced = _PER_THREAD.n
    if replaced:
        for counter in (tally, _LOAD_TALLY.get()):
            if counter is not None:
                counter[str(path)] += replaced
    return text


def replaced_bytes_info(tally: Counter[str]) -> dict[str, Any]:
    """``{REPLACED_BYTES_INFO: {...}}`` when ``tally`` counted any replaced byte, else ``{}``."""
    hit = {k: v for k, v in tally.items() if v}
    if not hit:
        return {}
    return {REPLACED_BYTES_INFO: {"bytes": sum(hit.values()), "files": len(hit), "example": min(hit)}}


@contextmanager
def counting_replacements() -> Iterator[Counter[str]]:
    """Count into a fresh tally the bytes :func:`decode_replacing` replaces in this block (this thread)."""
    tally: Counter[str] = Counter()
    token = _LOAD_TALLY.set(tally)
    try:
        yield tally
    finally:
        _LOAD_TALLY.reset(token)


def replacement_note(dataset: str, info: Any) -> str | None:
    """The run's note for a dataset whose info counts replaced bytes; None when it counts none."""
    found = info.get(REPLACED_BYTES_INFO) if isinstance(info, dict) else None
    if not isinstance(found, dict) or not found.get("bytes"):
        return None
    return (
        f"dataset '{dataset}': {found['bytes']} byte(s) that are not valid UTF-8, in {found.get('files', '?')} "
        f"file(s) (e.g. {found.get('example', '?')}), were read as U+FFFD, as the STEB reference reads them"
    )
