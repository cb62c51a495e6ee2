"""A plugin that ships data declares it as package data: the worked example's wheel holds its CSV.

Why: an editable install reads the source folder, so a plugin whose data files are not declared
works for its author and fails for everyone who installs the wheel (CONTRIBUTING, "A complete plugin").
The wheel is built into a temporary folder without installing anything.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "steb_datasets_example"


def test_example_plugin_wheel_contains_its_data(tmp_path):
    pytest.importorskip("setuptools")
    pytest.importorskip("wheel")
    source = tmp_path / "src"
    import shutil

    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "build"))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "steb_datasets_example/data/tiny_register.csv" in names
    assert "steb_datasets_example/plugin.py" in names
