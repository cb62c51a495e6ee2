"""Fixtures every test folder of this repository shares (core tests, plugin tests, examples).

They live in ``tests/support/`` (the repository's test support, not installed with steb-core); pytest's
``pythonpath = ["."]`` (pyproject.toml) makes that folder importable from any test.
"""

pytest_plugins = ["tests.support.shared_data", "tests.support.kernels"]
