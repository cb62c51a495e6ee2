"""Report UX (issue 19) and one clear number per task (issue 14 §3): per-suite leaderboards, filters,
frozen clusters through the CLI, labelled main + companion metrics, legible plots."""

from __future__ import annotations

import csv
import io
import json

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from steb_core.report import build_report, choose_suites, compute_leaderboards
from steb_core.report.command import export_clusters_command, report_command
from steb_core.report.format import MISSING
from steb_core.report.synthetic import make_record, synthetic_results, write_results


def _stel_suite():
    """The datasets `steb run --suite stel` runs, from the installed STEL plugin (names are the plugin's)."""
    from steb_core._plugins import get_manager

    specs = sorted((s for s in get_manager().datasets() if "stel" in s.suites), key=lambda s: s.name)
    if not specs:
        pytest.skip("the STEL dataset plugin is not installed")
    return specs


def _stel_records(encoder="stel-uppercase", only=None):
    """stel-uppercase's results on the stel suite: 0.10, 0.20, ... in name order; datasets with
    distractors report distractor accuracy, the others plain accuracy only."""
    out = []
    for i, spec in enumerate(_stel_suite(), start=1):
        if only is not None and spec.name not in only:
            continue
        value = i / 10
        metrics = {"distractor_accuracy": value} if spec.content_independence else {"accuracy": value}
        out.append(
            make_record(
                encoder,
                spec.name,
                "order_alignment",
                metrics,
                categories=spec.categories,
                suites=spec.suites,
                content_independence=spec.content_independence,
            )
        )
    return out


def _console():
    buf = io.StringIO()
    return Console(file=buf, width=220, color_system=None), buf


def _app():
    app = typer.Typer()
    app.command("report")(report_command)
    app.command("export-clusters")(export_clusters_command)
    return app


@pytest.fixture(scope="module")
def readme_results(tmp_path_factory):
    """The README's steps: `steb run --suite demo --encoder function-words --output steb-results/demo`
    (run for real), then STEL results for stel-uppercase in steb-results."""
    from steb_core.cli import app

    root = tmp_path_factory.mktemp("readme") / "steb-results"
    result = CliRunner().invoke(
        app, ["run", "--suite", "demo", "--encoder", "function-words", "--output", str(root / "demo")]
    )
    assert result.exit_code == 0, result.output
    write_results(_stel_records(), root)
    return root


def test_readme_steps_give_a_leaderboard_with_numbers(readme_results, tmp_path):
    console, buf = _console()
    paths = build_report(readme_results, tmp_path / "rep", console=console, html=False)
    boards = {b.suite: b for b in paths.leaderboards}
    assert list(boards) == ["demo", "stel"]  # not 'steb', which holds STEL too but was barely run
    for board in boards.values():
        columns = board.main_columns()
        assert columns, board.suite
        for col in columns:  # every column shown has a number for every encoder
            assert all(col.scores[enc] is not None for enc in board.encoders), (board.suite, col.name)
    assert boards["demo"].encoders == ["function-words"] and boards["stel"].encoders == ["stel-uppercase"]
    # a column that cannot be complete for the suite is not a column of its leaderboard
    assert "objects-of-study" in boards["demo"].dropped and "Objects of study" not in [
        c.label for c in boards["demo"].main_columns()
    ]
    assert {"linguistic-features", "content-independence", "operational"} <= {
        c.name for c in boards["stel"].main_columns()
    }
    text = buf.getvalue()
    assert "incomplete" not in text.replace(f"{MISSING} incomplete", "")
    assert "suite 'demo'" in text and "suite 'stel'" in text
    # stel: operational = order alignment only, one cluster each (one model) = the mean of 0.1 ... n/10
    n = len(_stel_suite())
    assert boards["stel"].aggregate("operational").scores["stel-uppercase"] == pytest.approx(
        sum(range(1, n + 1)) / 10 / n
    )
    rows = list(csv.DictReader(paths.report_csv.open()))
    assert [(r["suite"], r["encoder"]) for r in rows] == [("demo", "function-words"), ("stel", "stel-uppercase")]
    assert [p.name for p in paths.clusters] == ["clusters-demo.json", "clusters-stel.json"]


