"""scikit-learn computed on the STEB reference machine's BLAS kernel, as an independent reference on every CPU.

steb's default pair scores are those of the reference machine's OpenBLAS Haswell ssyrk on two threads, emulated
(``steb_core.tasks._reference_products``). A test that checks them against scikit-learn's ``cosine_similarity``
on this CPU's own kernel holds only where that kernel is Haswell with two threads: ``make test-cpus`` showed
it failing under ``OPENBLAS_CORETYPE=Sandybridge`` (issue 50). So scikit-learn runs in a child process with
that kernel and thread count (OpenBLAS reads them when it loads), and the test compares with what it returns.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

__all__ = ["REFERENCE_KERNEL", "haswell_capable", "sklearn_cosine_on_the_reference_kernel"]

#: the reference machine's OpenBLAS kernel and thread count (README, "Exactness and the BLAS kernel")
REFERENCE_KERNEL = {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "2"}

_CHILD = """
import sys, numpy as np
from sklearn.metrics.pairwise import cosine_similarity
x = np.load(sys.argv[1], allow_pickle=False)
np.save(sys.argv[2], cosine_similarity(x, x))
"""


def haswell_capable() -> bool:
    """OpenBLAS's Haswell kernels need an x86-64 CPU with AVX2 and FMA3 (numpy's own CPU feature check)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    from numpy._core._multiarray_umath import __cpu_features__ as features

    return bool(features.get("AVX2") and features.get("FMA3"))


def sklearn_cosine_on_the_reference_kernel(x: np.ndarray, folder: Path) -> np.ndarray:
    """``cosine_similarity(x, x)`` as numpy computes it under :data:`REFERENCE_KERNEL` (skips where it cannot)."""
    if not haswell_capable():
        pytest.skip("OpenBLAS's Haswell kernels need AVX2 and FMA3")
    if (os.cpu_count() or 1) < 2:
        pytest.skip("OpenBLAS runs at most one thread per core: the reference's two threads need two cores")
    src, dst = Path(folder) / "x.npy", Path(folder) / "cosine.npy"
    np.save(src, np.asarray(x))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "NPY_DISABLE"))}
    env.update(REFERENCE_KERNEL)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(src), str(dst)], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return np.load(dst, allow_pickle=False)
