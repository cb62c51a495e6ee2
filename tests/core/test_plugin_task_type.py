"""A plugin's task type joins every aggregate column and the leaderboard export as a built-in does (issue 48).

The facts live on its :class:`TaskSpec` (column metrics, cheap-to-score, shape default, tree export); the
aggregators, the leaderboard, the run's order, ``dataset_from`` and ``steb export`` read them from the registered
specs instead of side tables naming the built-in task types.
"""

from __future__ import annotations

import json

import numpy as np

PLUGIN = """
from steb_core import CATEGORIES, DatasetBundle, DatasetSpec, LabelledText, MetricKey, TaskSpec, TreeExport, hookimpl

#: the leaderboard tree's task folder and metrics.json key of this task type, with the fixed episode folder
KEY = MetricKey("agreement", "agreement_mean", "agreement", "mean agreement", primary=True)
TREE_EXPORT = TreeExport("label_agreement", (KEY,), "1_1")


def run_agreement(ctx):
    vectors = ctx.embed([r.text for r in ctx.data])
    return {"agreement": float(vectors[:, 1].mean() > 1.0) * 0.5 + 0.25, "n_texts": len(ctx.data)}


@hookimpl
def register_tasks(register):
    register(
        TaskSpec(
            name="agreement",
            description="a plugin's task type",
            shape="labelled_texts",
            main_metric="agreement",
            run=run_agreement,
            column_metrics={"content-independence": "agreement"},
            tree_export=TREE_EXPORT,
        )
    )


def load(ctx):
    return DatasetBundle(
        labelled_texts=[LabelledText(f"text {i} " + "!" * (i % 2), str(i % 2), id=str(i)) for i in range(8)]
    )


@hookimpl
def register_datasets(register):
    register(
        DatasetSpec(
            name="agree_en",
            description="every tag",
            tasks=("agreement",),
            loader=load,
            needs_data=False,
            categories=CATEGORIES,
            applications=("ATD", "ATD-adversarial", "AV", "AV-easy", "AV-medium", "AV-hard", "AR"),
            content_independence=True,
        )
    )
    register(
        DatasetSpec(
            name="agree_de",
            description="multilingual",
            tasks=("agreement",),
            loader=load,
            needs_data=False,
            languages=("de",),
            applications=("multilingual",),
        )
    )
"""


class Counts:
    name = "counts"

    def encode(self, texts):
        return np.array([[len(t), t.count("!") + 1.0] for t in texts], dtype=np.float32)


def test_a_plugin_task_type_is_in_every_aggregate_column_and_in_the_export(steb_isolated, tmp_path):
    from steb_core.reference_tree.export import export_tree
    from steb_core.report.leaderboard import compute_leaderboard

    plugin = tmp_path / "agreement_plugin.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    summary = steb_isolated.run(Counts(), ["agree_en", "agree_de"], plugins=[str(plugin)])
    assert not summary.failures
    assert {(r.dataset, r.task) for r in summary.results} == {("agree_en", "agreement"), ("agree_de", "agreement")}

    board = compute_leaderboard(summary.results)  # the registered task specs: the plugin's included
    assert not board.dropped and not board.failures
    names = {a.name for a in board.aggregates}
    assert {"operational", "definitional", "applications", "multilingual"} <= names
    columns = board.all_columns()
    assert len(columns) > 20
    for column in columns:
        want = ("agree_de", "agreement") if column.name.startswith("multilingual") else ("agree_en", "agreement")
        assert want in column.inputs, column.name
        assert column.scores["counts"] is not None, column.name
    assert {c.name for c in columns} >= {"content-independence", "objects-of-study/idiolect", "av/AV-hard", "ar"}

    report = export_tree(summary.results, tmp_path / "tree", "counts", include_other=True, allow_partial=True)
    assert not report.skipped
    written = {item.dataset: item for item in report.written}
    assert written["agree_en"].path == "agree_en/counts/1_1/label_agreement/metrics.json"
    metrics = json.loads((tmp_path / "tree" / written["agree_en"].path).read_text(encoding="utf-8"))
    assert metrics == {"agreement_mean": 0.75}


def test_a_task_type_without_a_tree_export_is_listed_as_skipped(steb_isolated, tmp_path):
    from steb_core.reference_tree.export import export_tree

    plugin = tmp_path / "agreement_plugin.py"
    plugin.write_text(PLUGIN.replace("tree_export=TREE_EXPORT,", ""), encoding="utf-8")
    summary = steb_isolated.run(Counts(), ["agree_en"], plugins=[str(plugin)])
    clustering = steb_isolated.run(Counts(), ["demo_registers"], plugins=[str(plugin)], tasks=["clustering"])
    report = export_tree(
        [*summary.results, *clustering.results], tmp_path / "tree", "counts", include_other=True, allow_partial=True
    )
    assert [(s.dataset, s.task) for s in report.skipped] == [("agree_en", "agreement")]
    assert "no leaderboard export" in report.skipped[0].reason
    assert [i.task for i in report.written] == ["clustering"]


def test_the_side_tables_are_the_built_in_specs_facts():
    """What the aggregators, the run's order and dataset_from read is what the built-in specs say (and what the
    tables removed by issue 48 held)."""
    from steb_core._inmemory import default_tasks
    from steb_core.aggregators.table import ResultTable
    from steb_core.run.order import cheap_task_types

    table = ResultTable.build([])
    assert table.metrics("operational")["order_alignment"] == ("distractor_accuracy", "accuracy")
    assert table.metrics("definitional")["order_alignment"] == ("accuracy", "distractor_accuracy")
    assert table.metrics("content-independence") == {"order_alignment": "distractor_accuracy"}
    strict = {"clustering": "v_measure", "pair_all": "auroc", "pair_predefined": "auroc"}
    strict |= {"order_alignment": "distractor_accuracy", "retrieval": "mrr", "probing": "accuracy"}
    assert table.metrics("strict") == strict
    assert {k: v for k, v in table.metrics("operational").items() if k != "order_alignment"} == {
        k: v for k, v in strict.items() if k != "order_alignment"
    }
    assert cheap_task_types() == {"pair_predefined", "order_alignment"}
    assert default_tasks("labelled_texts") == ("clustering", "pair_all")
    assert default_tasks("order_groups") == ("order_alignment",)


def test_the_built_in_task_type_names_are_the_built_in_specs():
    """``TASK_TYPES`` stays a public constant (the built-in names, in report order): it must name the specs."""
    from steb_core import TASK_TYPES
    from steb_core.tasks import builtin_tasks

    assert TASK_TYPES == tuple(t.name for t in builtin_tasks())
