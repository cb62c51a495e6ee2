"""Issue 38 §2-3: steb results out as the STEB authors' results tree, and such trees in.

The fixture tree is written by hand from reading the reference's ``steb/core.py`` @18c49153 ``evaluate``
(``<dataset>/<model>/<episode_size>_<n>/<task>/metrics.json``, ``json.dumps(metrics)``) and the task modules' keys;
no file of the reference is copied. The submission checks re-implement ``scripts/validate_submission.py``'s four
checks from SUBMISSION.md's description.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from steb import get_datasets
from steb_core import _specs as specs_module
from steb_core._errors import StebError
from steb_core._results import ResultRecord
from steb_core.reference_tree.export import (
    episode_config,
    export_tree,
    models_line,
    parse_episode_option,
    submission_entry,
)
from steb_core.reference_tree.names import REFERENCE_DATASETS, TASK_FOLDERS
from steb_core.reference_tree.read import ORIGIN, REFERENCE_PROTOCOL, is_imported, keep_apart, read_tree, read_trees
from steb_core.report.leaderboard import compute_leaderboard

SPECS = get_datasets()


def test_the_dataset_table_is_steb_s_steb_and_multilingual_suites():
    names = {s.name for s in get_datasets(suite="steb")} | {s.name for s in get_datasets(suite="steb-multilingual")}
    assert set(REFERENCE_DATASETS) == names and len(REFERENCE_DATASETS) == 113


# --- a tree written by hand in the reference's layout -------------------------------------------------------------


def _write(root: Path, rel: str, content) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def _hand_tree(root: Path) -> Path:
    pair = {
        "eer": 0.36,
        "auc": 0.68,
        "auc@0.01": 0.52,
        "auc@0.05": 0.55,
        "auc@0.10": 0.56,
        "auc@0.20": 0.59,
        "auc@0.30": 0.61,
        "auc@0.50": 0.65,
    }
    _write(
        root,
        "ASSET/LUAR-MUD/1_200/order_alignment/metrics.json",
        {
            "acc_mean": 0.85,
            "distractor_acc_mean": 0.25,
            "_per_label": {"simple": {"acc_mean": 0.85, "distractor_acc_mean": 0.25}},
        },
    )
    _write(root, "eWAVE/LUAR-MUD/1_29/clustering/metrics.json", {"v_measure": 0.29})
    _write(root, "eWAVE/LUAR-MUD/1_29/all_to_all_pair_classification/metrics.json", pair)
    # the second eWAVE folder of the reference (config @1fbd5f22) names the same steb dataset; another model here
    _write(root, "ewave/star/1_29/clustering/metrics.json", {"v_measure": 0.31})
    _write(
        root, "enron_authorship_corpus/LUAR-MUD/1_2/pre_defined_pair_classification/metrics.json", {**pair, "auc": 0.91}
    )
    _write(
        root,
        "amazon/LUAR-MUD/-1_1/retrieval/metrics.json",
        {"mrr": 0.7, "mean_rank": 3.5, **{f"recall@{k}": min(1.0, 0.5 + k / 256) for k in (1, 8, 16, 32, 64, 128)}},
    )
    _write(root, "probing_blog/LUAR-MUD/1_1/probing/metrics.json", {"t_word": 0.5, "n_noun": 0.7, "average": 0.6})
    # run logs beside the results (core.py _write_evaluation_log): not results, not listed
    _write(root, "logs/LUAR-MUD_20260101_000000.log.json", {"model": "LUAR-MUD", "successes": []})
    # what cannot be mapped
    _write(root, "the_pile/LUAR-MUD/1_200/clustering/metrics.json", {"v_measure": 0.1})  # no steb dataset
    _write(root, "core/LUAR-MUD/1_25/mystery_task/metrics.json", {"score": 1.0})  # unknown task folder
    _write(root, "core/LUAR-MUD/2_25/clustering/metrics.json", {"v_measure": 0.4})  # not the preset's episode size
    _write(root, "core/LUAR-MUD/1_25/clustering/metrics.json", {"v_measure": 0.3})  # mapped
    # the same run with another N: the first folder in sorted order is read
    _write(root, "core/LUAR-MUD/1_50/clustering/metrics.json", {"v_measure": 0.9})
    _write(root, "x_genre/LUAR-MUD/1_46/clustering/tokens_512/metrics.json", {"v_measure": 0.2})  # token-capped only
    _write(root, "masc_text_genre/LUAR-MUD/1_150/clustering/metrics.json", "{not json")
    _write(root, "bible_versions/LUAR-MUD/1_200/clustering/metrics.json", {"ari": 0.3})  # primary key missing
    _write(root, "blog_age/LUAR-MUD/1_200/clustering/metrics.json", '{"v_measure": NaN}')  # the reference can write NaN
    _write(root, "fce_l1/LUAR-MUD/1_25/clustering/metrics.json", "[0.1]")
    _write(root, "README.txt", "a file at the top is not a dataset folder")
    return root


def test_a_hand_written_reference_tree_is_read(tmp_path):
    found = read_tree(_hand_tree(tmp_path / "results"))
    got = {(r.encoder, r.dataset, r.task): r for r in found.records}
    assert set(got) == {
        ("LUAR-MUD", "ASSET", "order_alignment"),
        ("LUAR-MUD", "eWAVE", "clustering"),
        ("LUAR-MUD", "eWAVE", "pair_all"),
        ("star", "eWAVE", "clustering"),
        ("LUAR-MUD", "enron_authorship_corpus", "pair_predefined"),
        ("LUAR-MUD", "amazon", "retrieval"),
        ("LUAR-MUD", "probing_blog", "probing"),
        ("LUAR-MUD", "core", "clustering"),
    }
    oa = got[("LUAR-MUD", "ASSET", "order_alignment")]
    assert (oa.main_metric, oa.main_score) == ("distractor_accuracy", 0.25)
    assert oa.metrics["accuracy"] == 0.85 and oa.metrics["accuracy_by_style_type"] == {"simple": 0.85}
    assert oa.metrics["distractor_accuracy_by_style_type"] == {"simple": 0.25}
    pa = got[("LUAR-MUD", "eWAVE", "pair_all")]
    assert (pa.main_metric, pa.main_score, pa.metrics["eer"], pa.metrics["auc@0.01"]) == ("auroc", 0.68, 0.36, 0.52)
    ret = got[("LUAR-MUD", "amazon", "retrieval")]
    assert ret.metrics["mrr"] == 0.7 and ret.metrics["recall_at_1"] == pytest.approx(0.5 + 1 / 256)
    assert ret.metrics["recall_at_128"] == 1.0 and ret.dataset_info["episode_config"] == "-1_1"
    probe = got[("LUAR-MUD", "probing_blog", "probing")]
    assert (probe.main_metric, probe.main_score) == ("accuracy", 0.6)
    assert probe.metrics["accuracy_by_feature"] == {"t_word": 0.5, "n_noun": 0.7}
    core = got[("LUAR-MUD", "core", "clustering")]
    assert core.main_score == 0.3
    source = "core/LUAR-MUD/1_25/clustering/metrics.json"
    assert core.dataset_info == {"episode_config": "1_25", "reference_file": source}
    assert all(
        is_imported(r) and r.steb_protocol == REFERENCE_PROTOCOL and r.encoder_info["origin"] == ORIGIN
        for r in found.records
    )
    reasons = {u.path: u.reason for u in found.unmapped}
    assert reasons["the_pile/"].startswith("no steb dataset")
    assert reasons["core/LUAR-MUD/1_25/mystery_task/"] == "unknown task folder"
    assert "episode size 2" in reasons["core/LUAR-MUD/2_25/clustering/"]
    assert "1_25" in reasons["core/LUAR-MUD/1_50/clustering/metrics.json"]
    assert "token-capped" in reasons["x_genre/LUAR-MUD/1_46/clustering/"]
    assert "invalid JSON" in reasons["masc_text_genre/LUAR-MUD/1_150/clustering/metrics.json"]
    assert "'v_measure'" in reasons["bible_versions/LUAR-MUD/1_200/clustering/metrics.json"]
    assert "not a finite number" in reasons["blog_age/LUAR-MUD/1_200/clustering/metrics.json"]
    assert "JSON list" in reasons["fce_l1/LUAR-MUD/1_25/clustering/metrics.json"]
    assert not any(p.startswith("logs") or p.startswith("README") for p in reasons)
    # asking for one episode folder reads that one (the scripts' --episode-params)
    only = read_tree(tmp_path / "results", episode_params="1_50")
    assert {r.main_score for r in only.records if r.dataset == "core"} == {0.9}


def test_imported_records_are_valid_steb_records(tmp_path):
    found = read_tree(_hand_tree(tmp_path / "results"), specs={s.name: s for s in SPECS})
    for rec in found.records:
        path = rec.write(tmp_path / "steb")
        assert ResultRecord.read(path).verified()
    asset = next(r for r in found.records if r.dataset == "ASSET")
    assert "register" in asset.dataset_meta["categories"]  # copied from the installed spec


def test_earlier_tree_wins_and_later_is_listed(tmp_path):
    a = _write(tmp_path, "results/eWAVE/m/1_29/clustering/metrics.json", {"v_measure": 0.5}).parents[4]
    b = _write(tmp_path, "submitted/eWAVE/m/1_29/clustering/metrics.json", {"v_measure": 0.9}).parents[4]
    merged = read_trees([a, b])
    assert [r.main_score for r in merged.records] == [0.5]
    assert merged.unmapped[0].reason.startswith("shadowed by") and "results" in merged.unmapped[0].reason


# --- steb records out ---------------------------------------------------------------------------------------------


def _steb_records(encoder: str, seed: int) -> list[ResultRecord]:
    """A steb run's records (the fields the runner writes that matter here) on STEB datasets feeding every column."""
    rng = random.Random(seed)
    u = lambda: round(rng.random(), 6)  # noqa: E731
    proto = specs_module.STEB_PROTOCOL_VERSION
    out = []

    def add(dataset, task, metrics, main, **info):
        out.append(
            ResultRecord(
                encoder=encoder,
                dataset=dataset,
                task=task,
                main_metric=main,
                main_score=metrics[main],
                metrics=metrics,
                steb_protocol=proto,
                dataset_info=info,
                protocol={"name": "chunk-and-pool", "max_length": None},
            )
        )

    for d in ("core", "wikipedia_politeness", "bible_versions", "blog_age", "eWAVE"):
        add(d, "clustering", {"v_measure": u(), "ari": u(), "n_texts": 400, "n_clusters": 2}, "v_measure")
        same = 2 * 200 * 199 // 2  # two classes of 200 texts
        add(d, "pair_all", {"auroc": u(), "average_precision": u(), "n_texts": 400, "n_positive_pairs": same}, "auroc")
    for d in ("gede_essay_detection", "machine_text_detection_DetectRL_prompt_attacks"):
        add(d, "clustering", {"v_measure": u(), "n_texts": 800, "n_clusters": 4}, "v_measure")
    for d in ("STEL_register", "parallel_shakespeare", "twitter_aave_sae", "StylePTB", "ASSET"):
        acc, dis = u(), u()
        add(
            d,
            "order_alignment",
            {
                "accuracy": acc,
                "distractor_accuracy": dis,
                "accuracy_by_style_type": {"x": acc},
                "distractor_accuracy_by_style_type": {"x": dis},
            },
            "distractor_accuracy",
            reference_n_per_class=200,
        )
    for d in ("enron_authorship_corpus", "pan18_style_change", "pan23_style_change_easy"):
        add(d, "pair_predefined", {"auroc": u(), "average_precision": u()}, "auroc")
    add(
        "amazon",
        "retrieval",
        {"mrr": u(), "recall_at_1": u(), "recall_at_8": u(), "n_queries": 500, "n_targets": 500},
        "mrr",
    )
    add("probing_blog", "probing", {"accuracy": 0.5, "accuracy_by_feature": {"f1": 0.4, "f2": 0.6}}, "accuracy")
    return out


