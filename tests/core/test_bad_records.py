"""Issue 29, item 5: one bad record fails its dataset (file, record, field), never the run or later runs.

Each case used to end the whole run, or every later run on the same folders, with a one-line error
naming no file: a PAN18 ground-truth entry that is not an object or whose author is not a string,
deeply nested JSON (RecursionError), a dataset plugin whose loader raises KeyError, a stored result
with ``"main_score": NaN`` or ``metrics`` as a list, a cache ``meta.json`` that is a list or has a bad
``dim``, and a ``meta.json`` whose ``dim`` disagrees with every shard (which set the valid shards aside
as ``.bad``). Runs use toy datasets from a local plugin (tests/core/conftest.py) next to the bad one.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from steb_core import DataValidationError, LoadContext, evaluate, iter_jsonl, parse_json, read_json
from steb_core import _plugins as plugins_module
from steb_core._results import ResultRecord, load_results
from steb_core.cli import main
from tests.support.toy_components import CountingEncoder

TOYS = ["toy0", "toy1", "toy2"]


def _run(tmp_path: Path, plugin: Path | list[Path], datasets=TOYS, **kwargs):
    plugins_module.reset_manager()
    kwargs.setdefault("output", tmp_path / "out")
    kwargs.setdefault("cache_dir", tmp_path / "cache")
    plugins = [str(p) for p in (plugin if isinstance(plugin, list) else [plugin])]
    return evaluate(CountingEncoder(), list(datasets), plugins=plugins, progress=False, **kwargs)


# -- deeply nested JSON ------------------------------------------------------------------------------
DEEP = "[" * 200_000 + "]" * 200_000


def test_deeply_nested_json_is_a_data_error_naming_the_file(tmp_path):
    with pytest.raises(DataValidationError, match="nested too deeply") as info:
        parse_json(DEEP, path="truth.json", record="problem-1")
    assert (info.value.path, info.value.record) == ("truth.json", "problem-1")
    doc = tmp_path / "truth.json"
    doc.write_text('{"changes": ' + DEEP + "}")
    with pytest.raises(DataValidationError) as info:
        read_json(doc)
    assert info.value.path == str(doc)
    rows = tmp_path / "pairs.jsonl"
    rows.write_text('{"id": "1"}\n{"id": ' + DEEP + "}\n")
    with pytest.raises(DataValidationError) as info:
        list(iter_jsonl(rows))
    assert (info.value.path, info.value.record) == (str(rows), "line 2")


# -- PAN18 ground truth ------------------------------------------------------------------------------
PAN18 = "pan18_cross_domain_authorship_attribution_english"


def _pan18(root: Path, entry) -> Path:
    release = root / PAN18 / "pan18-cross-domain-authorship-attribution-test-dataset2-2018-04-20"
    problem = release / "problem00001"
    (problem / "candidate00001").mkdir(parents=True)
    (problem / "unknown").mkdir()
    (release / "collection-info.json").write_text(
        json.dumps([{"problem-name": "problem00001", "language": "en", "encoding": "UTF-8"}])
    )
    (problem / "problem-info.json").write_text(
        json.dumps({"unknown-folder": "unknown", "candidate-authors": [{"author-name": "candidate00001"}]})
    )
    (problem / "candidate00001" / "known00001.txt").write_text("a known text\n")
    (problem / "unknown" / "unknown00001.txt").write_text("an unknown text\n")
    (problem / "ground-truth.json").write_text(json.dumps({"ground_truth": [entry]}))
    return problem / "ground-truth.json"


@pytest.mark.parametrize(
    "entry, field",
    [
        ({"unknown-text": "unknown00001.txt", "true-author": 7}, "true-author"),
        ({"unknown-text": "unknown00001.txt", "true-author": None}, "true-author"),
        ("candidate00001", None),
        (None, None),
        (7, None),
    ],
)
def test_pan18_bad_ground_truth_entry_fails_that_dataset_only(tmp_path, toy_plugin, entry, field):
    truth = _pan18(tmp_path / "data", entry)
    summary = _run(tmp_path, toy_plugin, datasets=[PAN18, *TOYS], data_dir=tmp_path / "data")
    assert [f.dataset for f in summary.failures] == [PAN18]
    error = summary.failures[0].error
    assert f"file {truth}" in error and "record ground_truth[0]" in error, error
    if field:
        assert f"field '{field}'" in error, error
    assert sorted({r.dataset for r in summary.results}) == TOYS  # the other datasets ran


# -- a plugin loader raising KeyError ---------------------------------------------------------------
BROKEN_LOADER = """
from steb_core import hookimpl, DatasetSpec

def _broken(ctx):
    record = {"text": "x"}
    return record["author"]

@hookimpl
def register_datasets(register):
    register(DatasetSpec(name="broken", description="a loader with a bug", tasks=("toy_task",), loader=_broken,
        needs_data=False))
