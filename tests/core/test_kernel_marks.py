"""``make test-cpus`` reruns the right tests, and the kernel variables it sets do change the bits (issue 50).

The marks come from ``tests/support/kernels.py`` at collection; ``tools/test-cpus`` selects by them. Checked:
the test that compared two batch compositions within 1e-9 is torch-marked, a neural-encoder test and the
Ray MiniLM test are too, the reference-products tests are BLAS-marked, a pure text test is neither; and
``ATEN_CPU_CAPABILITY=default`` gives other float32 bits than the CPU's own choice for the same product, so
a rerun under it is a different kernel and not the same run twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _marked(mark: str, *paths: str) -> set[str]:
    """The files of ``paths`` holding at least one test that ``-m mark`` selects."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", mark, *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return {line.split("::")[0] for line in out.stdout.splitlines() if "::" in line}


def test_marks_select_the_kernel_sensitive_tests():
    likelihood = "plugins/steb_scorers/tests/test_scorers_likelihood.py"
    ray_minilm = "plugins/steb_executor_ray/tests/test_ray_minilm.py"
    products = "tests/tasks/test_reference_products.py"
    text_only = "tests/core/test_hook_names.py"
    paths = [p for p in (likelihood, ray_minilm, products, text_only) if (ROOT / p).exists()]
    assert likelihood in paths and products in paths
    torch_files = _marked("torch_kernels", *paths)
    blas_files = _marked("blas_kernels", *paths)
    assert likelihood in torch_files and products not in torch_files
    if ray_minilm in paths and _marked("", ray_minilm):  # collected where ray is installed
        assert ray_minilm in torch_files
    assert products in blas_files
    if text_only in paths:
        assert text_only not in torch_files


def _product_digest(capability: str | None) -> str:
    code = (
        "import hashlib, torch\n"
        "g = torch.Generator().manual_seed(0)\n"
        "a, b = torch.randn(64, 300, generator=g), torch.randn(300, 50, generator=g)\n"
        "print(hashlib.sha256((a @ b).numpy().tobytes()).hexdigest())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    if capability is not None:
        env["ATEN_CPU_CAPABILITY"] = capability
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_default_capability_is_another_kernel_than_the_cpus_own():
    torch = pytest.importorskip("torch")
    if torch.backends.cpu.get_cpu_capability().lower() == "default":
        pytest.skip("this CPU's own ATen capability is already 'default'")
    own, default = _product_digest(None), _product_digest("default")
    assert own and default and own != default
