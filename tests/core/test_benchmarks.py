"""A benchmark is one registered object (issue 48 item 4): a plugin registers one through ``register_benchmarks``,
``--suite NAME`` runs exactly its (dataset, task) pairs, ``steb list benchmarks`` lists it; tag suites keep working.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from steb_core import BenchmarkSpec, StebError, load_results
from steb_core import cli as cli_module
from steb_core._errors import DuplicateComponentError

pytestmark = pytest.mark.usefixtures("wide_cli_console")  # tests/conftest.py

#: a third-party benchmark over two of the demo datasets: demo_registers by clustering only (it also feeds pair_all)
PLUGIN = """
from steb_core import BenchmarkSpec, hookimpl

@hookimpl
def register_benchmarks(register):
    register(
        BenchmarkSpec(
            name="mini",
            version="1",
            pairs=(("demo_registers", "clustering"), ("demo_formality", "order_alignment")),
            description="two demo datasets",
            clusters={"register": ("demo_registers", "demo_formality --oa_variant acc")},
            citation="@misc{mini, title={Mini}}",
        )
    )
"""


class Counts:
    name = "counts"

    def encode(self, texts):
        return np.array([[len(t), t.count(" ") + 1.0, t.count(",")] for t in texts], dtype=np.float32)


def _plugin(tmp_path, text=PLUGIN, name="mini_bench.py"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def invoke(*args):
    app = cli_module.build_app(list(args))
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_a_plugin_benchmark_runs_exactly_its_pairs(steb_isolated, tmp_path):
    summary = steb_isolated.run(Counts(), suite="mini", plugins=[_plugin(tmp_path)])
    assert not summary.failures
    assert sorted((r.dataset, r.task) for r in summary.results) == [
        ("demo_formality", "order_alignment"),
        ("demo_registers", "clustering"),  # not pair_all: the benchmark does not score it
    ]
    manager = steb_isolated.manager([_plugin(tmp_path)])
    assert manager.benchmarks().provider("mini").endswith("mini_bench.py")
    assert set(manager.benchmarks().names()) == {"mini", "steb", "steb-multilingual"}
    assert manager.benchmarks().provider("steb") == "steb_core.builtin"  # the core's STEB comes through the same hook


def test_tag_suites_still_work_beside_benchmarks(steb_isolated, tmp_path):
    from steb_core.run.selection import resolve_selection

    manager = steb_isolated.manager([_plugin(tmp_path)])
    demo = resolve_selection(manager, None, "demo")
    assert len(demo) == 6 and ("demo_registers", ("clustering", "pair_all")) in [(s.name, t) for s, t in demo]


def test_cli_lists_benchmarks_and_runs_one(tmp_path):
    plugin = _plugin(tmp_path)
    listed = invoke("list", "benchmarks", "--plugin", plugin, "--format", "json")
    assert listed.exit_code == 0, listed.output
    rows = {r["name"]: r for r in json.loads(listed.output)}
    assert rows["steb"]["datasets"] == 96 and rows["steb"]["pairs"] == 121 and rows["steb"]["clusters"] == 14
    assert rows["steb-multilingual"]["datasets"] == 17
    assert rows["mini"]["pairs"] == 2 and rows["mini"]["provider"].endswith("mini_bench.py")

    members = invoke("list", "datasets", "--suite", "mini", "--plugin", plugin, "--format", "json")
    assert {r["name"]: r["tasks"] for r in json.loads(members.output)} == {
        "demo_registers": ["clustering"],
        "demo_formality": ["order_alignment"],
    }
    assert all("mini" in r["suites"] for r in json.loads(members.output))

    out = tmp_path / "res"
    args = ("run", "-e", "function-words", "--suite", "mini", "--plugin", plugin, "-o", str(out), "--no-progress")
    ran = invoke(*args)
    assert ran.exit_code == 0, ran.output
    stored = sorted((r.dataset, r.task) for r in load_results(out))
    assert stored == [("demo_formality", "order_alignment"), ("demo_registers", "clustering")]


def test_a_benchmark_name_wins_over_a_tag_of_that_name(steb_isolated, tmp_path):
    from steb_core.run.selection import resolve_selection

    manager = steb_isolated.manager([_plugin(tmp_path, PLUGIN.replace('name="mini"', 'name="demo"'))])
    assert [(s.name, t) for s, t in resolve_selection(manager, None, "demo")] == [
        ("demo_formality", ("order_alignment",)),
        ("demo_registers", ("clustering",)),
    ]


def test_a_pair_the_dataset_does_not_feed_is_an_error_naming_both(steb_isolated, tmp_path):
    from steb_core.run.selection import resolve_selection

    text = PLUGIN.replace('("demo_registers", "clustering")', '("demo_registers", "retrieval")')
    manager = steb_isolated.manager([_plugin(tmp_path, text)])
    with pytest.raises(StebError, match=r"benchmark 'mini' .* scores dataset 'demo_registers' on \['retrieval'\]"):
        resolve_selection(manager, None, "mini")


def test_members_no_plugin_registers_are_noted_and_none_at_all_is_an_error(steb_isolated, tmp_path):
    from steb_core.run.selection import missing_benchmark_members, resolve_selection

    text = PLUGIN.replace('("demo_formality", "order_alignment")', '("elsewhere", "clustering")')
    summary = steb_isolated.run(Counts(), suite="mini", plugins=[_plugin(tmp_path, text)])
    assert [(r.dataset, r.task) for r in summary.results] == [("demo_registers", "clustering")]
    assert any("benchmark 'mini'" in n and "elsewhere" in n for n in summary.notes)

    only_absent = PLUGIN.replace(
        '("demo_registers", "clustering"), ("demo_formality", "order_alignment")', '("x", "y"),'
    )
    manager = steb_isolated.manager([_plugin(tmp_path, only_absent, "absent.py")])
    assert missing_benchmark_members(manager, "mini") == ["x"]
    with pytest.raises(StebError, match="no plugin registers any of them"):
        resolve_selection(manager, None, "mini")


def test_two_plugins_registering_one_benchmark_name_is_refused(steb_isolated, tmp_path):
    from steb_core.run.selection import resolve_selection

    manager = steb_isolated.manager([_plugin(tmp_path), _plugin(tmp_path, name="mini_again.py")])
    assert "mini" not in manager.benchmarks()
    with pytest.raises(DuplicateComponentError, match="mini"):
        resolve_selection(manager, None, "mini")


def test_an_unknown_suite_names_benchmarks_and_tags(steb_isolated, tmp_path):
    from steb_core.run.selection import resolve_selection

    manager = steb_isolated.manager([_plugin(tmp_path)])
    with pytest.raises(StebError, match="known suites: demo, mini, steb, steb-multilingual"):
        resolve_selection(manager, None, "minii")


def test_a_benchmark_spec_refuses_what_it_cannot_be():
    with pytest.raises(ValueError, match="twice"):
        BenchmarkSpec("b", "1", (("d", "clustering"), ("d", "clustering")))
    with pytest.raises(ValueError, match="no \\(dataset, task\\) pairs"):
        BenchmarkSpec("b", "1", ())
    with pytest.raises(ValueError, match="two names"):
        BenchmarkSpec("b", "1", (("d", "clustering", "x"),))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a version"):
        BenchmarkSpec("b", "", (("d", "clustering"),))
    with pytest.raises(ValueError, match="no entries"):
        BenchmarkSpec("b", "1", (("d", "clustering"),), clusters={"c": ()})
    spec = BenchmarkSpec("b", "1", [["d", "clustering"], ["d", "pair_all"], ["e", "retrieval"]], clusters={"c": "d"})
    assert spec.pairs == (("d", "clustering"), ("d", "pair_all"), ("e", "retrieval"))
    assert spec.datasets == ("d", "e") and spec.tasks_of("d") == ("clustering", "pair_all") and not spec.tasks_of("x")
    assert spec.clusters == {"c": ("d",)}


def test_a_report_of_a_benchmark_is_its_pairs_and_marks_a_partial_run(steb_isolated, tmp_path):
    """``steb report --suite NAME`` reads a benchmark as ``--suite`` runs it: its datasets' records, its pairs added
    to the scope, a run of part of it marked partial (a member's result outside the pairs stays in scope, as a tag
    suite keeps it)."""
    from steb_core.report.leaderboard import compute_leaderboards

    three = PLUGIN.replace(
        '("demo_formality", "order_alignment")', '("demo_formality", "order_alignment"), ("demo_probing", "probing")'
    )
    plugin = _plugin(tmp_path, three)
    summary = steb_isolated.run(Counts(), ["demo_registers", "demo_formality"], plugins=[plugin])
    assert {(r.dataset, r.task) for r in summary.results} >= {("demo_registers", "pair_all")}
    (board,) = compute_leaderboards(summary.results, suites=["mini"])
    assert set(board.table.expected) == {
        ("demo_registers", "clustering"),
        ("demo_registers", "pair_all"),
        ("demo_formality", "order_alignment"),
        ("demo_probing", "probing"),
    }
    assert board.coverage is not None and board.coverage.missing == (("demo_probing", "probing"),)
    assert board.title == "suite 'mini' (partial: 2 of 3 datasets (2 of 3 dataset-task pairs))"
    assert {d for (_, d, _) in board.table.records} == {"demo_registers", "demo_formality"}

    (tagged,) = compute_leaderboards(summary.results, suites=["demo"])  # the tag suite: every demo dataset's tasks
    assert ("demo_registers", "pair_all") in tagged.table.expected and len(tagged.table.expected) == 7
