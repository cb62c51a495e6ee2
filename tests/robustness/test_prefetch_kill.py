"""Ctrl-C and SIGKILL with the prefetching runner (issue 28 §1): the loader process never outlives its run.

`steb run` loads the next dataset in a forked child by default. Here the second dataset's loader
writes the child's pid to a file and then hangs, so the run is caught with its child mid-load. A
SIGKILL of the run must take the child with it (no orphan loader keeps a core busy), and Ctrl-C
must stop both, exit 130 and keep the first dataset's result intact. (The random-kill-and-resume
test in test_crash.py runs the same default pipeline and checks that a resumed run equals a clean one.)
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from steb_core._results import ResultRecord
from tests.support.result_files import result_files

from .conftest import fork_cli, log_tail, wait

PLUGIN = """
import os, time
from pathlib import Path
from steb_core import hookimpl, DatasetSpec, DatasetBundle, LabelledText

def _quick(ctx):
    return DatasetBundle(labelled_texts=[LabelledText(f"a short text number {{i}}", str(i % 2)) for i in range(12)])

def _hang(ctx):
    Path({pid_file!r}).write_text(str(os.getpid()))
    time.sleep(120)
    return _quick(ctx)

@hookimpl
def register_datasets(register):
    register(DatasetSpec(name="quick", description="x", tasks=("clustering",), loader=_quick))
    register(DatasetSpec(name="hang", description="x", tasks=("clustering",), loader=_hang))
"""


def _start(tmp_path: Path, ctrl_c: bool = False) -> tuple[int, int, Path, Path]:
    """Fork a `steb run` on (quick, hang); return (run pid, loader child pid, output, log) once the child hangs."""
    pid_file = tmp_path / "loader.pid"
    plugin = tmp_path / "hang_plugin.py"
    plugin.write_text(PLUGIN.format(pid_file=str(pid_file)))
    out, log = tmp_path / "out", tmp_path / "log.txt"
    argv = [
        "run",
        "-e",
        "function-words",
        "-d",
        "quick",
        "-d",
        "hang",
        "--plugin",
        str(plugin),
        "--output",
        str(out),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-progress",
        "--prefetch",
        "1",
        "--prefetch-mode",
        "process",
    ]
    pid = fork_cli(argv, log, ctrl_c=ctrl_c)
    deadline = time.monotonic() + 90
    while not pid_file.exists():
        assert time.monotonic() < deadline, f"the loader never reached the hanging dataset:\n{log_tail(log)}"
        done, _ = os.waitpid(pid, os.WNOHANG)
        assert not done, f"the run ended before its loader hung:\n{log_tail(log)}"
        time.sleep(0.02)
    time.sleep(0.05)
    child = int(pid_file.read_text())
    assert child != pid, "the hanging loader ran in the run's own process, not in a prefetch child"
    return pid, child, out, log


def _gone(pid: int, timeout: float = 10.0) -> bool:
    """True once ``pid`` no longer runs (a zombie waiting for init to reap it counts as gone)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_sigkill_of_the_run_takes_its_loader_child_with_it(tmp_path, warm_imports):
    pid, child, _, log = _start(tmp_path)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert _gone(child), f"loader child {child} outlived its SIGKILLed run:\n{log_tail(log)}"


def test_ctrl_c_stops_run_and_loader_and_keeps_finished_results(tmp_path, warm_imports):
    pid, child, out, log = _start(tmp_path, ctrl_c=True)
    # the first dataset is scored while the loader hangs on the second; wait for its result
    deadline = time.monotonic() + 90
    while not list(out.rglob("quick/*.json")):
        assert time.monotonic() < deadline, f"the first dataset was never written:\n{log_tail(log)}"
        time.sleep(0.02)
    os.kill(pid, signal.SIGINT)
    code = wait(pid, timeout=60)
    assert code == 130, f"Ctrl-C should exit 130, got {code}:\n{log_tail(log)}"
    assert "interrupted" in log_tail(log)
    assert _gone(child), f"loader child {child} outlived the interrupted run"
    written = result_files(out)
    assert [p.parent.name for p in written] == ["quick"] and all(ResultRecord.read(p).verified() for p in written)
