"""Issue 45 item 4: ranks with bootstrap intervals in `steb report`, and `steb compare A B` (McNemar, paired
bootstrap), checked against hand-computed values, scipy and statsmodels."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

import steb_core
from steb_core import cli as cli_module
from steb_core._instances import read_instances
from steb_core.report import build_report, compute_leaderboard
from steb_core.report.compare import compare_pair, mcnemar, paired_bootstrap
from steb_core.report.ranks import rank_intervals
from steb_core.report.synthetic import make_record, synthetic_results, write_results

pytestmark = pytest.mark.usefixtures("wide_cli_console")  # tests/conftest.py


def _board(scores: dict[str, dict[str, float]], draws: dict[str, list[float]] | None = None):
    """encoder -> dataset -> V-measure; ``draws``: encoder -> per-draw values (seeds 1..K) of each dataset."""
    records = []
    for enc, by_dataset in scores.items():
        for dataset, value in by_dataset.items():
            metrics = {"v_measure": value}
            if draws and enc in draws:
                values = draws[enc]
                metrics["draws"] = {
                    "k": len(values),
                    "seeds": list(range(1, len(values) + 1)),
                    "values": {"v_measure": values},
                }
            records.append(make_record(enc, dataset, "clustering", metrics, categories=("genre",)))
    return compute_leaderboard(records, datasets=None)


def test_rank_shares_are_the_hand_computed_bootstrap_probabilities():
    """Two datasets, A ahead by 0.3 on d1, B by 0.1 on d2. Drawing two columns with replacement: d1d1, d1d2, d2d1
    put A first, d2d2 puts B first, so P(A first) = 3/4 exactly; the 95% interval of A's rank is 1-2."""
    board = _board({"A": {"d1": 0.8, "d2": 0.4}, "B": {"d1": 0.5, "d2": 0.5}})
    ranks = rank_intervals(board, resamples=8000, seed=3)
    a, b = (next(r for r in ranks.rows if r.encoder == e) for e in ("A", "B"))
    assert (a.rank, b.rank) == (1, 2) and a.mean == pytest.approx(0.6) and b.mean == pytest.approx(0.5)
    assert a.distribution[0] == pytest.approx(0.75, abs=0.02)  # 5 binomial sd at 8000 replicates is 0.024
    assert b.distribution[0] == pytest.approx(0.25, abs=0.02)
    assert (a.low, a.high) == (1, 2) and (b.low, b.high) == (1, 2)
    assert ranks.level == 0.95 and "95% intervals" in ranks.method() and "8000 resamples" in ranks.method()
    again = rank_intervals(board, resamples=8000, seed=3)
    assert again == ranks  # seeded


def test_a_model_ahead_on_every_dataset_has_rank_interval_one():
    scores = {"A": {f"d{i}": 0.9 for i in range(6)}, "B": {f"d{i}": 0.5 + 0.03 * i for i in range(6)}}
    ranks = rank_intervals(_board(scores), resamples=500)
    assert [(r.encoder, r.low, r.high) for r in ranks.rows] == [("A", 1, 1), ("B", 2, 2)]


def test_draws_are_resampled_inside_their_column_with_the_hand_computed_probability():
    """One dataset: only the draws vary. A's 4 draws are 0.6, 0.6, 0.6, 0.4 (mean 0.55), B's all 0.5. A resample
    of A's draws has mean > 0.5 with fewer than two 0.4s, = 0.5 (a tie: both first) with two:
    P(A first) = P(X <= 2), P(B first) = P(X >= 2) for X ~ Binomial(4, 1/4)."""
    board = _board({"A": {"d": 0.55}, "B": {"d": 0.5}}, draws={"A": [0.6, 0.6, 0.6, 0.4], "B": [0.5] * 4})
    ranks = rank_intervals(board, resamples=8000, seed=1)
    binom = [math.comb(4, x) * 0.25**x * 0.75 ** (4 - x) for x in range(5)]
    a, b = (next(r for r in ranks.rows if r.encoder == e) for e in ("A", "B"))
    assert a.distribution[0] == pytest.approx(sum(binom[:3]), abs=0.015)
    assert b.distribution[0] == pytest.approx(sum(binom[2:]), abs=0.02)
    assert ranks.over_draws == ("A", "B") and "random draws of A, B" in ranks.method()