def test_choose_suites_prefers_the_suite_that_was_run_in_full():
    from steb_core._plugins import get_manager

    specs = get_manager().datasets()
    recs = _stel_records()
    assert choose_suites(recs, specs) == ["stel"]
    recs.append(make_record("x", "loose", "clustering", {"v_measure": 0.1}))
    assert choose_suites(recs, specs) == ["stel", None]
    # without specs, the suites stored with the records decide; both look complete, so the larger 'b'
    # (d1, d3, d4) is taken first and 'a' only for d2, which 'b' lacks
    meta = [
        make_record("m", "d1", "clustering", {"v_measure": 0.1}, suites=("a", "b")),
        make_record("m", "d2", "clustering", {"v_measure": 0.1}, suites=("a",)),
        make_record("m", "d3", "clustering", {"v_measure": 0.1}, suites=("b",)),
        make_record("m", "d4", "clustering", {"v_measure": 0.1}, suites=("b",)),
    ]
    assert choose_suites(meta, None) == ["b", "a"]
    assert choose_suites(meta[:3], None) == ["a", "b"]  # d1, d2, d3: 'a' is {d1, d2} = 'b' is {d1, d3} in size; by name


def test_cli_filters_encoder_dataset_task_and_suite(readme_results, tmp_path):
    runner = CliRunner()
    out = tmp_path / "f"
    result = runner.invoke(
        _app(), ["report", str(readme_results), "--out", str(out), "--no-html", "--encoder", "stel-uppercase"]
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((out / "report.csv").open()))
    assert {r["encoder"] for r in rows} == {"stel-uppercase"}

    stel_one = _stel_suite()[0].name
    result = runner.invoke(
        _app(),
        [
            "report",
            str(readme_results),
            "--out",
            str(out),
            "--no-html",
            "--dataset",
            stel_one,
            "--dataset",
            "demo_probing",
        ],
    )
    assert result.exit_code == 0, result.output
    scores = {(r["dataset"]) for r in csv.DictReader((out / "scores.csv").open())}
    assert scores == {stel_one, "demo_probing"}

    result = runner.invoke(
        _app(), ["report", str(readme_results), "--out", str(out), "--no-html", "--task", "retrieval"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "aggregates.json").read_text())
    assert [b["suite"] for b in data["leaderboards"]] == ["demo"]
    assert data["leaderboards"][0]["scope"] == [["demo_authors_retrieval", "retrieval"]]

    # a named suite is required in full: with one STEL dataset run, the others are missing
    names = [s.name for s in _stel_suite()]
    partial = tmp_path / "partial"
    write_results(_stel_records(only={names[0]}), partial)
    result = runner.invoke(_app(), ["report", str(partial), "--out", str(out), "--no-html", "--suite", "stel"])
    assert result.exit_code == 0, result.output
    missing = {
        (r["dataset"], r["reason"])
        for r in csv.DictReader((out / "missing.csv").open())
        if r["column"] == "operational"
    }
    assert missing == {(d, "no result") for d in names[1:]}
    assert "incomplete for stel-uppercase" in result.output


