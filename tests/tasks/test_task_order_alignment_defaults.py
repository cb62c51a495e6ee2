"""Which rule scores a dataset's groups: the task default it declares (issue 48), not a string in its info.

Order: the run's ``order_alignment.scoring``, else the bundle's ``task_defaults`` (a loader option that builds other
groups), else the spec's, else the bundle's deprecated ``info["order_alignment_scoring"]`` (with a warning), else
STEL's rule. The two rules differ on the groups below, so a test sees which one ran from the credit, not only from
the ``scoring`` the metrics name.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from steb_core import (
    DatasetBundle,
    DatasetSpec,
    DataValidationError,
    OrderGroup,
    TaskContext,
    construction_task_defaults,
)
from steb_core._parallel_corpora import ALL_PAIRS_CONSTRUCTION, REFERENCE_CONSTRUCTION
from steb_core.tasks.order_alignment import run_order_alignment

# One quadruple on which the rules differ: two equal anchors (0, -1) against alternatives (1, 0) and (-0.6, 0.8).
# Cosines s = [[0, -0.8], [0, -0.8]]. The reference clamps them to 0: every cost 1 - max(s, 0) is 1, both assignments
# sum to 2, an exact tie that linear_sum_assignment breaks as the identity: credit 1 for the answer (0, 1) (split
# between the two assignments: 1/2). STEL's distances 1 - s are (1, 1.8) for the identity and (1.8, 1) for the swap:
# the same squares, a tie of two: credit 1/2.
TABLE = {
    "x0": np.array([0.0, -1.0]),
    "x1": np.array([0.0, -1.0]),
    "y0": np.array([1.0, 0.0]),
    "y1": np.array([-0.6, 0.8]),
}
GROUPS = [OrderGroup(anchors=("x0", "x1"), alternatives=("y0", "y1"), answer=(0, 1), style_type="s")]
STEL_CREDIT, REFERENCE_CREDIT = 0.5, 1.0


def context(*, spec_defaults=None, bundle_defaults=None, info=None, options=None) -> TaskContext:
    spec = DatasetSpec(
        name="d",
        description="d",
        tasks=("order_alignment",),
        loader=lambda ctx: None,
        needs_data=False,
        task_defaults=spec_defaults or {},
    )
    bundle = DatasetBundle(order_groups=GROUPS, info=dict(info or {}), task_defaults=bundle_defaults or {})

    def embed(texts):
        return np.stack([TABLE[t] for t in texts]).astype(np.float32)

    return TaskContext(dataset=spec, bundle=bundle, data=GROUPS, options=dict(options or {}), embed_fn=embed)


def scored(ctx: TaskContext) -> tuple[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # only the legacy test expects one
        got = run_order_alignment(ctx)
    return got["scoring"], got["accuracy"]


REFERENCE = construction_task_defaults(REFERENCE_CONSTRUCTION)
STEL = construction_task_defaults(ALL_PAIRS_CONSTRUCTION)


def test_the_two_rules_differ_on_the_groups():
    assert scored(context()) == ("stel", STEL_CREDIT)  # nothing declared: STEL's rule
    assert scored(context(options={"order_alignment.scoring": "steb-reference"})) == (
        "steb-reference",
        REFERENCE_CREDIT,
    )


def test_the_spec_declares_the_rule():
    assert REFERENCE == {"order_alignment": {"scoring": "steb-reference"}}
    assert scored(context(spec_defaults=REFERENCE)) == ("steb-reference", REFERENCE_CREDIT)


def test_the_bundle_refines_the_spec_and_the_run_option_overrides_both():
    # a loader that built steb-all-pairs/v1 groups on a dataset whose spec declares the reference's rule
    assert STEL == {"order_alignment": {"scoring": "stel"}}
    assert scored(context(spec_defaults=REFERENCE, bundle_defaults=STEL)) == ("stel", STEL_CREDIT)
    assert scored(
        context(spec_defaults=STEL, bundle_defaults=STEL, options={"order_alignment": {"scoring": "steb-reference"}})
    ) == ("steb-reference", REFERENCE_CREDIT)


def test_the_old_info_key_still_works_with_a_deprecation_warning():
    legacy = {"order_alignment_scoring": "steb-reference"}
    with pytest.warns(DeprecationWarning, match="task_defaults"):
        got = run_order_alignment(context(info=legacy))
    assert (got["scoring"], got["accuracy"]) == ("steb-reference", REFERENCE_CREDIT)
    # a declared default comes first, and then the old key is not read (no warning)
    assert scored(context(info=legacy, spec_defaults=STEL)) == ("stel", STEL_CREDIT)


def test_a_declared_rule_is_checked_like_the_run_option():
    with pytest.raises(DataValidationError, match="order_alignment.scoring"):
        run_order_alignment(context(spec_defaults={"order_alignment": {"scoring": "majority"}}))


def test_task_defaults_reach_every_option_of_the_task():
    # not only the rule: ties=split on the reference's tie above splits the credit between the two assignments
    ctx = context(spec_defaults={"order_alignment": {"scoring": "steb-reference", "ties": "split"}})
    got = run_order_alignment(ctx)
    assert got["ties"] == "split" and got["accuracy"] == 0.5
    assert ctx.task_default("order_alignment", "ties") == "split" and ctx.option("order_alignment", "ties") == "split"
    overridden = context(
        spec_defaults={"order_alignment": {"ties": "split"}}, options={"order_alignment.ties": "solver"}
    )
    assert overridden.option("order_alignment", "ties") == "solver"  # the run's option first


def test_bad_task_defaults_are_refused_naming_the_dataset_and_task():
    with pytest.raises(ValueError, match="dataset 'd'.*'clustering'.*does not feed"):
        context(spec_defaults={"clustering": {"k": 3}})
    with pytest.raises(ValueError, match=r"dataset 'd'.*task_defaults\['order_alignment'\]"):
        context(spec_defaults={"order_alignment": "stel"})
    with pytest.raises(DataValidationError, match="task_defaults"):
        DatasetBundle(order_groups=GROUPS, task_defaults={"order_alignment": "stel"})  # type: ignore[dict-item]
    with pytest.raises(DataValidationError, match="construction"):
        construction_task_defaults("steb-v0")
