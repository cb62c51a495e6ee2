"""Issue 29, item 7 (integrity and errors): what ``steb run`` trusts, ``steb report`` checks too.

- ``steb report`` used to print a hand-edited number; it now refuses a record whose content hash
  fails, as ``steb run`` refuses to reuse it;
- a cache shard whose vector rows were reordered against its keys gave every text another text's
  vector; shards carry a digest binding rows to keys, and a mismatch sets the shard aside;
- a full disk or read-only file system raised "No space left on device" naming no file;
- the remote-code refusal named ``--encoder-option``, which ``steb run`` does not have (it is ``-O``).
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pytest

from steb_core import DataValidationError, evaluate
from steb_core import _plugins as plugins_module
from steb_core._cache import EmbeddingCache, write_shard
from steb_core._io import atomic_write_text
from steb_core._results import load_results
from steb_core.cli import main
from tests.support.toy_components import CountingEncoder


def _run(tmp_path: Path, plugin: Path, **kwargs):
    plugins_module.reset_manager()
    return evaluate(
        CountingEncoder(),
        ["toy0", "toy1"],
        plugins=[str(plugin)],
        output=tmp_path / "out",
        cache_dir=tmp_path / "cache",
        progress=False,
        **kwargs,
    )


def test_report_refuses_a_hand_edited_result(tmp_path, toy_plugin, capsys):
    _run(tmp_path, toy_plugin)
    assert len(list(load_results(tmp_path / "out"))) == 4
    path = tmp_path / "out" / "counting" / "toy1" / "toy_task.json"
    data = json.loads(path.read_text())
    data["main_score"] = 0.99
    path.write_text(json.dumps(data))
    with pytest.raises(DataValidationError) as info:
        list(load_results(tmp_path / "out"))
    assert (info.value.path, info.value.field) == (str(path), "content_hash")
    assert len(list(load_results(tmp_path / "out", verify=False))) == 4
    plugins_module.reset_manager()
    with pytest.raises(SystemExit) as exit_info:
        main(["report", str(tmp_path / "out"), "--no-html", "-p", str(toy_plugin)])
    assert exit_info.value.code == 2 and "content hash" in capsys.readouterr().err
    assert not (tmp_path / "out" / "report" / "report.md").exists()


def test_permuted_shard_rows_are_detected_and_recomputed(tmp_path):
    vectors = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    keys = [f"{i:032x}" for i in range(4)]
    cache = EmbeddingCache(tmp_path, "enc", "proto")
    shard = cache.put(keys, vectors)
    np.testing.assert_array_equal(cache.get(keys), vectors)
    with np.load(shard, allow_pickle=False) as data:
        stored = {name: data[name] for name in data.files}
    stored["vectors"] = stored["vectors"][[1, 0, 2, 3]]  # two texts swap vectors; shapes and values stay valid
    np.savez(shard, **stored)
    fresh = EmbeddingCache(tmp_path, "enc", "proto")
    with pytest.raises(Exception, match="rows do not match its keys"):
        fresh.get(keys)
    assert (shard.parent / (shard.name + ".bad")).is_file() and keys[0] not in fresh
    # the same rows reordered together with their keys are still right
    order = [3, 1, 2, 0]
    other = EmbeddingCache(tmp_path / "other", "enc", "proto")
    write_shard(other.dir, [keys[i] for i in order], vectors[order])
    other.refresh()
    np.testing.assert_array_equal(other.get(keys), vectors)


def test_shard_with_rows_swapped_and_digest_dropped_is_not_trusted(tmp_path, toy_plugin):
    """Issue 41, item 7: swapping rows and dropping the digest used to pass every check (the digest was optional)."""
    first = _run(tmp_path, toy_plugin)
    shards = sorted((tmp_path / "cache").rglob("shard-*.npz"))
    assert shards
    for shard in shards:
        with np.load(shard, allow_pickle=False) as data:
            stored = {name: data[name] for name in data.files if name != "digest"}
        stored["vectors"] = stored["vectors"][::-1].copy()  # every text gets another text's vector
        np.savez(shard, **stored)
    plugins_module.reset_manager()
    again = evaluate(
        CountingEncoder(),
        ["toy0", "toy1"],
        plugins=[str(toy_plugin)],
        output=tmp_path / "fresh",
        cache_dir=tmp_path / "cache",
        progress=False,
    )
    assert again.texts_encoded > 0
    assert any("has no digest" in note and "set aside and recomputed" in note for note in again.notes), again.notes
    scores = {(r.dataset, r.task): r.main_score for r in first.results}
    assert {(r.dataset, r.task): r.main_score for r in again.results} == scores


def test_a_full_disk_names_the_file_being_written(tmp_path, monkeypatch):
    target = tmp_path / "out" / "result.json"

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OSError) as info:
        atomic_write_text(target, "{}")
    assert info.value.errno == errno.ENOSPC and str(target) in str(info.value)
    assert not list((tmp_path / "out").iterdir())  # no temp file left behind
    monkeypatch.undo()

    def read_only(src, dst):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", read_only)
    with pytest.raises(OSError) as info:
        atomic_write_text(target, "{}")
    assert info.value.errno == errno.EROFS and str(target) in str(info.value)


def test_the_remote_code_refusal_names_the_real_option(tmp_path, capsys):
    neural = pytest.importorskip("steb_models_neural.catalogue")
    named = next(m for m in neural.NAMED_MODELS if m.remote_code)
    spec = plugins_module.get_manager().encoders().get(named.name)
    with pytest.raises(Exception) as info:
        spec.factory(device="cpu")
    message = str(info.value)
    assert "-O trust_remote_code=true" in message and "--encoder-option" not in message
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert " -O " in capsys.readouterr().out  # the option the message names exists


# -- symbolic links ----------------------------------------------------------------------------------
def test_a_release_name_linking_outside_the_release_is_refused_inside_is_fine(tmp_path):
    from steb_core._io import release_path

    release, outside = tmp_path / "release", tmp_path / "secret"
    (release / "problem1").mkdir(parents=True)
    outside.mkdir()
    (outside / "known.txt").write_text("not part of the release")
    (release / "problem1" / "real.txt").write_text("inside")
    (release / "problem1" / "candidate-out").symlink_to(outside, target_is_directory=True)
    (release / "problem1" / "inside-link.txt").symlink_to(release / "problem1" / "real.txt")
    with pytest.raises(DataValidationError, match="outside the release folder") as info:
        release_path(
            release / "problem1",
            "candidate-out",
            path="problem-info.json",
            record="problem1",
            field="candidate-authors",
        )
    assert str(outside) in str(info.value) and info.value.field == "candidate-authors"
    with pytest.raises(DataValidationError, match="outside the release folder"):
        release_path(release / "problem1", "candidate-out/known.txt")
    assert release_path(release / "problem1", "inside-link.txt").read_text() == "inside"


def test_results_are_not_written_through_a_link_leading_out_of_the_output(tmp_path, toy_plugin):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "counting").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(DataValidationError, match="outside the output folder") as info:
        _run(tmp_path, toy_plugin)
    assert str(elsewhere) in str(info.value)
    assert not any(elsewhere.rglob("*.json"))
    # a link that stays inside the output folder is fine
    (tmp_path / "out" / "counting").unlink()
    (tmp_path / "out" / "real").mkdir()
    (tmp_path / "out" / "counting").symlink_to(tmp_path / "out" / "real", target_is_directory=True)
    summary = _run(tmp_path, toy_plugin)
    assert len(summary.results) == 4 and len(list((tmp_path / "out" / "real").rglob("*.json"))) == 4