def test_export_clusters_then_report_with_frozen_clusters(tmp_path):
    four = ("enc-a", "enc-b", "enc-c", "enc-d")
    write_results(synthetic_results(four), tmp_path / "four")
    two = [r for r in synthetic_results(four) if r.encoder in ("enc-a", "enc-b")]
    write_results(two, tmp_path / "two")
    runner = CliRunner()
    frozen = tmp_path / "frozen.json"
    result = runner.invoke(
        _app(), ["export-clusters", str(tmp_path / "four"), "--out", str(frozen), "--name", "four-models"]
    )
    assert result.exit_code == 0, result.output
    assert "from 4 model(s)" in result.output
    data = json.loads(frozen.read_text())
    assert data["name"] == "four-models" and data["n_models"] == 4

    full = build_report(tmp_path / "four", tmp_path / "r4", console=False, html=False, datasets=None).leaderboard
    plain = build_report(tmp_path / "two", tmp_path / "r2", console=False, html=False, datasets=None).leaderboard
    console, buf = _console()
    fixed = build_report(
        tmp_path / "two", tmp_path / "r2f", console=console, html=False, datasets=None, clusters=frozen
    ).leaderboard
    op_full, op_plain, op_fixed = (b.aggregate("operational") for b in (full, plain, fixed))
    for enc in ("enc-a", "enc-b"):
        assert op_fixed.scores[enc] == pytest.approx(op_full.scores[enc])
    # the synthetic run has redundant datasets, so discovering from two models (no clustering) differs
    assert any(op_plain.scores[e] != pytest.approx(op_full.scores[e]) for e in ("enc-a", "enc-b"))
    assert "frozen cluster set 'four-models'" in buf.getvalue() and "discovered from 4 model(s)" in buf.getvalue()
    assert "discovered from the 2 model(s)" in op_plain.details["cluster_source"]
    # the report's own clusters.json can be fed back: the same numbers again
    again = build_report(
        tmp_path / "two",
        tmp_path / "r2g",
        console=False,
        html=False,
        datasets=None,
        clusters=tmp_path / "r2f" / "clusters.json",
    )
    assert again.leaderboard.aggregate("operational").scores == pytest.approx(op_fixed.scores)


def test_per_dataset_cells_show_main_and_companion_metrics(tmp_path):
    recs = [
        make_record(
            "m",
            "demo_formality",
            "order_alignment",
            {"accuracy": 1.0, "distractor_accuracy": 0.0},
            categories=("register",),
        ),
        make_record("m", "STEL_register", "order_alignment", {"accuracy": 0.5}, categories=("register",)),
        make_record("m", "core", "clustering", {"v_measure": 0.25}, categories=("genre",)),
    ]
    write_results(recs, tmp_path / "res")
    paths = build_report(tmp_path / "res", tmp_path / "rep", console=False, html=False, datasets=None)
    md = paths.markdown.read_text()
    assert "| demo_formality | order_alignment | distractor_accuracy 0.0000 · accuracy 1.0000 |" in md
    # no distractors (STEL's quadruples): plain accuracy is the score, nothing to pair it with
    assert "| STEL_register | order_alignment | accuracy 0.5000 |" in md
    assert "| core | clustering | v_measure 0.2500 |" in md
    cell = paths.leaderboard.cell("m", "demo_formality", "order_alignment")
    assert (cell.metric, cell.value, cell.companions) == ("distractor_accuracy", 0.0, (("accuracy", 1.0),))


# --- plots ------------------------------------------------------------------------------------------


def _long_board():
    encoders = (
        "sentence-transformers/all-MiniLM-L6-v2",
        "function-words",
        "tfidf-char-3-5",
        "luar-base",
        "style-embedding",
        "roberta-base",
    )
    return compute_leaderboards(synthetic_results(encoders), datasets=None)[0]


def test_plots_are_legible_no_overlapping_labels_and_large_enough_text():
    from steb_core.report.plots import MIN_TEXT_PX, heatmap_figure, overlapping_labels, radar_figure, task_bars_figure

    board = _long_board()
    for make in (heatmap_figure, task_bars_figure, radar_figure):
        fig = make(board)
        assert fig is not None, make.__name__
        assert overlapping_labels(fig) == [], make.__name__
        sizes = [
            t.get_fontsize() * fig.dpi / 72
            for ax in fig.axes
            for t in [*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels()]
            if t.get_text()
        ]
        assert sizes and min(sizes) >= MIN_TEXT_PX, (make.__name__, min(sizes))
    heat = heatmap_figure(board)
    # every (dataset, task) has a row and every result a number (order alignment with its plain accuracy)
    assert len(heat.axes[0].get_yticklabels()) == len(board.table.expected)
    assert sum(1 for t in heat.axes[0].texts if "acc" in t.get_text()) > 0


def test_overlap_checker_can_fail():
    from matplotlib.figure import Figure

    from steb_core.report.plots import overlapping_labels

    fig = Figure(figsize=(2, 2), dpi=100)
    ax = fig.add_subplot()
    ax.set_xticks(range(10), [f"a-long-label-{i}" for i in range(10)])
    assert overlapping_labels(fig)
