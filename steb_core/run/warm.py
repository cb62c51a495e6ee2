"""Import the run's task modules ahead, in a background thread, while the first dataset loads.

Why: the tasks import their heavy libraries when they run (scikit-learn's ``sklearn.cluster`` takes 1.4 s here),
so that start-up and runs without them stay fast; but a run that scores clustering would then wait on that import
in the middle of its work. So the imports the run's task specs declare (``TaskSpec.warm_imports``) are made in a
thread from the first dataset that has work (a re-run that reuses every result imports nothing), while this
process encodes it and waits for the loader's next datasets. Importing is
thread-safe (the import system's per-module locks); a failing import is ignored here and fails, with its message,
where the task imports it. The thread must be finished before this process forks again (the prefetch worker after
a worker died): a fork while another thread holds an import lock would leave the child waiting on it forever.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable

__all__ = ["WarmImports"]


class WarmImports:
    """``modules`` (each once, in order) imported in a daemon thread from construction; :meth:`join` waits."""

    def __init__(self, modules: Iterable[str]) -> None:
        wanted = tuple(dict.fromkeys(modules))
        self.thread: threading.Thread | None = None
        if wanted:
            self.thread = threading.Thread(target=self._import_all, args=(wanted,), name="steb-warm", daemon=True)
            self.thread.start()

    @staticmethod
    def _import_all(modules: tuple[str, ...]) -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a speed hint: the task's own import reports the error
                continue

    def join(self) -> None:
        """Wait until every import is done (before a fork, and at the end of the run)."""
        if self.thread is not None:
            self.thread.join()
