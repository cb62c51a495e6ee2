"""Helpers for the crash tests: start `steb run` in a forked child, kill it, compare folders with a clean run.

Speed: a fresh ``steb`` process spends most of a demo run importing and loading plugins, so the runs
that are killed are *forked* from this (already warmed-up) test process and call the CLI's own
``main(argv)`` with the same arguments as the command line -- the same code path (argument parsing,
plugin loading, the runner, the summary), minus the interpreter start-up, which costs more than the
whole demo run on a loaded 2-core machine. A forked child holds no state from the parent but
imported modules (the plugin manager is reset in the child). Plugins the demo does not use are
switched off (``$STEB_DISABLE_PLUGINS``).

Comparison: results are compared on what a run computes (metrics, main score, run key, fingerprint,
dataset info, per-task text counts), not on what legitimately differs between a clean and an
interrupted run (timings, creation time, run-wide counters such as ``run_encoded``). The cache is
compared as a mapping text hash -> vector, read shard by shard with ``allow_pickle=False``; how the
texts are split into shards may differ after a crash.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from steb_core._cache import STALE_TEMP_SECONDS
from steb_core._results import ResultRecord
from tests.support.result_files import result_files

#: installed plugins the demo suite does not need (loading them costs seconds per process)
DISABLED = "pan,parallel,ray,neural,datasets_style,scorers,stel,example_datasets"
#: every demo task type but probing (11 s of a loaded 2-core machine and no cache or result write of
#: its own kind: it only adds one more result file at the end of the run)
TASKS = ("clustering", "pair_all", "pair_predefined", "order_alignment", "retrieval")
#: small batches: more cache shards, so more points at which a kill can land between writes
BATCH = 128
#: result fields that legitimately differ between a clean and a resumed run
RUN_WIDE_COUNTS = ("run_unique_texts", "run_encoded", "run_cache_hits")


def demo_argv(output: Path, cache: Path) -> list[str]:
    argv = [
        "run",
        "--encoder",
        "function-words",
        "--suite",
        "demo",
        "--output",
        str(output),
        "--cache-dir",
        str(cache),
        "--no-progress",
        "--batch-size",
        str(BATCH),
    ]
    for task in TASKS:
        argv += ["--task", task]
    return argv


def steb_env() -> dict[str, str]:
    env = dict(os.environ)
    env["STEB_DISABLE_PLUGINS"] = DISABLED
    env.pop("STEB_PLUGINS", None)
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def fork_cli(argv: list[str], log: Path, *, ctrl_c: bool = False) -> int:
    """Fork a child that runs ``steb_core.cli.main(argv)`` (stdout/stderr to ``log``); returns its pid.
    ``ctrl_c``: SIGINT raises KeyboardInterrupt in the child, as Ctrl-C does in `steb run` (default: it kills)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 70
    try:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        # pytest's capture replaces sys.stdout/err with objects that bypass fds 1 and 2
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        os.environ.update({k: v for k, v in steb_env().items() if k.startswith("STEB_")})
        os.environ.pop("STEB_PLUGINS", None)
        signal.signal(signal.SIGINT, signal.default_int_handler if ctrl_c else signal.SIG_DFL)
        from steb_core import _plugins as plugins_module
        from steb_core.cli import main

        plugins_module.reset_manager()
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - report, never return into pytest from a child
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def wait(pid: int, timeout: float = 120) -> int:
    """Exit status of a forked child (killed if it outlives ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"forked steb run {pid} did not finish in {timeout} s")
        time.sleep(0.02)


def run_forked(argv: list[str], log: Path, timeout: float = 120) -> tuple[int, float]:
    t0 = time.perf_counter()
    code = wait(fork_cli(argv, log), timeout)
    return code, time.perf_counter() - t0


def kill_after(argv: list[str], log: Path, delay: float) -> bool:
    """Start a forked run, SIGKILL it ``delay`` seconds later; True when it was still running then."""
    pid = fork_cli(argv, log)
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return False
        time.sleep(min(0.01, max(0.0, deadline - time.monotonic())))
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def log_tail(log: Path, chars: int = 3000) -> str:
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no log)"


# -- what a folder holds ------------------------------------------------------------------------------
def results(output: Path) -> dict[str, dict[str, Any]]:
    """Relative path -> the computed part of each result JSON; a result whose content hash fails is an error."""
    out: dict[str, dict[str, Any]] = {}
    for path in result_files(output):
        record = ResultRecord.read(path)
        assert record.verified(), f"{path}: content hash does not match (half-written or corrupted result)"
        counts = {k: v for k, v in record.counts.items() if k not in RUN_WIDE_COUNTS}
        out[str(path.relative_to(output))] = {
            "main_metric": record.main_metric,
            "main_score": record.main_score,
            "metrics": record.metrics,
            "run_key": record.run_key,
            "encoder_fingerprint": record.encoder_fingerprint,
            "companions": record.companions,
            "dataset_info": record.dataset_info,
            "counts": counts,
            "protocol": record.protocol,
            "seed": record.seed,
        }
    return out


def cache_vectors(cache: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Text hash -> vector over every shard (each must load without pickles), and the cache's meta.json."""
    import json

    vectors: dict[str, np.ndarray] = {}
    metas = sorted(cache.glob("*/meta.json"))
    assert len(metas) == 1, f"expected one cache key folder under {cache}, found {[str(m) for m in metas]}"
    meta = json.loads(metas[0].read_text())
    for shard in sorted(metas[0].parent.glob("shard-*.npz")):
        try:
            with np.load(shard, allow_pickle=False) as data:
                keys = data["keys"].tolist()
                matrix = data["vectors"]
        except Exception as exc:  # noqa: BLE001 - truncated, pickled, not a zip: all mean a broken shard
            raise AssertionError(
                f"{shard} does not load with allow_pickle=False: {type(exc).__name__}: {exc}"
            ) from None
        assert matrix.dtype == np.float32 and matrix.ndim == 2 and matrix.shape[0] == len(keys), (
            f"{shard}: bad shape/dtype"
        )
        assert np.isfinite(matrix).all(), f"{shard}: non-finite values"
        for key, row in zip(keys, matrix):
            if key in vectors:
                assert np.array_equal(vectors[key], row), f"{shard}: text {key} stored twice with different vectors"
            vectors[key] = row
    return vectors, meta


