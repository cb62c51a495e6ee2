"""Issue 15: STEL's (dataset, task) pairs in suite ``steb`` are the catalogue rows; the official instances
and STEL-or-Content stay in the ``stel`` suite."""

from __future__ import annotations

from steb_datasets_stel.plugin import stel_specs

SPECS = {s.name: s for s in stel_specs()}


def test_steb_suite_pairs_are_the_catalogue_rows() -> None:
    pairs = {(t, s.name) for s in SPECS.values() if "steb" in s.suites for t in s.tasks_for_suite("steb")}
    assert pairs == {("order_alignment", "STEL_register"), ("order_alignment", "STEL_feature")}
    assert dict(SPECS["STEL_register"].expected["order_alignment"]) == {"classes": 2, "per_class": 392, "texts": 784}
    assert dict(SPECS["STEL_feature"].expected["order_alignment"]) == {"classes": 3, "per_class": 200, "texts": 600}
    assert {n for n, s in SPECS.items() if "stel" in s.suites} == {
        "STEL_register_official",
        "STEL_feature_official",
        "STEL-or-Content_register",
        "STEL-or-Content_feature",
    }