def _export(records, out, short, **kw):
    return export_tree(records, out, short, allow_partial=True, **kw)


def test_export_writes_the_reference_layout(tmp_path):
    recs = _steb_records("my-encoder", 1)
    report = _export(recs, tmp_path / "out", "my-model")
    assert not report.skipped and len(report.written) == len(recs)
    clustering = tmp_path / "out/core/my-model/1_200/clustering/metrics.json"
    rec = next(r for r in recs if (r.dataset, r.task) == ("core", "clustering"))
    # exactly core.py's json.dumps(metrics): one line, ", " and ": ", no newline; only the keys the reference writes
    assert clustering.read_text() == json.dumps({"v_measure": rec.metrics["v_measure"]})
    pa = json.loads((tmp_path / "out/core/my-model/1_200/all_to_all_pair_classification/metrics.json").read_text())
    assert list(pa) == ["auc"]  # eer and the partial AUCs are not in steb's record: not written, listed
    item = next(i for i in report.written if i.task == "pair_all" and i.dataset == "core")
    assert item.missing == ("eer", "auc@0.01", "auc@0.05", "auc@0.10", "auc@0.20", "auc@0.30", "auc@0.50")
    oa = json.loads((tmp_path / "out/ASSET/my-model/1_200/order_alignment/metrics.json").read_text())
    assert list(oa) == ["acc_mean", "distractor_acc_mean", "_per_label"]
    assert (tmp_path / "out/amazon/my-model/-1_1/retrieval/metrics.json").exists()
    assert (tmp_path / "out/enron_authorship_corpus/my-model/1_2/pre_defined_pair_classification/metrics.json").exists()
    probe = json.loads((tmp_path / "out/probing_blog/my-model/1_1/probing/metrics.json").read_text())
    assert probe == {"f1": 0.4, "f2": 0.6, "average": 0.5}
    assert (tmp_path / "out/gede_essay_detection/my-model/1_200/clustering/metrics.json").exists()  # 800 texts / 4
    manifest = json.loads(report.manifest.read_text())
    assert manifest["allowed"]["partial"].startswith(f"{len(recs)} of 121")
    assert manifest["missing_keys"]["eer"] == 8  # 5 all-to-all + 3 pre-defined files, made without them
    assert any("--overwrite" in n for n in item.notes)


