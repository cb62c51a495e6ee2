"""Prefetch: run the next items' work in a worker while the caller handles the current one.

The runner uses it to load dataset k+1 (read or generate its records, fingerprint them, check for
stored results, hash its texts) while dataset k is encoded and scored (issue 28 §1). Why loading,
and why a worker *process* by default: a cold full synthetic STEB run with function-words spends
its time as load 82 s, encode 46 s, score 44 s (one core of two, quiet, `bench/full_steb` §1b).
Loaders and pure-Python encoders hold the GIL, so a thread overlaps almost nothing on CPU; a forked
process does. Load against encode + score is the most even split of the three phases; the wall time
approaches the larger half only when the loader always has something to load while the caller works:
in the order of registration (datasets grouped by task type) it does not (0.83x of the sequential
wall), so the runner orders the run by estimated cost (``steb_core.run.order.execution_order``) and loads
several datasets ahead (0.56-0.58x, see the bench). Encoding stays in the runner's process, in the run's
order, so batch plans, the cache and every result are those of a sequential run.

Three modes, the same order of results and the same values in each:

- ``off``: the work runs inline when the caller asks for the next item (the sequential runner);
- ``thread``: a thread runs ahead (for loaders that release the GIL: file reads, numpy parsing);
- ``process``: a forked child runs ahead and sends each result back through a pipe (pickled:
  the child is a copy of this process, so the pickles come from this program, never from data).
  A thread of the caller drains the pipe as results arrive and keeps them as bytes until they are
  taken (unpickled then, in the caller's thread): a result is far larger than a pipe's buffer, and
  without the drain the child would wait on its write until the caller took that result, one item
  ahead whatever ``ahead`` says.

At most ``ahead`` results are finished or in progress and not yet taken by the caller: the worker
takes a credit before each item and the caller returns one when it takes a result. An exception of
the work is re-raised to the caller at that item's place in the order; the worker stops there.

A worker process that dies while computing an item (the work called ``os._exit``, or the out-of-memory
killer sent SIGKILL) raises :class:`WorkerDied` for that item, saying how it ended (its exit status or
signal); that item is lost, and the next call forks a new worker from the item after it (the caller
calls :meth:`Prefetch.start` itself first when it has threads to stop around the fork). Computing the
rest in the caller's process instead would let a second such item end the whole run.

Ctrl-C and SIGKILL: the child ignores SIGINT (the caller stops it), dies with its parent on Linux
(``PR_SET_PDEATHSIG``) and otherwise exits at its next pipe operation; what a child does is the
caller's ``work`` only, which for the runner writes nothing, so stopping it loses nothing.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from ._errors import StebError

__all__ = ["PREFETCH_MODES", "prefetch", "Prefetch", "WorkerDied", "default_mode"]

#: ``auto`` chooses ``process`` where ``fork`` exists (Linux, macOS), else ``thread``
PREFETCH_MODES = ("auto", "process", "thread", "off")


def default_mode() -> str:
    """``process`` where the platform can fork (the child shares the parent's loaded plugins), else ``thread``."""
    return "process" if hasattr(os, "fork") and sys.platform != "win32" else "thread"


class WorkerDied(StebError):
    """The worker process ended while computing item ``index``; ``how`` says how (exit status or signal)."""

    def __init__(self, index: int, how: str) -> None:
        super().__init__(f"the prefetch worker process {how} while computing item {index}")
        self.index, self.how = index, how

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.index, self.how))


