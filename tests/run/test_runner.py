"""The runner: text deduplication, embedding cache, resume after interrupts, atomic results."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from steb_core import evaluate
from steb_core._cache import EmbeddingCache, text_hash
from steb_core._results import ResultRecord, load_results
from tests.support.toy_components import CountingEncoder


def run(encoder, toy_plugin, tmp_path, **kw):
    kw.setdefault("output", tmp_path / "out")
    kw.setdefault("cache_dir", tmp_path / "cache")
    return evaluate(encoder, suite="toy", plugins=[str(toy_plugin)], progress=False, **kw)


def test_each_distinct_text_is_encoded_once(toy_plugin, tmp_path):
    enc = CountingEncoder()
    summary = run(enc, toy_plugin, tmp_path)
    # 3 datasets x 2 tasks; the 3 datasets hold the same 41 records (40 distinct texts + 1 duplicate)
    assert len(summary.results) == 6 and not summary.failures
    assert len(enc.texts_seen) == len(set(enc.texts_seen)) == 40
    assert summary.texts_total == 3 * 41 * 1 and summary.texts_unique == 40


def test_warm_cache_does_no_encoding(toy_plugin, tmp_path):
    first = CountingEncoder()
    run(first, toy_plugin, tmp_path)
    second = CountingEncoder()
    summary = run(second, toy_plugin, tmp_path, output=tmp_path / "other-out")  # new output: tasks rerun
    assert second.calls == 0 and summary.texts_encoded == 0 and summary.cache_hits == 40
    assert len(summary.results) == 6
    a = {(r.dataset, r.task): r.main_score for r in load_results(tmp_path / "out")}
    b = {(r.dataset, r.task): r.main_score for r in load_results(tmp_path / "other-out")}
    assert a == b


def test_rerun_reuses_results_and_protocol_changes_key(toy_plugin, tmp_path):
    run(CountingEncoder(), toy_plugin, tmp_path)
    enc = CountingEncoder()
    summary = run(enc, toy_plugin, tmp_path)
    assert len(summary.reused) == 6 and not summary.results and enc.calls == 0
    # another protocol is another cache entry and another result key
    enc3 = CountingEncoder()
    summary = run(enc3, toy_plugin, tmp_path, protocol="truncate", max_length=3)
    assert len(summary.results) == 6 and enc3.calls > 0
    record = ResultRecord.read(tmp_path / "out" / "counting" / "toy0" / "toy_task.json")
    assert record.protocol == {"name": "truncate", "max_length": 3}


def test_interrupt_during_encoding_resumes_without_loss(toy_plugin, tmp_path):
    enc = CountingEncoder(fail_after=2)  # Ctrl-C in the third batch
    with pytest.raises(KeyboardInterrupt):
        run(enc, toy_plugin, tmp_path, batch_size=7)
    cache_root = tmp_path / "cache"
    shards = list(cache_root.rglob("shard-*.npz"))
    assert len(shards) == 2  # two finished batches were saved
    assert not list(cache_root.rglob("*.tmp"))
    resumed = CountingEncoder()
    summary = run(resumed, toy_plugin, tmp_path, batch_size=7)
    assert len(resumed.texts_seen) == 40 - 14  # only the texts that were not saved
    assert len(summary.results) == 6


def test_interrupt_during_tasks_keeps_finished_results(toy_plugin, tmp_path, monkeypatch):
    calls = {"n": 0}
    original = ResultRecord.write

    def write_then_interrupt(self, output_dir):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return original(self, output_dir)

    monkeypatch.setattr(ResultRecord, "write", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run(CountingEncoder(), toy_plugin, tmp_path)
    monkeypatch.setattr(ResultRecord, "write", original)
    assert len(list(load_results(tmp_path / "out"))) == 3
    summary = run(CountingEncoder(), toy_plugin, tmp_path)
    assert len(summary.reused) == 3 and len(summary.results) == 3
    files = sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*.json"))
    assert len(files) == 6 and len(set(files)) == 6  # nothing lost, nothing duplicated


def test_result_record_contents(toy_plugin, tmp_path):
    run(CountingEncoder(), toy_plugin, tmp_path, seed=7)
    data = json.loads((tmp_path / "out" / "counting" / "toy1" / "toy_task.json").read_text())
    assert data["schema"] == "steb.result/1"
    assert data["encoder"] == "counting" and data["encoder_fingerprint"] == "counting-v1"
    assert data["seed"] == 7 and data["protocol"]["name"] == "chunk-and-pool"
    assert data["metrics"]["n"] == 41 and data["main_metric"] == "mean_norm"
    assert data["counts"]["texts"] == 41 and data["counts"]["run_unique_texts"] == 40
    assert {"load_s", "encode_s", "task_s"} <= set(data["timings"])
    assert {"python", "numpy", "steb-core"} <= set(data["versions"])
    assert data["dataset_info"] == {"n": 40}


def test_atomic_result_write_leaves_old_file_on_failure(tmp_path, monkeypatch):
    record = ResultRecord(encoder="e", dataset="d", task="t", main_metric="m", main_score=0.5, metrics={"m": 0.5})
    path = record.write(tmp_path)
    before = path.read_text()
    record.main_score = 0.9

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        record.write(tmp_path)
    monkeypatch.undo()
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind


def test_cache_shards_are_idempotent(tmp_path):
    cache = EmbeddingCache(tmp_path, "enc", "chunk-and-pool:None")
    keys = [text_hash(t) for t in ("a", "b", "c")]
    vectors = np.arange(6, dtype=np.float32).reshape(3, 2)
    cache.put(keys, vectors)
    cache.put(list(reversed(keys)), vectors[::-1])  # a retried batch: same set of keys
    assert len(cache.shard_files()) == 1 and len(cache) == 3
    np.testing.assert_array_equal(cache.get([keys[1]]), [[2, 3]])
    reopened = EmbeddingCache(tmp_path, "enc", "chunk-and-pool:None")
    np.testing.assert_array_equal(reopened.get(keys), vectors)
    other = EmbeddingCache(tmp_path, "enc", "truncate:128")
    assert len(other) == 0


def test_any_object_with_encode_works_without_a_plugin(toy_plugin, tmp_path):
    class Wrapper:  # e.g. an MTEB-style wrapper: only `encode`
        def encode(self, texts, **kwargs):
            return np.ones((len(texts), 3))

    summary = run(Wrapper(), toy_plugin, tmp_path)
    assert (
        re.fullmatch(r"Wrapper-[0-9a-f]{8}", summary.encoder) and len(summary.results) == 6
    )  # class + identity, never the class alone
    assert summary.results[0].main_score == pytest.approx(np.sqrt(3), rel=1e-6)


def test_similarity_only_encoder_skips_vector_tasks(toy_plugin, tmp_path):
    class SimOnly:
        name = "sim-only"
        similarity_only = True

        def similarity(self, a, b):
            return np.zeros(len(a))

    summary = run(SimOnly(), toy_plugin, tmp_path)
    assert not summary.results and len(summary.skipped) == 6
    assert all("similarity-only" in why for _, _, why in summary.skipped)


def test_dataset_failure_is_reported_and_others_run(tmp_path, toy_plugin):
    bad = tmp_path / "bad_data_plugin.py"
    bad.write_text(
        "from steb_core import hookimpl, DatasetSpec\n"
        "def _load(ctx):\n"
        "    ctx.require_dir('download it from example.org', 'ROOT/broken/data.tsv')\n"
        "@hookimpl\n"
        "def register_datasets(register):\n"
        "    register(DatasetSpec(name='broken', description='x', tasks=('toy_task',), loader=_load, "
        "suites=('toy',)))\n"
    )
    # missing data is a failure under strict=True (issue 30: by default it is skipped as missing data,
    # tests/run/test_partial_runs.py)
    summary = evaluate(
        CountingEncoder(),
        suite="toy",
        plugins=[str(toy_plugin), str(bad)],
        progress=False,
        output=tmp_path / "o",
        cache_dir=tmp_path / "c",
        strict=True,
        errors="collect",
    )
    assert len(summary.results) == 6
    assert [f.dataset for f in summary.failures] == ["broken"]
    assert "example.org" in summary.failures[0].error and "STEB_DATA_DIR" in summary.failures[0].error


def test_noop_rerun_imports_no_task_dependencies(tmp_path):
    """A re-run whose results all exist does no model or task work: scikit-learn is never imported."""
    import subprocess
    import sys

    setup = (
        f"import steb\nkw = dict(suite='demo', output=r'{tmp_path / 'o'}', cache_dir=r'{tmp_path / 'c'}', "
        "progress=False)\n"
    )
    first = subprocess.run(
        [sys.executable, "-c", setup + "steb.evaluate('function-words', **kw)"], capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    check = setup + (
        "import sys\n"
        "s = steb.evaluate('function-words', **kw)\n"
        "assert len(s.reused) == 7 and not s.results, s\n"
        "print(sorted(m for m in sys.modules if m.startswith('sklearn'))[:3])\n"
    )
    again = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "[]"
