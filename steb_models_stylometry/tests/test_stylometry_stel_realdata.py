"""The STEL baselines through steb's order-alignment task on the real STEL sample, against STEL's rule by hand."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import steb_core
from steb_models_stylometry.stel_baselines import UppercaseSimilarity, WordLengthSimilarity


def _stel_dir() -> Path | None:
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / ".git").exists() or (parent / "pyproject.toml").is_file() and (parent / "steb_core").is_dir():
            candidate = parent.parent / "shared" / "data" / "stel"
            return candidate if candidate.is_dir() else None
    return None


def _stel_rule_accuracy(path: Path, sim) -> float:
    """STEL's quadruple decision: order 1 iff ||(1-s(A1,S1), 1-s(A2,S2))|| < ||(1-s(A1,S2), 1-s(A2,S1))||; tie = 0.5."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    a1, a2 = [r["Anchor 1"] for r in rows], [r["Anchor 2"] for r in rows]
    s1, s2 = [r["Alternative 1.1"] for r in rows], [r["Alternative 1.2"] for r in rows]
    keep = np.linalg.norm([1 - sim(a1, s1), 1 - sim(a2, s2)], axis=0)
    swap = np.linalg.norm([1 - sim(a1, s2), 1 - sim(a2, s1)], axis=0)
    truth = np.array([int(r["Correct Alternative"]) for r in rows])
    score = np.where(keep == swap, 0.5, np.where(keep < swap, truth == 1, truth == 2))
    return float(score.mean())


@pytest.mark.realdata
def test_baselines_match_stel_rule(tmp_path):
    stel = _stel_dir()
    if stel is None:
        pytest.skip("../shared/data/stel not found")
    manager = steb_core.get_manager()
    if "STEL_feature" not in manager.datasets() or "order_alignment" not in manager.tasks():
        pytest.skip("the STEL dataset plugin or the order-alignment task is not installed")
    root = tmp_path / "data"
    root.mkdir()
    (root / "STEL").symlink_to(stel, target_is_directory=True)
    cases = [
        ("stel-uppercase", UppercaseSimilarity(), "STEL_feature", "contraction", "quad_questions_char_contraction.tsv"),
        ("stel-word-length", WordLengthSimilarity(), "STEL_register", "formality", "quad_stel-dimension_formal-100_sample.tsv"),
    ]
    for name, method, dataset, style, file in cases:
        summary = steb_core.evaluate(name, [dataset], data_dir=root, output=tmp_path / "res", cache_dir=tmp_path / "cache", progress=False, fail_fast=True)
        by_type = {k: v for r in summary.results for k, v in r.metrics.get("accuracy_by_style_type", {}).items()}
        assert by_type[style] == pytest.approx(_stel_rule_accuracy(stel / file, method.similarity)), (name, style)