def test_export_round_trips_to_equal_records_and_equal_aggregates(tmp_path):
    runs = {f"enc{i}": _steb_records(f"enc{i}", i) for i in range(4)}
    for name, recs in runs.items():
        _export(recs, tmp_path / "tree", f"{name}-short")
    found = read_tree(tmp_path / "tree")
    assert not found.unmapped
    back = {(r.encoder, r.dataset, r.task): r for r in found.records}
    originals = {(f"{r.encoder}-short", r.dataset, r.task): r for recs in runs.values() for r in recs}
    assert set(back) == set(originals)
    for key, orig in originals.items():
        got = back[key]
        assert (got.main_metric, got.main_score) == (orig.main_metric, orig.main_score)
        for name in (
            "v_measure",
            "auroc",
            "accuracy",
            "distractor_accuracy",
            "mrr",
            "recall_at_1",
            "recall_at_8",
            "accuracy_by_style_type",
            "distractor_accuracy_by_style_type",
            "accuracy_by_feature",
        ):
            if name in orig.metrics:
                assert got.metrics[name] == orig.metrics[name], (key, name)
    renamed = [ResultRecord(**{**vars(r), "encoder": f"{r.encoder}-short"}) for recs in runs.values() for r in recs]
    before = compute_leaderboard(renamed, datasets=SPECS)
    after = compute_leaderboard(found.records, datasets=SPECS)
    assert [a.name for a in before.aggregates] == [a.name for a in after.aggregates]
    for a, b in zip(before.aggregates, after.aggregates):
        for col_a, col_b in zip(a.columns(), b.columns()):
            assert col_a.scores == col_b.scores, col_a.name  # bit-equal: JSON floats round-trip exactly
    scored = {a.name: a for a in after.aggregates}
    assert all(v is not None for v in scored["definitional"].scores.values())
    assert all(v is not None for v in scored["operational"].scores.values())
    # the same tree exported again is unchanged (idempotent), other numbers are refused without --overwrite
    again = _export(runs["enc0"], tmp_path / "tree", "enc0-short")
    assert all(i.unchanged for i in again.written)
    with pytest.raises(StebError, match="already exist with other numbers"):
        _export(runs["enc1"], tmp_path / "tree", "enc0-short")
    assert read_tree(tmp_path / "tree").records == found.records  # nothing was written