class Prefetch:
    """Results of ``work(0) .. work(n - 1)`` in order, computed up to ``ahead`` items in advance."""

    def __init__(self, n: int, work: Callable[[int], Any], *, ahead: int = 1, mode: str = "auto") -> None:
        if mode not in PREFETCH_MODES:
            raise StebError(f"prefetch mode {mode!r} is not one of {', '.join(PREFETCH_MODES)}")
        if ahead < 0:
            raise StebError(f"prefetch depth must be 0 or more, not {ahead}")
        self.n, self.work, self.ahead = n, work, ahead
        self.mode = "off" if ahead == 0 or n <= 1 else (default_mode() if mode == "auto" else mode)
        self.taken = 0
        self._started = False
        self._thread: threading.Thread | None = None
        # (index, ok, value) in thread mode; the child's pickled payloads, then an exception, in process mode
        self._results: queue.Queue[Any] = queue.Queue()
        self._credits = threading.Semaphore(0)
        self._stop = threading.Event()
        self._child: int | None = None
        self._read: Any = None
        self._credit_w: Any = None
        self._drain: threading.Thread | None = None

    # -- the caller's side ---------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Any]:
        try:
            while self.taken < self.n:
                yield self.next()
        finally:
            self.close()

    def next(self) -> Any:
        """The next item's result (computed now in ``off`` mode, else waited for)."""
        if self.taken >= self.n:
            raise StopIteration
        i = self.taken
        if self.mode == "off":
            self.taken += 1
            return self.work(i)
        if not self._started:
            self.start()
        try:
            index, ok, value = self._receive()
        except WorkerDied:  # item i is lost; the next call forks a new worker for the items after it
            self.close()
            self._reset()
            self.taken += 1
            raise
        if index != i:
            raise StebError(f"prefetch worker sent item {index} where item {i} was due")
        if not ok and isinstance(value, _Unsendable):  # e.g. a loader's records hold a lambda: load here instead
            self.close()
            self.mode = "off"
            self.taken += 1
            return self.work(i)
        self.taken += 1
        if not ok:
            self.close()
            raise value
        if self.taken + self.ahead - 1 < self.n:
            self._give_credit()
        return value

    def busy(self) -> bool:
        """True while the worker is computing an item (asked for, not yet finished): a task started now
        must leave a core for it. A finished result waiting to be taken does not count."""
        if self.mode == "off" or not self._started or self._stop.is_set():
            return False
        asked = min(self.n, self.taken + self.ahead) - self.taken
        return asked > self._ready()

    def _ready(self) -> int:
        """Finished results waiting to be taken (a result still being read from the pipe does not count)."""
        return self._results.qsize()

    def start(self) -> None:
        """Start the worker now (before the caller starts threads of its own, for ``process``: the fork
        copies only the calling thread; the drain thread is started after it). It computes the items from
        the next one not yet taken (all of them, unless a worker died before)."""
        if self._started or self.mode == "off" or self.taken >= self.n:
            return
        self._started = True
        if self.mode == "thread":
            self._thread = threading.Thread(target=self._thread_main, name="steb-prefetch", daemon=True)
            self._thread.start()
        else:
            self._fork(self.taken)
        for _ in range(min(self.ahead, self.n - self.taken)):
            self._give_credit()

    def _reset(self) -> None:
        """Back to the state before :meth:`start` (after :meth:`close`), so that a new worker can be started."""
        self._started = False
        self._results = queue.Queue()
        self._credits = threading.Semaphore(0)
        self._stop = threading.Event()

    def close(self) -> None:
        """Stop the worker (a child is killed: it writes nothing the run needs) and release its resources."""
        self._stop.set()
        self._credits.release()
        if self._child is not None:
            pid, self._child = self._child, None
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        if self._drain is not None:  # the child is gone, so its pipe ends and the drain stops
            self._drain.join(timeout=5)
            if (
                self._drain.is_alive()
            ):  # a descendant still holds the pipe: closing it now would wait on the drain's read
                self._read = None
            self._drain = None
        for handle in (self._read, self._credit_w):
            if handle is not None:
                try:
                    handle.close()
                except OSError:
                    pass
        self._read = self._credit_w = None

    # -- transport -----------------------------------------------------------------------------------
    def _give_credit(self) -> None:
        if self.mode == "thread":
            self._credits.release()
        elif self._credit_w is not None:
            try:
                self._credit_w.write(b"c")
                self._credit_w.flush()
            except (BrokenPipeError, OSError):
                pass  # the child ended (its error, if any, is already in the pipe)

    def _receive(self) -> tuple[int, bool, Any]:
        if self.mode == "thread":
            item: tuple[int, bool, Any] = self._results.get()
            return item
        payload: Any = self._results.get()
        try:
            if isinstance(payload, BaseException):
                raise payload
            result: tuple[int, bool, Any] = pickle.loads(payload)  # noqa: S301 - written by this program's own forked child
            return result
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            raise WorkerDied(self.taken, self._how_child_ended(type(exc).__name__)) from None

    def _how_child_ended(self, fallback: str) -> str:
        """How the worker ended, from its wait status ("was killed by SIGKILL", "exited with status 7"); the
        child is reaped here (waited for up to 5 s after its pipe closed, then killed)."""
        pid = self._child
        if pid is None:
            return f"ended ({fallback})"
        status = None
        for _ in range(500):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break
            if done:
                break
            status = None
            time.sleep(0.01)
        if status is None:
            return f"stopped sending results ({fallback}) and was stopped"
        self._child = None  # reaped: close() must not signal a pid that may be reused
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
            hint = " (the out-of-memory killer sends it)" if sig == signal.SIGKILL else ""
            return f"was killed by {name}{hint}"
        return f"exited with status {os.waitstatus_to_exitcode(status)}"

    def _drain_main(self, read: Any) -> None:
        """The caller's drain thread: each message from the child, as bytes, into the results queue; at the
        pipe's end (the child finished, failed or was killed) an EOFError for a ``_receive`` still waiting."""
        try:
            while True:
                header = read.read(8)
                if len(header) < 8:
                    break
                size = int.from_bytes(header, "little")
                payload = read.read(size)
                if len(payload) < size:
                    break
                self._results.put(payload)
        except (OSError, ValueError):  # closed under us by close()
            pass
        self._results.put(EOFError("the pipe from the prefetch worker ended"))

    def _thread_main(self) -> None:
        for i in range(self.n):
            self._credits.acquire()
            if self._stop.is_set():
                return
            try:
                self._results.put((i, True, self.work(i)))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller at this item's place
                self._results.put((i, False, exc))
                return

    def _fork(self, first: int) -> None:
        result_r, result_w = os.pipe()
        credit_r, credit_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the caller's code
            code = 0
            try:
                os.close(result_r)
                os.close(credit_w)
                self._child_main(os.fdopen(result_w, "wb"), os.fdopen(credit_r, "rb"), first)
            except BaseException:  # noqa: BLE001 - a broken pipe (the parent is gone) or a send failure
                code = 1
            finally:
                os._exit(code)
        os.close(result_w)
        os.close(credit_r)
        self._child = pid
        self._read = os.fdopen(result_r, "rb")
        self._credit_w = os.fdopen(credit_w, "wb")
        self._drain = threading.Thread(
            target=self._drain_main, args=(self._read,), name="steb-prefetch-drain", daemon=True
        )
        self._drain.start()

    def _child_main(self, out: Any, credits: Any, first: int) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent stops us
        _die_with_parent()
        for i in range(first, self.n):
            if not credits.read(1):
                return  # the parent closed the pipe or died
            message: Any = None
            try:
                message = (i, True, self.work(i))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller at this item's place
                payload = pickle.dumps((i, False, _picklable(exc)), protocol=pickle.HIGHEST_PROTOCOL)
                message = None
            else:
                try:
                    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
                except Exception as exc:  # noqa: BLE001 - the result cannot travel: the caller redoes it
                    payload = pickle.dumps(
                        (i, False, _Unsendable(f"{type(exc).__name__}: {exc}")), protocol=pickle.HIGHEST_PROTOCOL
                    )
                    message = None
            out.write(len(payload).to_bytes(8, "little"))
            out.write(payload)
            out.flush()
            if message is None:
                return


def prefetch(n: int, work: Callable[[int], Any], *, ahead: int = 1, mode: str = "auto") -> Prefetch:
    """``Prefetch(n, work, ahead=ahead, mode=mode)``: iterate it for the results in order."""
    return Prefetch(n, work, ahead=ahead, mode=mode)


class _Unsendable(Exception):
    """A result the child computed but could not pickle; the caller computes that item itself and every
    later one too (no worker any more), so such a run is slower, never different."""


def _picklable(exc: BaseException) -> BaseException:
    """The exception itself when it survives pickling, else a StebError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))  # noqa: S301 - our own object, round-tripped
        return exc
    except Exception:  # noqa: BLE001
        return StebError(f"{type(exc).__name__}: {exc}")


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this child when its parent dies (a SIGKILLed run leaves no loader behind)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before the call
            os._exit(0)
    except (OSError, AttributeError):
        pass