def stray_files(*folders: Path) -> list[str]:
    """Files that are neither results, shards, meta.json nor the run manifest (``steb-runs.jsonl``: the commands
    that wrote the folder), except temp files younger than the sweep age."""
    now = time.time()
    stray = []
    for folder in folders:
        for path in folder.rglob("*"):
            if not path.is_file():
                continue
            name = path.name
            if name.startswith(".") and name.endswith(".tmp"):
                age = now - path.stat().st_mtime
                if age < STALE_TEMP_SECONDS:
                    continue
                stray.append(f"{path} (temp file {age:.0f} s old, older than the sweep age)")
            elif (
                name in ("meta.json", "steb-runs.jsonl")
                or (name.startswith("shard-") and name.endswith(".npz"))
                or (name.endswith(".json") and not name.startswith("."))
            ):
                continue
            else:
                stray.append(str(path))
    return stray


def assert_same_run(ref_out: Path, ref_cache: Path, out: Path, cache: Path, what: str) -> None:
    """Results and cache under (out, cache) equal those of the clean run under (ref_out, ref_cache)."""
    want, got = results(ref_out), results(out)
    assert sorted(got) == sorted(want), (
        f"{what}: result files differ: missing {sorted(set(want) - set(got))}, extra {sorted(set(got) - set(want))}"
    )
    for rel in want:
        assert got[rel] == want[rel], (
            f"{what}: {rel} differs from the clean run:\n clean {want[rel]}\n here  {got[rel]}"
        )
    ref_vectors, ref_meta = cache_vectors(ref_cache)
    vectors, meta = cache_vectors(cache)
    assert meta.get("dim") == ref_meta.get("dim") and meta.get("encoder_fingerprint") == ref_meta.get(
        "encoder_fingerprint"
    ), f"{what}: cache meta differs: {meta} vs {ref_meta}"
    assert set(vectors) == set(ref_vectors), (
        f"{what}: cache holds {len(vectors)} texts, clean run {len(ref_vectors)}; "
        f"{len(set(ref_vectors) - set(vectors))} missing, {len(set(vectors) - set(ref_vectors))} extra"
    )
    differing = [k for k in ref_vectors if not np.array_equal(ref_vectors[k], vectors[k])]
    assert not differing, f"{what}: {len(differing)} cached vectors differ from the clean run's (first {differing[0]})"
    stray = stray_files(out, cache)
    assert not stray, f"{what}: stray files: {stray}"


@pytest.fixture(scope="session")
def warm_imports():
    """Import what a demo run needs once, so each forked run starts in milliseconds."""
    from steb_core import _plugins as plugins_module
    from steb_core import cli, run  # noqa: F401
    from steb_core.tasks import builtin_tasks

    builtin_tasks()
    import sklearn.cluster
    import sklearn.linear_model
    import sklearn.metrics  # noqa: F401

    import steb_models_stylometry.function_words  # noqa: F401

    plugins_module.reset_manager()
    yield


@pytest.fixture(scope="session")
def clean_run(tmp_path_factory, warm_imports):
    """The reference: one uninterrupted forked demo run into A/CA; returns (A, CA, seconds)."""
    root = tmp_path_factory.mktemp("clean")
    out, cache = root / "A", root / "CA"
    code, seconds = run_forked(demo_argv(out, cache), root / "log.txt")
    assert code == 0, f"clean run failed ({code}):\n{log_tail(root / 'log.txt')}"
    assert results(out), "clean run wrote no results"
    assert not stray_files(out, cache), stray_files(out, cache)
    return out, cache, seconds