def test_export_counts_the_benchmarks_pairs_where_no_dataset_plugin_is_installed(steb_isolated, tmp_path):
    """The export's STEB pairs are the benchmark object's (issue 48 item 4): with only steb's built-ins loaded (no
    plugin registers a STEB dataset) a run of 22 pairs is still 22 of 121, and each is written as a STEB pair."""
    steb_isolated.manager()  # built-ins only
    recs = _steb_records("e", 0)
    with pytest.raises(StebError, match="partial suite: 22 of 121"):
        export_tree(recs, tmp_path / "a", "m")
    report = export_tree(recs, tmp_path / "b", "m", allow_partial=True)
    assert len(report.written) == 22 and not report.skipped


def test_export_refuses_partial_suite_and_other_protocol_unless_asked(tmp_path):
    recs = _steb_records("e", 0)
    with pytest.raises(StebError, match="partial suite: 22 of 121"):
        export_tree(recs, tmp_path / "a", "m")
    assert not (tmp_path / "a").exists()
    old = [ResultRecord(**{**vars(r), "steb_protocol": "STEB-2025.01 (draft)"}) for r in recs]
    with pytest.raises(StebError, match="STEB-2025.01"):
        _export(old, tmp_path / "b", "m")
    report = _export(old, tmp_path / "b", "m", allow_other_protocol=True)
    assert "STEB-2025.01" in report.allowed["other_protocol"]
    assert "STEB-2025.01" in json.loads(report.manifest.read_text())["record_protocols"][0]
    # a bump of steb's protocol version makes today's records "another protocol" (read when the export runs)
    with pytest.raises(StebError, match="not this steb's"):
        _export(recs, tmp_path / "c", "m", steb_protocol="STEB-2027.01")
    truncated = [ResultRecord(**{**vars(r), "protocol": {"name": "truncate", "max_length": 512}}) for r in recs]
    with pytest.raises(StebError, match="truncate"):
        _export(truncated, tmp_path / "d", "m")
    report = _export(truncated, tmp_path / "d", "m", allow_other_protocol=True)
    assert (tmp_path / "d/core/m/1_200/clustering/tokens_512/metrics.json").exists()


