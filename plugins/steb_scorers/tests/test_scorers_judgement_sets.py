"""Judgement sets (issue 49): Pauli et al.'s constructed test set in its real layout, Lai et al.'s release as a set,
the pauli2025 protocol, its figures list and CSV, the leaderboard, and the errors bad input gets.

The fixture writes the six files of github.com/AmaliePauli/style_transfer_evaluation's ``data/`` with their real
headers (files 1-2 and 3-6 differ) and synthetic text. ``STEB_PAULI_RELEASE`` (the clone's ``data/`` folder, or the
clone) runs the real-release test; it skips otherwise.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from steb_core import DataValidationError
from steb_scorers.judgement_sets.pauli import SUBSETS, load_pauli_constructed
from steb_scorers.metaeval.krippendorff import krippendorff_alpha
from steb_scorers.metaeval.pauli2025 import FIGURE_KEYS, ScoredRows, pauli_evaluate, score_table

HEADER_WITH_REFERENCE = (
    "sample_id,input,output,intention,source,style_to,reference,quest_nr,AnswerA_1,AnswerA_2,AnswerA_3,"
    "AnswerB_1,AnswerB_2,AnswerB_3,prolificID_1,prolificID_2,prolificID_3,annoB_mean,annoA_mean"
).split(",")
HEADER_WITHOUT_REFERENCE = (
    "sample_id,input,output,style_to,source_from,intention,step,quest_nr,AnswerA_1,AnswerA_2,AnswerA_3,"
    "AnswerB_1,AnswerB_2,AnswerB_3,prolificID_1,prolificID_2,prolificID_3,annoB_mean,annoA_mean"
).split(",")
STYLE_TO = {1: "positive", 2: "detoxified", 3: "catchy", 4: "polite", 5: "persuasive", 6: "formal"}


def write_pauli_fixture(folder: Path, rows_per_file: int = 6, seed: int = 0, drop: str = "") -> Path:
    """Six syntest_anno files in the release's layout; content ratings fall with the words the output changed."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for number in SUBSETS:
        header = [c for c in (HEADER_WITH_REFERENCE if number <= 2 else HEADER_WITHOUT_REFERENCE) if c != drop]
        with (folder / f"syntest_anno{number}.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=header, extrasaction="ignore")
            writer.writeheader()
            for i in range(rows_per_file):
                changed = i % 4
                words = [f"w{k}" for k in range(8)]
                output = " ".join(words[: 8 - changed] + ["new"] * changed)
                content = [int(np.clip(5 - changed + rng.integers(-1, 2), 1, 5)) for _ in range(3)]
                style = [int(rng.integers(2, 6)) for _ in range(3)]
                writer.writerow(
                    {
                        "sample_id": str(i // 2),
                        "input": " ".join(words),
                        "output": output,
                        "intention": ["style", "substitution", "insertion", "deletion"][changed],
                        "source": "wikinews",
                        "source_from": "synthetic",
                        "style_to": STYLE_TO[number],
                        "reference": " ".join(words[:7] + ["ref"]),
                        "step": "",
                        "quest_nr": str(i + 1),
                        **{f"AnswerA_{j + 1}": str(style[j]) for j in range(3)},
                        **{f"AnswerB_{j + 1}": str(content[j]) for j in range(3)},
                        **{f"prolificID_{j + 1}": f"worker{(i + j) % 5}" for j in range(3)},
                        "annoB_mean": str(np.mean(content)),
                        "annoA_mean": str(np.mean(style)),
                    }
                )
    return folder


def test_pauli_loader_reads_the_release_layout(tmp_path):
    table = load_pauli_constructed(write_pauli_fixture(tmp_path / "data"))
    assert len(table) == 36
    assert table.subsets() == ["sentiment", "detoxify", "catchy", "polite", "persuasive", "formal"]
    assert table.system is None
    refs = {s: all(table.references[i] for i in range(len(table)) if table.subset[i] == s) for s in table.subsets()}
    assert refs == {"sentiment": True, "detoxify": True, "catchy": False, "polite": False, "persuasive": False,
                    "formal": False}  # fmt: skip
    assert table.item_id[0] == "sentiment/0/1"
    assert table.ratings["content"].fields == ("AnswerB_1", "AnswerB_2", "AnswerB_3")
    # the authors' data.py: annoB_mean is the content rating, annoA_mean the style rating
    rows = list(csv.DictReader((tmp_path / "data" / "syntest_anno3.csv").open(encoding="utf-8")))
    np.testing.assert_allclose(table.mean("content")[12:18], [float(r["annoB_mean"]) for r in rows])
    np.testing.assert_allclose(table.mean("style")[12:18], [float(r["annoA_mean"]) for r in rows])
    assert table.target_style[0] == "positive"
    # the clone's root works too
    assert len(load_pauli_constructed(tmp_path)) == 36


def test_rating_outside_the_scale_names_file_row_and_field(tmp_path):
    folder = write_pauli_fixture(tmp_path / "data")
    path = folder / "syntest_anno4.csv"
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    rows[2]["AnswerB_2"] = "7"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=HEADER_WITHOUT_REFERENCE)
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(DataValidationError) as err:
        load_pauli_constructed(folder)
    message = str(err.value)
    assert "syntest_anno4.csv" in message and "row 3" in message and "'AnswerB_2'" in message
    assert "outside the scale" in message and "1-5" in message


def test_missing_annotator_column_names_the_file_and_column(tmp_path):
    folder = write_pauli_fixture(tmp_path / "data", drop="AnswerA_3")
    with pytest.raises(DataValidationError) as err:
        load_pauli_constructed(folder)
    message = str(err.value)
    assert "syntest_anno1.csv" in message and "AnswerA_3" in message and "header" in message


def test_subset_with_one_row_is_refused(tmp_path):
    folder = write_pauli_fixture(tmp_path / "data")
    path = folder / "syntest_anno5.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    with pytest.raises(DataValidationError) as err:
        load_pauli_constructed(folder)
    message = str(err.value)
    assert "syntest_anno5.csv" in message and "'persuasive'" in message and "field 'subset'" in message


def test_krippendorff_alpha_matches_the_reference_package():
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(3)
    for trial in range(6):
        data = rng.integers(1, 6, size=(40, 3)).astype(float)
        data[:, 1] = np.where(rng.random(40) < 0.6, data[:, 0], data[:, 1])  # some agreement
        data[rng.random((40, 3)) < 0.1] = np.nan  # missing ratings
        for level in ("nominal", "ordinal", "interval"):
            expected = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
            assert krippendorff_alpha(data, level) == pytest.approx(expected, abs=1e-9), (trial, level)


def test_pearson_and_p_value_match_hand_computed_on_random_data(tmp_path):
    from scipy import stats

    table = load_pauli_constructed(write_pauli_fixture(tmp_path / "data", rows_per_file=20, seed=1))
    rng = np.random.default_rng(5)
    scores = rng.normal(size=len(table)) + table.mean("content")
    report = pauli_evaluate(table, {"m": ScoredRows(scores)}, ["content"])
    for subset in [*table.subsets(), "ALL"]:
        rows = np.ones(len(table), bool) if subset == "ALL" else np.asarray(table.subset) == subset
        x, y = scores[rows], table.mean("content")[rows]
        r = float(
            np.sum((x - x.mean()) * (y - y.mean())) / np.sqrt(np.sum((x - x.mean()) ** 2) * np.sum((y - y.mean()) ** 2))
        )
        t = r * np.sqrt((x.size - 2) / (1 - r * r))
        p = 2 * stats.t.sf(abs(t), x.size - 2)
        cell = report["metrics"]["m"]["correlations"]["content"][subset]
        assert cell["pearson"] == pytest.approx(r, abs=1e-12)
        assert cell["p_value"] == pytest.approx(p, rel=1e-6)


def test_reference_scorer_runs_on_the_rows_with_references(tmp_path):
    from steb_scorers.lexical import BleuScorer

    table = load_pauli_constructed(write_pauli_fixture(tmp_path / "data"))
    scored = score_table(table, BleuScorer(against="reference", variant="pauli"))
    assert np.isfinite(scored.scores[:12]).all() and np.isnan(scored.scores[12:]).all()
    report = pauli_evaluate(table, {"r": scored}, ["content"])
    assert set(report["metrics"]["r"]["correlations"]["content"]) == {"sentiment", "detoxify", "ALL"}
    assert report["metrics"]["r"]["correlations"]["content"]["ALL"]["n"] == 12


def _run(app, args):
    result = CliRunner().invoke(app, ["meta-eval", *args])
    assert result.exit_code == 0, result.output
    return result


def test_cli_figures_list_and_csv(tmp_path, scorers_app):
    folder = write_pauli_fixture(tmp_path / "clone" / "data")
    specs = ["-s", "bleu:against=source,variant=pauli", "-s", "bleu:against=reference,variant=pauli"]
    out = tmp_path / "out.json"
    args = ["--data", str(folder), "--protocol", "pauli2025", "--aspect", "content", "--aspect", "style", *specs]
    _run(scorers_app, [*args, "-o", str(out)])
    report = json.loads(out.read_text())
    figures = report["figures"]
    assert all(tuple(f) == FIGURE_KEYS for f in figures)
    assert {f["subset"] for f in figures} == {*SUBSETS.values(), "ALL"}
    human = [f for f in figures if f["scorer"] is None]
    assert {f["statistic"] for f in human} == {
        "krippendorff_alpha_ordinal",
        "krippendorff_alpha_interval",
        "krippendorff_alpha_nominal",
        "share_mean_at_least_3",
    }
    s_bleu = [f for f in figures if f["scorer"] == "bleu:against=source,variant=pauli" and f["statistic"] == "pearson"]
    assert len(s_bleu) == 2 * 7 and all(f["p_value"] is not None for f in s_bleu)
    r_bleu = {(f["aspect"], f["subset"]) for f in figures if f["scorer"] == specs[3] and f["statistic"] == "pearson"}
    assert r_bleu == {(a, s) for a in ("content", "style") for s in ("sentiment", "detoxify", "ALL")}
    csv_out = tmp_path / "out.csv"
    _run(scorers_app, [*args, "--format", "csv", "-o", str(csv_out)])
    rows = list(csv.DictReader(csv_out.open(encoding="utf-8")))
    assert len(rows) == len(figures)
    for row, figure in zip(rows, figures):
        assert row["statistic"] == figure["statistic"] and row["subset"] == figure["subset"]
        assert (row["scorer"] or None) == figure["scorer"]
        assert (float(row["value"]) if row["value"] else None) == pytest.approx(figure["value"])


def test_leaderboard_over_two_sets(tmp_path, scorers_app, monkeypatch):
    """Two registered sets (the second a copy under another name) give metrics x sets with the average rank."""
    from steb_core import JudgementSetSpec, hookimpl, register_object, reset_manager

    class Extra:
        @hookimpl
        def register_judgement_sets(self, register):
            register(JudgementSetSpec("pauli-copy", "a copy", load_pauli_constructed, aspects=("content",)))

    reset_manager()
    unregister = register_object(Extra(), "test-extra-set")
    try:
        a = write_pauli_fixture(tmp_path / "a", seed=1)
        b = write_pauli_fixture(tmp_path / "b", seed=2)
        board = tmp_path / "board.md"
        args = ["--set", "pauli2025-constructed", "--set", "pauli-copy", "--data", f"pauli2025-constructed={a}"]
        args += ["--data", f"pauli-copy={b}", "--aspect", "content", "-s", "bleu:against=source,variant=pauli"]
        args += ["-s", "chrf:against=source", "--leaderboard", str(board), "-o", str(tmp_path / "o.json")]
        _run(scorers_app, args)
        text = board.read_text()
        assert "average rank" in text and "pauli-copy" in text and "`chrf:against=source`" in text
        report = json.loads((tmp_path / "o.json").read_text())
        rows = report["leaderboard"]["aspects"]["content"]
        for row in rows:
            ranks = list(row["rank"].values())
            assert row["average_rank"] == pytest.approx(np.mean(ranks))
        assert {f["set"] for f in report["figures"]} == {"pauli2025-constructed", "pauli-copy"}
        from steb_scorers.metaeval.leaderboard import leaderboard_csv, leaderboard_html

        assert leaderboard_csv(report["leaderboard"]).count("\n") == 1 + 2 * 2
        assert "data:image/png;base64," in leaderboard_html(report["leaderboard"])
    finally:
        unregister()
        reset_manager()


def test_lai_release_as_a_judgement_set(human_data_dir):
    from steb_scorers.judgement_sets.lai import load_lai_judgements

    table = load_lai_judgements(human_data_dir)
    assert len(table) == 720 and len(table.systems()) == 9
    assert table.subsets() == ["informal-to-formal", "formal-to-informal"]
    assert table.ratings["content"].scale.high == 100


PAULI_RELEASE = os.environ.get("STEB_PAULI_RELEASE")


@pytest.mark.skipif(not PAULI_RELEASE, reason="STEB_PAULI_RELEASE (a clone of AmaliePauli/style_transfer_evaluation)")
def test_real_release_gives_the_published_figures(tmp_path, scorers_app):
    """Table 5's S-BLEU (ALL -0.17, sentiment -0.82), §4.2's content alpha 0.768, Table 2's 88 % (sentiment)."""
    out = tmp_path / "out.json"
    args = ["--data", str(PAULI_RELEASE), "--protocol", "pauli2025", "--aspect", "content", "--aspect", "style"]
    _run(scorers_app, [*args, "-s", "bleu:against=source,variant=pauli", "-o", str(out)])
    report = json.loads(out.read_text())
    assert report["config"]["rows"] == 500
    pearson = report["metrics"]["bleu:against=source,variant=pauli"]["correlations"]["content"]
    assert round(pearson["ALL"]["pearson"], 2) == -0.17
    assert round(pearson["sentiment"]["pearson"], 2) == -0.82
    assert round(report["human"]["content"]["subsets"]["ALL"]["krippendorff_alpha_ordinal"], 3) == 0.768
    assert round(100 * report["human"]["style"]["subsets"]["sentiment"]["share_mean_at_least_3"]) == 88
