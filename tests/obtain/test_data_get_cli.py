"""``steb data get`` end to end: dry run, the licence gate, atomicity after a failure, resume, --force,
archives unpacked into the layout, and the listing's source column."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import zipfile

import pytest
from typer.testing import CliRunner

from steb_core import cli as cli_module
from steb_core.obtain import MANIFEST, PARTIAL

from .conftest import ROWS, jsonl, make_git_repo, write_plugin

pytestmark = pytest.mark.usefixtures("wide_cli_console")  # tests/conftest.py


def invoke(*args):
    app = cli_module.build_app(list(args))
    return CliRunner().invoke(app, list(args), catch_exceptions=True)


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def setup(tmp_path, server, monkeypatch):
    """Four datasets: a free zip (unpacked), a git repo, one under a licence needing agreement, one by hand."""
    archive = _zip_bytes({"release/train.jsonl": jsonl(ROWS)})
    server.add_file("r/free.zip", archive)
    licensed = jsonl(ROWS)
    server.add_file("r/nc.jsonl", licensed)
    mirror = tmp_path / "gh"
    (sha,) = make_git_repo(mirror, "o", "gitrepo", [{"train.jsonl": jsonl(ROWS)}])
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url},github.com=file://{mirror}")
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "free",
                "folder": "free",
                "file": "release/train.jsonl",
                "license": "CC-BY-4.0",
                "sources": [
                    {
                        "kind": "url",
                        "url": "https://files.example.org/r/free.zip",
                        "unpack": ["free.zip"],
                        "sha256": {"free.zip": hashlib.sha256(archive).hexdigest()},
                        "size_bytes": len(archive),
                        "licence": "CC-BY-4.0",
                    }
                ],
            },
            {
                "name": "gitds",
                "folder": "gitds",
                "file": "train.jsonl",
                "sources": [{"kind": "git", "url": "https://github.com/o/gitrepo", "revision": sha, "licence": "MIT"}],
            },
            {
                "name": "nc",
                "folder": "nc",
                "file": "nc.jsonl",
                "sources": [
                    {
                        "kind": "url",
                        "url": "https://files.example.org/r/nc.jsonl",
                        "licence": "CC-BY-NC-4.0",
                        "accept": True,
                        "sha256": {"nc.jsonl": hashlib.sha256(licensed).hexdigest()},
                    }
                ],
            },
            {
                "name": "byhand",
                "folder": "byhand",
                "file": "x.jsonl",
                "obtain": "ask",
                "sources": [
                    {
                        "kind": "manual",
                        "url": "https://pan.example.org/data",
                        "instructions": "Register at https://pan.example.org/data, request access, and unzip the "
                        "corpus into ROOT/byhand/.",
                    }
                ],
            },
        ],
    )
    return {
        "plugin": str(plugin),
        "root": tmp_path / "data",
        "sha": sha,
        "server": server,
        "archive_size": len(archive),
    }


def test_dry_run_lists_sources_licences_and_manual_steps_and_downloads_nothing(setup):
    result = invoke(
        "data", "get", "--suite", "fetchtest", "--dry-run", "--data-dir", str(setup["root"]), "-p", setup["plugin"]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    lines = {line.split("\t")[0]: line.split("\t") for line in out.splitlines() if "\t" in line}
    assert lines["free"][1:5] == ["url", f"{setup['archive_size']} B", "CC-BY-4.0", "fetch into free/"]
    assert lines["gitds"][1] == "git" and setup["sha"][:12] in lines["gitds"][5] and lines["gitds"][2] == "?"
    assert lines["nc"][4] == "fetch nc/ after --accept-licence CC-BY-NC-4.0"
    assert lines["byhand"][1] == "manual" and lines["byhand"][4] == "by hand (see instructions)"
    # the manual instruction is printed whole, on one line
    assert (
        "- byhand: Register at https://pan.example.org/data, request access, and unzip the corpus into ROOT/byhand/."
        in out
    )
    assert (
        "4 datasets: 2 automatic, 1 after licence acceptance, 1 by hand only, 0 built in; nothing was downloaded" in out
    )
    assert setup["server"].requests == [] and not setup["root"].exists()
    rows = json.loads(
        invoke("data", "get", "--suite", "fetchtest", "--dry-run", "-f", "json", "-p", setup["plugin"]).output
    )
    assert {r["dataset"]: r["category"] for r in rows} == {
        "free": "automatic",
        "gitds": "automatic",
        "nc": "licence",
        "byhand": "manual",
    }


def test_licence_not_accepted_fetches_nothing_and_names_the_option(setup):
    root = setup["root"]
    result = invoke("data", "get", "--dataset", "nc", "--data-dir", str(root), "-p", setup["plugin"])
    assert result.exit_code != 0
    assert "--accept-licence CC-BY-NC-4.0" in str(result.exception) and "--accept-licence CC-BY-NC-4.0" in result.output
    assert setup["server"].requests == [] and not (root / "nc").exists()
    result = invoke(
        "data",
        "get",
        "--dataset",
        "nc",
        "--data-dir",
        str(root),
        "--accept-licence",
        "cc-by-nc-4.0",
        "-p",
        setup["plugin"],
    )
    assert result.exit_code == 0, result.output
    assert "check nc: ok" in result.output and (root / "nc" / "nc.jsonl").is_file()


def test_suite_fetch_unpacks_checks_and_skips_when_complete(setup):
    root = setup["root"]
    result = invoke("data", "get", "--suite", "fetchtest", "--data-dir", str(root), "-p", setup["plugin"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "check free: ok" in out and "check gitds: ok" in out and "check nc" not in out
    assert "not fetched: nc (nc/): licence CC-BY-NC-4.0 needs your agreement" in out
    assert "by hand: byhand: Register at" in out
    assert (root / "free" / "release" / "train.jsonl").read_bytes() == jsonl(ROWS) and not (
        root / "free" / "free.zip"
    ).exists()
    manifest = json.loads((root / "free" / MANIFEST).read_text())
    assert manifest["sources"][0]["resolved"].startswith("sha256:") and "release/train.jsonl" in manifest["files"]
    assert not (root / "byhand").exists() and not (root / PARTIAL).exists()
    before = len(setup["server"].requests)
    again = invoke("data", "get", "--suite", "fetchtest", "--data-dir", str(root), "-p", setup["plugin"])
    assert again.exit_code == 0 and "2 present" in again.output and len(setup["server"].requests) == before


def test_failure_leaves_no_target_then_resumes(setup):
    root, server = setup["root"], setup["server"]
    server.fail_next(2, status=500, path="r/free.zip")  # exactly the two tries of --retries 1
    result = invoke(
        "data", "get", "--dataset", "free", "--data-dir", str(root), "--retries", "1", "-p", setup["plugin"]
    )
    assert result.exit_code != 0
    message = str(result.exception)
    assert "free: " in message and f"{server.url}/r/free.zip: gave up after 2 tries: HTTP 500" in message
    assert not (root / "free").exists()
    server.cut("r/free.zip", after_bytes=40, times=2)  # killed twice midway: 80 bytes arrive
    result = invoke(
        "data", "get", "--dataset", "free", "--data-dir", str(root), "--retries", "1", "-p", setup["plugin"]
    )
    assert result.exit_code != 0 and "connection closed after 80 of" in str(result.exception)
    assert not (root / "free").exists()
    assert (root / PARTIAL / "free" / "src-0" / "free.zip.part").stat().st_size == 80
    result = invoke("data", "get", "--dataset", "free", "--data-dir", str(root), "-p", setup["plugin"])
    assert result.exit_code == 0, result.output
    assert [h.range for h in server.hits("r/free.zip") if h.status != 500] == [None, "bytes=40-", "bytes=80-"]
    assert (root / "free" / "release" / "train.jsonl").read_bytes() == jsonl(ROWS) and not (root / PARTIAL).exists()


def test_force_replaces_a_complete_folder(setup):
    root = setup["root"]
    assert invoke("data", "get", "--dataset", "gitds", "--data-dir", str(root), "-p", setup["plugin"]).exit_code == 0
    (root / "gitds" / "stray.txt").write_text("left by the user")
    skipped = invoke("data", "get", "--dataset", "gitds", "--data-dir", str(root), "-p", setup["plugin"])
    assert "1 present" in skipped.output and (root / "gitds" / "stray.txt").exists()
    forced = invoke("data", "get", "--dataset", "gitds", "--data-dir", str(root), "--force", "-p", setup["plugin"])
    assert forced.exit_code == 0 and "1 fetched" in forced.output, forced.output
    assert not (root / "gitds" / "stray.txt").exists() and (root / "gitds" / "train.jsonl").is_file()


def test_list_datasets_shows_the_source(setup):
    rows = json.loads(invoke("list", "datasets", "--suite", "fetchtest", "-f", "json", "-p", setup["plugin"]).output)
    by_name = {r["name"]: r for r in rows}
    assert by_name["gitds"]["source"] == f"https://github.com/o/gitrepo@{setup['sha'][:12]}"
    assert by_name["byhand"]["source"] == "manual (https://pan.example.org/data)"
    assert (
        "source: https://files.example.org/r/free.zip"
        in invoke("list", "datasets", "--suite", "fetchtest", "-p", setup["plugin"]).output
    )


def test_interactive_yes_fetches_and_no_fetches_nothing(setup, monkeypatch):
    from steb_core.cli import data_get

    monkeypatch.setattr(data_get, "_interactive", lambda: True)
    root = setup["root"]
    args = ("data", "get", "--dataset", "nc", "--data-dir", str(root), "-p", setup["plugin"])
    refused = CliRunner().invoke(cli_module.build_app(list(args)), list(args), input="n\n")
    assert refused.exit_code != 0 and "CC-BY-NC-4.0, which needs your agreement" in refused.output
    assert setup["server"].requests == [] and not (root / "nc").exists()
    agreed = CliRunner().invoke(cli_module.build_app(list(args)), list(args), input="y\n")
    assert agreed.exit_code == 0, agreed.output
    assert (root / "nc" / "nc.jsonl").is_file() and "check nc: ok" in agreed.output


def test_progress_display_on_a_terminal(setup, monkeypatch):
    from rich.console import Console

    monkeypatch.setattr(cli_module.common, "console", Console(width=250, force_terminal=True, color_system=None))
    result = invoke(
        "data",
        "get",
        "--dataset",
        "free",
        "--dataset",
        "gitds",
        "--data-dir",
        str(setup["root"]),
        "-j",
        "2",
        "-p",
        setup["plugin"],
    )
    assert result.exit_code == 0, result.output
    assert (
        "free" in result.output
        and "gitds" in result.output
        and "done" in result.output
        and "2 fetched" in result.output
    )


def test_hostile_archive_through_the_command_writes_nothing(tmp_path, server, monkeypatch):
    evil = _zip_bytes({"ok.jsonl": jsonl(ROWS), "../../escaped.txt": b"evil"})
    server.add_file("r/evil.zip", evil)
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "evil",
                "folder": "evil",
                "file": "ok.jsonl",
                "sources": [
                    {
                        "kind": "url",
                        "url": "https://files.example.org/r/evil.zip",
                        "unpack": ["evil.zip"],
                        "sha256": {"evil.zip": hashlib.sha256(evil).hexdigest()},
                    }
                ],
            }
        ],
    )
    root = tmp_path / "deep" / "data"
    result = invoke("data", "get", "--dataset", "evil", "--data-dir", str(root), "-p", str(plugin))
    assert result.exit_code != 0
    assert "evil: archive evil.zip: member '../../escaped.txt' points outside the target folder" in str(
        result.exception
    )
    assert not (root / "evil").exists() and not list(tmp_path.rglob("escaped.txt"))


def test_git_mirror_missing_an_object_names_it_and_leaves_no_folder(tmp_path, monkeypatch):
    mirror = tmp_path / "gh"
    (sha,) = make_git_repo(mirror, "o", "holey", [{"train.jsonl": jsonl(ROWS)}])
    blob = subprocess.run(
        ["git", "--git-dir", str(mirror / "o" / "holey"), "rev-parse", f"{sha}:train.jsonl"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    loose = mirror / "o" / "holey" / "objects" / blob[:2] / blob[2:]
    assert loose.is_file()
    loose.unlink()  # a mirror snapshot without its largest files
    monkeypatch.setenv("STEB_DATA_MIRROR", f"github.com=file://{mirror}")
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "holey",
                "folder": "holey",
                "file": "train.jsonl",
                "sources": [{"kind": "git", "url": "https://github.com/o/holey", "revision": sha}],
            }
        ],
    )
    root = tmp_path / "data"
    result = invoke("data", "get", "--dataset", "holey", "--data-dir", str(root), "-p", str(plugin))
    assert result.exit_code != 0
    message = str(result.exception)
    assert (
        f"holey: git file://{mirror}/o/holey@{sha[:12]}: cannot fetch the wanted files: the server does not have "
        f"train.jsonl (blob {blob})" in message
    )
    assert not (root / "holey").exists()
