"""Numbers belong to what produced them: model identity, encoder failures, cache and result integrity.

Each test here failed on the runner before issue 14/20 (plain objects keyed by class name, NaN shards
trusted, an encoder exception aborting the whole run, hand-edited results reused).
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest

from steb_core import evaluate
from steb_core._cache import EmbeddingCache, ShardError, sweep_stale_temp_files, text_hash, write_shard
from steb_core._encoders import identify
from steb_core._results import ResultRecord, load_results


class Projector:
    """A plain object with ``encode`` and no ``fingerprint``: vectors = character counts @ weights."""

    def __init__(self, seed: int, dim: int = 8) -> None:
        self.weights = np.random.default_rng(seed).normal(size=(26, dim)).astype(np.float32)
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for i, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    out[i, ord(ch) - 97] += 1
        return out @ self.weights + 0.01


class Truncated:
    """A wrapper that changes the output (like sentence-transformers' ``truncate_dim``)."""

    def __init__(self, inner, dim):
        self.inner, self.dim = inner, dim

    def encode(self, texts):
        return self.inner.encode(texts)[:, : self.dim]


def _run(encoder, toy_plugin, tmp_path, **kw):
    kw.setdefault("output", tmp_path / "out")
    kw.setdefault("cache_dir", tmp_path / "cache")
    return evaluate(encoder, suite="toy", plugins=[str(toy_plugin)], progress=False, **kw)


def _scores(summary):
    return {(r.dataset, r.task): r.main_score for r in summary.all_results}


def test_two_models_of_one_class_get_their_own_scores(toy_plugin, tmp_path):
    alone_a = _run(Projector(1), toy_plugin, tmp_path / "a")
    alone_b = _run(Projector(2), toy_plugin, tmp_path / "b")
    assert _scores(alone_a) != _scores(alone_b)
    shared = tmp_path / "shared"
    first = _run(Projector(1), toy_plugin, shared)
    second_model = Projector(2)
    second = _run(second_model, toy_plugin, shared)  # same class name, same output folder, same cache
    assert second_model.calls > 1 and not second.reused  # nothing of model 1 is reused
    assert _scores(first) == _scores(alone_a) and _scores(second) == _scores(alone_b)


def test_output_changing_wrapper_is_another_identity(toy_plugin, tmp_path):
    base = Projector(1)
    full = identify(base)
    cut = identify(Truncated(base, 4))
    assert full.fingerprint and cut.fingerprint and full.fingerprint != cut.fingerprint
    assert "probe_hash" in full.evidence


def test_same_object_rerun_encodes_nothing_and_records_evidence(toy_plugin, tmp_path):
    model = Projector(3)
    _run(model, toy_plugin, tmp_path)
    calls = model.calls
    summary = _run(model, toy_plugin, tmp_path)
    assert len(summary.reused) == 6 and not summary.results
    assert model.calls == calls + 2  # only the two identity probe calls
    record = next(iter(load_results(tmp_path / "out")))
    assert record.encoder_identity["probe_hash"] and record.encoder_identity["class"].endswith("Projector")


SCALED_PLUGIN = """
import numpy as np
from steb_core import hookimpl, EncoderSpec

class Scaled:
    def __init__(self, scale=1.0, batch_size=8):
        self.scale = scale
    def encode(self, texts):
        return np.array([[len(t) * self.scale, t.count("a") + 1.0, 1.0] for t in texts], dtype=np.float32)

@hookimpl
def register_encoders(register):
    register(EncoderSpec(name="scaled", description="toy", factory=Scaled))
"""


def test_registered_encoder_with_other_options_is_another_identity(toy_plugin, tmp_path):
    plugin = tmp_path / "scaled_plugin.py"
    plugin.write_text(SCALED_PLUGIN)
    kw = dict(
        suite="toy",
        plugins=[str(toy_plugin), str(plugin)],
        output=tmp_path / "o",
        cache_dir=tmp_path / "c",
        progress=False,
    )
    a = evaluate("scaled", **kw)
    b = evaluate("scaled", encoder_options={"scale": 2.0}, **kw)
    again = evaluate("scaled", encoder_options={"scale": 2.0}, **kw)
    assert a.results and b.results and not b.reused and len(again.reused) == 6
    assert a.results[0].encoder_fingerprint != b.results[0].encoder_fingerprint
    assert b.results[0].encoder_identity["options"] == {"scale": 2.0}


def test_non_deterministic_encoder_is_never_reused(toy_plugin, tmp_path):
    class Noisy(Projector):
        def encode(self, texts):
            return super().encode(texts) + np.random.default_rng().normal(size=(len(texts), 8)).astype(np.float32)

    first = _run(Noisy(1), toy_plugin, tmp_path)
    assert any("cannot be established" in n for n in first.notes)
    second = _run(Noisy(1), toy_plugin, tmp_path)
    assert not second.reused and len(second.results) == 6
    assert not any((tmp_path / "cache").glob("*/shard-*.npz"))  # nothing written where it could be found again


class Faulty(Projector):
    """Fails on texts that contain a marker word, in one of several ways."""

    def __init__(self, mode: str) -> None:
        super().__init__(5)
        self.mode = mode

    def encode(self, texts):
        out = super().encode(texts)
        if not any("poison" in t for t in texts) or len(texts) == 6 and texts[0].startswith("The committee"):
            return out
        if self.mode == "nan":
            out[[i for i, t in enumerate(texts) if "poison" in t][0]] = np.nan
            return out
        if self.mode == "rows":
            return out[:-1]
        if self.mode == "3d":
            return out[:, None, :]
        raise RuntimeError("CUDA out of memory (simulated)")


POISON_PLUGIN = """
from steb_core import hookimpl, DatasetSpec, DatasetBundle, LabelledText
def _clean(ctx):
    return DatasetBundle(labelled_texts=[LabelledText(f"clean text number {i} " + "ab" * i,
        str(i % 2)) for i in range(20)])
def _poisoned(ctx):
    texts = [f"other text {i} poison" if i == 7 else f"other text {i} " + "cd" * i for i in range(20)]
    return DatasetBundle(labelled_texts=[LabelledText(t, str(i % 2)) for i, t in enumerate(texts)])
@hookimpl
def register_datasets(register):
    register(DatasetSpec(name="poisoned", description="x", tasks=("clustering",), loader=_poisoned,
        suites=("poison",), needs_data=False))
    register(DatasetSpec(name="clean", description="x", tasks=("clustering",), loader=_clean, suites=("poison",),
        needs_data=False))
"""


@pytest.mark.parametrize("mode", ["nan", "rows", "3d", "raise"])
def test_bad_encoder_output_fails_only_the_datasets_that_need_it(tmp_path, mode):
    plugin = tmp_path / "poison_plugin.py"
    plugin.write_text(POISON_PLUGIN)
    summary = evaluate(
        Faulty(mode),
        suite="poison",
        plugins=[str(plugin)],
        output=tmp_path / "o",
        cache_dir=tmp_path / "c",
        progress=False,
        batch_size=4,
    )
    assert [r.dataset for r in summary.results] == ["clean"]
    (failure,) = summary.failures
    assert failure.dataset == "poisoned" and "\n" not in failure.error
    assert "encoder 'Faulty-" in failure.error and "batch" in failure.error  # class + identity: an object nothing names
    if mode == "nan":
        assert "first at text" in failure.error and "poison" in failure.error
    assert summary.texts_encoded >= 16  # the poisoned dataset's good batches stay cached
    with pytest.raises(Exception, match="batch"):
        evaluate(
            Faulty(mode),
            suite="poison",
            plugins=[str(plugin)],
            output=tmp_path / "o2",
            cache_dir=tmp_path / "c2",
            progress=False,
            batch_size=4,
            fail_fast=True,
        )


def test_nan_shard_is_refused_on_write_and_dropped_on_read(toy_plugin, tmp_path):
    with pytest.raises(ShardError, match="NaN"):
        write_shard(tmp_path, ["a" * 32], np.array([[np.nan, 1.0]], dtype=np.float32))
    model = Projector(7)
    clean = _run(model, toy_plugin, tmp_path)
    cache_dirs = list((tmp_path / "cache").iterdir())
    (cache_dir,) = cache_dirs
    shard = sorted(cache_dir.glob("shard-*.npz"))[0]
    with np.load(shard) as data:  # a "valid" npz whose vectors are NaN, as a buggy executor could write
        keys, vectors = data["keys"], np.full_like(data["vectors"], np.nan)
    np.savez(shard, keys=keys, vectors=vectors)
    again = _run(Projector(7), toy_plugin, tmp_path, output=tmp_path / "out2")
    assert any("set aside" in n for n in again.notes)
    assert _scores(again) == _scores(clean)  # recomputed, not NaN-derived
    assert any(cache_dir.glob("*.bad"))


def test_wrong_dimension_shard_is_reported_not_a_traceback(tmp_path):
    cache = EmbeddingCache(tmp_path, "fp", "proto")
    cache.put([text_hash("a")], np.ones((1, 4), np.float32))
    with pytest.raises(ShardError, match="dimension 3"):
        cache.put([text_hash("b")], np.ones((1, 3), np.float32))
    write_shard(cache.dir, [text_hash("c")], np.ones((1, 3), np.float32))  # an executor bypassing the check
    cache.refresh()
    with pytest.raises(ShardError, match="dimension"):
        cache.get([text_hash("a"), text_hash("c")])
    assert text_hash("c") not in cache and text_hash("a") in cache


def test_hand_edited_result_is_recomputed(toy_plugin, tmp_path):
    _run(Projector(1), toy_plugin, tmp_path)
    path = next((tmp_path / "out").rglob("toy_task.json"))
    data = json.loads(path.read_text())
    data["main_score"] = 0.999
    data["metrics"]["mean_norm"] = 0.999
    path.write_text(json.dumps(data))
    summary = _run(Projector(1), toy_plugin, tmp_path)
    assert len(summary.reused) == 5 and len(summary.results) == 1
    assert any("content hash" in n for n in summary.notes)
    assert ResultRecord.read(path).main_score != 0.999 and ResultRecord.read(path).verified()


def test_stale_temp_files_are_swept(tmp_path):
    stale = tmp_path / ".shard-x.npz.abc.tmp"
    fresh = tmp_path / ".shard-y.npz.def.tmp"
    stale.write_bytes(b"x")
    fresh.write_bytes(b"y")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    assert sweep_stale_temp_files(tmp_path) == [stale]
    assert not stale.exists() and fresh.exists()


def test_dataset_by_dataset_equals_one_group(toy_plugin, tmp_path):
    chunked = _run(Projector(4), toy_plugin, tmp_path / "chunked")
    grouped = _run(Projector(4), toy_plugin, tmp_path / "grouped", max_memory="64G")
    assert {(r.dataset, r.task): r.metrics for r in chunked.results} == {
        (r.dataset, r.task): r.metrics for r in grouped.results
    }
    demo_a = evaluate("function-words", suite="demo", output=tmp_path / "da", cache_dir=tmp_path / "dc", progress=False)
    demo_b = evaluate(
        "function-words",
        suite="demo",
        output=tmp_path / "db",
        cache_dir=tmp_path / "dc2",
        progress=False,
        max_memory="64G",
    )
    assert {(r.dataset, r.task): r.metrics for r in demo_a.results} == {
        (r.dataset, r.task): r.metrics for r in demo_b.results
    }


DISTINCT_TEXTS_PLUGIN = """
import numpy as np
from steb_core import hookimpl, DatasetSpec, TaskSpec, DatasetBundle, LabelledText

def _loader(k):
    def load(ctx):
        return DatasetBundle(labelled_texts=[LabelledText(f"set {k} text {i} " + "xyz" * i, str(i % 2),
            id=str(i)) for i in range(12)])
    return load

def _mean_norm(ctx):
    return {"mean_norm": float(np.linalg.norm(ctx.embed([r.text for r in ctx.data]), axis=1).mean())}

@hookimpl
def register_datasets(register):
    for k in range(4):
        register(DatasetSpec(name=f"distinct{k}", description="texts of its own", tasks=("norm",), loader=_loader(k),
            suites=("distinct",), needs_data=False))

@hookimpl
def register_tasks(register):
    register(TaskSpec(name="norm", description="mean vector norm", shape="labelled_texts", main_metric="mean_norm",
        run=_mean_norm))
"""


def test_max_memory_groups_datasets_once_the_dimension_is_known(tmp_path):
    """Until the cache knows the model's dimension the runner cannot size a group, so the first dataset
    is encoded alone; after that, datasets that fit the budget are encoded together (one encoder call)."""
    plugin = tmp_path / "distinct_plugin.py"
    plugin.write_text(DISTINCT_TEXTS_PLUGIN)

    def run(model, name, **kw):
        return evaluate(
            model,
            suite="distinct",
            plugins=[str(plugin)],
            progress=False,
            output=tmp_path / name / "out",
            cache_dir=tmp_path / name / "cache",
            **kw,
        )

    chunked_model, grouped_model = Projector(4), Projector(4)
    chunked = run(chunked_model, "chunked")
    grouped = run(grouped_model, "grouped", max_memory="64G")
    probe_calls = 2  # identify() encodes its probe texts twice
    assert chunked_model.calls == probe_calls + 4  # one dataset per group
    assert grouped_model.calls == probe_calls + 2  # the first dataset alone, then the other three at once
    assert _scores(chunked) == _scores(grouped) and len(_scores(grouped)) == 4


RETRIEVAL_PLUGIN = """
from steb_core import hookimpl, DatasetSpec, DatasetBundle, RetrievalSet, TextCollection

def _load(ctx):
    queries = [TextCollection(f"a{a}", (f"query {a} one " + "ab" * a, f"query {a} two " + "cd" * a)) for a in range(8)]
    targets = [TextCollection(f"a{a}", (f"target {a} " + "ab" * a,)) for a in range(8)]
    return DatasetBundle(retrieval=RetrievalSet(tuple(queries), tuple(targets)))

@hookimpl
def register_datasets(register):
    register(DatasetSpec(name="episodes", description="retrieval over collections", tasks=("retrieval",),
        loader=_load, suites=("episodes",), needs_data=False))
"""


class EpisodeProjector(Projector):
    """A multi-text encoder: a collection's vector is the sum of its texts' (not their mean)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.collection_calls: list[int] = []

    def encode_collections(self, collections):
        self.collection_calls.append(len(collections))
        return np.stack([self.encode(list(c)).sum(axis=0) for c in collections])


def test_collection_vectors_are_cached_per_model(tmp_path):
    """Episode (collection) vectors go through the cache: a second run with the same model and cache
    but a fresh output folder encodes no collection again and gets the same scores."""
    plugin = tmp_path / "episodes_plugin.py"
    plugin.write_text(RETRIEVAL_PLUGIN)
    first_model, second_model = EpisodeProjector(5), EpisodeProjector(5)
    runs = [
        evaluate(
            model,
            suite="episodes",
            plugins=[str(plugin)],
            progress=False,
            output=tmp_path / f"out{i}",
            cache_dir=tmp_path / "cache",
        )
        for i, model in enumerate((first_model, second_model))
    ]
    assert first_model.collection_calls == [8, 8]  # queries, then targets; all distinct
    assert second_model.collection_calls == []
    assert _scores(runs[0]) == _scores(runs[1]) and len(_scores(runs[0])) == 1
    other = EpisodeProjector(6)  # another model: its own cache entries
    evaluate(
        other,
        suite="episodes",
        plugins=[str(plugin)],
        progress=False,
        output=tmp_path / "out-other",
        cache_dir=tmp_path / "cache",
    )
    assert other.collection_calls == [8, 8]


def test_collection_keys_never_equal_text_keys_and_keep_order():
    from steb_core._cache import collection_hash, text_hash

    assert collection_hash(["a text"]) != text_hash("a text")
    assert collection_hash(["one", "two"]) != collection_hash(["two", "one"])
    assert collection_hash(["one", "two"]) != collection_hash(["onetwo"])
    assert collection_hash(["one", "two"]) == collection_hash(("one", "two"))
