"""How a run shows its progress: a rich display on a terminal, one line per finished task in a log, or nothing.

The engine talks to all three through the same few calls (``add_task``, ``update``, ``advance``), so
it never asks which one it has.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["LineProgress", "NoProgress", "display_paused", "encoding_label", "progress_display"]


class NoProgress:
    """A display that shows nothing (``progress=False``, and re-encoding a bad shard inside scoring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __enter__(self) -> NoProgress:
        return self

    def __exit__(self, *exc: Any) -> None: ...

    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0

    def update(self, *args: Any, **kwargs: Any) -> None: ...

    def advance(self, *args: Any, **kwargs: Any) -> None: ...


class LineProgress(NoProgress):
    """Progress for a log file or pipe: one line per finished dataset task as it finishes (a bar drawn
    only at the end would leave a 12-minute log empty until then). Only the first bar (the run's
    datasets and tasks) prints; encoding bars are counted silently."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.bars: dict[int, list[Any]] = {}
        self.started = time.perf_counter()

    def add_task(self, description: str = "", total: Any = None, **kwargs: Any) -> int:
        self.bars[len(self.bars)] = [description, total, 0]
        return len(self.bars) - 1

    def update(self, task_id: int, description: str | None = None, **kwargs: Any) -> None:
        if description is not None and task_id in self.bars:
            self.bars[task_id][0] = description

    def advance(self, task_id: int, advance: float = 1) -> None:
        bar = self.bars.get(task_id)
        if bar is None or not advance:
            return
        bar[2] += advance
        if task_id == 0:
            self.stream.write(f"[{int(bar[2])}/{bar[1]}] {bar[0]} ({time.perf_counter() - self.started:.0f} s)\n")
            self.stream.flush()


def encoding_label(group: Any, shown: int = 3) -> str:
    """The datasets an encoding bar works for (a group of datasets shares one call): ``a, b, c (+2 more)``."""
    names = list(dict.fromkeys(loaded.pending.spec.name for loaded in group))
    more = f" (+{len(names) - shown} more)" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


@contextmanager
def display_paused(bar: Any) -> Iterator[None]:
    """A live rich progress display stopped, its refresh thread ended, for the block (a fork of the prefetch
    worker: the child gets only the forking thread, and a lock another thread held then stays held in it)."""
    live = getattr(bar, "live", None)
    if live is None or not getattr(live, "is_started", False):
        yield
        return
    thread = getattr(live, "_refresh_thread", None)
    bar.stop()
    if isinstance(thread, threading.Thread):
        thread.join(timeout=5)
    try:
        yield
    finally:
        bar.start()


def progress_display(enabled: bool) -> Any:
    """The display for a run: none, lines (stdout is a log file or a pipe) or rich bars (a terminal, Jupyter)."""
    if not enabled:
        return NoProgress()
    from rich.console import Console  # rich is imported only when something is shown

    probe = Console()
    if not probe.is_terminal and not probe.is_jupyter:  # a log file or a pipe: lines as work finishes
        return LineProgress()
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=False,
    )
