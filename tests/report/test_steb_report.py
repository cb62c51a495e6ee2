"""The report: terminal leaderboard, Markdown, CSV, a self-contained HTML page, merging and failures."""

from __future__ import annotations

import base64
import csv
import io
import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from steb_core._specs import STEB_PROTOCOL_VERSION, AggregatorSpec
from steb_core.aggregators import AggregateResult, builtin_aggregators
from steb_core.report import build_report, compute_leaderboard, rank_marks
from steb_core.report.synthetic import make_record, synthetic_results, write_results


def _console(width=200):
    buf = io.StringIO()
    return Console(file=buf, width=width, color_system=None), buf


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def synthetic_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    write_results(synthetic_results(("enc-a", "enc-b", "enc-c", "enc-d")), root)
    return root


def test_rank_marks_ties_and_missing():
    assert rank_marks({"a": 0.9, "b": 0.9, "c": 0.5, "d": None, "e": 0.1}) == {"a": 1, "b": 1, "c": 2}


def test_build_report_prints_and_writes(synthetic_dir, tmp_path):
    console, buf = _console()
    paths = build_report(synthetic_dir, tmp_path / "rep", console=console, datasets=None)
    text = buf.getvalue()
    for enc in ("enc-a", "enc-b", "enc-c", "enc-d"):
        assert enc in text
    assert "Operational" in text and "best" in text
    for p in paths.files():
        assert p.is_file() and p.stat().st_size > 0
    board = paths.leaderboard
    # the CSV holds the raw aggregate scores
    assert paths.csv.name == "report.csv"  # the name the README promises
    rows = list(csv.DictReader(paths.report_csv.open()))
    assert {r["suite"] for r in rows} == {"synthetic"}
    assert [r["encoder"] for r in rows] == board.encoders
    op = board.aggregate("operational")
    for row in rows:
        assert float(row["operational"]) == pytest.approx(op.scores[row["encoder"]])
    # the leaderboard is ordered by the operational score and the best is bold in Markdown
    scores = [op.scores[e] for e in board.encoders]
    assert scores == sorted(scores, reverse=True)
    md = paths.markdown.read_text()
    best = board.encoders[0]
    assert f"| {best} | **{op.scores[best] * 100:.1f}** |" in md
    assert "Redundancy clusters" in md
    data = json.loads(paths.aggregates_json.read_text())
    board_data = data["leaderboards"][0]
    assert board_data["suite"] == "synthetic"
    assert board_data["aggregates"][0]["details"]["clusters"]["clustering"]["clusters"]
    assert data["steb_protocol"] == STEB_PROTOCOL_VERSION and board_data["results_protocol"] == ["unknown"]
    assert f"steb implements {STEB_PROTOCOL_VERSION}" in text and f"**{STEB_PROTOCOL_VERSION}**" in md
    assert [p.name for p in paths.clusters] == ["clusters.json"]


def test_html_is_self_contained_with_three_plots(synthetic_dir, tmp_path):
    paths = build_report(synthetic_dir, tmp_path / "rep", console=False, datasets=None)
    page = paths.html.read_text()
    parser = _Collector()
    parser.feed(page)
    imgs = [attrs for tag, attrs in parser.tags if tag == "img"]
    assert len(imgs) == 3
    for attrs in imgs:
        assert attrs["src"].startswith("data:image/png;base64,")
        assert base64.b64decode(attrs["src"].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for tag, attrs in parser.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed")
        for key in ("src", "href"):
            assert not str(attrs.get(key, "")).startswith(("http:", "https:", "//")), (tag, attrs)
    assert "url(" not in page and "@import" not in page
    assert "<table>" in page and "<strong>" in page


def test_incomplete_encoder_marked_and_listed(tmp_path):
    recs = synthetic_results(("a", "b", "c"))
    recs = [r for r in recs if not (r.encoder == "c" and r.dataset == "core" and r.task == "clustering")]
    write_results(recs, tmp_path / "res")
    console, buf = _console()
    paths = build_report(tmp_path / "res", tmp_path / "rep", console=console, html=False, datasets=None)
    assert paths.html is None
    assert paths.leaderboard.aggregate("operational").scores["c"] is None
    assert paths.leaderboard.encoders[-1] == "c"  # incomplete rows sort last
    assert "incomplete for c" in buf.getvalue()
    missing = list(csv.DictReader(paths.missing_csv.open()))
    assert {
        "suite": "synthetic",
        "column": "operational",
        "encoder": "c",
        "dataset": "core",
        "task": "clustering",
        "reason": "no result",
    } in missing
    assert "| Operational | c | core | clustering | no result |" in paths.markdown.read_text()


def test_several_result_folders_merge_into_one_leaderboard(tmp_path):
    for enc in ("x", "y", "z"):
        write_results([r for r in synthetic_results(("x", "y", "z")) if r.encoder == enc], tmp_path / enc)
    paths = build_report(
        [tmp_path / "x", tmp_path / "y", tmp_path / "z"], tmp_path / "rep", console=False, html=False, datasets=None
    )
    assert sorted(paths.leaderboard.encoders) == ["x", "y", "z"]
    assert all(paths.leaderboard.aggregate("operational").complete.values())


def test_failing_plugin_aggregator_is_reported_not_fatal():
    def broken(results, datasets):
        raise RuntimeError("boom")

    specs = [
        *builtin_aggregators(),
        AggregatorSpec("broken", "", broken, 5),
        AggregatorSpec("wrong", "", lambda r, d: 42, 6),
    ]
    board = compute_leaderboard(
        [make_record("a", "d", "clustering", {"v_measure": 0.5})], datasets=None, aggregators=specs
    )
    assert [f.name for f in board.failures] == ["broken", "wrong"]
    assert "boom" in board.failures[0].error
    assert board.aggregates[0].name == "operational"
    assert all(isinstance(a, AggregateResult) for a in board.aggregates)


def test_leaderboard_path_does_not_import_matplotlib(synthetic_dir, tmp_path):
    code = (
        "import sys; from steb_core.report import build_report; "
        f"build_report({str(synthetic_dir)!r}, {str(tmp_path / 'rep')!r}, html=False); "
        "print('MPL', 'matplotlib' in sys.modules, 'scipy.stats' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parent
    )
    assert "MPL False False" in out.stdout