"""


def test_a_loader_raising_keyerror_fails_its_dataset_and_names_where(tmp_path, toy_plugin, capsys):
    plugin = tmp_path / "broken_plugin.py"
    plugin.write_text(BROKEN_LOADER)
    summary = _run(tmp_path, [toy_plugin, plugin], datasets=["toy0", "broken", "toy1"])
    assert [f.dataset for f in summary.failures] == ["broken"]
    assert "KeyError: 'author'" in summary.failures[0].error and f"{plugin}:" in summary.failures[0].error
    assert sorted({r.dataset for r in summary.results}) == ["toy0", "toy1"]
    # the command line: the others run, the failure is named, the exit code says something failed
    plugins_module.reset_manager()
    with pytest.raises(SystemExit) as info:
        main(
            [
                "run",
                "--encoder",
                "function-words",
                "-d",
                "toy0",
                "-d",
                "broken",
                "-p",
                str(toy_plugin),
                "-p",
                str(plugin),
                "--output",
                str(tmp_path / "cli"),
                "--cache-dir",
                str(tmp_path / "cli-cache"),
                "--no-progress",
            ]
        )
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert "broken" in err and "KeyError" in err
    assert (tmp_path / "cli" / "function-words" / "toy0" / "toy_task.json").is_file()


# -- stored results ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "field, value",
    [
        ("main_score", float("nan")),
        ("main_score", "0.5"),
        ("metrics", [1, 2]),
        ("metrics", {"mean_norm": float("inf")}),
    ],
)
def test_a_bad_stored_result_is_recomputed_with_a_note(tmp_path, toy_plugin, field, value):
    first = _run(tmp_path, toy_plugin)
    assert len(first.results) == 6 and not first.failures
    path = tmp_path / "out" / "counting" / "toy1" / "toy_task.json"
    data = json.loads(path.read_text())
    data[field] = value
    path.write_text(json.dumps(data))  # json writes NaN and Infinity unless told not to
    again = _run(tmp_path, toy_plugin)
    assert not again.failures
    assert [(r.dataset, r.task) for r in again.results] == [("toy1", "toy_task")] and len(again.reused) == 5
    assert any(str(path) in note and f"field '{field}" in note for note in again.notes), (
        again.notes
    )  # metrics.mean_norm
    assert ResultRecord.read(path).verified()


def test_reading_a_bad_stored_result_names_file_and_field(tmp_path, toy_plugin):
    _run(tmp_path, toy_plugin)
    path = tmp_path / "out" / "counting" / "toy0" / "toy_task.json"
    data = json.loads(path.read_text())
    data["main_score"] = float("nan")
    path.write_text(json.dumps(data))
    with pytest.raises(DataValidationError) as info:
        ResultRecord.read(path)
    assert (info.value.path, info.value.field) == (str(path), "main_score")
    with pytest.raises(DataValidationError) as info:
        list(load_results(tmp_path / "out"))
    assert info.value.path == str(path)


# -- cache meta.json ---------------------------------------------------------------------------------
def _meta(cache: Path) -> Path:
    (meta,) = cache.glob("*/meta.json")
    return meta


@pytest.mark.parametrize(
    "content", ["[1, 2]", "{not json", '{"dim": "abc"}', '{"dim": -3}', '{"dim": true}', '{"dim": 5, "dim": 26}']
)
def test_a_broken_cache_meta_is_rebuilt_from_the_shards(tmp_path, toy_plugin, content):
    _run(tmp_path, toy_plugin)
    meta = _meta(tmp_path / "cache")
    shards = sorted(p.name for p in meta.parent.glob("shard-*.npz"))
    meta.write_text(content)
    summary = _run(tmp_path, toy_plugin, overwrite=True)
    assert not summary.failures and len(summary.results) == 6
    assert summary.texts_encoded == 0  # every vector still came from the cache
    assert any(str(meta) in note for note in summary.notes), summary.notes
    assert sorted(p.name for p in meta.parent.glob("shard-*.npz")) == shards and not list(meta.parent.glob("*.bad"))
    assert json.loads(meta.read_text())["dim"] == 26


def test_a_meta_dim_that_no_shard_has_does_not_condemn_the_shards(tmp_path, toy_plugin):
    _run(tmp_path, toy_plugin, batch_size=8)  # 40 distinct texts: 5 shards of 26 dimensions
    meta = _meta(tmp_path / "cache")
    shards = sorted(p.name for p in meta.parent.glob("shard-*.npz"))
    assert len(shards) == 5
    data = json.loads(meta.read_text())
    data["dim"] = 5
    meta.write_text(json.dumps(data))
    for _ in range(2):  # and the run after it is clean too
        summary = _run(tmp_path, toy_plugin, overwrite=True, batch_size=8)
        assert not summary.failures and len(summary.results) == 6 and summary.texts_encoded == 0
        assert sorted(p.name for p in meta.parent.glob("shard-*.npz")) == shards and not list(meta.parent.glob("*.bad"))
        assert json.loads(meta.read_text())["dim"] == 26
    plugins_module.reset_manager()


def test_a_shard_of_another_dimension_than_the_others_is_still_set_aside(tmp_path, toy_plugin):
    """The rule is 'meta.json is wrong when no shard has its dimension', not 'never condemn a shard'."""
    _run(tmp_path, toy_plugin, batch_size=8)
    meta = _meta(tmp_path / "cache")
    shard = sorted(meta.parent.glob("shard-*.npz"))[0]
    with np.load(shard, allow_pickle=False) as data:
        keys = data["keys"]
    np.savez(shard, keys=keys, vectors=np.ones((len(keys), 3), dtype=np.float32))
    summary = _run(tmp_path, toy_plugin, overwrite=True, batch_size=8)
    assert not summary.failures and len(summary.results) == 6
    assert summary.texts_encoded == len(keys)
    assert (shard.parent / (shard.name + ".bad")).is_file() and json.loads(meta.read_text())["dim"] == 26


def test_load_context_is_unchanged_for_good_data(tmp_path):
    """The PAN18 fixture of this file is valid when its entry is: the failures above come from the entry."""
    _pan18(tmp_path, {"unknown-text": "unknown00001.txt", "true-author": "candidate00001"})
    from steb_datasets_pan.catalogue import pan_datasets

    spec = {s.name: s for s in pan_datasets()}[PAN18]
    bundle = spec.loader(LoadContext(PAN18, tmp_path / PAN18))
    assert [q.author for q in bundle.retrieval.queries] == ["problem00001/candidate00001"]
