"""The prefetching runner (issue 28 §1) gives the sequential runner's records, cache and summary.

A run with ``prefetch=1`` loads dataset k+1 in a worker (a forked process, or a thread) while dataset
k is encoded and scored. Compared here with ``prefetch=0`` (load, encode, score one after another in
this process, the runner as it was): every field of every result record but the timings and the
write time (and the content hash, which covers them), the cache's shard files (named by the text
hashes they hold, so equal names mean equal batch plans) and vectors, and the run summary. Both runs
use ``threads=1``, so BLAS thread counts chosen from the machine's load cannot differ between them.

Both modes run the datasets in :func:`steb_core.run.order.execution_order` (costly-to-score datasets first):
the order depends on the selection only, and the summary lists datasets as selected.

Also the :class:`steb_core._prefetch.Prefetch` contract: order, the bound on work done ahead, errors
re-raised at their item, results that cannot be pickled computed by the caller instead.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from steb_core import evaluate
from steb_core._errors import StebError
from steb_core._prefetch import Prefetch, WorkerDied
from tests.run.run_records import SYNTHETIC, synthetic_selection
from tests.support.result_files import result_files

VOLATILE = ("timings", "created", "content_hash")


def records(output: Path) -> dict[str, dict]:
    out = {}
    for path in result_files(output):
        if path.name.startswith("."):
            continue
        data = json.loads(path.read_text())
        out[str(path.relative_to(output))] = {k: v for k, v in data.items() if k not in VOLATILE}
    return out


def cache_contents(cache: Path) -> dict[str, dict[str, np.ndarray]]:
    """Shard file name -> {text hash: vector}, for every shard of every cache key under ``cache``."""
    out = {}
    for shard in sorted(cache.rglob("shard-*.npz")):
        with np.load(shard, allow_pickle=False) as data:
            out[shard.name] = dict(zip(data["keys"].tolist(), data["vectors"]))
    return out


def summary_view(summary) -> dict:
    return {
        "results": [(r.dataset, r.task) for r in summary.results],
        "reused": [(r.dataset, r.task) for r in summary.reused],
        "skipped": summary.skipped,
        "failures": [(f.dataset, f.task, f.error) for f in summary.failures],
        "missing": [(m.dataset, m.tasks) for m in summary.missing],
        "notes": summary.notes,
        "counts": (summary.texts_total, summary.texts_unique, summary.texts_encoded, summary.cache_hits),
    }


def assert_same(a: tuple, b: tuple, what: str) -> None:
    (sa, out_a, cache_a), (sb, out_b, cache_b) = a, b
    ra, rb = records(out_a), records(out_b)
    assert ra, f"{what}: no results written"
    assert sorted(ra) == sorted(rb), f"{what}: result files differ"
    for rel in ra:
        assert ra[rel] == rb[rel], f"{what}: {rel} differs:\n sequential {ra[rel]}\n prefetched {rb[rel]}"
    ca, cb = cache_contents(cache_a), cache_contents(cache_b)
    assert sorted(ca) == sorted(cb), f"{what}: cache shards differ (another batch plan)"
    for name in ca:
        assert ca[name].keys() == cb[name].keys() and all(np.array_equal(ca[name][k], cb[name][k]) for k in ca[name]), (
            name
        )
    assert summary_view(sa) == summary_view(sb), what


def run(tmp_path: Path, label: str, **kwargs):
    out, cache = tmp_path / f"out-{label}", tmp_path / f"cache-{label}"
    summary = evaluate(
        "function-words", output=out, cache_dir=cache, progress=False, threads=1, errors="raise", **kwargs
    )
    return summary, out, cache


@pytest.mark.parametrize("mode", ["process", "thread"])
def test_demo_suite_prefetched_equals_sequential(tmp_path, mode):
    sequential = run(tmp_path, "seq", suite="demo", prefetch=0)
    prefetched = run(tmp_path, mode, suite="demo", prefetch=1, prefetch_mode=mode)
    assert len(sequential[0].results) >= 7
    assert_same(sequential, prefetched, f"demo, {mode}")


@pytest.mark.parametrize("extra", [{}, {"max_memory": "64K", "prefetch": 2}], ids=["one-at-a-time", "groups-depth-2"])
def test_multi_dataset_synthetic_run_prefetched_equals_sequential(tmp_path, extra):
    """A dozen synthetic STEB datasets of every task type (texts shared between the clustering and
    all-to-all rows of a corpus, so the cache's run-wide counters matter), tiny scale; with and without
    --max-memory groups."""
    names = synthetic_selection()
    assert len(names) == 12
    common = dict(plugins=(str(SYNTHETIC),), dataset_options={"scale": 0.0005}, max_memory=extra.get("max_memory"))
    sequential = run(tmp_path, "seq", datasets=names, prefetch=0, **common)
    prefetched = run(
        tmp_path, "pre", datasets=names, prefetch=extra.get("prefetch", 1), prefetch_mode="process", **common
    )
    assert len(sequential[0].results) == 12
    assert_same(sequential, prefetched, f"synthetic {extra}")
    # a re-run reuses every result, and the worker's reuse notes arrive in the same order
    again_seq = evaluate(
        "function-words",
        datasets=names,
        output=sequential[1],
        cache_dir=sequential[2],
        progress=False,
        prefetch=0,
        **common,
    )
    again_pre = evaluate(
        "function-words",
        datasets=names,
        output=prefetched[1],
        cache_dir=prefetched[2],
        progress=False,
        prefetch=1,
        **common,
    )
    assert len(again_pre.reused) == 12 and summary_view(again_seq) == summary_view(again_pre)


def test_fail_fast_in_a_prefetched_load_keeps_earlier_results(tmp_path):
    plugin = tmp_path / "late_failure.py"
    plugin.write_text(
        "from steb_core import hookimpl, DatasetSpec, DatasetBundle, LabelledText\n"
        "def _ok(ctx):\n"
        "    return DatasetBundle(labelled_texts=[LabelledText(f'text number {i} of {ctx.dataset}', str(i % 2)) for i "
        "in range(12)])\n"
        "def _bad(ctx):\n"
        "    raise KeyError('author')\n"
        "@hookimpl\n"
        "def register_datasets(register):\n"
        "    register(DatasetSpec(name='first', description='x', tasks=('clustering',), loader=_ok))\n"
        "    register(DatasetSpec(name='second', description='x', tasks=('clustering',), loader=_bad))\n"
        "    register(DatasetSpec(name='third', description='x', tasks=('clustering',), loader=_ok))\n"
    )
    with pytest.raises(KeyError, match="author"):
        evaluate(
            "function-words",
            ["first", "second", "third"],
            plugins=(str(plugin),),
            output=tmp_path / "o",
            cache_dir=tmp_path / "c",
            progress=False,
            fail_fast=True,
            prefetch=1,
            prefetch_mode="process",
        )
    written = sorted(p.parent.name for p in result_files(tmp_path / "o"))
    assert written == ["first"]  # the dataset before the failure was scored and written; none after it


def test_a_result_that_cannot_be_pickled_is_computed_by_the_caller():
    """A loader whose records hold something pickle cannot carry (a lambda) must not fail the run: the
    caller computes that item and the rest itself (slower, never different)."""
    calls: list[str] = []

    def work(i: int):
        calls.append(f"parent {i}")
        return {"i": i, "f": (lambda: i) if i == 1 else None}

    stream = Prefetch(3, work, ahead=1, mode="process")
    got = [item["i"] for item in stream]
    assert got == [0, 1, 2]
    assert calls == ["parent 1", "parent 2"]  # item 1 could not travel: the caller computed it and the rest


def test_a_worker_that_dies_loses_only_its_item_and_says_how():
    """Issue 41: a worker ended by ``os._exit`` or SIGKILL (the OOM killer) raises WorkerDied for that item, with
    the exit status or signal; the next items come from a new worker (one more death is survived the same way)."""
    import os
    import signal

    parent = os.getpid()

    def work(i: int):
        if i == 1:
            os._exit(7)
        if i == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return (i, os.getpid() != parent)

    stream = Prefetch(5, work, ahead=2, mode="process")
    assert stream.next() == (0, True)
    with pytest.raises(WorkerDied, match="exited with status 7 while computing item 1"):
        stream.next()
    assert stream.next() == (2, True)  # a new worker, forked on demand
    with pytest.raises(WorkerDied, match="killed by SIGKILL") as died:
        stream.next()
    assert died.value.index == 3
    stream.start()
    assert stream.next() == (4, True)
    with pytest.raises(StopIteration):
        stream.next()
    stream.close()


@pytest.mark.parametrize("mode", ["process", "thread", "off"])
def test_prefetch_keeps_order_and_raises_at_the_failing_item(mode):
    def work(i: int) -> int:
        if i == 3:
            raise ValueError("item three")
        return i * i

    stream = Prefetch(6, work, ahead=2, mode=mode)
    got = [stream.next() for _ in range(3)]
    assert got == [0, 1, 4]
    with pytest.raises(ValueError, match="item three"):
        stream.next()
    stream.close()


def test_thread_prefetch_never_runs_more_than_ahead_items_ahead():
    started: list[int] = []
    lock = threading.Lock()

    def work(i: int) -> int:
        with lock:
            started.append(i)
        return i

    stream = Prefetch(8, work, ahead=2, mode="thread")
    for taken in range(8):
        time.sleep(0.05)  # time for the worker to run ahead as far as it may
        with lock:
            assert len(started) <= taken + 2, f"worker started {started} with {taken} taken"
        assert stream.next() == taken
    stream.close()


def test_bad_prefetch_settings_are_refused(tmp_path):
    with pytest.raises(StebError, match="0 or more"):
        evaluate("function-words", suite="demo", output=tmp_path / "o", progress=False, prefetch=-1)
    with pytest.raises(StebError, match="auto, process, thread, off"):
        evaluate("function-words", suite="demo", output=tmp_path / "o", progress=False, prefetch_mode="fast")


class _Busy:
    def __init__(self, busy: bool) -> None:
        self._busy = busy

    def busy(self) -> bool:
        return self._busy


@pytest.mark.parametrize(("threads", "busy"), [(None, False), (None, True), (3, True), (3, False)])
def test_task_threads_do_not_depend_on_the_loader(threads, busy):
    """A task's thread count must not depend on whether the read-ahead worker happens to be loading:
    probing's float32 products round differently with another BLAS thread count (3 of 34 features chose
    another strength on probing_blog), so a timing-dependent count would make records depend on timing."""
    from types import SimpleNamespace

    from steb_core.run.engine import Engine

    run = SimpleNamespace(settings=SimpleNamespace(threads=threads), prefetch=_Busy(busy))
    assert Engine.task_threads(run) == threads


def _spec(name: str, task: str, size: str = "", expected: dict | None = None):
    from steb_core._specs import DatasetSpec

    return DatasetSpec(
        name=name, description="x", tasks=(task,), loader=lambda ctx: None, size=size, expected=expected or {}
    )


def test_execution_order_puts_costly_scoring_first_smallest_first_then_cheap_largest_first():
    from steb_core.run.order import execution_order, size_hint

    items = [
        (_spec("pairs-small", "pair_predefined", "1,000 texts"), ["pair_predefined"]),
        (_spec("probe-big", "probing", "40,000 texts"), ["probing"]),
        (_spec("pairs-big", "pair_predefined", "80 trials (160,000 texts)"), ["pair_predefined"]),
        (_spec("cluster-small", "clustering", expected={"clustering": {"classes": 8, "texts": 1600}}), ["clustering"]),
        (_spec("order-mid", "order_alignment", "20,000 texts"), ["order_alignment"]),
        (_spec("plugin-type", "retrieval", "no count given"), ["someone_elses_task"]),  # unknown type: costly, size 0
        (_spec("retrieval-mid", "retrieval", "50 authors, 5,000 texts"), ["retrieval"]),
        (_spec("pairs-twin", "pair_predefined", "1,000 texts"), ["pair_predefined"]),  # tie: keeps selection order
        (
            _spec("mixed", "pair_predefined", "3,000 texts"),
            ["pair_predefined", "clustering"],
        ),  # one costly task: costly
    ]
    assert [size_hint(s) for s, _ in items] == [1000, 40000, 160000, 1600, 20000, 0, 5000, 1000, 3000]
    got = [items[i][0].name for i in execution_order(items)]
    assert got == [
        "plugin-type",
        "cluster-small",
        "mixed",
        "retrieval-mid",
        "probe-big",
        "pairs-big",
        "order-mid",
        "pairs-small",
        "pairs-twin",
    ]


def test_summary_lists_datasets_in_selection_order_though_they_run_in_another(tmp_path, monkeypatch):
    """The synthetic selection runs costly-to-score datasets first; the summary (and so the CLI's table)
    still lists them as selected, and the records equal those of a sequential run (test above)."""
    from steb_core._plugins import get_manager
    from steb_core.run.order import execution_order

    names = synthetic_selection()
    manager = get_manager((str(SYNTHETIC),))
    specs = [manager.datasets().get(n) for n in names]
    order = execution_order([(s, s.tasks) for s in specs])
    assert order != sorted(order)  # this selection does run in another order
    from steb_core._results import ResultRecord

    written: list[str] = []
    original = ResultRecord.write

    def write(record, *args, **kwargs):
        written.append(record.dataset)
        return original(record, *args, **kwargs)

    monkeypatch.setattr(ResultRecord, "write", write)
    summary, _, _ = run(
        tmp_path,
        "pre",
        datasets=names,
        plugins=(str(SYNTHETIC),),
        dataset_options={"scale": 0.0005},
        prefetch=1,
        prefetch_mode="process",
    )
    assert written == [names[i] for i in order]  # written as they finished: in run order
    assert [r.dataset for r in summary.results] == names


def _started_lines(log: Path, want: int, wait_s: float = 30.0) -> int:
    """Lines in ``log`` once it has ``want`` of them or ``wait_s`` passed (a bound on waiting, not a timing)."""
    deadline = time.monotonic() + wait_s
    while True:
        count = len(log.read_text().splitlines()) if log.exists() else 0
        if count >= want or time.monotonic() > deadline:
            return count
        time.sleep(0.02)


def test_process_prefetch_runs_ahead_items_ahead_with_results_larger_than_a_pipe(tmp_path):
    """Results of megabytes (a loaded dataset) must not hold the child at its write until the caller
    takes them: with ``ahead=3`` it finishes three items before the caller takes any, and no fourth."""
    log = tmp_path / "started.txt"

    def work(i: int) -> bytes:
        with open(log, "a") as f:
            f.write(f"{i}\n")
        return bytes([i]) * (4 << 20)

    stream = Prefetch(6, work, ahead=3, mode="process")
    stream.start()
    try:
        assert _started_lines(log, 3) == 3
        time.sleep(0.3)  # room for a fourth start, which must not come
        assert _started_lines(log, 4, wait_s=0) == 3
        assert stream.next() == bytes([0]) * (4 << 20)
        assert _started_lines(log, 4) == 4
        assert [stream.next()[:1] for _ in range(5)] == [bytes([i]) for i in range(1, 6)]
    finally:
        stream.close()
