"""Task options have their own channel, and a run key holds only the options its result depends on (issue 48).

The measurement of the issue: on the demo suite, ``--dataset-option order_alignment.ties=split`` recomputed all 7
results ("7 new, 0 reused", identical scores) and replaced their stored records. Now ``--task-option
order_alignment.ties=split`` recomputes the order-alignment results only; the old spelling still works, with a
deprecation warning, and names the same results.
"""

from __future__ import annotations

import warnings

import pytest
from typer.testing import CliRunner

from steb_core import StebError, evaluate
from steb_core import cli as cli_module

from .run_records import demo_run

pytestmark = pytest.mark.usefixtures("wide_cli_console")  # tests/conftest.py


_demo = demo_run  # the demo suite as the run-records test runs it


def _pairs(records):
    return sorted((r.dataset, r.task) for r in records)


def test_an_order_alignment_option_recomputes_order_alignment_only(tmp_path):
    first = _demo(tmp_path)
    assert len(first.results) == 7 and not first.reused
    by_pair = {(r.dataset, r.task): r for r in first.results}
    order = [p for p in by_pair if p[1] == "order_alignment"]
    assert order and len(order) < 7

    again = _demo(tmp_path, task_options={"order_alignment.ties": "split"})
    assert _pairs(again.results) == sorted(order)  # only order alignment is recomputed
    assert _pairs(again.reused) == sorted(p for p in by_pair if p not in order)
    for rec in again.reused:  # the reused records are the stored ones, untouched
        assert rec.run_key == by_pair[(rec.dataset, rec.task)].run_key
    for rec in again.results:
        assert rec.run_key != by_pair[(rec.dataset, rec.task)].run_key

    with pytest.warns(DeprecationWarning, match=r"order_alignment\.ties given as dataset options"):
        old = _demo(tmp_path, dataset_options={"order_alignment.ties": "split"})
    assert not old.results and len(old.reused) == 7  # the same keys as the new spelling
    assert any("--task-option order_alignment.ties" in n for n in old.notes)

    nested = _demo(tmp_path, task_options={"order_alignment": {"ties": "split"}})
    assert not nested.results and len(nested.reused) == 7


def test_the_cli_task_option_says_only_order_alignment_was_recomputed(tmp_path):
    common = ["run", "--encoder", "function-words", "--suite", "demo", "--output", str(tmp_path / "out")]
    common += ["--cache-dir", str(tmp_path / "cache"), "--prefetch", "0", "--no-progress"]

    def run(*extra):
        args = [*common, *extra]
        return CliRunner().invoke(cli_module.build_app(args), args, catch_exceptions=False)

    assert "7 new, 0 reused" in run().output
    out = run("--task-option", "order_alignment.ties=split").output
    n_order = out.count("order_alignment")
    assert n_order >= 1
    assert f"{n_order} new, {7 - n_order} reused" in out, out


def test_a_task_option_must_name_its_task_type(tmp_path):
    with pytest.raises(StebError, match="names no task type"):
        _demo(tmp_path, task_options={"ties": "split"})
    with pytest.raises(StebError, match="task type 'order_alignment' reads no option 'tie'"):
        _demo(tmp_path, task_options={"order_alignment.tie": "split"})


def test_a_loader_option_joins_the_keys_of_the_datasets_whose_loader_reads_it(tmp_path):
    """An option a loader reads is in its results' keys; one it does not read is not (no needless recompute)."""
    from steb_core import DatasetBundle, DatasetSpec, LabelledText
    from steb_core.run.option_use import key_options

    assert key_options("order_alignment", {"order_alignment.ties": "split", "pair_all.scores": "grid"}, {}, ()) == {
        "order_alignment.ties": "split"
    }
    assert key_options("clustering", {"tasks.device": "cpu"}, {"split": "a", "n": 1}, {"split"}) == {
        "tasks.device": "cpu",
        "split": "a",
    }

    def load(ctx, reads):
        for name in reads:
            ctx.options.get(name)
        texts = [LabelledText(f"text {i} {'!' * (i % 3)}", str(i % 2), id=str(i)) for i in range(10)]
        return DatasetBundle(labelled_texts=texts)

    specs = [
        DatasetSpec("reader", "reads split", ("clustering",), lambda ctx: load(ctx, ["split"]), needs_data=False),
        DatasetSpec("other", "reads nothing", ("clustering",), lambda ctx: load(ctx, []), needs_data=False),
    ]
    kwargs = dict(output=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False, prefetch=0, errors="raise")
    first = evaluate("function-words", specs, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # a loader option is no task option: no warning
        second = evaluate("function-words", specs, dataset_options={"split": "b"}, **kwargs)
    assert _pairs(second.results) == [("reader", "clustering")]
    assert _pairs(second.reused) == [("other", "clustering")]
    assert len(first.results) == 2
