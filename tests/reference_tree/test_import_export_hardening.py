"""Issue 47 (import/export/cite/submission) and issue 45 item 3 (the published baselines in one command).

Every tree here is written by hand in the layout the reference's ``steb/core.py`` @18c49153 ``evaluate`` writes
(``<dataset>/<model>/<episode>/<task>/metrics.json``); the published tarball is built the way
``scripts/download_results.sh`` @e82ae604 expects it (a top-level ``results/`` folder) and served by the local
fake Drive. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from steb import get_datasets
from steb_core import _specs as specs_module
from steb_core._errors import StebError
from steb_core._results import ResultRecord, load_results
from steb_core.reference_tree.export import episode_config, export_tree, parse_episode_option
from steb_core.reference_tree.layout import check_short_name, parse_episode_folder
from steb_core.reference_tree.read import is_imported, read_tree

SPECS = get_datasets()
pytestmark = pytest.mark.usefixtures("wide_cli_console")


def _invoke(*args: str):
    from steb_core.cli import build_app

    return CliRunner().invoke(build_app(list(args)), list(args), catch_exceptions=True)


def _flat(text: str) -> str:
    """Console output with its line wrapping undone (a long path wraps even at 250 columns)."""
    return " ".join(text.split())


def _write(root: Path, rel: str, content) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def _own(encoder: str, score: float = 0.4) -> list[ResultRecord]:
    """Records as a steb run writes them (not imported) on two STEB datasets."""
    proto = specs_module.STEB_PROTOCOL_VERSION
    return [
        ResultRecord(
            encoder=encoder,
            dataset="core",
            task="clustering",
            main_metric="v_measure",
            main_score=score,
            metrics={"v_measure": score, "n_texts": 50, "n_clusters": 2},
            steb_protocol=proto,
            dataset_info={"reference_n_per_class": 25},
            encoder_identity={"name": encoder},
        ),
        ResultRecord(
            encoder=encoder,
            dataset="ASSET",
            task="order_alignment",
            main_metric="distractor_accuracy",
            main_score=score / 2,
            metrics={"accuracy": score, "distractor_accuracy": score / 2},
            steb_protocol=proto,
            dataset_info={"reference_n_per_class": 200},
            encoder_identity={"name": encoder},
        ),
    ]


# --- an imported result never replaces a computed one ---------------------------------------------------------------


def test_an_import_keeps_published_results_apart_from_the_user_s_own(tmp_path):
    mine = tmp_path / "mine"
    for rec in _own("function-words", 0.4):
        rec.write(mine)
    before = {(r.dataset, r.task): r for r in load_results(mine)}
    tree = tmp_path / "TREE"
    _write(tree, "core/function-words/1_25/clustering/metrics.json", {"v_measure": 0.9})
    _write(
        tree, "ASSET/function-words/1_200/order_alignment/metrics.json", {"acc_mean": 0.8, "distractor_acc_mean": 0.7}
    )
    res = _invoke("import", str(tree), "--out", str(mine), "--include-other")
    assert res.exit_code == 0, res.output
    assert "replaced" not in res.output and "kept apart" in _flat(res.output) and "function-words" in res.output
    after = list(load_results(mine))
    own = {(r.dataset, r.task): r for r in after if r.encoder == "function-words"}
    assert {k: (r.main_score, r.content_hash) for k, r in own.items()} == {
        k: (r.main_score, r.content_hash) for k, r in before.items()
    }  # the user's records are untouched
    published = [r for r in after if r.encoder == "function-words (published)"]
    assert len(published) == 2 and all(is_imported(r) for r in published)
    assert {r.encoder_info["model_folder"] for r in published} == {"function-words"}  # provenance kept
    assert {r.main_score for r in published} == {0.9, 0.7}
    # importing again replaces only the earlier import
    again = _invoke("import", str(tree), "--out", str(mine), "--include-other")
    assert again.exit_code == 0 and "2 earlier import(s) replaced" in _flat(again.output)
    # the export takes the user's own numbers, never the imported ones
    out = tmp_path / "export"
    res = _invoke("export", str(mine), str(out), "--short-name", "fw", "--allow-partial", "--allow-other-protocol")
    assert res.exit_code == 0, res.output
    assert json.loads((out / "core/fw/1_25/clustering/metrics.json").read_text()) == {"v_measure": 0.4}
    res = _invoke(
        "export",
        str(mine),
        str(tmp_path / "e2"),
        "--short-name",
        "fw",
        "--allow-partial",
        "--allow-other-protocol",
        "--encoder",
        "function-words (published)",
    )
    assert res.exit_code != 0 and "imported from a published STEB results tree" in str(res.exception)
    assert not (tmp_path / "e2").exists()


def test_an_imported_record_that_would_replace_a_computed_one_is_refused_naming_both(tmp_path):
    from steb_core.reference_tree.read import import_records

    mine = tmp_path / "mine"
    for rec in _own("x (published)"):  # a computed encoder whose name a renamed import would take
        rec.write(mine)
    tree = tmp_path / "TREE"
    _write(tree, "core/x/1_25/clustering/metrics.json", {"v_measure": 0.9})
    found = read_tree(tree)
    renamed = [ResultRecord(**{**vars(r), "encoder": "x (published)"}) for r in found.records]
    with pytest.raises(StebError, match="would replace results steb computed") as exc:
        import_records(mine, renamed)
    assert "core/x/1_25/clustering/metrics.json" in str(exc.value) and "x (published)" in str(exc.value)
    assert {r.main_score for r in load_results(mine) if r.dataset == "core"} == {0.4}


def test_export_of_only_imported_results_is_refused(tmp_path):
    tree = tmp_path / "TREE"
    _write(tree, "core/m/1_25/clustering/metrics.json", {"v_measure": 0.9})
    with pytest.raises(StebError, match="none computed by steb"):
        export_tree(read_tree(tree).records, tmp_path / "out", "m", allow_partial=True, allow_other_protocol=True)


# --- steb cite: unique keys, nothing dropped ------------------------------------------------------------------------


def test_cite_prints_two_works_whose_keys_coincide_under_two_keys(tmp_path):
    import re

    results = tmp_path / "run"
    citations = {
        "demo_a": "Smith, John. 2020. Style corpus one. In Proceedings of the Workshop on Style.",
        "demo_b": "Smith, John. 2020. Style corpus two, revisited. Journal of Style.",
        "demo_c": "Smith, John. 2020. Style corpus one. In Proceedings of the Workshop on Style.",  # same work as a
    }
    for name, citation in citations.items():
        ResultRecord(
            encoder="e",
            dataset=name,
            task="clustering",
            main_metric="v_measure",
            main_score=0.5,
            metrics={"v_measure": 0.5},
            dataset_meta={"citation": citation},
        ).write(results)
    res = _invoke("cite", str(results))
    assert res.exit_code == 0, res.output
    keys = re.findall(r"^@\w+\{([^,]+),", res.output, flags=re.M)
    assert len(keys) == len(set(keys))  # every key once
    assert "Style corpus one" in res.output and "Style corpus two" in res.output  # nothing dropped
    assert res.output.count("Style corpus one") == 1  # one work, one entry
    assert "smith2020stylea" not in keys and {"smith2020style", "smith2020styleb"} <= set(keys)


# --- metric values outside their range ------------------------------------------------------------------------------


def test_values_outside_their_metric_s_range_are_refused_naming_the_file(tmp_path):
    tree = tmp_path / "TREE"
    _write(tree, "core/bad/1_25/clustering/metrics.json", {"v_measure": 7.5})
    _write(tree, "ASSET/bad/1_200/order_alignment/metrics.json", {"acc_mean": 12, "distractor_acc_mean": -1})
    _write(tree, "amazon/bad/-1_1/retrieval/metrics.json", {"mrr": 0.5, "mean_rank": 0.2})
    _write(tree, "probing_blog/bad/1_1/probing/metrics.json", {"t_word": 3.0, "average": 0.5})
    _write(
        tree,
        "STEL_register/bad/1_196/order_alignment/metrics.json",
        {"acc_mean": 0.5, "distractor_acc_mean": 0.4, "_per_label": {"x": {"acc_mean": 2, "distractor_acc_mean": 0.4}}},
    )
    _write(tree, "core/good/1_25/clustering/metrics.json", {"v_measure": 0.3})
    _write(tree, "amazon/good/-1_1/retrieval/metrics.json", {"mrr": 0.5, "mean_rank": 3.5})
    found = read_tree(tree)
    assert {(r.encoder, r.dataset) for r in found.records} == {("good", "core"), ("good", "amazon")}
    reasons = {u.path: u.reason for u in found.unmapped}
    assert set(reasons) == {
        "core/bad/1_25/clustering/metrics.json",
        "ASSET/bad/1_200/order_alignment/metrics.json",
        "amazon/bad/-1_1/retrieval/metrics.json",
        "probing_blog/bad/1_1/probing/metrics.json",
        "STEL_register/bad/1_196/order_alignment/metrics.json",
    }
    assert "7.5 is outside the range of 'v_measure' ([0, 1])" in reasons["core/bad/1_25/clustering/metrics.json"]
    assert "'acc_mean'" in reasons["ASSET/bad/1_200/order_alignment/metrics.json"]
    assert "'mean_rank'" in reasons["amazon/bad/-1_1/retrieval/metrics.json"]
    assert "'t_word'" in reasons["probing_blog/bad/1_1/probing/metrics.json"]
    assert "_per_label.x" in reasons["STEL_register/bad/1_196/order_alignment/metrics.json"]


# --- export's folder names ------------------------------------------------------------------------------------------


def test_export_refuses_a_short_name_with_a_newline_and_an_episode_that_is_not_the_record_s(tmp_path):
    assert check_short_name("fw\n") is not None and check_short_name("fw") is None
    assert parse_episode_folder("1_200\n") is None and parse_episode_folder("1_٢٠٠") is None  # Arabic-Indic digits
    with pytest.raises(StebError, match="short-name"):
        export_tree(_own("e"), tmp_path / "a", "fw\n", allow_partial=True)
    assert not (tmp_path / "a").exists()
    for bad in (
        "ASSET:order_alignment=1_0",
        "ASSET:order_alignment=0_40",
        "ASSET:order_alignment=1_" + "9" * 20,
        "ASSET:order_alignment=1_040",
    ):
        with pytest.raises(StebError, match="--episode"):
            parse_episode_option([bad])
    asset = _own("e")[1]  # its record says 1_200
    with pytest.raises(StebError, match="own episode folder is 1_200"):
        episode_config(asset, parse_episode_option(["ASSET:order_alignment=1_40"]))
    assert episode_config(asset, parse_episode_option(["ASSET:order_alignment=1_200"]))[0] == "1_200"
    assert episode_config(asset, parse_episode_option(["ASSET:*=1_40"]))[0] == "1_200"  # '*' fills gaps only
    retrieval = ResultRecord(
        encoder="e", dataset="amazon", task="retrieval", main_metric="mrr", main_score=0.5, metrics={"mrr": 0.5}
    )
    with pytest.raises(StebError, match="retrieval.s episode folder is -1_N"):
        episode_config(retrieval, parse_episode_option(["amazon:retrieval=1_5"]))
    with pytest.raises(StebError, match="--episode"):
        export_tree(
            _own("e"),
            tmp_path / "b",
            "fw",
            allow_partial=True,
            episodes=parse_episode_option(["core:clustering=1_40"]),
        )
    assert not (tmp_path / "b").exists()


# --- crashes that named nothing -------------------------------------------------------------------------------------


def test_a_400_digit_integer_is_listed_as_not_mapped_and_the_rest_imported(tmp_path):
    tree = tmp_path / "TREE"
    huge = "1" + "0" * 400
    _write(tree, "core/a/1_25/clustering/metrics.json", '{"v_measure": ' + huge + "}")
    _write(tree, "core/b/1_25/clustering/metrics.json", '{"v_measure": 0.5, "extra": [' + huge + "]}")
    _write(tree, "core/c/1_25/clustering/metrics.json", {"v_measure": 0.25})
    found = read_tree(tree)
    assert [r.encoder for r in found.records] == ["c"]
    reasons = {u.path: u.reason for u in found.unmapped}
    assert "too large for any float" in reasons["core/a/1_25/clustering/metrics.json"]
    assert "'extra.0'" in reasons["core/b/1_25/clustering/metrics.json"]
    res = _invoke("import", str(tree), "--out", str(tmp_path / "out"))
    assert res.exit_code == 0, res.output
    assert "2 not mapped" in res.output and [r.encoder for r in load_results(tmp_path / "out")] == ["c"]


@pytest.mark.skipif(os.name != "posix", reason="a file name of raw bytes needs a POSIX file system")
def test_a_model_folder_name_that_is_not_utf8_is_listed_and_the_report_works(tmp_path):
    tree = tmp_path / "TREE"
    bad = os.fsdecode(b"bad\xffutf8")
    try:
        (tree / "core" / bad / "1_25" / "clustering").mkdir(parents=True)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    (tree / "core" / bad / "1_25" / "clustering" / "metrics.json").write_text('{"v_measure": 0.5}')
    _write(tree, "core/good/1_25/clustering/metrics.json", {"v_measure": 0.25})
    found = read_tree(tree)
    assert [r.encoder for r in found.records] == ["good"]
    (unmapped,) = found.unmapped
    assert unmapped.path == "core/bad\\xffutf8/" and "not valid Unicode" in unmapped.reason
    out = tmp_path / "out"
    res = _invoke("import", str(tree), "--out", str(out))
    assert res.exit_code == 0, res.output
    assert "bad\\xffutf8" in (out / "unmapped.csv").read_text(encoding="utf-8")
    report = _invoke("report", str(out), "--no-html")
    assert report.exit_code == 0, report.output


# --- the submission path --------------------------------------------------------------------------------------------


def _clone(root: Path) -> Path:
    (root / "scripts").mkdir(parents=True)
    (root / "scripts/models_all.txt").write_text("# Style-Specific Models\nrrivera1849/LUAR-MUD\n")
    (root / "SUBMISSIONS.yaml").write_text("# STEB model submissions (see SUBMISSION.md).\n[]\n")  # as published
    return root


def test_the_submission_is_written_whole_and_checked_with_the_leaderboard_s_rules(tmp_path):
    yaml = pytest.importorskip("yaml")
    mine = tmp_path / "mine"
    res = _invoke(
        "run",
        "--suite",
        "demo",
        "-e",
        "function-words",
        "-o",
        str(mine),
        "--no-progress",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    assert res.exit_code == 0, res.output
    (run,) = [json.loads(line) for line in (mine / "steb-runs.jsonl").read_text().splitlines()]
    assert run["encoder"] == "function-words" and run["command"].startswith("steb run ")
    for word in ("--suite demo", "--encoder function-words", f"--output {mine}", "--no-progress"):
        assert word in run["command"]
    clone = _clone(tmp_path / "STEB")
    res = _invoke(
        "export",
        str(mine),
        str(clone / "submitted_results"),
        "--short-name",
        "fw",
        "--include-other",
        "--allow-partial",
        "--contributor",
        "octocat",
    )
    assert res.exit_code == 0, res.output
    assert "steb run --suite steb --encoder" not in res.output  # no invented command
    assert run["command"] in res.output.replace("\n", "")
    # the printed file is the whole list: valid YAML with the entry, where appending to '[]' was not
    start = res.output.index("SUBMISSIONS.yaml with your entry (the whole file):")
    printed = res.output[start:].split("\n\n", 2)[1]
    (entry,) = yaml.safe_load(printed)
    assert entry == {"short_name": "fw", "hf_id": "fw", "run_command": run["command"], "contributor": "octocat"}
    # the printed command edits both files and checks the clone
    res = _invoke(
        "submit",
        str(clone),
        "--short-name",
        "fw",
        "--hf-id",
        "fw",
        "--run-command",
        run["command"],
        "--contributor",
        "octocat",
    )
    assert res.exit_code == 0, res.output
    text = (clone / "SUBMISSIONS.yaml").read_text()
    assert text.startswith("# STEB model submissions") and yaml.safe_load(text) == [entry]
    assert (clone / "scripts/models_all.txt").read_text().splitlines()[-1] == "fw"
    assert _invoke("submit", str(clone)).exit_code == 0
    # the checks fail where the leaderboard would
    from steb_core.reference_tree.submission import check_clone

    _write(clone, "submitted_results/core/fw/1_25/clustering/metrics.json", '{"v_measure": NaN}')
    _write(clone, "submitted_results/core/fw/1_30/clustering/metrics.json", {"v_measure": 0.1})
    (clone / "scripts/models_all.txt").write_text("rrivera1849/LUAR-MUD\n")
    problems = check_clone(clone)
    assert any("not a finite number" in p for p in problems)
    assert any("2 episode folders for clustering" in p for p in problems)
    assert any("models_all.txt" in p for p in problems)
    (clone / "SUBMISSIONS.yaml").write_text("short_name: fw\n")
    assert "not a list" in check_clone(clone)[0]
    res = _invoke("submit", str(clone))
    assert res.exit_code != 0


def test_the_hub_id_defaults_to_the_encoder_s_own():
    from types import SimpleNamespace

    from steb_core._specs import EncoderSpec
    from steb_core.cli.export import default_hub_id

    with_hub = EncoderSpec(name="my-enc", description="d", factory=lambda: None, hub_id="my-org/my-enc-weights")
    registry = {with_hub.name: with_hub}
    manager = SimpleNamespace(encoders=lambda: registry)
    record = ResultRecord(
        encoder=with_hub.name, dataset="core", task="clustering", main_metric="v_measure", main_score=0.5, metrics={}
    )
    assert default_hub_id(manager, record, "short") == with_hub.hub_id
    folder = ResultRecord(
        encoder="my-model",
        dataset="core",
        task="clustering",
        main_metric="v_measure",
        main_score=0.5,
        metrics={},
        encoder_identity={"name_or_path": "my-org/my-model"},
    )
    assert default_hub_id(manager, folder, "my-model") == "my-org/my-model"
    local = ResultRecord(
        encoder="m",
        dataset="core",
        task="clustering",
        main_metric="v_measure",
        main_score=0.5,
        metrics={},
        encoder_identity={"name_or_path": "/data/models/m"},
    )
    assert default_hub_id(manager, local, "m") == "m"


def test_import_help_suggests_a_report_command_that_works(tmp_path):
    import typer

    from steb_core.cli import build_app

    command = typer.main.get_command(build_app([])).commands["import"]  # type: ignore[attr-defined]
    (out,) = [p for p in command.params if p.name == "out"]
    assert "YOUR_RESULTS..." not in out.help and "`steb report OUT`" in out.help
    # and the command it suggests works on what the import wrote
    tree = tmp_path / "TREE"
    _write(tree, "core/m/1_25/clustering/metrics.json", {"v_measure": 0.9})
    assert _invoke("import", str(tree), "--out", str(tmp_path / "OUT")).exit_code == 0
    assert _invoke("report", str(tmp_path / "OUT"), "--no-html").exit_code == 0


# --- issue 45 item 3: the published baselines in one command --------------------------------------------------------


def _published_tarball(models: int) -> bytes:
    """results.tar.gz as download_results.sh unpacks it: results/<dataset>/<model>/<episode>/<task>/metrics.json."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for i in range(models):
            for rel, content in (
                (f"core/pub-{i}/1_25/clustering/metrics.json", {"v_measure": 0.1 + 0.1 * i}),
                (f"bible_versions/pub-{i}/1_25/clustering/metrics.json", {"v_measure": 0.15 + 0.1 * i}),
                (
                    f"ASSET/pub-{i}/1_200/order_alignment/metrics.json",
                    {"acc_mean": 0.5, "distractor_acc_mean": 0.2 + 0.05 * i},
                ),
            ):
                data = json.dumps(content).encode()
                info = tarfile.TarInfo(f"results/{rel}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_import_published_fetches_pins_and_ranks_your_model_among_them(tmp_path, monkeypatch):
    import hashlib

    from steb_core.reference_tree.published import PUBLISHED_SOURCE, PUBLISHED_TARGET
    from tests.support.fake_http import FakeServer

    archive = _published_tarball(3)
    with FakeServer() as server:
        server.add_drive_file(PUBLISHED_SOURCE.url, "results.tar.gz", archive, confirm=True)
        mirror = f"drive.google.com={server.url},drive.usercontent.google.com={server.url}"
        monkeypatch.setenv("STEB_DATA_MIRROR", mirror)
        mine = tmp_path / "mine"
        for rec in _own("pub-0", 0.33):  # the user's own run of a model named like a published one
            rec.write(mine)
        data = tmp_path / "data"
        res = _invoke("import", "--published", "--data-dir", str(data), "--out", str(mine))
        assert res.exit_code == 0, res.output
        digest = hashlib.sha256(archive).hexdigest()
        assert f"results.tar.gz sha256 {digest}" in res.output.replace("\n", "")
        manifest = json.loads((data / PUBLISHED_TARGET / ".steb-source.json").read_text())
        assert manifest["sources"][0]["recorded"] == {"results.tar.gz": digest}
        assert (data / PUBLISHED_TARGET / "results/core/pub-2/1_25/clustering/metrics.json").is_file()
        # a second import finds the folder fetched earlier, and a changed file on Drive is refused on --force
        again = _invoke("import", "--published", "--data-dir", str(data), "--out", str(mine))
        assert again.exit_code == 0 and "fetched earlier" in again.output
        server.add_drive_file(PUBLISHED_SOURCE.url, "results.tar.gz", archive + b"\0", confirm=True)
        forced = _invoke("import", "--published", "--force", "--data-dir", str(data), "--out", str(mine))
        assert forced.exit_code != 0 and "differs from the file steb fetched first" in str(forced.exception)
    records = list(load_results(mine))
    own = [r for r in records if not is_imported(r)]
    assert {(r.encoder, r.main_score) for r in own} == {("pub-0", 0.33), ("pub-0", 0.165)}  # untouched
    assert {r.encoder for r in records if is_imported(r)} == {"pub-0 (published)", "pub-1", "pub-2"}
    # the report: your model among the published ones, clusters frozen from the published three, rows marked
    from steb_core.report import build_report

    paths = build_report(mine, tmp_path / "report", console=False, html=False, datasets=SPECS)
    board = paths.leaderboards[0]
    assert board.origins() == {
        "pub-0": "yours",
        "pub-0 (published)": "published",
        "pub-1": "published",
        "pub-2": "published",
    }
    op = board.aggregate("operational")
    assert op is not None and op.details["cluster_set"]["n_models"] == 3
    md = paths.markdown.read_text()
    assert "| Encoder | Results |" in md and "| pub-0 | yours |" in md and "| pub-1 | published |" in md
    assert "frozen from the 3 published model(s)" in md
    # report.csv says the same per row (it had no such column)
    import csv

    table = list(csv.DictReader(io.StringIO(paths.report_csv.read_text())))
    assert {row["encoder"]: row["results"] for row in table} == board.origins()


def test_a_published_tarball_that_escapes_its_folder_is_refused(tmp_path, monkeypatch):
    from steb_core.reference_tree.published import PUBLISHED_SOURCE, PUBLISHED_TARGET
    from tests.support.fake_http import FakeServer

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("../evil.json")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"{}"))
    with FakeServer() as server:
        server.add_drive_file(PUBLISHED_SOURCE.url, "results.tar.gz", buffer.getvalue())
        monkeypatch.setenv(
            "STEB_DATA_MIRROR", f"drive.google.com={server.url},drive.usercontent.google.com={server.url}"
        )
        res = _invoke("import", "--published", "--data-dir", str(tmp_path / "data"), "--out", str(tmp_path / "o"))
    assert res.exit_code != 0 and "outside the target folder" in str(res.exception)
    assert not (tmp_path / "evil.json").exists() and not (tmp_path / "data" / "evil.json").exists()
    assert not (tmp_path / "data" / PUBLISHED_TARGET).exists() and not (tmp_path / "o").exists()