def test_export_skips_and_lists_what_it_cannot_write(tmp_path):
    recs = _steb_records("e", 0)
    unbalanced = ResultRecord(**{**vars(recs[0]), "metrics": {"v_measure": 0.5, "n_texts": 401, "n_clusters": 2}})
    no_n = next(r for r in recs if r.dataset == "ASSET")
    no_n = ResultRecord(**{**vars(no_n), "dataset_info": {}})
    two_targets = ResultRecord(
        **{
            **vars(next(r for r in recs if r.task == "retrieval")),
            "metrics": {"mrr": 0.5, "n_queries": 500, "n_targets": 1000},
        }
    )
    demo = ResultRecord(**{**vars(recs[0]), "dataset": "demo_registers"})
    other_task = ResultRecord(**{**vars(recs[0]), "dataset": "machine_text_detection_PAN24_news", "task": "pair_all"})
    report = _export([unbalanced, no_n, two_targets, demo, other_task, recs[1]], tmp_path / "o", "m")
    reasons = {(s.dataset, s.task): s.reason for s in report.skipped}
    assert "--episode core:clustering=1_N" in reasons[("core", "clustering")]
    assert "--episode ASSET:order_alignment=1_N" in reasons[("ASSET", "order_alignment")]
    assert "one target per query" in reasons[("amazon", "retrieval")]
    assert reasons[("demo_registers", "clustering")].startswith("not a STEB dataset")
    assert reasons[("machine_text_detection_PAN24_news", "pair_all")].startswith("not one of this STEB dataset's tasks")
    # the N given on the command line, and steb-only datasets written under their own names when asked
    report = _export(
        [no_n, demo],
        tmp_path / "p",
        "m",
        include_other=True,
        episodes=parse_episode_option(["ASSET:order_alignment=1_200", "demo_registers:*=1_200"]),
    )
    assert {i.path for i in report.written} == {
        "ASSET/m/1_200/order_alignment/metrics.json",
        "demo_registers/m/1_200/clustering/metrics.json",
    }
    with pytest.raises(StebError, match="DATASET:TASK=SIZE_N"):
        parse_episode_option(["ASSET=1_200"])
    with pytest.raises(StebError, match="short-name"):
        _export(recs, tmp_path / "q", "my/model")
    with pytest.raises(StebError, match="choose one with --encoder"):
        _export(recs + _steb_records("f", 1), tmp_path / "q", "m")


