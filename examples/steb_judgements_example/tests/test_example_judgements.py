"""The example judgement set loads through steb's plugin machinery and runs under ``steb meta-eval --set``."""

from __future__ import annotations

import json

import pytest

from steb_core import get_manager, register_object, reset_manager


@pytest.fixture
def example_registered():
    from steb_judgements_example import plugin

    reset_manager()
    manager = get_manager()
    if "example-politeness" not in manager.judgement_sets():  # not installed through its entry point
        unregister = register_object(plugin, "example-judgements-test")
    else:
        unregister = None
    yield
    if unregister:
        unregister()
    reset_manager()


def test_example_set_runs_under_meta_eval(example_registered, tmp_path):
    pytest.importorskip("steb_scorers")
    from typer.testing import CliRunner

    from steb_core.cli import build_app

    out = tmp_path / "out.json"
    args = ["meta-eval", "--set", "example-politeness", "-s", "chrf:against=source", "-o", str(out)]
    result = CliRunner().invoke(build_app(args), args)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["config"]["subsets"] == ["polite", "formal"]
    assert {f["subset"] for f in report["figures"]} == {"polite", "formal", "ALL"}
    listing = CliRunner().invoke(build_app([]), ["list", "judgement-sets", "--format", "json"])
    assert "example-politeness" in listing.output
