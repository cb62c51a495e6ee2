"""The Ray executor against the local executor, on a private 2-CPU Ray cluster (one per module).

What is checked, and against what:
- a demo-suite run through ``executor="ray"`` gives the same metrics as a local run and the same
  vector for every cached text (the local executor is the reference);
- a worker that dies mid-run (``os._exit`` inside the encoder) costs only its batch: every text ends
  up in the cache exactly once, one shard per planned batch, no finished batch encoded twice;
- a batch encoded again rewrites its own shard file (same names, same count);
- ``map`` retries a job whose process died, and does not retry an error no retry can change; steb's
  errors reach the driver as raised; ``run_many`` results equal local ``evaluate`` results and an
  unknown name fails on the driver, before any job;
- an encoder error no retry can change (a NaN vector) fails its batch at the first attempt, as an
  ``EncodingError`` the runner handles as after a local failure.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from steb_core import (  # noqa: E402 - after importorskip
    EmbeddingCache,
    EncodeJob,
    EncoderRef,
    EncodingError,
    LongTextProtocol,
    UnknownComponentError,
    evaluate,
    get_manager,
    reset_manager,
    text_hash,
)
from steb_executor_ray import RayExecutor, run_many  # noqa: E402 - after importorskip
from steb_executor_ray.cluster import ClusterConnectionError, connect  # noqa: E402 - after importorskip
from steb_executor_ray.encoding import worker_ref  # noqa: E402 - after importorskip

PLUGIN = str(Path(__file__).with_name("ray_executor_test_encoders.py"))
sys.path.insert(0, str(Path(__file__).parent))
from ray_executor_test_encoders import batch_id  # noqa: E402

TEST_ENCODER = "ray-test-chargrams"
CHEAP_DATASETS = ["demo_formality", "demo_style_features"]


# -- helpers -----------------------------------------------------------------------------------------
def _metrics_by_result(summary: Any) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r.dataset, r.task): r.metrics for r in summary.all_results}


def _assert_same_metrics(a: Any, b: Any, path: str = "") -> None:
    """Equal up to float tolerance, recursively (metrics hold dicts of per-type scores)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), f"{path}: keys differ: {sorted(a)} vs {sorted(b)}"
        for key in a:
            _assert_same_metrics(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same_metrics(x, y, f"{path}[{i}]")
    elif a is None or b is None:
        assert a is None and b is None, f"{path}: {a!r} != {b!r}"
    elif isinstance(a, float) or isinstance(b, float):
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7), (
            f"{path}: {a} != {b}"
        )
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _cache_folder(cache_root: Path) -> Path:
    (folder,) = [p for p in cache_root.iterdir() if p.is_dir()]
    return folder


def _shard_keys(folder: Path) -> list[str]:
    keys: list[str] = []
    for shard in sorted(folder.glob("shard-*.npz")):
        with np.load(shard, allow_pickle=False) as data:
            keys.extend(data["keys"].tolist())
            assert data["vectors"].dtype == np.float32 and data["vectors"].shape[0] == len(data["keys"])
    return keys


def _vectors_by_key(folder: Path) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for shard in folder.glob("shard-*.npz"):
        with np.load(shard, allow_pickle=False) as data:
            out.update(zip(data["keys"].tolist(), data["vectors"]))
    return out


def _live_children() -> list[str]:
    """Non-zombie child processes of this test process (Linux /proc; empty elsewhere)."""
    me, out = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.append(stat.parent.name)
    return out