def test_episode_config_from_the_metrics_only_when_exact():
    base = _steb_records("e", 0)
    pa = next(r for r in base if r.task == "pair_all")
    assert episode_config(pa) == ("1_200", "same-label pairs of balanced classes")
    # 3 classes of 25, 25, 26 texts: 2 * 925 / 76 is not an integer -> unknown, never rounded
    odd = ResultRecord(**{**vars(pa), "metrics": {"auroc": 0.5, "n_texts": 76, "n_positive_pairs": 300 + 300 + 325}})
    assert episode_config(odd)[0] is None


# --- the submission: SUBMISSIONS.yaml entry, models_all.txt line, validate_submission.py's checks --------------------


def _validate(repo: Path) -> list[str]:
    """The four checks of scripts/validate_submission.py, re-implemented from SUBMISSION.md's description."""
    yaml = pytest.importorskip("yaml")
    errors: list[str] = []
    entries = yaml.safe_load((repo / "SUBMISSIONS.yaml").read_text()) or []
    assert isinstance(entries, list)
    on_disk = {m.name for d in (repo / "submitted_results").iterdir() if d.is_dir() for m in d.iterdir() if m.is_dir()}
    listed: set[str] = set()
    for line in (repo / "scripts/models_all.txt").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            listed |= {line, line.split("/")[-1]}
    for i, entry in enumerate(entries):
        keys = ("short_name", "hf_id", "run_command", "contributor")
        bad = [
            k for k in keys if not isinstance(entry, dict) or not isinstance(entry.get(k), str) or not entry[k].strip()
        ]
        if bad:  # 1. four required keys, non-empty strings
            errors.append(f"entry {i}: {bad}")
            continue
        if entry["short_name"] not in on_disk:  # 2. a results subtree per short_name
            errors.append(f"{entry['short_name']}: no submitted_results/<dataset>/{entry['short_name']}/")
        if entry["hf_id"] not in listed and entry["short_name"] not in listed:  # 4. listed in models_all.txt
            errors.append(f"{entry['short_name']}: not in models_all.txt")
    for path in (repo / "submitted_results").rglob("metrics.json"):  # 3. every metrics file parses as JSON
        try:
            json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            errors.append(f"{path}: {exc}")
    return errors


def test_an_export_passes_validate_submission_checks(tmp_path):
    repo = tmp_path / "STEB"
    (repo / "scripts").mkdir(parents=True)
    (repo / "scripts/models_all.txt").write_text("# Style-Specific Models\nrrivera1849/LUAR-MUD\n")
    (repo / "SUBMISSIONS.yaml").write_text("# STEB model submissions.\n")
    _export(_steb_records("e", 0), repo / "submitted_results", "my-style-model")
    hf_id = "my-org/my-style-model"
    command = 'steb run --suite steb --encoder "my-org/my-style-model"'
    entry = submission_entry("my-style-model", hf_id, command, "octocat")
    with open(repo / "SUBMISSIONS.yaml", "a") as f:
        f.write(entry + "\n")
    with open(repo / "scripts/models_all.txt", "a") as f:
        f.write(models_line("my-style-model", hf_id) + "\n")
    assert _validate(repo) == []
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load((repo / "SUBMISSIONS.yaml").read_text())[0]["run_command"].endswith('"my-org/my-style-model"')
    assert models_line("my-style-model", hf_id) == "my-org/my-style-model"
    assert models_line("functionwordfreq", "functionwordfreq") == "functionwordfreq"
    # the checks can fail: without the models line, or with a broken metrics file
    (repo / "scripts/models_all.txt").write_text("rrivera1849/LUAR-MUD\n")
    assert _validate(repo) == ["my-style-model: not in models_all.txt"]
    _write(repo, "submitted_results/core/my-style-model/1_200/clustering/metrics.json", "{")
    assert len(_validate(repo)) == 2


