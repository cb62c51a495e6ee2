"""`steb models get` and `steb run --download` against a local fake hub (tests/support/fake_http.py), offline.

A tiny random BERT is served as a hub model repository at a pinned commit; a test plugin registers a named
configuration pointing at it. Nothing is downloaded until asked; after `steb models get` the weights are in
a temporary Hugging Face cache, `steb list encoders` says the encoder runs here, and `steb run` works with
the hub switched off.
"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tests.support.fake_http import FakeServer
from tests.support.result_files import result_files

REPO = "test-org/tiny-bert"

PLUGIN = """
from functools import partial
from steb_core import EncoderSpec, hookimpl

def _tiny(**options):
    from steb_models_neural import SentenceTransformerEncoder
    options.setdefault("revision", "{sha}")
    return SentenceTransformerEncoder(model="{repo}", name="tiny-hub", **options)

@hookimpl
def register_encoders(register):
    register(EncoderSpec(name="tiny-hub", description="a tiny random BERT on the fake hub", factory=_tiny,
                         family="sentence-transformers", hub_id="{repo}", revision="{sha}",
                         modules=("torch", "transformers", "sentence_transformers")))
"""


@pytest.fixture
def hub(tiny_bert, tmp_path, monkeypatch):
    """The fake hub serving the tiny model, an empty HF cache, a plugin naming the model, captured consoles."""
    from huggingface_hub import constants

    from steb_core import reset_manager
    from steb_core.cli import common

    reset_manager()  # each test loads its own copy of the test plugin
    files = {p.relative_to(tiny_bert).as_posix(): p.read_bytes() for p in sorted(tiny_bert.rglob("*")) if p.is_file()}
    cache = tmp_path / "hf-cache"
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(common, "console", Console(file=out, width=400, color_system=None))
    monkeypatch.setattr(common, "err_console", Console(file=err, width=400, color_system=None))
    with FakeServer() as server:
        sha = server.add_hub_repo(REPO, "model", files=files)
        # huggingface_hub reads these at import time: set both the environment and its constants
        monkeypatch.setenv("HF_HUB_CACHE", str(cache))
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
        monkeypatch.setattr(constants, "ENDPOINT", server.url)
        monkeypatch.setattr(
            constants, "HUGGINGFACE_CO_URL_TEMPLATE", server.url + "/{repo_id}/resolve/{revision}/{filename}"
        )
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        plugin = tmp_path / "tiny_hub_plugin.py"
        plugin.write_text(PLUGIN.format(repo=REPO, sha=sha))
        yield {"server": server, "sha": sha, "cache": cache, "plugin": plugin, "out": out, "err": err, "tmp": tmp_path}
    reset_manager()


def _steb(hub, *args: str):
    from steb_core.cli import app

    hub["out"].truncate(0), hub["out"].seek(0), hub["err"].truncate(0), hub["err"].seek(0)
    result = CliRunner().invoke(app, [*args, "-p", str(hub["plugin"])])
    return result, hub["out"].getvalue() + result.stdout, hub["err"].getvalue()


def _readiness(hub) -> dict:
    result, _, _ = _steb(hub, "list", "encoders", "--format", "json")
    assert result.exit_code == 0, result.output
    return {r["name"]: (r["here"], r["why_not"]) for r in json.loads(result.stdout)}


def test_models_get_fetches_the_pinned_commit_and_the_run_then_works_offline(hub, monkeypatch):
    from huggingface_hub import constants

    assert _readiness(hub)["tiny-hub"] == (
        "no",
        f"weights of {REPO} at {hub['sha'][:12]} not in the HF cache: steb models get tiny-hub",
    )
    # without --download nothing is fetched, and the error names the command that fetches the weights
    result, _, _ = _steb(
        hub, "run", "-e", "tiny-hub", "-d", "demo_formality", "-o", str(hub["tmp"] / "res"), "--no-progress"
    )
    assert (
        result.exit_code != 0
        and "steb models get tiny-hub" in str(result.exception)
        and "--download" in str(result.exception)
    )
    assert hub["server"].requests == [] and not hub["cache"].exists()

    result, out, _ = _steb(hub, "models", "get", "tiny-hub", "--no-progress")
    assert result.exit_code == 0, result.output
    assert f"fetched commit {hub['sha']}" in out and f"pinned revision {hub['sha']}" in out
    snapshot = hub["cache"] / f"models--{REPO.replace('/', '--')}" / "snapshots" / hub["sha"]
    assert (snapshot / "config.json").is_file() and (snapshot / "model.safetensors").is_file()
    assert _readiness(hub)["tiny-hub"] == ("yes", "")
    result, out, _ = _steb(hub, "models", "get", "tiny-hub")  # already there: no second download
    assert result.exit_code == 0 and "already in the cache" in out

    hub["server"].close()  # the hub is gone: the run reads the cache only
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    result, _, err = _steb(
        hub, "run", "-e", "tiny-hub", "-d", "demo_formality", "-o", str(hub["tmp"] / "res"), "--no-progress"
    )
    assert result.exit_code == 0, (result.output, err)
    record = json.loads(result_files(hub["tmp"] / "res")[0].read_text())
    assert record["encoder_identity"].get("revision") == hub["sha"] or hub["sha"] in json.dumps(
        record["encoder_identity"]
    )


def test_run_download_fetches_first_and_an_unpinned_hub_id_records_the_resolved_commit(hub):
    result, _, err = _steb(
        hub,
        "run",
        "--download",
        "-e",
        "tiny-hub",
        "-d",
        "demo_formality",
        "-o",
        str(hub["tmp"] / "r2"),
        "--no-progress",
    )
    assert result.exit_code == 0, (result.output, err)
    assert f"fetched {REPO} at commit {hub['sha']}" in err
    assert any(r.path.endswith("/model.safetensors") for r in hub["server"].requests)

    result, out, _ = _steb(hub, "models", "get", REPO, "--force", "--no-progress")
    assert result.exit_code == 0, result.output
    assert f"no pinned revision: the hub's main resolved to commit {hub['sha']}" in out


def test_models_get_refuses_unknown_names_and_reports_hub_errors(hub):
    result, _, _ = _steb(hub, "models", "get", "tiny-hob")
    assert result.exit_code != 0 and "did you mean 'tiny-hub'" in str(result.exception)
    result, _, _ = _steb(hub, "models", "get", "function-words")
    assert result.exit_code != 0 and "no hub weights to fetch" in str(result.exception)
    result, _, _ = _steb(hub, "models", "get", "test-org/no-such-model", "--no-progress")
    assert (
        result.exit_code != 0
        and "does not exist" in str(result.exception)
        and hub["server"].url in str(result.exception)
    )


def test_every_named_configuration_has_real_bibtex_and_a_hub_id_to_fetch():
    import re

    from steb_models_neural.catalogue import NAMED_MODELS, encoder_specs

    specs = {s.name: s for s in encoder_specs()}
    for named in NAMED_MODELS:
        spec = specs[named.name]
        assert spec.hub_id == named.hub_id and spec.revision == named.revision
        assert named.revision == "" or re.fullmatch(r"[0-9a-f]{40}", named.revision)
        entries = re.split(r"\n(?=@)", spec.citation.strip())
        assert entries and entries[0].startswith("@"), named.name
        for entry in entries:
            for field in ("author", "title", "year"):
                assert re.search(rf"^\s+{field} = \{{.+\}},$", entry, flags=re.M), (named.name, field)
            assert re.search(r"^\s+(doi|url) = \{.+\}", entry, flags=re.M), named.name
    paper = [m for m in NAMED_MODELS if m.paper_name]
    assert len(paper) >= 30 and all(specs[m.name].citation for m in paper)


def test_a_generic_family_given_a_hub_id_is_refused_with_its_fetch_command_and_a_folder_is_not_checked(hub):
    out = str(hub["tmp"] / "r3")
    result, _, _ = _steb(
        hub,
        "run",
        "-e",
        "sentence-transformers",
        "-O",
        f"model={REPO}",
        "-O",
        f"revision={hub['sha']}",
        "-d",
        "demo_formality",
        "-o",
        out,
        "--no-progress",
    )
    assert result.exit_code != 0
    assert f"fetch them with `steb models get {REPO} --revision {hub['sha']}`" in str(result.exception)
    assert hub["server"].requests == []  # refused before anything touched the network
    result, _, _ = _steb(hub, "models", "get", REPO, "--revision", hub["sha"], "--no-progress")
    assert result.exit_code == 0, result.output
    # a model folder is read from disk: no weights gate (the load itself names the missing folder)
    result, _, _ = _steb(
        hub,
        "run",
        "-e",
        "sentence-transformers",
        "-O",
        f"model={hub['tmp'] / 'no-such-folder'}",
        "-d",
        "demo_formality",
        "-o",
        out,
        "--no-progress",
    )
    assert "steb models get" not in str(result.exception) and "fetch them with" not in result.output
