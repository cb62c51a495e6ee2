"""tools/recompute_leaderboard.py: steb's aggregators recompute a leaderboard page's composite columns.

The page here is made up (two models, numbers chosen by hand); the real docs/leaderboard.md is the STEB authors'
text and is not kept in the repository (the issue 38 report gives the figures on its three stored versions).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "recompute_leaderboard.py"

OPERATIONAL_HEADER = " | ".join(
    [
        "| Model",
        "clustering (v_measure)",
        "all_to_all_pair_classification (auc)",
        "pre_defined_pair_classification (auc)",
        "order_alignment (distractor_acc_mean)",
        "retrieval (mrr)",
        "probing (average)",
        "STEB_score (avg) |",
    ]
)
DEFINITIONAL_HEADER = " | ".join(
    [
        "| Model",
        "Genre",
        "Register",
        "Time",
        "Demographics",
        "Dialect",
        "Idiolect",
        "Object of Study",
        "Linguistic Features",
        "Content Independence",
        "Definitional score |",
    ]
)
PAGE = f"""# Leaderboard

{OPERATIONAL_HEADER}
|---|---|---|---|---|---|---|---|
| m1 | **10.00** | 60.00 | 70.00 | *20.00* | 50.00 | 40.00 | 41.67 |
| m2 | *5.00* | **61.00** | 66.00 | **30.00** | 44.00 | 52.00 | **43.00** |

{DEFINITIONAL_HEADER}
|---|---|---|---|---|---|---|---|---|---|---|
| m1 | 60.00 | 40.00 | 45.00 | 35.00 | 50.00 | 70.00 | 50.00 | 70.00 | 30.00 | 50.00 |
| m2 | 30.00 | 30.00 | 30.00 | 30.00 | 30.00 | 30.00 | 30.00 | 60.00 | 15.00 | 35.00 |
"""


def _tool():
    spec = importlib.util.spec_from_file_location("recompute_leaderboard", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_composites_recomputed_by_hand(tmp_path):
    tool = _tool()
    got = {(m, c): (p, r) for m, c, p, r in tool.recompute(PAGE)}
    # m1: (60 + 40 + 45 + 35 + 50 + 70) / 6 = 50; (50 + 70 + 30) / 3 = 50; (10 + 60 + 70 + 20 + 50 + 40) / 6 = 41.666...
    assert got[("m1", "Object of Study")][1] == pytest.approx(50.0)
    assert got[("m1", "Definitional score")][1] == pytest.approx(50.0)
    assert got[("m1", "STEB_score (avg)")][1] == pytest.approx(250 / 6)
    # m2: 30; (30 + 60 + 15) / 3 = 35; (5 + 61 + 66 + 30 + 44 + 52) / 6 = 43
    assert got[("m2", "Definitional score")][1] == pytest.approx(35.0)
    assert got[("m2", "STEB_score (avg)")][1] == pytest.approx(43.0)
    page = tmp_path / "leaderboard.md"
    page.write_text(PAGE)
    assert tool.main([str(page)]) == 0
    # a composite the construction does not give is flagged
    page.write_text(PAGE.replace("| 70.00 | 30.00 | 50.00 |", "| 70.00 | 30.00 | 52.00 |"))
    assert tool.main([str(page)]) == 1
