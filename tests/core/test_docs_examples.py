"""The plugin examples in README.md and CONTRIBUTING.md are real code: extract and run them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def python_blocks(doc: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (REPO / doc).read_text(encoding="utf-8"), flags=re.S)


def block_containing(doc: str, marker: str) -> str:
    blocks = [b for b in python_blocks(doc) if marker in b]
    assert blocks, f"no python block in {doc} contains {marker!r}"
    return blocks[0]


def test_readme_plugin_example_registers_and_encodes(tmp_path):
    from steb_core import new_manager

    path = tmp_path / "mylab_encoders.py"
    path.write_text(block_containing("README.md", "register_encoders"))
    manager = new_manager([str(path)], entry_points=False, env=False)
    encoder = manager.encoders().get("exclamation-rate").factory()
    out = encoder.encode(["Hi!", "no"])
    np.testing.assert_allclose(out[:, 0], [1 / 3, 0.0])


def test_contributing_private_encoder_example(steb_isolated, tmp_path):
    plugin = tmp_path / "mylab" / "encoders.py"
    plugin.parent.mkdir()
    plugin.write_text(block_containing("CONTRIBUTING.md", "class PunctuationProfile"))
    test_code = block_containing("CONTRIBUTING.md", "def test_punct_profile_on_demo")
    namespace: dict = {}
    code = test_code.replace('"mylab/encoders.py"', repr(str(plugin)))
    exec(code, namespace)  # noqa: S102 - the guide's own example, run as written
    try:
        namespace["test_punct_profile_on_demo"](steb_isolated)
    except AssertionError:
        pytest.fail("the CONTRIBUTING example's own assertion failed")
    vec = steb_isolated.manager([str(plugin)]).encoders().get("punct-profile").factory().encode(["a,b."])[0]
    assert vec.sum() == pytest.approx(1.0)


def test_contributing_dataset_plugin_example(steb_isolated, tmp_path, monkeypatch):
    pkg = tmp_path / "src" / "steb_datasets_registers"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(block_containing("CONTRIBUTING.md", "def register_datasets"))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    namespace: dict = {}
    exec(block_containing("CONTRIBUTING.md", "def test_runs_end_to_end"), namespace)  # noqa: S102 - the guide's example
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    namespace["test_runs_end_to_end"](steb_isolated, tmp_path / "a")
    namespace["test_empty_text_is_reported_with_row_and_field"](tmp_path / "b")


def test_contributing_task_type_example(steb_isolated, tmp_path):
    """Worked example 4 ("Adding a task type"): the plugin file and its tests, run as the guide writes them."""
    plugin = tmp_path / "mylab" / "tasks.py"  # no mylab/__init__.py, as in the guide
    plugin.parent.mkdir()
    plugin.write_text(block_containing("CONTRIBUTING.md", "def run_nearest_centroid"))
    test_code = block_containing("CONTRIBUTING.md", "def test_nearest_centroid_is_scikit_learns")
    namespace: dict = {}
    exec(test_code.replace('"mylab/tasks.py"', repr(str(plugin))), namespace)  # noqa: S102 - the guide's example
    try:
        namespace["test_nearest_centroid_is_scikit_learns"](steb_isolated)
        namespace["test_the_task_keeps_steb_s_contract"](steb_isolated)
    except AssertionError:
        pytest.fail("the CONTRIBUTING task-type example's own assertion failed")
    # the example is not trivially right: the signal moves the score off chance, and a wrong rule would differ
    summary = steb_isolated.run(namespace["HashedWords"](), [_centroid_rows(namespace)], plugins=[str(plugin)])
    assert 0.5 < summary.results[0].main_score <= 1.0


def _centroid_rows(namespace: dict):
    import steb

    return steb.dataset_from(
        namespace["rows"](), shape="labelled_texts", name="centroid_rows", tasks=["nearest_centroid"]
    )


def test_contributing_benchmark_example_runs_its_pairs(steb_isolated, tmp_path):
    """CONTRIBUTING's "Adding a benchmark": the plugin as written, `--suite` with it on the demo datasets."""
    from steb_core import get_benchmarks

    plugin = tmp_path / "bench.py"
    plugin.write_text(block_containing("CONTRIBUTING.md", "register_benchmarks"), encoding="utf-8")
    steb_isolated.manager([str(plugin)])
    assert "registers-lite" in {b.name for b in get_benchmarks()}

    class Lengths:
        name = "lengths"

        def encode(self, texts):
            return np.array([[len(t), t.count(" ") + 1.0] for t in texts], dtype=np.float32)

    summary = steb_isolated.run(Lengths(), suite="registers-lite", plugins=[str(plugin)])
    assert sorted((r.dataset, r.task) for r in summary.results) == [
        ("demo_formality", "order_alignment"),
        ("demo_registers", "clustering"),
    ]
