"""Honest partial runs, report side (issue 30): a partly run suite is marked "N of M datasets (K of L
dataset-task pairs)" wherever its aggregates appear, missing.csv lists what was not run, and the HTML
report's pointer to *Missing inputs* is a link to a section that exists (issue 26)."""

from __future__ import annotations

import csv
import io
import re

from rich.console import Console

from steb_core import DatasetSpec
from steb_core.report import build_report
from steb_core.report.synthetic import make_record, write_results

MARK = "2 of 4 datasets (2 of 5 dataset-task pairs)"


def _specs():
    """Suite 'mini': m1..m3 feed clustering, m4 clustering and retrieval: 4 datasets, 5 pairs."""

    def loader(ctx):
        raise AssertionError("the report never loads data")

    specs = [
        DatasetSpec(name=f"m{i}", description="x", tasks=("clustering",), loader=loader, suites=("mini",))
        for i in (1, 2, 3)
    ]
    specs.append(
        DatasetSpec(name="m4", description="x", tasks=("clustering", "retrieval"), loader=loader, suites=("mini",))
    )
    return specs


def _records(encoders=("a", "b"), datasets=("m1", "m2")):
    out = []
    for k, enc in enumerate(encoders):
        for i, name in enumerate(datasets):
            out.append(make_record(enc, name, "clustering", {"v_measure": 0.2 + 0.1 * i + 0.05 * k}, suites=("mini",)))
            if name == "m4":
                out.append(make_record(enc, name, "retrieval", {"mrr": 0.3 + 0.05 * k}, suites=("mini",)))
    return out


def _report(tmp_path, records, html=True):
    write_results(records, tmp_path / "res")
    buf = io.StringIO()
    paths = build_report(
        tmp_path / "res",
        tmp_path / "rep",
        console=Console(file=buf, width=200, color_system=None),
        html=html,
        datasets=_specs(),
    )
    return paths, buf.getvalue()


def test_a_partial_suite_is_marked_everywhere_its_name_appears(tmp_path):
    paths, terminal = _report(tmp_path, _records())
    board = paths.leaderboard
    assert board.suite == "mini" and board.partial_mark() == MARK
    assert board.coverage.missing == (("m3", "clustering"), ("m4", "clustering"), ("m4", "retrieval"))
    markdown = paths.markdown.read_text()
    html = paths.html.read_text()
    for text in (terminal, markdown, html):
        lines = [line for line in text.splitlines() if "suite 'mini'" in line or "suite &#x27;mini&#x27;" in line]
        assert lines, text[:500]
        # never the suite's headline name without the mark
        assert all(MARK in line for line in lines), [line for line in lines if MARK not in line]
    # every aggregate section of the Markdown carries the mark in its heading
    aggregate_headings = [
        h
        for h in re.findall(r"^## (.+)$", markdown, flags=re.M)
        if h.split(" — ")[0]
        not in ("Leaderboard", "Per-dataset scores", "Not run", "Missing inputs", "Notes", "Data provenance")
    ]
    assert aggregate_headings and all(MARK in h for h in aggregate_headings), aggregate_headings
    assert f"**Partial suite 'mini'**: every score below covers {MARK}" in markdown
    assert "partial suite 'mini'" in terminal
    # missing.csv lists the pairs no encoder has; report.csv carries the mark next to every row's scores
    not_run = [(r["dataset"], r["task"]) for r in csv.DictReader(paths.missing_csv.open()) if r["column"] == "(suite)"]
    assert not_run == [("m3", "clustering"), ("m4", "clustering"), ("m4", "retrieval")]
    rows = list(csv.DictReader(paths.report_csv.open()))
    assert [r["partial"] for r in rows] == [MARK, MARK]


def test_a_complete_suite_has_no_mark_and_nothing_not_run(tmp_path):
    paths, terminal = _report(tmp_path, _records(datasets=("m1", "m2", "m3", "m4")))
    assert paths.leaderboard.partial_mark() == "" and paths.leaderboard.coverage.missing == ()
    for text in (terminal, paths.markdown.read_text(), paths.html.read_text()):
        assert "partial" not in text.lower().replace("partial_", "")
    assert not any(r["column"] == "(suite)" for r in csv.DictReader(paths.missing_csv.open()))
    assert {r["partial"] for r in csv.DictReader(paths.report_csv.open())} == {""}


def test_html_pointer_to_missing_inputs_links_to_the_section_only_when_it_exists(tmp_path):
    # encoder b lacks m2: its aggregates have missing inputs, so the section exists and the header links to it
    records = [r for r in _records(datasets=("m1", "m2", "m3", "m4")) if not (r.encoder == "b" and r.dataset == "m2")]
    paths, _ = _report(tmp_path / "gap", records)
    html = paths.html.read_text()
    assert 'href="#missing-inputs"' in html and re.search(r'<h2 id="missing-inputs">Missing inputs', html)
    paths, _ = _report(tmp_path / "full", _records(datasets=("m1", "m2", "m3", "m4")))
    html = paths.html.read_text()
    assert "Missing inputs" not in html and "missing-inputs" not in html