# --- your model among the published ones ----------------------------------------------------------------------------


def test_report_ranks_a_run_among_the_published_models(tmp_path, capsys):
    from steb_core.report import build_report

    tree = tmp_path / "results"
    for i in range(3):
        _export(_steb_records(f"b{i}", 10 + i), tree, f"baseline-{i}")
    mine = tmp_path / "mine"
    for rec in _steb_records("my-encoder", 99):
        rec.write(mine)
    _write(tree, "the_pile/baseline-0/1_200/clustering/metrics.json", {"v_measure": 0.1})
    # a published model with the name of my encoder stays a row of its own
    _export(_steb_records("x", 5), tree, "my-encoder")
    paths = build_report(mine, tmp_path / "report", console=False, html=False, leaderboard=[tree])
    board = paths.leaderboard
    assert set(board.table.encoders) == {
        "my-encoder",
        "my-encoder (published)",
        "baseline-0",
        "baseline-1",
        "baseline-2",
    }
    op = board.aggregate("operational")
    assert all(op.scores[e] is not None for e in board.table.encoders)
    # issue 45 item 3: the clusters are frozen from the 4 published models, as the leaderboard computes them;
    # my run is scored with them and does not move them
    assert op.details["n_models"] == 4 and op.details["cluster_set"]["n_models"] == 4
    assert board.origins()["my-encoder"] == "yours" and board.origins()["baseline-0"] == "published"
    md = paths.markdown.read_text()
    assert "## Published results" in md and "4 published model(s)" in md and "'NAME (published)': my-encoder" in md
    assert "different data" not in md  # published results carry no data fingerprint: said once, not per dataset
    assert paths.unmapped is not None and "the_pile/" in paths.unmapped.read_text()
    assert "STEB reference code" in md  # the protocol line names where the published numbers come from
    own, renamed = keep_apart([], [])
    assert own == [] and renamed == []


def test_cli_export_import_and_clusters(tmp_path, wide_cli_console):
    from typer.testing import CliRunner

    from steb_core.cli import build_app

    app = build_app([])
    runner = CliRunner()
    results = tmp_path / "run"
    for rec in _steb_records("my-encoder", 3):
        rec.write(results)
    out = tmp_path / "submitted_results"
    res = runner.invoke(app, ["export", str(results), str(out), "--short-name", "my-model"])
    assert res.exit_code != 0 and "--allow-partial" in str(res.exception or res.output)
    res = runner.invoke(
        app,
        [
            "export",
            str(results),
            str(out),
            "--format",
            "steb-leaderboard",
            "--short-name",
            "my-model",
            "--allow-partial",
            "--hf-id",
            "org/my-model",
            "--contributor",
            "octocat",
        ],
    )
    assert res.exit_code == 0, res.output
    # the whole SUBMISSIONS.yaml as it becomes from the published '[]' (issue 47: appending to '[]' is not YAML)
    assert "- short_name: my-model\n  hf_id: org/my-model" in res.output and "\norg/my-model\n" in res.output
    assert "eer (8 file(s))" in res.output  # what the records lack is said, not written
    assert (out / "core/my-model/1_200/clustering/metrics.json").exists()
    imported = tmp_path / "imported"
    res = runner.invoke(app, ["import", str(out), "--out", str(imported)])
    assert res.exit_code == 0, res.output
    from steb_core._results import load_results

    back = list(load_results(imported))
    assert len(back) == 22 and all(is_imported(r) for r in back)
    for i in range(3):
        _export(_steb_records(f"b{i}", i), out, f"b{i}")
    frozen = tmp_path / "clusters.json"
    res = runner.invoke(app, ["export-clusters", "--leaderboard", str(out), "-o", str(frozen), "--name", "published"])
    assert res.exit_code == 0, res.output
    data = json.loads(frozen.read_text())
    assert data["name"] == "published" and data["n_models"] == 4
    assert set(TASK_FOLDERS) >= set(data["tasks"])


