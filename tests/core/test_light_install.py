"""A lighter install: steb-core plus the stylometry plugin runs the demo suite without torch (README,
"Lighter installs"). Slow: it builds a throw-away venv under the test's temporary folder (never the
shared .venv) and installs the two distributions from this checkout, their dependencies from the
package index, so it needs the registry and a few minutes.
"""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_core_and_stylometry_run_the_demo_without_torch(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"

    def run(*args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([str(python), *args], capture_output=True, text=True, timeout=1500, **kw)

    installed = run("-m", "pip", "install", "--quiet", str(ROOT), str(ROOT / "steb_models_stylometry"))
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert run("-c", "import torch").returncode != 0, "torch was pulled in by steb-core or steb-models-stylometry"
    steb = env_dir / "bin" / "steb"
    proc = subprocess.run(
        [
            str(steb),
            "run",
            "-e",
            "function-words",
            "--suite",
            "demo",
            "-o",
            str(tmp_path / "out"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "7 new" in proc.stdout
    assert run("-c", "import sys, steb_core, steb_models_stylometry; assert 'torch' not in sys.modules").returncode == 0
