"""The plan: sources grouped by target folder (a shared release fetched once, with every source any of its
datasets names), the licence gate by licence, dataset or target name, and the dry-run rows' actions."""

from __future__ import annotations

from steb_core import DatasetSpec, DataSource
from steb_core.obtain import MANIFEST, make_plan


def _spec(name: str, *sources: DataSource, license: str = "") -> DatasetSpec:
    return DatasetSpec(
        name=name,
        description="t",
        tasks=("clustering",),
        loader=lambda ctx: None,
        license=license,
        sources=tuple(sources),
    )


SHA = "a" * 40
GIT = DataSource("git", "https://github.com/o/r", revision=SHA, target="SHARED", licence="MIT")
EXTRA = DataSource("zenodo", "123", target="SHARED", licence="CC-BY-NC-4.0", accept=True)
HUB = DataSource("hf", "org/unpinned", licence="CC-BY-4.0")
BYHAND = DataSource("manual", "https://example.org/form", instructions="Fill in the form at https://example.org/form.")


def test_shared_target_gets_every_source_once_and_the_gate_applies_to_the_whole_folder():
    specs = [_spec("one", GIT), _spec("two", GIT, EXTRA), _spec("hub", HUB), _spec("hand", BYHAND)]
    plan = make_plan(specs)
    assert [(j.target, j.datasets) for j in plan.jobs] == [("hub", ["hub"])]
    (shared,) = plan.blocked
    assert shared.target == "SHARED" and shared.sources == [GIT, EXTRA] and shared.datasets == ["one", "two"]
    assert shared.licences == ["CC-BY-NC-4.0"]
    for accepted in (["cc-by-nc-4.0"], ["all"], ["two"], ["shared"]):
        assert [j.target for j in make_plan(specs, accepted).jobs] == ["SHARED", "hub"], accepted
    assert [j.target for j in make_plan(specs, ["MIT"]).jobs] == ["hub"]
    assert plan.figures() == {"automatic": 2, "licence": 1, "manual": 1, "builtin": 0}


def test_rows_say_what_happens(tmp_path):
    specs = [_spec("one", GIT), _spec("hub", HUB), _spec("hand", BYHAND), _spec("nosource", license="odd")]
    (tmp_path / "SHARED").mkdir()
    rows = {r.dataset: r for r in make_plan(specs, root=tmp_path).rows}
    assert rows["one"].action == "SHARED/ present, not fetched by steb (skipped; --force replaces it)"
    (tmp_path / "SHARED" / MANIFEST).write_text("{}")
    assert {r.dataset: r for r in make_plan(specs, root=tmp_path).rows}[
        "one"
    ].action == "SHARED/ present (skipped; --force fetches again)"
    assert rows["one"].source == f"https://github.com/o/r@{SHA[:12]}" and rows["one"].size == "?"
    assert (
        rows["hub"].action == "fetch into hub/; hub revision not pinned: fetches main, the manifest records its commit"
    )
    assert (
        rows["hand"].category == "manual"
        and rows["hand"].instructions == "Fill in the form at https://example.org/form."
    )
    assert rows["nosource"].category == "manual" and rows["nosource"].source == "no source recorded"
