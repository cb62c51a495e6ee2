"""Progress from inside an encoder call: an encoder that cuts its call into batches says when each is done.

Why: the runner hands an encoder one planned batch at a time (``--batch-size``, 1,024 texts by default; the
plan is part of the numbers, :mod:`steb_core._executors`), and a neural encoder runs that call in batches of its
own (32 texts). A bar that moves only when a call returns sits at 0/1000 for minutes. So the executor opens
:func:`reporting_to` around each call, and the encoder calls :func:`report_encoded` with the number of its
inputs each of its batches finished; an encoder that never calls it moves the bar once per call, as before.
Nothing in the numbers changes: it only counts.

The sink is a :class:`contextvars.ContextVar` set for the duration of one call (no lasting state: outside a
:func:`reporting_to` block :func:`report_encoded` does nothing), so threads and nested calls keep their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["report_encoded", "reporting_to"]

_SINK: ContextVar[Callable[[float], None] | None] = ContextVar("steb_encoding_progress", default=None)


def report_encoded(n: int) -> None:
    """Called by an encoder after each batch of its own: ``n`` more of the current call's inputs are done, and the
    run's encoding bar moves by that much (a no-op outside a run's encoding call, or when nothing is shown)."""
    sink = _SINK.get()
    if sink is not None and n > 0:
        sink(n)


@contextmanager
def reporting_to(sink: Callable[[float], None] | None, scale: float = 1.0) -> Iterator[None]:
    """Send :func:`report_encoded` counts inside the block to ``sink``, times ``scale`` (texts per encoder input:
    a call over chunks reports chunks, the bar counts texts). ``sink=None`` silences them."""
    target = None if sink is None else (sink if scale == 1.0 else (lambda n: sink(n * scale)))
    token = _SINK.set(target)
    try:
        yield
    finally:
        _SINK.reset(token)


@contextmanager
def counted_as(scale: float) -> Iterator[None]:
    """Inside the block each input reported counts ``scale`` of the listening sink's units (the long-text protocol
    encodes chunks for texts: ``len(texts) / len(chunks)``)."""
    with reporting_to(_SINK.get(), scale):
        yield
