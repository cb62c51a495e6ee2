"""Issue 40: the run engine split into ``steb_core.run`` writes the records the one-module runner wrote.

The demo suite and a dozen synthetic STEB datasets of every task type (``max_memory`` groups, a forked
prefetch worker two datasets deep), each run twice (the second reuses every result), compared with the
records and summaries the fork point's code wrote (``run_records.json``; how and why: ``run_records.py``).
"""

from __future__ import annotations

import json

import pytest

from .run_records import SCENARIOS, differences, expected_for, observe

#: the records' probing and retrieval figures go through numpy's BLAS: rerun under other kernels by make test-cpus
pytestmark = pytest.mark.blas_kernels


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_records_and_summaries_are_those_of_the_fork_point(tmp_path, scenario):
    expected = expected_for(scenario)  # with the fields this CPU's BLAS kernel moves (run_records_kernels.json)
    got = observe(scenario, tmp_path)
    assert len(got["records"]) == {"demo": 7, "synthetic": 12}[scenario]
    assert got["summaries"][1]["reused"] == got["summaries"][0]["results"]  # the re-run reuses every result
    found = differences(expected, got)
    assert not found, f"{scenario}: {len(found)} differences, e.g.\n" + "\n".join(found[:20])


def test_the_comparison_sees_a_changed_score_a_changed_key_and_a_missing_record():
    """The comparison itself: a float beyond the tolerance, any string, a missing key all count; a last-bit
    difference in a float does not (another CPU's rounding)."""
    expected = {"records": {"a.json": {"main_score": 0.5, "run_key": "k1", "counts": {"texts": 4}}}}
    assert differences(expected, json.loads(json.dumps(expected))) == []
    near = {"records": {"a.json": {"main_score": 0.5 * (1 + 1e-12), "run_key": "k1", "counts": {"texts": 4}}}}
    assert differences(expected, near) == []
    for changed in (
        {"main_score": 0.5001, "run_key": "k1", "counts": {"texts": 4}},
        {"main_score": 0.5, "run_key": "k2", "counts": {"texts": 4}},
        {"main_score": 0.5, "run_key": "k1", "counts": {"texts": 5}},
        {"main_score": 0.5, "run_key": "k1", "counts": {}},
        {"main_score": 0.5, "counts": {"texts": 4}},
    ):
        assert differences(expected, {"records": {"a.json": changed}}), changed
    assert differences(expected, {"records": {}})
