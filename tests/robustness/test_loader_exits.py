"""Issue 41 (a crash must name its cause): a loader that exits or is killed fails its dataset, not the run.

A dataset plugin whose loader calls ``sys.exit(3)``, ``os._exit(7)`` or is SIGKILLed (as the out-of-memory
killer does) used to end `steb run` with exit status 3, or "prefetch worker process ended before item 0",
or nothing at all, naming neither the plugin nor the dataset. Now each is reported for its dataset (the
plugin, and what happened) and the other datasets run; the exit status is 1 (something failed).

``os._exit`` and SIGKILL end the process they happen in: with the default prefetching the loader runs in a
forked worker, so only the worker dies; with ``--prefetch 0`` it runs in `steb run`'s own process, which
nothing can keep alive (README, Security). ``sys.exit`` is caught in either mode.
"""

from __future__ import annotations

from pathlib import Path

from steb_core._results import ResultRecord
from tests.support.result_files import result_files

from .conftest import fork_cli, log_tail, wait

PLUGIN = """
import os, signal, sys
from steb_core import hookimpl, DatasetSpec, DatasetBundle, LabelledText

def _quick(ctx):
    texts = [LabelledText(f"a short text number {i} of {ctx.dataset}", str(i % 2)) for i in range(12)]
    return DatasetBundle(labelled_texts=texts)

def _exits(ctx):
    sys.exit(3)

def _dies(ctx):
    os._exit(7)

def _killed(ctx):
    os.kill(os.getpid(), signal.SIGKILL)

@hookimpl
def register_datasets(register):
    for name, loader in (("alpha", _quick), ("exits", _exits), ("dies", _dies), ("killed", _killed), ("omega", _quick)):
        register(DatasetSpec(name=name, description="x", tasks=("clustering",), loader=loader))
"""


def _run(tmp_path: Path, datasets: list[str], *extra: str) -> tuple[int, str, Path]:
    plugin = tmp_path / "exiting_plugin.py"
    plugin.write_text(PLUGIN)
    out, log = tmp_path / "out", tmp_path / "log.txt"
    argv = [
        "run",
        "-e",
        "function-words",
        "--plugin",
        str(plugin),
        "--output",
        str(out),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-progress",
        *extra,
    ]
    for name in datasets:
        argv += ["-d", name]
    code = wait(fork_cli(argv, log), timeout=180)
    return code, log_tail(log, 20000), out


def _written(out: Path) -> list[str]:
    written = result_files(out)
    return sorted(p.parent.name for p in written if ResultRecord.read(p).verified())


def test_loaders_that_exit_or_are_killed_in_the_prefetch_worker_fail_only_their_dataset(tmp_path, warm_imports):
    code, log, out = _run(tmp_path, ["alpha", "exits", "dies", "killed", "omega"])
    assert code == 1, f"exit status {code}:\n{log}"
    assert _written(out) == ["alpha", "omega"], log
    flat = " ".join(log.split())
    assert "exits" in flat and "sys.exit(3)" in flat and "exiting_plugin" in flat, log
    assert "dies" in flat and "status 7" in flat, log
    assert "killed" in flat and "SIGKILL" in flat, log
    assert "ended before item" not in flat


def test_loader_calling_sys_exit_in_the_run_process_fails_only_its_dataset(tmp_path, warm_imports):
    code, log, out = _run(tmp_path, ["alpha", "exits", "omega"], "--prefetch", "0")
    assert code == 1, f"exit status {code}:\n{log}"
    assert _written(out) == ["alpha", "omega"], log
    flat = " ".join(log.split())
    assert "exits" in flat and "sys.exit(3)" in flat and "exiting_plugin" in flat, log
