"""The committed API reference matches the docstrings (regenerate: python -m steb_core._apidoc > docs/api.md)."""

from pathlib import Path

from steb_core._apidoc import render


def test_api_reference_is_in_sync():
    committed = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    assert committed == render(), "docs/api.md is stale: run `python -m steb_core._apidoc > docs/api.md`"
    assert "### `evaluate`" in committed and "max_memory" in committed and "### `OrderGroup`" in committed
