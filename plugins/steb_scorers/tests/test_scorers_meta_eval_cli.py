"""`steb meta-eval` through the scorers' commands on a Typer root (the `scorers_app` fixture in conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from steb_scorers.metaeval.evaluate import MetaEvalConfig, meta_evaluate, parse_scorer_spec
from steb_scorers.metaeval.human import load_human_judgements
from steb_scorers.result import ScoreResult


def _synthetic(folder: Path, n_sources: int = 8) -> Path:
    """Three systems + REF; ratings follow word overlap with the source so metrics correlate."""
    rng = np.random.default_rng(0)
    folder.mkdir()
    sources = [f"source sentence number {i} with words" for i in range(n_sources)]
    systems = {"GOOD": 0, "MID": 2, "BAD": 4, "REF": 1}
    for system, drop in systems.items():
        lines = []
        for i, src in enumerate(sources):
            words = src.split()
            out = " ".join(words[: len(words) - drop] + ["new"] * drop)
            base = 95 - 20 * drop
            r = [min(100, max(0, base + rng.normal(0, 5))) for _ in range(6)]
            lines.append(
                "\t".join([str(1 + (i % (n_sources // 2)) % 2), src, out, "ref " + src, *(f"{x:.1f}" for x in r)])
            )
        (folder / f"{system}.human.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_parse_scorer_spec():
    assert parse_scorer_spec("chrf") == ("chrf", {})
    assert parse_scorer_spec("bleu:against=source,max_ngram_order=2,lowercase=true") == (
        "bleu",
        {"against": "source", "max_ngram_order": 2, "lowercase": True},
    )
    with pytest.raises(ValueError, match="key=value"):
        parse_scorer_spec("bleu:source")


def test_cli_writes_json_and_table(scorers_app, tmp_path):
    data = _synthetic(tmp_path / "h")
    out = tmp_path / "report.json"
    result = CliRunner().invoke(
        scorers_app,
        [
            "meta-eval",
            "--data",
            str(data),
            "-s",
            "chrf:against=source",
            "-s",
            "bleu:against=source",
            "--aspect",
            "content",
            "--bootstrap",
            "50",
            "--tau-threshold",
            "0",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "chrf:against=source" in result.output and "inter-annotator" in result.output
    report = json.loads(out.read_text())
    cfg = report["config"]
    assert (
        cfg["reference_included"] is False
        and cfg["tau_threshold"] == 0
        and cfg["tau_ties"] == "discordant"
        and cfg["systems"] == ["BAD", "GOOD", "MID"]
    )
    entry = report["metrics"]["chrf:against=source"]
    pooled = entry["correlations"]["content"]["pooled"]
    assert pooled["segment_pearson"]["value"] > 0.8 and pooled["system_pearson"]["value"] > 0.9
    lo, hi = pooled["segment_pearson"]["ci"]
    assert lo <= pooled["segment_pearson"]["value"] <= hi
    assert set(entry["correlations"]["content"]) == {"pooled", "informal-to-formal", "formal-to-informal"}
    assert pooled["n_outputs"] == 8 * 3 and pooled["n_sources"] == 8
    comp = report["comparisons"]
    assert {c["statistic"] for c in comp} == {"segment_pearson", "tau_like", "system_pearson"}


def test_lower_is_better_reports_absolute_correlation(tmp_path):
    data = load_human_judgements(_synthetic(tmp_path / "h"))
    human = data.raw("content")
    cfg = MetaEvalConfig(aspects=("content",), n_bootstrap=20, human_scale="raw")
    report = meta_evaluate(
        data, {"neg": ScoreResult("neg", -human, higher_is_better=False), "pos": ScoreResult("pos", human)}, cfg
    )
    neg = report["metrics"]["neg"]["correlations"]["content"]["pooled"]
    pos = report["metrics"]["pos"]["correlations"]["content"]["pooled"]
    assert report["metrics"]["neg"]["absolute"] is True
    assert neg["segment_pearson"]["value"] == pytest.approx(1.0) == pos["segment_pearson"]["value"]
    assert neg["tau_like"]["value"] == pytest.approx(pos["tau_like"]["value"])


def test_include_ref_is_recorded_and_changes_the_systems(tmp_path):
    data = load_human_judgements(_synthetic(tmp_path / "h"))
    res = {"x": ScoreResult("x", np.arange(len(data), dtype=float))}
    with_ref = meta_evaluate(data, res, MetaEvalConfig(aspects=("content",), n_bootstrap=5, include_ref=True))
    assert with_ref["config"]["reference_included"] and "REF" in with_ref["config"]["systems"]
    assert with_ref["metrics"]["x"]["correlations"]["content"]["pooled"]["n_systems"] == 4


def test_bad_option_is_rejected(tmp_path):
    data = load_human_judgements(_synthetic(tmp_path / "h"))
    with pytest.raises(ValueError, match="tau_ties"):
        meta_evaluate(data, {}, MetaEvalConfig(tau_ties="half"))


@pytest.mark.realdata
def test_real_release_acceptance(scorers_app, human_data_dir, tmp_path):
    out = tmp_path / "real.json"
    result = CliRunner().invoke(
        scorers_app,
        ["meta-eval", "--data", str(human_data_dir), "--aspect", "content", "--bootstrap", "100", "-o", str(out)],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert set(report["metrics"]) == {
        "bleu:against=source",
        "bleu:against=reference",
        "chrf:against=source",
        "chrf:against=reference",
    }
    for entry in report["metrics"].values():
        c = entry["correlations"]["content"]["pooled"]
        assert c["n_outputs"] == 640 and c["n_systems"] == 8
        assert 0 < c["segment_pearson"]["value"] < 1 and c["system_pearson"]["value"] is not None
    assert report["human"]["inter_annotator_pearson"]["content"]["overall"] > 0.5


# -- dictionary options from -s ------------------------------------------------------------------------


def test_json_object_options_keep_their_commas():
    name, options = parse_scorer_spec('perplexity:style_models={"formal": "/m/f", "informal": "/m/i"},batch_size=4')
    assert name == "perplexity" and options == {"style_models": {"formal": "/m/f", "informal": "/m/i"}, "batch_size": 4}
    _, options = parse_scorer_spec('style-classifier:encoder=e,train={"formal": ["a, b", "c"], "informal": "x.txt"}')
    assert options == {"encoder": "e", "train": {"formal": ["a, b", "c"], "informal": "x.txt"}}


def test_dotted_keys_build_a_dictionary():
    _, options = parse_scorer_spec("perplexity:style_models.formal=/m/f,style_models.informal=/m/i,device=cpu")
    assert options == {"style_models": {"formal": "/m/f", "informal": "/m/i"}, "device": "cpu"}
    _, options = parse_scorer_spec("style-classifier:train.formal=f.txt,train.informal=i.txt")
    assert options["train"] == {"formal": "f.txt", "informal": "i.txt"}


@pytest.mark.parametrize(
    "spec, match",
    [
        ("perplexity:style_models={formal: /m/f}", "not valid JSON"),  # a shell ate the quotes
        ('perplexity:style_models={"formal": "/m/f"', "unbalanced"),
        ("perplexity:style_models=/m,style_models.formal=/m/f", "plain value and key by key"),
        ("perplexity:.formal=/m/f", "NAME.KEY=VALUE"),
    ],
)
def test_malformed_dictionary_options_are_named(spec, match):
    with pytest.raises(ValueError, match=match):
        parse_scorer_spec(spec)


def test_dictionary_option_reaches_the_scorer_factory(scorers_app, tmp_path, monkeypatch):
    """The CLI hands the parsed dictionary to the scorer, as the scorer's own keyword argument."""
    seen = {}

    def fake_score(judgements, scorer, references="1", corpus_references=None):
        return ScoreResult("fake", np.asarray(judgements.raw("content"), float))

    class Spec:
        higher_is_better, aspect = True, "content"

        @staticmethod
        def factory(**options):
            seen.update(options)
            return object()

    import steb_core

    monkeypatch.setattr(
        steb_core, "get_manager", lambda: type("M", (), {"scorers": staticmethod(lambda: {"fake": Spec})})()
    )
    monkeypatch.setattr("steb_scorers.metaeval.evaluate.score_judgements", fake_score)
    data = _synthetic(tmp_path / "h")
    result = CliRunner().invoke(
        scorers_app,
        [
            "meta-eval",
            "--data",
            str(data),
            "-s",
            "fake:style_models.formal=/a,style_models.informal=/b",
            "--aspect",
            "content",
            "--bootstrap",
            "5",
            "-o",
            str(tmp_path / "r.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert seen == {"style_models": {"formal": "/a", "informal": "/b"}}


# -- correlations on chosen systems ------------------------------------------------------------------


def test_reference_only_correlations_match_scipy(tmp_path):
    data = load_human_judgements(_synthetic(tmp_path / "h"))
    rng = np.random.default_rng(3)
    metric = rng.normal(size=len(data))
    report = meta_evaluate(
        data,
        {"m": ScoreResult("m", metric)},
        MetaEvalConfig(aspects=("content",), n_bootstrap=20, human_scale="raw", systems=("REF",)),
    )
    cfg = report["config"]
    assert cfg["systems"] == ["REF"] and cfg["systems_restricted"] and cfg["reference_included"]
    pooled = report["metrics"]["m"]["correlations"]["content"]["pooled"]
    ref = data.system == "REF"
    order = np.argsort(data.item[ref], kind="stable")
    x, y = metric[ref][order], data.human("content", "raw")[ref][order]
    assert pooled["segment_pearson"]["value"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert pooled["segment_spearman"]["value"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert pooled["n_outputs"] == int(ref.sum()) and pooled["n_systems"] == 1
    # one output per source and one system: no pair to order, no system-level correlation
    assert pooled["tau_like"]["value"] is None and pooled["system_pearson"]["value"] is None


def test_two_chosen_systems_and_unknown_names(tmp_path):
    data = load_human_judgements(_synthetic(tmp_path / "h"))
    human = data.human("content", "raw")
    report = meta_evaluate(
        data,
        {"h": ScoreResult("h", -human)},
        MetaEvalConfig(aspects=("content",), n_bootstrap=5, human_scale="raw", systems=("GOOD", "BAD")),
    )
    assert report["config"]["systems"] == ["BAD", "GOOD"] and not report["config"]["reference_included"]
    pooled = report["metrics"]["h"]["correlations"]["content"]["pooled"]
    keep = np.isin(data.system, ["GOOD", "BAD"])
    assert pooled["segment_pearson"]["value"] == pytest.approx(-1.0) and pooled["n_outputs"] == int(keep.sum())
    assert pooled["system_pearson"]["value"] == pytest.approx(-1.0)  # two points: the sign of the means' order
    with pytest.raises(ValueError, match=r"\['NOPE'\].*known"):
        meta_evaluate(data, {}, MetaEvalConfig(systems=("NOPE", "REF")))


def test_cli_systems_option(scorers_app, tmp_path):
    data = _synthetic(tmp_path / "h")
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        scorers_app,
        [
            "meta-eval",
            "--data",
            str(data),
            "-s",
            "chrf:against=source",
            "--systems",
            "REF",
            "--aspect",
            "content",
            "--bootstrap",
            "5",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "systems: REF" in result.output
    assert json.loads(out.read_text())["config"]["systems"] == ["REF"]
    bad = CliRunner().invoke(scorers_app, ["meta-eval", "--data", str(data), "--systems", "GOOD,NOPE", "-o", str(out)])
    assert bad.exit_code != 0 and "NOPE" in bad.output