def test_report_prints_and_writes_rank_intervals(tmp_path):
    root = write_results(synthetic_results(("enc-a", "enc-b", "enc-c")), tmp_path / "results")
    buf = io.StringIO()
    paths = build_report(
        root, tmp_path / "report", console=Console(file=buf, width=200, color_system=None), html=False, resamples=200
    )
    out = buf.getvalue()
    assert "ranks [95% interval]:" in out and "paired bootstrap over" in out and "200 resamples" in out
    markdown = paths.markdown.read_text()
    assert "## Rank intervals" in markdown and "| 95% interval |" in markdown
    board = json.loads(paths.aggregates_json.read_text())["leaderboards"][0]
    assert board["ranks"]["resamples"] == 200 and {r["encoder"] for r in board["ranks"]["rows"]} == {
        "enc-a",
        "enc-b",
        "enc-c",
    }


# -- McNemar ---------------------------------------------------------------------------------------------------------


def _outcomes(only_a: int, only_b: int, both: int = 5, neither: int = 4):
    a = [1] * only_a + [0] * only_b + [1] * both + [0] * neither
    b = [0] * only_a + [1] * only_b + [1] * both + [0] * neither
    return a, b


def test_mcnemar_exact_is_the_hand_computed_binomial_p():
    """3 vs 12 discordant: two-sided exact p = 2 * P(X <= 3), X ~ Binomial(15, 1/2) = 2 * 576 / 32768."""
    only_a, only_b, _, p, name = mcnemar(*_outcomes(3, 12))
    assert (only_a, only_b, name) == (3, 12, "mcnemar-exact")
    assert p == pytest.approx(2 * (1 + 15 + 105 + 455) / 2**15, rel=1e-12)
    assert mcnemar(*_outcomes(0, 0))[3] == 1.0


def test_mcnemar_chi_square_is_the_hand_computed_statistic():
    """30 vs 12: (|30 - 12| - 1)^2 / 42 with one degree of freedom: p = erfc(sqrt(x / 2))."""
    _, _, statistic, p, name = mcnemar(*_outcomes(30, 12))
    assert name == "mcnemar-chi2" and statistic == pytest.approx(17**2 / 42, rel=1e-12)
    assert p == pytest.approx(math.erfc(math.sqrt(statistic / 2)), rel=1e-9)


@pytest.mark.parametrize("counts", [(3, 12), (7, 2), (30, 12), (40, 61)])
def test_mcnemar_agrees_with_statsmodels(counts):
    contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
    only_a, only_b = counts
    table = [[5, only_a], [only_b, 4]]
    exact = only_a + only_b < 25
    ref = contingency.mcnemar(table, exact=exact, correction=True)
    assert mcnemar(*_outcomes(only_a, only_b))[3] == pytest.approx(ref.pvalue, rel=1e-9)


# -- paired bootstrap ------------------------------------------------------------------------------------------------


def test_paired_bootstrap_interval_agrees_with_scipy():
    """The percentile interval of a mean difference, against scipy.stats.bootstrap (paired, percentile): the
    two are independent Monte Carlo estimates of the same quantiles."""
    from scipy.stats import bootstrap

    rng = np.random.default_rng(0)
    a = rng.random(400)
    b = np.clip(a - 0.05 + rng.normal(0, 0.2, 400), 0, 1)
    low, high, p, used = paired_bootstrap(
        lambda idx: float(a[idx].mean()),
        400,
        resamples=4000,
        level=0.95,
        seed=5,
        other=lambda idx: float(b[idx].mean()),
    )
    ref = bootstrap(
        (a, b),
        lambda x, y, axis=-1: x.mean(axis=axis) - y.mean(axis=axis),
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=4000,
        confidence_level=0.95,
        random_state=np.random.default_rng(9),
    ).confidence_interval
    width = ref.high - ref.low
    assert used == 4000 and abs(low - ref.low) < 0.1 * width and abs(high - ref.high) < 0.1 * width
    assert low < (a - b).mean() < high and p < 0.05


def _rec(enc, task, metric, value, fp="f" * 32, **extra):
    rec = make_record(enc, "d", task, {metric: value, **extra})
    return steb_core.ResultRecord(**{**rec.__dict__, "data_fingerprint": fp, "run_key": f"{enc}-key"})


