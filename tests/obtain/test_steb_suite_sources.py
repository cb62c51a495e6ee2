"""The STEB suite's sources as ``steb data get --suite steb --dry-run`` plans them (issue 39).

Only datasets whose publisher requires a registration or an access request are left by hand (PAN's Zenodo
request-access records, PAN25's TIRA registration), plus EnDive, whose per-task hub datasets steb has not
verified. A dataset that slips back to "by hand", or a by-hand one made automatic, changes these figures on
purpose: update them with the README's counts.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from steb_core import cli as cli_module

pytestmark = pytest.mark.usefixtures("wide_cli_console")

BY_HAND = {
    "pan15_authorship_verification_english_test",  # Zenodo: request access
    "pan20_authorship_verification_test",  # Zenodo: request access
    "pan21_authorship_verification_test",  # Zenodo: request access
    "machine_text_detection_PAN25_26_essays",  # Zenodo access after a TIRA registration
    "machine_text_detection_PAN25_26_fiction",
    "machine_text_detection_PAN25_26_news",
    "machine_text_detection_PAN25_collaborative",
    "endive",  # no hub files steb has verified
}


def test_steb_suite_is_automatic_except_where_access_must_be_requested(tmp_path):
    args = ["data", "get", "--suite", "steb", "--dry-run", "--data-dir", str(tmp_path / "data")]
    result = CliRunner().invoke(cli_module.build_app(args), args)
    assert result.exit_code == 0, result.output
    assert "96 datasets: 51 automatic, 37 after licence acceptance, 8 by hand only" in result.output
    manual = {line.split("\t")[0] for line in result.output.splitlines() if re.match(r"^\S+\tmanual\t", line)}
    assert manual == BY_HAND
    assert not any(tmp_path.iterdir()), "a dry run writes nothing"