# --- follow-ups: every dataset's N per class in the record, every key the reference writes ---------------------------


def test_the_demo_exports_every_dataset_and_every_key_with_no_episode_option(tmp_path):
    """A run's records carry the N per class of the reference's folder (no --episode), and every metric it writes."""
    from steb_core import evaluate
    from steb_core.reference_tree.names import metric_keys

    summary = evaluate(
        "function-words",
        suite="demo",
        output=tmp_path / "run",
        cache_dir=tmp_path / "cache",
        progress=False,
        threads=1,
        prefetch=0,
        errors="raise",
    )
    report = _export(summary.results, tmp_path / "out", "fw", include_other=True)
    assert not report.skipped and not report.missing_keys()
    folders = {(i.dataset, i.task): i.path.split("/")[2] for i in report.written}
    assert folders == {
        ("demo_registers", "clustering"): "1_40",
        ("demo_registers", "pair_all"): "1_40",  # 40 texts per register
        ("demo_style_features", "order_alignment"): "1_120",
        ("demo_formality", "order_alignment"): "1_120",
        ("demo_authors_verification", "pair_predefined"): "1_2",
        ("demo_authors_retrieval", "retrieval"): "-1_1",
        ("demo_probing", "probing"): "1_1",
    }
    for item in report.written:
        keys = [k.reference for k in metric_keys(item.task)]
        data = json.loads((tmp_path / "out" / item.path).read_text())
        assert [k for k in data if k in keys] == keys, item.path  # all of them, in the reference's order


def test_the_n_per_class_of_a_task_and_random_draws(tmp_path):
    recs = _steb_records("e", 0)
    oa = next(r for r in recs if r.dataset == "ASSET")
    per_task = ResultRecord(
        **{**vars(oa), "dataset_info": {"reference_n_per_class": {"order_alignment": 150, "clustering": 200}}}
    )
    assert episode_config(per_task) == ("1_150", "the record")
    other_task = ResultRecord(**{**vars(oa), "dataset_info": {"reference_n_per_class": {"clustering": 200}}})
    assert episode_config(other_task)[0] is None
    drawn = [ResultRecord(**{**vars(r), "dataset_info": {**r.dataset_info, "sampling": "random"}}) for r in recs]
    with pytest.raises(StebError, match="sampling=random"):
        _export(drawn, tmp_path / "a", "m")
    report = _export(drawn, tmp_path / "a", "m", allow_other_protocol=True)
    assert "sampling=random" in report.allowed["other_protocol"]


def test_why_a_key_is_missing_is_said(tmp_path):
    recs = _steb_records("e", 0)
    pa = next(r for r in recs if r.task == "pair_all")
    grid = ResultRecord(**{**vars(pa), "metrics": {**pa.metrics, "eer_and_partial_aucs": "not computed: grid"}})
    counted = ResultRecord(
        **{
            **vars(next(r for r in recs if r.task == "retrieval")),
            "metrics": {
                "mrr": 0.5,
                "recall_at_1": 0.2,
                "recall_at_8": 0.6,
                "rule": "counted",
                "n_queries": 500,
                "n_targets": 500,
            },
        }
    )
    report = _export([grid, counted], tmp_path / "o", "m")
    notes = {(i.dataset, i.task): i.notes for i in report.written}
    assert notes[(pa.dataset, "pair_all")][0] == (
        "eer, auc@0.01, auc@0.05, auc@0.10, auc@0.20, auc@0.30, auc@0.50: not computed: grid"
    )
    assert (
        "mean_rank, recall@16, recall@32, recall@64, recall@128: not computed by retrieval's rule 'counted'"
        in (notes[("amazon", "retrieval")][0])
    )