def test_auroc_bootstrap_recomputes_roc_auc_on_the_same_trials():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(2)
    labels = (rng.random(300) < 0.5).astype(float)
    good = labels + rng.normal(0, 0.8, 300)
    poor = labels + rng.normal(0, 2.5, 300)
    rec_a = _rec("A", "pair_predefined", "auroc", roc_auc_score(labels, good))
    rec_b = _rec("B", "pair_predefined", "auroc", roc_auc_score(labels, poor))
    test = compare_pair(
        rec_a,
        rec_b,
        {"label": labels.tolist(), "score": good.tolist()},
        {"label": labels.tolist(), "score": poor.tolist()},
        resamples=400,
        level=0.95,
        seed=0,
    )
    assert test.test == "bootstrap" and test.n == 300
    assert test.difference == pytest.approx(roc_auc_score(labels, good) - roc_auc_score(labels, poor))
    assert test.low < test.difference < test.high and test.low > 0 and test.p_value < 0.05
    same = compare_pair(
        rec_a,
        _rec("B", "pair_predefined", "auroc", rec_a.main_score),
        {"label": labels.tolist(), "score": good.tolist()},
        {"label": labels.tolist(), "score": good.tolist()},
        resamples=100,
        level=0.95,
        seed=0,
    )
    assert (same.low, same.high, same.p_value) == (0.0, 0.0, 1.0)


def test_no_paired_test_on_different_data_or_without_instances():
    a = _rec("A", "clustering", "v_measure", 0.5)
    b = _rec("B", "clustering", "v_measure", 0.4, fp="e" * 32)
    assert "different data" in compare_pair(a, b, {}, {}, resamples=10, level=0.95, seed=0).note
    b = _rec("B", "clustering", "v_measure", 0.4)
    test = compare_pair(a, b, None, None, resamples=10, level=0.95, seed=0)
    assert not test.test and "no per-instance scores stored for A and B" in test.note
    pa = _rec("A", "pair_all", "auroc", 0.7)
    assert (
        "--draws"
        in compare_pair(pa, _rec("B", "pair_all", "auroc", 0.6), None, None, resamples=10, level=0.95, seed=0).note
    )


# -- end to end: a run keeps the per-instance scores, `steb compare` reads them ---------------------------------------


class _Words:
    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, sum(map(ord, w)) % self.dim] += 1
        return out + 1e-3


def test_run_keeps_per_instance_scores_and_compare_tests_each_dataset(tmp_path):
    out = tmp_path / "out"
    specs = steb_core.get_datasets(suite="demo")
    for enc in (_Words("words-16", 16), _Words("words-5", 5)):
        steb_core.evaluate(enc, specs, output=out, cache_dir=tmp_path / "cache", progress=False)
    records = {(r.encoder, r.task): r for r in steb_core.load_results(out)}
    oa = records[("words-16", "order_alignment")]
    kept = read_instances(out, oa)
    assert kept is not None and "per_instance" not in oa.metrics  # beside the record, not in it
    metric = oa.main_metric
    assert np.mean(kept[metric]) == pytest.approx(oa.metrics[metric], abs=1e-12)
    rr = read_instances(out, records[("words-16", "retrieval")])
    assert np.mean(rr["reciprocal_rank"]) == pytest.approx(records[("words-16", "retrieval")].metrics["mrr"], rel=1e-9)

    app = cli_module.build_app(["compare"])
    result = CliRunner().invoke(
        app, ["compare", str(out), "words-16", "words-5", "--resamples", "200", "-f", "json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    rows = {(r["dataset"], r["task"]): r for r in json.loads(result.output)}
    assert {t for _, t in rows} >= {"order_alignment", "clustering", "retrieval"}
    for (_, task), row in rows.items():
        if task == "order_alignment":
            assert row["test"].startswith("mcnemar") and row["only_a_right"] is not None
        elif task in ("clustering", "retrieval", "pair_predefined", "probing"):
            assert row["test"] == "bootstrap" and row["low"] <= row["high"], row
    table = CliRunner().invoke(app, ["compare", str(out), "words-16", "words-5", "--resamples", "50"])
    assert table.exit_code == 0 and "95% interval" in table.output and "McNemar" in table.output
    bad = CliRunner().invoke(app, ["compare", str(out), "words-16", "nope"])
    assert bad.exit_code != 0
