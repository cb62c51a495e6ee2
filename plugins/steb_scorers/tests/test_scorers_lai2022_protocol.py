"""`--protocol lai2022` against hand-computed values: per-source tau, top-N subset tau, system Pearson on raw means,
multi-bleu and sentence-mean chrF, Table 1 agreement, the release's four references and Tables 4 / A.2.

The fixture is the release's layout (``outputs/SYSTEM.human.txt``: survey, source, output, reference, then
content/style/fluency of annotator 1 and of annotator 2) with four systems and four sources; each output's
two content ratings are h - 5 and h + 5, so its human score (the mean of the two raw ratings) is h:

    source  direction  h(A) h(B) h(C) h(D)   metric A    B    C    D
    0       inf->for    80   60   60   20          0.9  0.5  0.7  0.5
    1       inf->for    50   50   50   50          1    2    3    4
    2       for->inf    10   30   20   40          4    3    2    1
    3       for->inf    90   70   40   30          0.8  0.9  0.1  0.2

Per-source tau (human ties skipped, metric ties discordant), worked by hand:
  source 0: (A,B) C, (A,C) C, (A,D) C, (B,C) human tie, (B,D) metric tie -> D, (C,D) C: C=4, D=1, tau 3/5
  source 1: every pair tied by the humans: no tau (left out of the mean, as the authors' try/except does)
  source 2: (B,C) C, the other five pairs D: C=1, D=5, tau -2/3
  source 3: (A,B) D, (A,C) C, (A,D) C, (B,C) C, (B,D) C, (C,D) D: C=4, D=2, tau 1/3
  Lai: mean(3/5, -2/3, 1/3) = 4/45;  WMT17 pooled: (9 - 8) / 17 = 1/17.
System human means: A 57.5, B 52.5, C 42.5, D 35 (order A B C D); top_3 = A B C, last_3 = B C D:
  top_3:  source 0 tau 1 (B,C tie skipped), source 2: (A,B) D, (A,C) D, (B,C) C -> -1/3, source 3: D C C -> 1/3; mean
  1/3
  last_3: source 0: (B,C) skipped, (B,D) metric tie D, (C,D) C -> 0; source 2: C D D -> -1/3; source 3: C C D -> 1/3;
  mean 0
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from steb_scorers.lexical import BleuScorer, ChrfScorer, RougeScorer, corpus_score_from_stats, stat_matrix
from steb_scorers.metaeval.agreement import agreement_table
from steb_scorers.metaeval.correlations import mean_per_source_tau, tau_per_source
from steb_scorers.metaeval.evaluate import PROTOCOLS, MetaEvalConfig, meta_evaluate, protocol_config, score_judgements
from steb_scorers.metaeval.human import load_human_judgements
from steb_scorers.precomputed import PrecomputedScorer
from steb_scorers.result import ScoreResult

SYSTEMS = ("A", "B", "C", "D")
HUMAN = np.array([[80, 60, 60, 20], [50, 50, 50, 50], [10, 30, 20, 40], [90, 70, 40, 30]], dtype=float)
METRIC = np.array([[0.9, 0.5, 0.7, 0.5], [1, 2, 3, 4], [4, 3, 2, 1], [0.8, 0.9, 0.1, 0.2]], dtype=float)


def write_release(folder: Path, human: np.ndarray = HUMAN, surveys=(1, 2, 1, 2)) -> Path:
    """``folder/outputs/SYSTEM.human.txt`` in the release's format; ratings (h-5, h+5) per aspect."""
    out = folder / "outputs"
    out.mkdir(parents=True)
    for k, system in enumerate(SYSTEMS):
        lines = []
        for i in range(human.shape[0]):
            h = human[i, k]
            content, style, fluency = (h - 5, h + 5), (50 + i, 60 - k), (70.0, 70.0 + k + i)
            ratings = [content[0], style[0], fluency[0], content[1], style[1], fluency[1]]
            lines.append(
                "\t".join(
                    [
                        str(surveys[i]),
                        f"source {i} words",
                        f"source {i} " + "words " * k + system,
                        f"reference {i}",
                        *(f"{r:g}" for r in ratings),
                    ]
                )
            )
        (out / f"{system}.human.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _metric_result(data) -> ScoreResult:
    col = {s: k for k, s in enumerate(SYSTEMS)}
    return ScoreResult("m", np.array([METRIC[int(i), col[s]] for s, i in zip(data.system, data.item)]))


def test_per_source_tau_by_hand():
    taus = tau_per_source(METRIC, HUMAN)
    np.testing.assert_allclose(taus[[0, 2, 3]], [3 / 5, -2 / 3, 1 / 3], atol=1e-12)
    assert np.isnan(taus[1])  # every pair tied by the humans: no tau for that source
    got = mean_per_source_tau(METRIC, HUMAN)
    assert got["tau"] == pytest.approx(4 / 45, abs=1e-12)
    assert (got["concordant"], got["discordant"], got["sources_used"]) == (9, 8, 3)


def test_lai2022_preset_on_a_release_folder(tmp_path):
    data = load_human_judgements(write_release(tmp_path))
    np.testing.assert_allclose(data.raw("content")[data.item == 2], HUMAN[2])  # mean of the two raw ratings
    config = protocol_config("lai2022", aspects=("content",), n_bootstrap=50)
    assert config.protocol_label == "lai2022" and config.human_scale == "raw" and config.tau_threshold == 0
    report = meta_evaluate(data, {"m": _metric_result(data)}, config)
    c = report["metrics"]["m"]["correlations"]["content"]
    assert c["pooled"]["tau_like"]["value"] == pytest.approx(4 / 45, abs=1e-12)
    assert c["informal-to-formal"]["tau_like"]["value"] == pytest.approx(3 / 5, abs=1e-12)  # source 1 left out
    assert c["formal-to-informal"]["tau_like"]["value"] == pytest.approx((-2 / 3 + 1 / 3) / 2, abs=1e-12)
    # system level: Pearson of the per-system metric means with the per-system mean raw ratings (scipy as the reference)
    sys_metric, sys_human = METRIC.mean(axis=0), HUMAN.mean(axis=0)
    np.testing.assert_allclose(sys_human, [57.5, 52.5, 42.5, 35])
    assert c["pooled"]["system_pearson"]["value"] == pytest.approx(
        stats.pearsonr(sys_metric, sys_human).statistic, abs=1e-12
    )
    assert c["pooled"]["segment_pearson"]["value"] == pytest.approx(
        stats.pearsonr(METRIC.ravel(), HUMAN.ravel()).statistic, abs=1e-12
    )
    # the same data under the WMT17 settings but no threshold: the pooled tau, not the per-source mean
    wmt = meta_evaluate(
        data,
        {"m": _metric_result(data)},
        MetaEvalConfig(aspects=("content",), n_bootstrap=20, human_scale="raw", tau_threshold=0),
    )
    assert wmt["metrics"]["m"]["correlations"]["content"]["pooled"]["tau_like"]["value"] == pytest.approx(
        1 / 17, abs=1e-12
    )


def test_top_and_last_n_are_the_segment_tau_on_those_systems(tmp_path):
    data = load_human_judgements(write_release(tmp_path))
    report = meta_evaluate(
        data, {"m": _metric_result(data)}, protocol_config("lai2022", aspects=("content",), n_bootstrap=10)
    )
    subsets = report["metrics"]["m"]["correlations"]["content"]["pooled"]["subsets"]
    assert subsets["top_3"]["systems"] == ["A", "B", "C"] and subsets["last_3"]["systems"] == ["B", "C", "D"]
    assert subsets["top_3"]["tau_like"] == pytest.approx(1 / 3, abs=1e-12)
    assert subsets["last_3"]["tau_like"] == pytest.approx(0.0, abs=1e-12)
    assert subsets["all_4"]["tau_like"] == pytest.approx(4 / 45, abs=1e-12)
    top = [0, 1, 2]
    assert subsets["top_3"]["system_pearson"] == pytest.approx(
        stats.pearsonr(METRIC[:, top].mean(0), HUMAN[:, top].mean(0)).statistic, abs=1e-12
    )
    assert report["config"]["subsets"] == "segment"


def test_per_source_bootstrap_resamples_source_taus(tmp_path):
    from steb_scorers.metaeval.correlations import Bootstrap

    idx = np.array([[0, 0, 2, 3], [1, 1, 1, 1], [3, 3, 3, 2]])
    got = Bootstrap(idx, 0.0, "discordant", False, "per-source").replicates(METRIC, HUMAN)["tau_like"]
    assert got[0] == pytest.approx((3 / 5 + 3 / 5 - 2 / 3 + 1 / 3) / 4, abs=1e-12)
    assert np.isnan(got[1])  # only the all-tied source drawn
    assert got[2] == pytest.approx((3 * (1 / 3) - 2 / 3) / 4, abs=1e-12)


def test_protocol_presets_and_recorded_changes():
    assert set(PROTOCOLS) == {"wmt17-darr", "lai2022"}
    assert protocol_config("wmt17-darr").protocol_label == "wmt17-darr"
    changed = protocol_config("lai2022", tau_threshold=25.0)
    assert changed.protocol_label == "lai2022 (changed: tau_threshold=25.0)" and changed.tau_average == "per-source"
    with pytest.raises(ValueError, match="unknown protocol"):
        protocol_config("lai2023")


def test_cli_lai2022_tables_name_their_protocol(scorers_app, tmp_path):
    folder = write_release(tmp_path)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        scorers_app,
        [
            "meta-eval",
            "--data",
            str(folder),
            "--protocol",
            "lai2022",
            "-s",
            "chrf:against=source,system_level=mean",
            "--aspect",
            "content",
            "--bootstrap",
            "20",
            "-o",
            str(out),
        ],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("protocol: lai2022") == 2  # the correlation table and the top-N / last-N table
    report = json.loads(out.read_text())
    assert report["config"]["protocol"] == "lai2022" and report["config"]["overrides"] == []
    result = CliRunner().invoke(
        scorers_app,
        [
            "meta-eval",
            "--data",
            str(folder),
            "-s",
            "chrf:against=source",
            "--aspect",
            "content",
            "--bootstrap",
            "20",
            "--tau-threshold",
            "10",
            "-o",
            str(out),
        ],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 0, result.output
    assert "protocol: wmt17-darr (changed: tau_threshold=10.0)" in result.output
    result = CliRunner().invoke(scorers_app, ["meta-eval", "--data", str(folder), "--protocol", "lai", "-o", str(out)])
    assert result.exit_code != 0 and "lai2022" in result.output


def test_multi_bleu_corpus_by_hand():
    # hyp 1 vs ref 1: 1-grams 5/6 (the x2, cat, on, mat), 2-grams 3/5, 3-grams 1/4 ("on the mat"), 4-grams 0/3
    # hyp 2 vs ref 2: 1-grams 6/7, 2-grams 5/6, 3-grams 4/5, 4-grams 3/4; lengths 13 vs 12: no brevity penalty
    # corpus: (11/13 * 8/11 * 5/9 * 3/7) ** (1/4) = (40/273) ** (1/4); the first sentence alone has no 4-gram match: 0
    hyp = ["the cat sat on the mat", "a dog ran in the park today"]
    ref = ["the cat is on the mat", "a dog ran in the park"]
    res = BleuScorer(against="reference", variant="lai2022").score(hyp, hyp, references=ref)
    assert res.corpus == pytest.approx(100 * (40 / 273) ** 0.25, abs=1e-9)
    st = stat_matrix(res)
    assert corpus_score_from_stats(res.details["corpus_aggregate"], st.sum(axis=0)) == pytest.approx(
        100 * (40 / 273) ** 0.25, abs=1e-9
    )
    assert corpus_score_from_stats(res.details["corpus_aggregate"], st[0]) == 0.0
    # sentence level: nltk's smoothing method 1 replaces a zero count by epsilon 0.1: (5/6 * 3/5 * 1/4 * 0.1/3) **
    # (1/4), BP 1
    assert res.scores[0] == pytest.approx((5 / 6 * 3 / 5 * 1 / 4 * 0.1 / 3) ** 0.25, abs=1e-12)
    assert res.details["variant"] == "lai2022" and "multi-bleu" in res.details["corpus"]


def test_multi_bleu_splits_punctuation_like_nltk():
    res = BleuScorer(against="source", variant="lai2022").score(["you are ready."], ["you are ready ."])
    assert res.scores[0] == pytest.approx(1.0) and res.corpus == pytest.approx(
        100.0
    )  # "ready." is two tokens on both sides
    from steb_scorers.lexical import nltk_tokenize

    # word_tokenize splits sentences first, so a sentence-internal period is a token too (punkt, or steb's fallback)
    assert nltk_tokenize("Give it a chance. If you can't, go!") == [
        "Give",
        "it",
        "a",
        "chance",
        ".",
        "If",
        "you",
        "ca",
        "n't",
        ",",
        "go",
        "!",
    ]


def test_chrf_sentence_mean_at_system_level(tmp_path):
    from sacrebleu.metrics import CHRF

    data = load_human_judgements(write_release(tmp_path))
    res = score_judgements(data, ChrfScorer(against="source", system_level="mean"))
    assert stat_matrix(res) is None and res.details["system_level"] == "mean of sentence scores"
    report = meta_evaluate(data, {"chrf": res}, protocol_config("lai2022", aspects=("content",), n_bootstrap=10))
    entry = report["metrics"]["chrf"]
    assert entry["system_level"] == "mean"
    chrf = CHRF()
    systems = report["config"]["systems"]
    means = [
        np.mean(
            [chrf.sentence_score(o, [s]).score for o, s, x in zip(data.outputs, data.sources, data.system) if x == name]
        )
        for name in systems
    ]
    for name, value in zip(systems, means):
        assert entry["system_means"][name] == pytest.approx(value, abs=1e-9)
    human = [data.raw("content")[data.system == name].mean() for name in systems]
    assert entry["correlations"]["content"]["pooled"]["system_pearson"]["value"] == pytest.approx(
        stats.pearsonr(means, human).statistic, abs=1e-9
    )
    corpus = score_judgements(data, ChrfScorer(against="source"))
    assert stat_matrix(corpus) is not None  # the default stays sacrebleu's corpus chrF


def test_pltrdy_rouge_missing_gives_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "rouge", None)
    with pytest.raises(RuntimeError, match=r"pip install rouge==0\.3\.2"):
        RougeScorer(package="rouge", against="source").score(["a b"], ["a b"])
    with pytest.raises(ValueError, match="package"):
        RougeScorer(package="pyrouge")


def _iaa_release(tmp_path: Path) -> Path:
    """Systems A, B, REF; 4 sources, surveys 1, 2, 1, 2. Survey 1's content ratings (annotator 1, annotator 2):
    A: (10, 10) (20, 30), B: (30, 20) (40, 40), REF: (50, 60) (60, 50); survey 2 and the other aspects vary."""
    out = tmp_path / "outputs"
    out.mkdir()
    survey1 = {"A": [(10, 10), (20, 30)], "B": [(30, 20), (40, 40)], "REF": [(50, 60), (60, 50)]}
    for k, (system, pairs) in enumerate(survey1.items()):
        lines = []
        for i in range(4):
            c1, c2 = pairs[i // 2] if i % 2 == 0 else (15 + 7 * k + i, 25 + 3 * k * i)
            s1, s2, f1, f2 = 40 + 9 * k + i, 35 + 4 * i + k, 60 + k * i, 70 - 5 * k + 2 * i
            lines.append(
                "\t".join(map(str, [1 + i % 2, f"src {i}", f"{system} out {i}", f"ref {i}", c1, s1, f1, c2, s2, f2]))
            )
        (out / f"{system}.human.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_table1_agreement_by_hand(tmp_path):
    folder = _iaa_release(tmp_path)
    data = load_human_judgements(folder)
    without, with_ref = agreement_table(data, include_ref=False), agreement_table(data, include_ref=True)
    # survey 1 without REF: x = 10 20 30 40, y = 10 30 20 40: deviations +-15, +-5: sum xy 400, sum x^2 = sum y^2 = 500:
    # r = 0.8
    assert without["surveys"][1]["content"] == pytest.approx(0.8, abs=1e-12)
    # with REF: x = 10..60, y = 10 30 20 40 60 50: sum xy 1550, sum x^2 = sum y^2 = 1750: r = 31/35
    assert with_ref["surveys"][1]["content"] == pytest.approx(31 / 35, abs=1e-12)
    # the pooled "overall" column concatenates the three aspects; independent check with csv + scipy
    rows = []
    for path in sorted(folder.glob("*.human.txt")):
        with open(path, encoding="utf-8", newline="") as fh:
            rows += [r for r in csv.reader(fh, delimiter="\t") if r and r[0] == "1"]
    first = [float(r[c]) for c in (4, 5, 6) for r in rows]
    second = [float(r[c]) for c in (7, 8, 9) for r in rows]
    assert with_ref["surveys"][1]["overall"] == pytest.approx(stats.pearsonr(first, second).statistic, abs=1e-12)
    assert without["n"] == {"overall": 8, "1": 4, "2": 4} and with_ref["n"]["overall"] == 12


def test_table1_printed_with_the_chosen_ref_policy(scorers_app, tmp_path):
    folder = _iaa_release(tmp_path)
    out = tmp_path / "h.json"
    result = CliRunner().invoke(
        scorers_app,
        ["meta-eval", "--data", str(folder), "--human-only", "--iaa-ref", "exclude", "-o", str(out)],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 0, result.output
    assert "REF excluded from every row" in result.output and "0.800" in result.output
    table = json.loads(out.read_text())["human"]["inter_annotator_table"]
    assert (
        table["paper"]["surveys"]["1"]["content"] == pytest.approx(31 / 35)
        and table["paper"]["overall"] == table["without_ref"]["overall"]
    )


def _with_references(tmp_path: Path, n_refs: int = 4) -> Path:
    outputs = write_release(tmp_path)
    refs = tmp_path / "xformal"
    refs.mkdir()
    for k in range(n_refs):
        (refs / f"fr.80.ref{k}").write_text(
            "\n".join(f"reference {i}" if k == 0 else f"other reference {k} number {i}" for i in range(4)) + "\n",
            encoding="utf-8",
        )
    return outputs


def test_loader_reads_the_four_references(tmp_path):
    data = load_human_judgements(_with_references(tmp_path))
    assert data.n_references == 4 and data.reference_column_differs == []
    row = int(np.flatnonzero((data.system == "B") & (data.item == 2))[0])
    assert data.reference_choice("all")[row] == [
        "reference 2",
        "other reference 1 number 2",
        "other reference 2 number 2",
        "other reference 3 number 2",
    ]
    assert (
        data.reference_choice(3)[row] == "other reference 2 number 2"
        and data.reference_choice("1")[row] == "reference 2"
    )
    with pytest.raises(ValueError, match="from 1 to 4"):
        data.reference_choice(5)
    single = load_human_judgements(write_release(tmp_path / "plain"))
    with pytest.raises(ValueError, match=r"\*\.ref0"):
        single.reference_choice("all")


def test_reference_file_of_the_wrong_length_is_named(tmp_path):
    from steb_core import DataValidationError

    outputs = _with_references(tmp_path)
    (tmp_path / "xformal" / "fr.80.ref2").write_text("only one line\n", encoding="utf-8")
    with pytest.raises(DataValidationError, match=r"fr\.80\.ref2.*1 lines"):
        load_human_judgements(outputs)


def test_table_4_correlates_reference_1_with_the_others(scorers_app, tmp_path):
    from sacrebleu.metrics import CHRF

    outputs = _with_references(tmp_path)
    out = tmp_path / "t4.json"
    result = CliRunner().invoke(
        scorers_app,
        [
            "meta-eval",
            "--data",
            str(outputs),
            "--protocol",
            "lai2022",
            "--table",
            "4",
            "-s",
            "chrf",
            "--aspect",
            "content",
            "--bootstrap",
            "10",
            "-o",
            str(out),
        ],
        env={"COLUMNS": "300"},
    )
    assert result.exit_code == 0, result.output
    assert "r(ref1," in result.output and "protocol: lai2022" in result.output and "chrf [ref 3]" in result.output
    report = json.loads(out.read_text())
    row = report["reference_table"]["rows"]["chrf"]
    data = load_human_judgements(outputs)
    rated = data.system != "REF"
    chrf = CHRF()
    first = [
        chrf.sentence_score(o, [r]).score
        for o, r in zip(np.asarray(data.outputs)[rated], np.asarray(data.reference_choice("1"))[rated])
    ]
    third = [
        chrf.sentence_score(o, [r]).score
        for o, r in zip(np.asarray(data.outputs)[rated], np.asarray(data.reference_choice("3"))[rated])
    ]
    assert row["score_pearson_with_ref1"]["3"] == pytest.approx(stats.pearsonr(first, third).statistic, abs=1e-9)
    assert set(row["human"]) == {"1", "2", "3", "4", "all"}
    # the paper's statistic: the release's compute_kenall rule written out by hand from its description, per source
    # over the rated systems' outputs (reference 1's ties skipped, reference 3's ties discordant), mean over sources
    systems = sorted(set(np.asarray(data.system)[rated]))
    items = np.asarray(data.item)[rated]
    names = np.asarray(data.system)[rated]
    taus = []
    for item in sorted(set(items.tolist())):
        at = {str(n): k for k, (n, i) in enumerate(zip(names, items)) if i == item}
        a = [first[at[n]] for n in systems]
        b = [third[at[n]] for n in systems]
        conc = disc = 0
        for i in range(len(systems)):
            for j in range(i + 1, len(systems)):
                if a[i] == a[j]:
                    continue
                if (a[i] - a[j]) * (b[i] - b[j]) > 0:
                    conc += 1
                else:
                    disc += 1
        if conc + disc:
            taus.append((conc - disc) / (conc + disc))
    assert len(taus) > 0
    assert row["score_tau_with_ref1"]["3"] == pytest.approx(sum(taus) / len(taus), abs=1e-12)
    assert "tau(ref1," in result.output


def test_table_a2_pairs_source_and_reference_runs(scorers_app, tmp_path):
    outputs = write_release(tmp_path)
    out = tmp_path / "a2.json"
    result = CliRunner().invoke(
        scorers_app,
        [
            "meta-eval",
            "--data",
            str(outputs),
            "--protocol",
            "lai2022",
            "--table",
            "A.2",
            "-s",
            "chrf:system_level=mean",
            "--aspect",
            "content",
            "--bootstrap",
            "10",
            "-o",
            str(out),
        ],
        env={"COLUMNS": "300"},
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert set(report["metrics"]) == {
        "chrf:system_level=mean,against=source",
        "chrf:system_level=mean,against=reference",
    }
    row = report["source_reference_table"]["content"]["rows"]["chrf:system_level=mean"]
    assert (
        row["source"]["tau_like"]
        == report["metrics"]["chrf:system_level=mean,against=source"]["correlations"]["content"]["pooled"]["tau_like"][
            "value"
        ]
    )
    assert "metrics against the source and against the reference" in result.output


def test_precomputed_complement_for_the_other_style():
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "S.cls.txt"
        path.write_text("1\tsrc a\tout a\tref\t0.9\n1\tsrc b\tout b\tref\t0.2\n", encoding="utf-8")
        scorer = PrecomputedScorer(files=str(path), column=4, complement_for="informal", against="source")
        res = scorer.score(["src a", "src b"], ["out a", "out b"], target_style=["formal", "informal"])
    np.testing.assert_allclose(res.scores, [0.9, 0.8])
    assert res.details["complement_for"] == "informal" and res.details["against"] == "source"
    assert math.isclose(res.scores.sum(), 1.7)
