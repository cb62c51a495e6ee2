"""One batch plan for every executor, also with a token budget (issue 28 §4): local == Ray vectors.

The encoder here makes every vector depend on the batch its text was encoded in (the batch's size and
its longest text), as padding does in the last bits of a real transformer's vectors, but visibly.
The local and the Ray executor then give the same vectors only if they cut the same batches; the
plan without a budget cuts other batches and must give other vectors (so the comparison can fail).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from steb_core import EmbeddingCache, EncodeJob, EncoderRef, LocalExecutor, LongTextProtocol, text_hash

ray = pytest.importorskip("ray")
pytest.importorskip("steb_executor_ray")

from steb_executor_ray import RayExecutor  # noqa: E402
from steb_executor_ray.cluster import connect  # noqa: E402


def _batch_aware_encoder():
    """Defined in a function so that Ray ships the class by value (no test module on the workers)."""

    class BatchAware:
        name = "batch-aware"

        def encode(self, texts):
            longest = max(len(t.split()) for t in texts)
            return np.array([[len(t.split()), len(texts), longest] for t in texts], dtype=np.float32)

        def count_tokens(self, texts):
            return [2 * len(t.split()) + 1 for t in texts]

    return BatchAware()


@pytest.fixture(scope="module")
def cluster():
    session = connect(num_cpus=2)
    assert session.owned, "a Ray connection was already open; this test needs its own cluster"
    yield session
    session.close()


def _vectors(executor, job, folder):
    job = replace(job, cache_dir=str(folder))  # where the Ray workers write their shards
    assert executor.encode(job, EmbeddingCache(folder, "fp", "proto")) == len(job.texts)
    return EmbeddingCache(folder, "fp", "proto").get([text_hash(t) for t in job.texts])  # read back from the shards


def test_local_and_ray_encode_the_same_token_budget_batches(cluster, tmp_path):
    rng = np.random.default_rng(0)
    texts = [" ".join(["w"] * int(k)) + f" {i}" for i, k in enumerate(rng.integers(1, 40, size=120))]
    ref = EncoderRef("batch-aware", registered=False, instance=_batch_aware_encoder())
    protocol = LongTextProtocol("truncate", None)
    job = EncodeJob(ref, texts, protocol, str(tmp_path), ("fp", "proto"), batch_size=64, batch_tokens=200)
    plan = job.plan()
    assert len(plan) > 3
    for batch in plan:  # the encoder's own counts set the budget
        assert len(batch) * max(2 * len(t.split()) + 1 for t in batch) <= 200 or len(batch) == 1
    local = _vectors(LocalExecutor(), job, tmp_path / "local")
    with RayExecutor(num_workers=2) as executor:
        remote = _vectors(executor, job, tmp_path / "ray")
    np.testing.assert_array_equal(remote, local)
    # each text's vector records the planned batch it was encoded in
    batch_of = {t: b for b in plan for t in b}
    want = np.array([[len(t.split()), len(batch_of[t]), max(len(u.split()) for u in batch_of[t])] for t in texts])
    np.testing.assert_array_equal(local, want)
    # the count-based plan differs: a test that could not tell plans apart would pass here too
    plain = EncodeJob(ref, texts, protocol, str(tmp_path), ("fp", "proto"), batch_size=64)
    assert not np.array_equal(_vectors(LocalExecutor(), plain, tmp_path / "plain"), local)
