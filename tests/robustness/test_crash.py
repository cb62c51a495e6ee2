"""Crash safety of `steb run` (issue 20): SIGKILL at random points, then resume; concurrent runs.

A demo run (function-words, every demo task but probing; see conftest) is killed with SIGKILL a
handful of times at seeded random moments spread over the clean run's duration, each time resuming
from what the previous attempts left in the same output and cache folders; a last run completes it.
Everything must then equal an uninterrupted run: every result (metrics, main score, run key), every
cached vector (same set of text hashes, same values, every shard loadable without pickles), and no
stray file except temp files of the killed writes that are younger than the sweep age.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import threading
import time

from steb_core._cache import STALE_TEMP_SECONDS
from tests.support.result_files import result_files

from .conftest import (
    assert_same_run,
    demo_argv,
    fork_cli,
    kill_after,
    log_tail,
    results,
    wait,
)

KILLS = 5
SEED = 20


def test_sigkill_at_random_points_then_resume_matches_clean_run(tmp_path, clean_run):
    ref_out, ref_cache, seconds = clean_run
    out, cache, log = tmp_path / "B", tmp_path / "CB", tmp_path / "log.txt"
    argv = demo_argv(out, cache)
    rng = random.Random(SEED)
    # one delay per stratum of the clean run's duration, so the kills spread over the whole run
    delays = [seconds * (i + rng.random()) / KILLS for i in range(KILLS)]
    rng.shuffle(delays)
    killed, partial = 0, 0
    for delay in delays:
        killed += kill_after(argv, log, delay)
        # whatever a killed run left must already be valid: results verify, shards load
        done = results(out) if out.exists() else {}
        partial += len(done) < len(results(ref_out))
    assert killed >= 1, (
        f"no run was still running when killed (delays {delays}, clean run {seconds:.2f} s): the test tested nothing"
    )
    t0 = time.perf_counter()
    code = wait(fork_cli(argv, log))  # the same command finishes the job
    print(
        f"clean run {seconds:.2f} s; delays {[round(d, 2) for d in delays]}; killed alive {killed}, partial {partial}; "
        f"final run {time.perf_counter() - t0:.2f} s"
    )
    assert code == 0, f"resumed run failed ({code}):\n{log_tail(log)}"
    assert_same_run(ref_out, ref_cache, out, cache, f"after {killed} kills (delays {[round(d, 2) for d in delays]})")
    # and a further run has nothing left to do: every result reused, nothing encoded
    again = tmp_path / "again.txt"
    assert wait(fork_cli(argv, again)) == 0, log_tail(again)
    line = re.search(r"(\d+) new, (\d+) reused.*?(\d+) encoded", again.read_text(), re.S)
    assert line and line.group(1) == "0" and line.group(3) == "0", (
        f"a run after completion recomputed something:\n{log_tail(again)}"
    )
    assert partial >= 1, "every kill came after the run had finished: no partial state was resumed"


def test_two_concurrent_runs_into_one_output_agree(tmp_path, clean_run):
    ref_out, ref_cache, _ = clean_run
    out, cache = tmp_path / "B", tmp_path / "CB"
    argv = demo_argv(out, cache)
    pids = [fork_cli(argv, tmp_path / f"log{i}.txt") for i in range(2)]
    codes: list[int] = [0, 0]

    def waiter(i: int) -> None:
        codes[i] = wait(pids[i])

    threads = [threading.Thread(target=waiter, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [0, 0], (
        f"concurrent runs exited {codes}:\n{log_tail(tmp_path / 'log0.txt')}\n{log_tail(tmp_path / 'log1.txt')}"
    )
    assert_same_run(ref_out, ref_cache, out, cache, "two concurrent runs")


def test_stale_temp_files_of_killed_writes_are_swept(tmp_path, clean_run):
    """Temp files that a SIGKILL left behind (here: planted, with an old mtime) are removed by the next run."""
    ref_out, ref_cache, _ = clean_run
    out, cache, log = tmp_path / "B", tmp_path / "CB", tmp_path / "log.txt"
    shutil.copytree(ref_out, out)
    shutil.copytree(ref_cache, cache)
    result = result_files(out, "clustering.json")[0]
    shard = next(cache.rglob("shard-*.npz"))
    planted = [result.with_name(f".{result.name}.killed.tmp"), shard.with_name(f".{shard.name}.killed.tmp")]
    old = time.time() - 2 * STALE_TEMP_SECONDS
    for path in planted:
        path.write_bytes(b"half a write")
        os.utime(path, (old, old))
    assert wait(fork_cli(demo_argv(out, cache), log)) == 0, log_tail(log)
    left = [str(p) for p in planted if p.exists()]
    assert not left, f"stale temp files older than the sweep age survived a run: {left}"
