"""The ``steb_isolated`` fixture sees only steb's built-ins, the local plugins a test passes and the installed
plugins it names (issue 29 item 7): another installed package must not change what a plugin's test runs."""

from __future__ import annotations

import importlib.metadata


def _installed_encoder_names() -> set[str]:
    """Names of entry points in group ``steb`` installed in this environment (the suite installs several)."""
    return {ep.name for ep in importlib.metadata.entry_points(group="steb")}


def test_installed_plugins_are_left_out_unless_named(steb_isolated, monkeypatch):
    assert {"stylometry", "neural"} <= _installed_encoder_names(), "the suite's environment installs both plugins"
    monkeypatch.setenv("STEB_PLUGINS", "steb_models_stylometry.plugin")  # ignored by the sandbox
    bare = steb_isolated.manager()
    assert "function-words" not in bare.encoders()
    assert "all-MiniLM-L6-v2" not in bare.encoders()
    assert "demo_registers" in bare.datasets()  # steb's built-ins stay

    picked = steb_isolated.manager(installed=["stylometry"])
    assert "function-words" in picked.encoders()
    assert "all-MiniLM-L6-v2" not in picked.encoders()


def test_the_sandbox_manager_is_the_one_evaluate_uses(steb_isolated):
    summary = steb_isolated.run("function-words", ["demo_registers"], installed=["stylometry"], tasks=["clustering"])
    assert summary.results and not summary.failures, summary.failures
