"""The flat ``figures`` list of Lai et al.'s protocols (``lai2022``, ``wmt17-darr``; issue 49 item 5) and its CSV.

On the release-shaped fixture of test_scorers_lai2022_protocol (four systems A-D, four sources; each output's two
content ratings h - 5 and h + 5, its two style ratings 50 + source and 60 - system index, its first fluency rating
a constant 70): each figure is checked against the nested report it flattens, looked up by hand, and against
values worked out from the fixture.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from steb_scorers.metaeval import evaluate
from steb_scorers.metaeval.evaluate import meta_evaluate, protocol_config
from steb_scorers.metaeval.figures import FIGURE_KEYS, POOLED, lai_figures
from steb_scorers.metaeval.human import DIRECTIONS, load_human_judgements
from steb_scorers.metaeval.pauli2025 import FIGURE_KEYS as PAULI_FIGURE_KEYS

from .test_scorers_lai2022_protocol import _metric_result, _with_references, write_release

SPECS = ("bleu:against=source,variant=lai2022", "chrf:system_level=mean,against=source")  # options as typed
CORRELATIONS = ("tau_like", "segment_pearson", "segment_spearman", "segment_kendall", "system_pearson")


def _run(app, args: list[str], out: Path) -> None:
    result = CliRunner().invoke(app, ["meta-eval", *args, "-o", str(out)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output


def _lai_args(folder: Path) -> list[str]:
    specs = [a for spec in SPECS for a in ("-s", spec)]
    return ["--data", str(folder), "--protocol", "lai2022", *specs, "-a", "content", "-a", "style", "--bootstrap", "20"]


def _index(figures: list[dict]) -> dict[tuple, dict]:
    keyed = {(f["aspect"], f["subset"], f["scorer"], f["statistic"]): f for f in figures}
    assert len(keyed) == len(figures), "two figures share aspect, subset, scorer and statistic"
    return keyed


def test_lai2022_report_has_flat_figures_with_the_six_keys(scorers_app, tmp_path):
    out = tmp_path / "r.json"
    _run(scorers_app, _lai_args(write_release(tmp_path)), out)
    report = json.loads(out.read_text())
    figures = report["figures"]  # absent before issue 49 item 5
    assert figures and FIGURE_KEYS == PAULI_FIGURE_KEYS  # the shape pauli2025's figures have
    assert all(tuple(f) == FIGURE_KEYS for f in figures)
    assert all(f["p_value"] is None for f in figures)  # the report's uncertainty is a bootstrap interval
    assert {f["scorer"] for f in figures} == {None, *SPECS}  # the -s specs exactly as given, None for humans
    fig = _index(figures)
    # every correlation the tables print, per direction and pooled (ALL), against the nested entries
    for spec in SPECS:
        corr = report["metrics"][spec]["correlations"]
        for aspect in ("content", "style"):
            for direction, subset in ((POOLED, "ALL"), *((d, d) for d in DIRECTIONS)):
                cell = corr[aspect][direction]
                for statistic in CORRELATIONS:
                    assert fig[(aspect, subset, spec, statistic)]["value"] == cell[statistic]["value"]
                assert fig[(aspect, subset, spec, "system_kendall")]["value"] == cell["system_kendall"]
            pooled = corr[aspect][POOLED]
            assert set(pooled["subsets"]) == {"top_3", "last_3", "all_4"}
            for key, sub in pooled["subsets"].items():
                for statistic in ("tau_like", "segment_pearson", "system_pearson"):
                    assert fig[(aspect, key, spec, statistic)]["value"] == sub[statistic]
                assert fig[(aspect, key, spec, "system_kendall")]["value"] == pooled["system_subsets_kendall"][key]
    per_scorer = 2 * (3 * 6 + 3 * 4)  # aspects x (subsets ALL + 2 directions x 6 statistics + 3 top/last-N x 4)
    assert sum(f["scorer"] == spec for f in figures for spec in SPECS) == len(SPECS) * per_scorer
    assert not any(f["subset"].startswith("system:") for f in figures)  # the scorers' system values are not printed


def test_human_figures_match_the_nested_statistics_and_the_fixture(scorers_app, tmp_path):
    out = tmp_path / "r.json"
    _run(scorers_app, _lai_args(write_release(tmp_path)), out)
    report = json.loads(out.read_text())
    human = report["human"]
    fig = _index([f for f in report["figures"] if f["scorer"] is None])
    # content ratings h - 5 and h + 5: the two annotators agree perfectly; style 50 + source vs 60 - system: the
    # grid's two factors are orthogonal, Pearson 0; fluency's first annotator is constant: no figure
    for statistic in ("inter_annotator_pearson", "inter_annotator_pearson_with_ref"):
        assert fig[("content", "ALL", None, statistic)]["value"] == pytest.approx(1.0, abs=1e-12)
        assert fig[("style", "ALL", None, statistic)]["value"] == pytest.approx(0.0, abs=1e-12)
        assert fig[("fluency", "ALL", None, statistic)]["value"] is None
        assert fig[("content", "survey:1", None, statistic)]["value"] == pytest.approx(1.0, abs=1e-12)
    table = human["inter_annotator_table"]
    for survey in ("1", "2"):
        for column in ("content", "style", "overall"):
            assert (
                fig[(column, f"survey:{survey}", None, "inter_annotator_pearson")]["value"]
                == table["without_ref"]["surveys"][survey][column]
            )
            assert (
                fig[(column, f"survey:{survey}", None, "inter_annotator_pearson_with_ref")]["value"]
                == table["with_ref"]["surveys"][survey][column]
            )
    assert (
        fig[("overall", "ALL", None, "inter_annotator_pearson")]["value"] == table["without_ref"]["overall"]["overall"]
    )
    assert (
        fig[("style", "ALL", None, "inter_annotator_pearson")]["value"]
        == human["inter_annotator_pearson"]["style"]["overall"]
    )
    for d in DIRECTIONS:
        assert (
            fig[("content", d, None, "inter_annotator_pearson")]["value"]
            == human["inter_annotator_pearson"]["content"]["by_direction"][d]
        )
    for direction, subset in ((POOLED, "ALL"), *((d, d) for d in DIRECTIONS)):
        for pair, value in human["inter_aspect_pearson_raw_means"][direction].items():
            assert fig[(pair, subset, None, "inter_aspect_pearson")]["value"] == value
    assert not any(k[1].startswith("system:") for k in fig)  # human system means: printed by --human-only only


def test_figures_hold_the_hand_computed_lai2022_values(tmp_path):
    data = load_human_judgements(write_release(tmp_path))
    report = meta_evaluate(data, {"m": _metric_result(data)}, protocol_config("lai2022", aspects=("content",)))
    fig = _index(lai_figures(report))
    # test_scorers_lai2022_protocol's worked example: per-source tau, mean over sources
    assert fig[("content", "ALL", "m", "tau_like")]["value"] == pytest.approx(4 / 45, abs=1e-12)
    assert fig[("content", "informal-to-formal", "m", "tau_like")]["value"] == pytest.approx(3 / 5, abs=1e-12)
    assert fig[("content", "formal-to-informal", "m", "tau_like")]["value"] == pytest.approx(-1 / 6, abs=1e-12)
    assert fig[("content", "top_3", "m", "tau_like")]["value"] == pytest.approx(1 / 3, abs=1e-12)
    assert fig[("content", "last_3", "m", "tau_like")]["value"] == pytest.approx(0.0, abs=1e-12)
    assert fig[("content", "all_4", "m", "tau_like")]["value"] == pytest.approx(4 / 45, abs=1e-12)


def test_format_csv_writes_the_same_rows(scorers_app, tmp_path):
    folder = write_release(tmp_path)
    as_json, as_csv = tmp_path / "r.json", tmp_path / "r.csv"
    _run(scorers_app, _lai_args(folder), as_json)
    _run(scorers_app, [*_lai_args(folder), "--format", "csv"], as_csv)
    figures = json.loads(as_json.read_text())["figures"]
    text = as_csv.read_text()
    assert not text.lstrip().startswith("{")  # the figures, not the report
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames or ()) == FIGURE_KEYS
    rows = list(reader)
    assert len(rows) == len(figures)
    for row, f in zip(rows, figures):
        for key in ("aspect", "subset", "scorer", "statistic"):
            assert row[key] == ("" if f[key] is None else f[key])
        assert row["p_value"] == ""
        if f["value"] is None:
            assert row["value"] == ""
        else:
            assert float(row["value"]) == f["value"]  # written as repr: the same float back


def test_default_protocol_and_human_only_have_figures(scorers_app, tmp_path):
    folder = write_release(tmp_path)
    out = tmp_path / "w.json"
    _run(scorers_app, ["--data", str(folder), "-s", "chrf:against=source", "-a", "content", "--bootstrap", "10"], out)
    report = json.loads(out.read_text())
    assert report["config"]["protocol"] == "wmt17-darr"
    fig = _index(report["figures"])
    cell = report["metrics"]["chrf:against=source"]["correlations"]["content"][POOLED]
    assert (
        fig[("content", "ALL", "chrf:against=source", "segment_kendall")]["value"] == cell["segment_kendall"]["value"]
    )
    assert (
        fig[("content", "top_3", "chrf:against=source", "system_kendall")]["value"]
        == (cell["system_subsets_kendall"]["top_3"])
    )
    human_csv = tmp_path / "h.csv"
    _run(scorers_app, ["--data", str(folder), "--human-only", "--format", "csv"], human_csv)
    rows = list(csv.DictReader(io.StringIO(human_csv.read_text())))
    assert rows and all(r["scorer"] == "" for r in rows)
    means = {
        (r["aspect"], r["subset"], r["statistic"]): float(r["value"]) for r in rows if r["subset"][:7] == "system:"
    }
    # content: the mean of each output's two raw ratings (h - 5, h + 5) is h; system A's h: 80, 50, 10, 90
    assert means[("content", "system:A", "human_mean_raw")] == pytest.approx(57.5)
    assert means[("content", "system:D", "human_mean_raw")] == pytest.approx(35.0)
    assert {k[2] for k in means} == {"human_mean_raw", "human_mean_z"}


def test_table_4_adds_the_score_agreement_per_reference(scorers_app, tmp_path):
    out = tmp_path / "t4.json"
    args = ["--data", str(_with_references(tmp_path)), "--protocol", "lai2022", "--table", "4", "-s", "chrf"]
    _run(scorers_app, [*args, "-a", "content", "--bootstrap", "10"], out)
    report = json.loads(out.read_text())
    row = report["reference_table"]["rows"]["chrf"]
    fig = _index(report["figures"])
    for ref in ("2", "3", "4"):
        for statistic in ("score_tau_with_ref1", "score_pearson_with_ref1"):
            assert fig[(None, f"references:{ref}", "chrf", statistic)]["value"] == row[statistic][ref]
    # the per-reference runs are rows under the labels the table prints
    assert fig[("content", "ALL", "chrf [ref 3]", "tau_like")]["value"] == row["human"]["3"]["tau_like"]


def test_bad_format_is_refused(scorers_app, tmp_path):
    out = tmp_path / "r.xml"
    result = CliRunner().invoke(
        scorers_app, ["meta-eval", "--data", str(write_release(tmp_path)), "--format", "xml", "-o", str(out)]
    )
    assert result.exit_code != 0 and "csv" in result.output and not out.exists()


def test_pooled_key_matches_evaluate():
    assert POOLED == evaluate.POOLED  # figures.py keeps a copy so that it does not import scipy


def test_iaa_ref_chooses_table_1_in_a_scoring_run_too(scorers_app, tmp_path):
    # --iaa-ref reached the printed Table 1 only with --human-only; a scoring run printed the paper's rows whatever
    # was asked
    folder = write_release(tmp_path / "rel")
    titles = {}
    for choice in ("paper", "exclude"):
        result = CliRunner().invoke(
            scorers_app,
            ["meta-eval", *_lai_args(folder), "--iaa-ref", choice, "-o", str(tmp_path / f"{choice}.json")],
            env={"COLUMNS": "250"},
        )
        assert result.exit_code == 0, result.output
        titles[choice] = " ".join(result.output.split())
    assert "as the paper prints it" in titles["paper"]
    assert "REF excluded from every row" in titles["exclude"] and "as the paper prints it" not in titles["exclude"]