def _wait_for_no_children(before: set[str], seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while set(_live_children()) - before:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


# -- fixtures ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    """One private local Ray cluster with 2 CPUs for the whole module, shut down at the end."""
    before = set(_live_children())
    session = connect(num_cpus=2)
    assert session.owned, "a Ray connection was already open; these tests need their own cluster"
    yield session
    session.close()
    assert not ray.is_initialized()
    assert _wait_for_no_children(before), f"processes left behind by the Ray cluster: {set(_live_children()) - before}"


@pytest.fixture(autouse=True)
def _fresh_plugins(monkeypatch):
    monkeypatch.delenv("STEB_PLUGINS", raising=False)
    reset_manager()
    yield
    reset_manager()


@pytest.fixture(scope="module")
def encoder_name() -> str:
    """The stylometry plugin's function-words when it is registered, else the local test encoder."""
    reset_manager()
    name = "function-words" if "function-words" in get_manager().encoders() else TEST_ENCODER
    reset_manager()
    return name


@pytest.fixture(scope="module")
def local_run(tmp_path_factory, encoder_name):
    """The reference: the whole demo suite with the local executor."""
    root = tmp_path_factory.mktemp("local")
    summary = evaluate(
        encoder_name, suite="demo", plugins=[PLUGIN], output=root / "results", cache_dir=root / "cache", progress=False
    )
    assert summary.results and not summary.failures
    return summary, root


@pytest.fixture(scope="module")
def local_chargrams(tmp_path_factory, encoder_name, local_run):
    """Local reference for the test encoder on the cheap datasets (reuses ``local_run`` when it is the same encoder)."""
    if encoder_name == TEST_ENCODER:
        return local_run
    root = tmp_path_factory.mktemp("local-chargrams")
    summary = evaluate(
        TEST_ENCODER,
        CHEAP_DATASETS,
        plugins=[PLUGIN],
        output=root / "results",
        cache_dir=root / "cache",
        progress=False,
    )
    return summary, root


# -- pure helpers (no cluster) -----------------------------------------------------------------------
def test_unknown_names_fail_on_the_driver_before_any_job(tmp_path):
    """No cluster is started or reached (the address is a closed port): the names are checked first."""
    with pytest.raises(UnknownComponentError, match=r"unknown encoder 'function-word'; did you mean 'function-words'"):
        run_many(["function-word"], ["demo_formality"], output=tmp_path, address="127.0.0.1:9")
    with pytest.raises(UnknownComponentError, match=r"unknown dataset 'demo_formalty'; did you mean 'demo_formality'"):
        run_many(["function-words"], ["demo_formalty"], output=tmp_path, address="127.0.0.1:9")
    with pytest.raises(UnknownComponentError, match=r"unknown suite 'dmeo'; did you mean 'demo'"):
        run_many(["function-words"], suite="dmeo", output=tmp_path, address="127.0.0.1:9")
    if (
        "lftk-probing" in get_manager().feature_extractors()
    ):  # the example: a feature extractor given as encoder
        with pytest.raises(UnknownComponentError, match=r"'lftk-probing' is a feature extractor, not an encoder"):
            run_many(["lftk"], suite="demo", output=tmp_path, address="127.0.0.1:9")
    assert not ray.is_initialized()


def test_an_address_where_nothing_listens_fails_at_once():
    before = time.monotonic()
    with pytest.raises(ClusterConnectionError, match=r"no Ray cluster answers at 127\.0\.0\.1:9"):
        connect("127.0.0.1:9")
    assert time.monotonic() - before < 10  # not Ray's 20 s of retries
    assert not ray.is_initialized()


def test_worker_ref_drops_the_local_instance_of_registered_encoders(tmp_path):
    plugin = tmp_path / "p.py"
    plugin.write_text("")
    ref = EncoderRef("x", {"a": 1}, True, (str(plugin), "some.module"), instance=object())
    sent = worker_ref(ref)
    assert sent.instance is None and sent.options == {"a": 1}
    assert sent.plugins == (str(plugin.resolve()), "some.module")
    obj = object()
    assert worker_ref(EncoderRef("y", {}, False, (), obj)).instance is obj


# -- on the cluster ----------------------------------------------------------------------------------
def test_ray_run_equals_local_run_on_demo_suite(cluster, local_run, encoder_name, tmp_path):
    local, local_root = local_run
    summary = evaluate(
        encoder_name,
        suite="demo",
        plugins=[PLUGIN],
        output=tmp_path / "results",
        cache_dir=tmp_path / "cache",
        executor="ray",
        executor_options={"num_workers": 2},
        progress=False,
    )
    assert not summary.failures
    assert summary.texts_encoded == summary.texts_unique == local.texts_unique
    ray_metrics, local_metrics = _metrics_by_result(summary), _metrics_by_result(local)
    assert set(ray_metrics) == set(local_metrics) and len(ray_metrics) >= 6
    for key in local_metrics:
        _assert_same_metrics(ray_metrics[key], local_metrics[key], f"{key}")
    # same cache folder name, the same vector for every text, in several shards (work was spread)
    ray_folder, local_folder = _cache_folder(tmp_path / "cache"), _cache_folder(local_root / "cache")
    assert ray_folder.name == local_folder.name
    ray_vectors, local_vectors = _vectors_by_key(ray_folder), _vectors_by_key(local_folder)
    assert set(ray_vectors) == set(local_vectors) and len(ray_vectors) == local.texts_unique
    for key, vec in local_vectors.items():
        np.testing.assert_allclose(ray_vectors[key], vec, rtol=1e-6, atol=1e-7)
    assert len(list(ray_folder.glob("shard-*.npz"))) >= 2
    # resume works as locally: a second run finds every text in the cache and encodes nothing
    again = evaluate(
        encoder_name,
        ["demo_formality"],
        plugins=[PLUGIN],
        output=tmp_path / "results",
        cache_dir=tmp_path / "cache",
        executor="ray",
        executor_options={"num_workers": 2},
        progress=False,
        overwrite=True,
    )
    assert again.texts_encoded == 0 and again.cache_hits == again.texts_unique > 0


def test_killed_worker_is_retried_without_lost_or_duplicated_entries(cluster, local_chargrams, tmp_path):
    marker, calls = tmp_path / "crashed", tmp_path / "calls.tsv"
    options = {"crash_marker": str(marker), "crash_on_call": 2, "calls_log": str(calls), "spare_pid": os.getpid()}
    batch_size = 40
    summary = evaluate(
        TEST_ENCODER,
        CHEAP_DATASETS,
        plugins=[PLUGIN],
        encoder_options=options,
        output=tmp_path / "results",
        cache_dir=tmp_path / "cache",
        executor="ray",
        executor_options={"num_workers": 2, "batch_size": batch_size},
        progress=False,
    )
    assert marker.exists(), "no worker was killed: the test did not test anything"
    assert not summary.failures
    n = summary.texts_unique
    n_batches = math.ceil(n / batch_size)
    assert n_batches >= 4 and summary.texts_encoded == n
    folder = _cache_folder(tmp_path / "cache")
    keys = _shard_keys(folder)
    assert len(keys) == len(set(keys)) == n  # nothing lost, nothing twice
    assert len(list(folder.glob("shard-*.npz"))) == n_batches
    # every batch was encoded to completion exactly once: the killed call never finished, and no
    # batch that had finished before the crash was encoded again (not even one whose completion the
    # dying worker could no longer report: the executor finds its shard on disk)
    driver = str(os.getpid())  # the runner's identity probe encodes on the driver: not a batch
    lines = [ln for ln in calls.read_text().splitlines() if ln.split("\t")[0] != driver]
    assert len(lines) == n_batches and sum(int(ln.split("\t")[1]) for ln in lines) == n
    assert len({ln.split("\t")[0] for ln in lines}) >= 2
    # the vectors are the local executor's
    reference = _vectors_by_key(_cache_folder(local_chargrams[1] / "cache"))
    for key, vec in _vectors_by_key(folder).items():
        np.testing.assert_allclose(vec, reference[key], rtol=1e-6, atol=1e-7)
    _assert_same_metrics(
        {f"{k}": v for k, v in _metrics_by_result(summary).items()},
        {f"{k}": v for k, v in _metrics_by_result(local_chargrams[0]).items() if k[0] in CHEAP_DATASETS},
    )


def test_a_batch_encoded_twice_rewrites_its_own_shard(cluster, tmp_path):
    texts = [f"Text number {i}, written {'quite ' * (i % 5)}plainly." for i in range(90)]
    get_manager([PLUGIN])
    ref = EncoderRef(TEST_ENCODER, {}, True, (PLUGIN,))
    cache = EmbeddingCache(tmp_path, "fp", "proto")
    job = EncodeJob(
        ref, texts, LongTextProtocol("chunk-and-pool", None), str(tmp_path), ("fp", "proto"), batch_size=1024
    )
    with RayExecutor(num_workers=2, batch_size=30) as executor:
        assert executor.encode(job, cache) == 90
        first = sorted(p.name for p in cache.shard_files())
        assert executor.encode(job, cache) == 90  # as if every batch were retried after writing
    assert sorted(p.name for p in cache.shard_files()) == first and len(first) == 3
    assert len(cache) == 90 and ray.is_initialized()  # the module's cluster is not ours to close
    np.testing.assert_array_equal(cache.get([text_hash(t) for t in texts]).shape, (90, 64))


def test_map_retries_a_job_whose_worker_died(cluster, tmp_path):
    marker = str(tmp_path / "job-crashed")

    def job(x: int) -> int:  # defined here so Ray pickles it by value
        if x == 3 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        return x * x

    executor = RayExecutor(job_retries=2)
    assert executor.map(job, range(6)) == [0, 1, 4, 9, 16, 25]
    assert os.path.exists(marker)

    def always_fails(x: int) -> int:
        raise ValueError(f"bad item {x}")

    out = RayExecutor(job_retries=1).map(always_fails, [7], return_exceptions=True)
    assert isinstance(out[0], ValueError) and "bad item 7" in str(out[0])
    with pytest.raises(ValueError, match="bad item 7"):
        executor.map(always_fails, [7])


def test_map_does_not_retry_an_error_no_retry_can_change(cluster, tmp_path):
    """A job raising UnknownComponentError runs once and its error arrives whole; a RuntimeError is retried."""
    log = str(tmp_path / "attempts")

    def unknown(x: int) -> int:
        with open(log, "a") as handle:
            handle.write("unknown\n")
        raise UnknownComponentError("encoder", "lftk", ["lftk-features", "function-words"])

    def flaky(x: int) -> int:
        with open(log, "a") as handle:
            handle.write("flaky\n")
        raise RuntimeError("lost the GPU")

    out = RayExecutor(job_retries=2).map(unknown, [1], return_exceptions=True)
    assert type(out[0]) is UnknownComponentError and "did you mean 'lftk-features'" in str(out[0])
    assert out[0].name == "lftk"
    with pytest.raises(UnknownComponentError):
        RayExecutor(job_retries=2).map(unknown, [1])
    out = RayExecutor(job_retries=2).map(flaky, [1], return_exceptions=True)
    assert isinstance(out[0], RuntimeError) and "lost the GPU" in str(out[0])
    assert Path(log).read_text().split() == ["unknown", "unknown", "flaky", "flaky", "flaky"]


def test_a_batch_that_cannot_succeed_fails_at_the_first_attempt(cluster, tmp_path):
    texts = [f"Text number {i}, written {'quite ' * (i % 5)}plainly." for i in range(60)]
    attempts = tmp_path / "attempts"
    get_manager([PLUGIN])
    ref = EncoderRef(TEST_ENCODER, {"attempts_log": str(attempts), "bad_text": "number 7,"}, True, (PLUGIN,))
    cache = EmbeddingCache(tmp_path, "fp", "proto")
    job = EncodeJob(ref, texts, LongTextProtocol("chunk-and-pool", None), str(tmp_path), ("fp", "proto"), batch_size=20)
    bad_batch = next(b for b in job.plan() if texts[7] in b)
    with RayExecutor(num_workers=1, max_retries=3) as executor, pytest.raises(EncodingError) as caught:
        executor.encode(job, cache)
    assert "NaN" in str(caught.value) or "finite" in str(caught.value), str(caught.value)
    assert sorted(caught.value.texts) == sorted(bad_batch)  # the runner fails only the datasets needing these
    calls = [int(line.split("\t")[2]) for line in attempts.read_text().splitlines()]
    assert calls.count(batch_id(bad_batch)) == 1  # not retried (max_retries=3 would allow 4 attempts)
    assert len(calls) == len(set(calls)) <= len(job.plan())


def test_run_many_equals_local_evaluate(cluster, local_chargrams, tmp_path):
    outcomes = run_many(
        [TEST_ENCODER, (TEST_ENCODER, {"calls_log": str(tmp_path / "log")})],
        CHEAP_DATASETS,
        plugins=[PLUGIN],
        output=tmp_path / "results",
        cache_dir=tmp_path / "cache",
        executor=RayExecutor(),
    )
    assert [(o.encoder, o.dataset) for o in outcomes] == [(TEST_ENCODER, d) for d in CHEAP_DATASETS] * 2
    assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    reference = _metrics_by_result(local_chargrams[0])
    for outcome in outcomes:
        for key, metrics in _metrics_by_result(outcome.summary).items():
            _assert_same_metrics(metrics, reference[key], str(key))
    # per-dataset results on disk, where `steb report` looks for them
    assert len(list((tmp_path / "results").rglob("*.json"))) >= len(CHEAP_DATASETS)
