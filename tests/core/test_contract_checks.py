"""``steb_core.testing``'s contract checks (issue 48): they pass on steb's own components and fail, naming the
rule, on components that break it (a check that cannot fail would be no check)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from steb_core import DatasetBundle, DatasetSpec, EncoderSpec, LabelledText, OrderGroup, TaskSpec
from steb_core.testing import check_dataset_spec, check_encoder, check_task_spec


class Lengths:
    name = "lengths"

    def encode(self, texts):
        return np.array([[len(t), t.count(" ") + 1.0, sum(c.isupper() for c in t)] for t in texts], dtype=np.float32)


def test_steb_s_own_components_pass():
    from steb_core.demo import demo_datasets
    from steb_core.tasks import builtin_tasks

    demo = {spec.name: spec for spec in demo_datasets()}
    for spec in demo.values():
        check_dataset_spec(spec)
    tasks = {t.name: t for t in builtin_tasks()}
    for name in ("clustering", "pair_all", "pair_predefined"):
        metrics = check_task_spec(tasks[name])
        assert metrics[tasks[name].main_metric] is not None
    order = [s for s in demo.values() if "order_alignment" in s.tasks][0]
    check_task_spec(tasks["order_alignment"], order.loader(_ctx(order)))
    check_encoder(Lengths())
    check_encoder(EncoderSpec("lengths", "x", factory=lambda **o: Lengths()))


def _ctx(spec):
    from steb_core import LoadContext

    return LoadContext(spec.name, None)


def _texts(n=12):
    return [LabelledText(f"text number {i}" + "!" * (i % 3), str(i % 2), id=str(i)) for i in range(n)]


def test_a_dataset_check_fails_on_each_broken_rule(tmp_path):
    wrong_shape = DatasetSpec(
        "wrong", "x", ("pair_predefined",), lambda ctx: DatasetBundle(labelled_texts=_texts()), needs_data=False
    )
    with pytest.raises(AssertionError, match="feeds task 'pair_predefined' but its loader returned no 'pairs'"):
        check_dataset_spec(wrong_shape, data_dir=tmp_path)
    counter = itertools.count()

    def drifting(ctx):
        return DatasetBundle(labelled_texts=_texts(10 + next(counter)))

    with pytest.raises(AssertionError, match="two loads gave different 'labelled_texts' records"):
        check_dataset_spec(DatasetSpec("drift", "x", ("clustering",), drifting, needs_data=False))
    keyerror = DatasetSpec("keyerror", "x", ("clustering",), lambda ctx: {}["file"])
    with pytest.raises(AssertionError, match="with no data it raised KeyError"):
        check_dataset_spec(keyerror)
    not_a_bundle = DatasetSpec("plain", "x", ("clustering",), lambda ctx: _texts(), needs_data=False)
    with pytest.raises(AssertionError, match="returned list, expected DatasetBundle"):
        check_dataset_spec(not_a_bundle)


def test_a_dataset_check_refuses_task_defaults_no_task_reads():
    """Issue 48: a declared task default is an option the task type reads, with a value it takes (a typo would be
    ignored silently at run time, the data scored the task's default way)."""
    group = OrderGroup(anchors=("a", "b"), alternatives=("c", "d"), answer=(0, 1))

    def spec(declared, bundle_declared=None):
        def load(ctx):
            return DatasetBundle(order_groups=[group], task_defaults=bundle_declared or {})

        return DatasetSpec("oa", "x", ("order_alignment",), load, needs_data=False, task_defaults=declared)

    check_dataset_spec(spec({"order_alignment": {"scoring": "steb-reference", "ties": "split"}}))
    with pytest.raises(AssertionError, match="spec declares task default 'order_alignment.scorng'"):
        check_dataset_spec(spec({"order_alignment": {"scorng": "stel"}}))
    with pytest.raises(AssertionError, match="bundle declares order_alignment.scoring='majority'"):
        check_dataset_spec(spec({}, {"order_alignment": {"scoring": "majority"}}))


def test_an_encoder_check_fails_on_each_broken_rule():
    class BatchMean(Lengths):
        def encode(self, texts):
            out = super().encode(texts)
            return out - out.mean(axis=0)  # depends on the batch

    class Noisy(Lengths):
        def encode(self, texts):
            return super().encode(texts) + np.random.default_rng().normal(size=(len(texts), 3))

    class Short(Lengths):
        def encode(self, texts):
            return super().encode(texts)[:-1]

    class MovingFingerprint(Lengths):
        calls = 0

        def fingerprint(self):
            self.calls += 1
            return f"v{self.calls}"

    with pytest.raises(AssertionError, match="depends on the batch"):
        check_encoder(BatchMean())
    with pytest.raises(AssertionError, match="two calls of encode"):
        check_encoder(Noisy())
    with pytest.raises(AssertionError, match=r"gave shape \(7, 3\), expected \(8, d\)"):
        check_encoder(Short())
    with pytest.raises(AssertionError, match="fingerprint"):
        check_encoder(MovingFingerprint())


def test_a_task_check_fails_on_each_broken_rule():
    def spec(run, **kw):
        return TaskSpec("broken", "x", "labelled_texts", "score", run, **kw)

    with pytest.raises(AssertionError, match="main metric 'score' is None"):
        check_task_spec(spec(lambda ctx: {"other": 1.0}))
    with pytest.raises(AssertionError, match="main metric 'score' is nan"):
        check_task_spec(spec(lambda ctx: {"score": float("nan")}))
    rng = np.random.default_rng()
    with pytest.raises(AssertionError, match="two runs"):
        check_task_spec(spec(lambda ctx: {"score": float(rng.random())}))
    with pytest.raises(AssertionError, match="definitional columns read acc"):
        check_task_spec(spec(lambda ctx: {"score": 1.0}, column_metrics={"definitional": "acc"}))
    with pytest.raises(AssertionError, match="expected a mapping"):
        check_task_spec(spec(lambda ctx: [1.0]))
    groups = TaskSpec("groups", "x", "order_groups", "accuracy", lambda ctx: {"accuracy": 1.0})
    with pytest.raises(ValueError, match="give a DatasetBundle with 'order_groups' records"):
        check_task_spec(groups)
    bundle = DatasetBundle(order_groups=[OrderGroup(("a", "b"), ("c", "d"), (0, 1))])
    assert check_task_spec(groups, bundle) == {"accuracy": 1.0}
