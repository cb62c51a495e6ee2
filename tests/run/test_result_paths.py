"""Issue 41, item 10: the results of two datasets never share a file.

The file name of a result was the name's readable slug, which is not injective: ``a/b`` and ``a__b``, ``a b``
and ``a_b``, ``.x`` and ``x``, or two non-ASCII names (both ``unnamed``) wrote one file, so one dataset's result
replaced the other's and reruns flip-flopped (9 datasets, 7 result files). Now a name that is not already safe
gets its readable slug plus a hash of the exact name; safe names keep their path, and a result an older steb
wrote under a path that changed is moved, not recomputed.
"""

from __future__ import annotations

import json
import shutil

import pytest

from steb_core import DatasetSpec, PluginError, evaluate
from steb_core._plugins import new_manager, reset_manager
from steb_core._results import load_results, readable_slug, result_path, slug
from tests.support.toy_components import CountingEncoder

NAMES = ["a/b", "a__b", "a b", "a_b", ".x", "x", "CON", "日本語", "中文"]

PLUGIN = """
import numpy as np
from steb_core import hookimpl, DatasetSpec, TaskSpec, DatasetBundle, LabelledText

NAMES = {names!r}

def _loader(k):
    def load(ctx):
        texts = [LabelledText("text " + "abc" * (i + k + 1), "l" + str(i % 2), id=str(i)) for i in range(4 + k)]
        return DatasetBundle(labelled_texts=texts)
    return load

def _size(ctx):
    return {{"n": float(len(ctx.data))}}

@hookimpl
def register_datasets(register):
    for k, name in enumerate(NAMES):
        register(DatasetSpec(name=name, description="odd name", tasks=("size",), loader=_loader(k), suites=("odd",),
                             needs_data=False))

@hookimpl
def register_tasks(register):
    register(TaskSpec(name="size", description="number of records", shape="labelled_texts", main_metric="n", run=_size))
"""


def _plugin(tmp_path, names=NAMES):
    path = tmp_path / "odd_names.py"
    path.write_text(PLUGIN.format(names=names))
    return path


def _run(tmp_path, plugin):
    reset_manager()
    return evaluate(
        CountingEncoder(),
        suite="odd",
        plugins=[str(plugin)],
        output=tmp_path / "out",
        cache_dir=tmp_path / "cache",
        progress=False,
    )


def test_datasets_whose_slugs_collide_keep_a_result_file_each(tmp_path):
    plugin = _plugin(tmp_path)
    first = _run(tmp_path, plugin)
    assert not first.failures and len(first.results) == 9
    files = sorted((tmp_path / "out").rglob("size.json"))
    assert len(files) == 9  # was 7: a/b + a__b, a b + a_b, .x + x, both CJK names shared files
    stored = {r.dataset: r.main_score for r in load_results(tmp_path / "out")}
    assert stored == {name: float(4 + k) for k, name in enumerate(NAMES)}
    again = _run(tmp_path, plugin)
    assert len(again.reused) == 9 and not again.results  # no flip-flop: every result found again


def test_slug_is_injective_and_keeps_safe_names():
    slugs = [slug(n) for n in NAMES]
    assert len(set(slugs)) == len(NAMES)
    assert slug("x") == "x" and slug("a_b") == "a_b" and slug("STEL_register") == "STEL_register"  # paths unchanged
    assert slug("a/b").startswith("a__b~") and slug("CON").startswith("CON~")
    assert slug("日本語").startswith("unnamed~")
    assert slug("a/b") == slug("a/b") and all("/" not in s and "\\" not in s for s in slugs)
    assert len(slug("y" * 200)) < 100


@pytest.mark.parametrize("bad", ["", "  ", " padded", "line\nbreak", "tab\there", "nul\x00", "\ud800lone", "z" * 201])
def test_a_name_that_cannot_be_stored_is_refused_at_registration(tmp_path, bad):
    with pytest.raises(ValueError, match="name"):
        DatasetSpec(name=bad, description="d", tasks=("size",), loader=lambda ctx: None)
    manager = new_manager([str(_plugin(tmp_path, [bad, "fine"]))], entry_points=False, env=False)
    with pytest.raises(PluginError, match="register_datasets.*name"):  # the plugin's registration fails, saying why
        manager.datasets()


def test_results_of_an_older_steb_under_a_changed_path_are_moved_and_reused(tmp_path):
    plugin = _plugin(tmp_path, ["a/b", "plain"])
    first = _run(tmp_path, plugin)
    new = result_path(tmp_path / "out", "counting", "a/b", "size")
    old = tmp_path / "out" / "counting" / readable_slug("a/b") / "size.json"
    assert new.is_file() and new != old
    assert result_path(tmp_path / "out", "counting", "plain", "size").parent.name == "plain"  # safe: path kept
    old.parent.mkdir()
    shutil.move(str(new), old)  # what steb before this change wrote
    again = _run(tmp_path, plugin)
    assert len(again.reused) == 2 and not again.results
    assert new.is_file() and not old.exists() and any("moved" in note for note in again.notes)
    assert json.loads(new.read_text())["dataset"] == "a/b"
    assert {r.dataset for r in first.results} == {"a/b", "plain"}


def test_an_older_result_of_another_name_sharing_the_old_file_is_not_taken(tmp_path):
    """Under the old naming a/b and a__b shared OUT/counting/a__b/size.json: a record there for a__b is not a/b's."""
    plugin = _plugin(tmp_path, ["a/b", "a__b"])
    _run(tmp_path, plugin)
    ab = result_path(tmp_path / "out", "counting", "a/b", "size")
    ab.unlink()
    again = _run(tmp_path, plugin)
    assert [r.dataset for r in again.results] == ["a/b"] and [r.dataset for r in again.reused] == ["a__b"]
    assert json.loads(ab.read_text())["main_score"] == 4.0
