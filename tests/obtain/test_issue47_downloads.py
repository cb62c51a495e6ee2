"""Issue 47's download items: a Drive confirm page or redirect that leads off Drive is refused (a ``file://``
form action copied a local file into the data folder and pinned it), and a URL source without a published
size is bounded by the catalogue's expected size with a deadline scaled to it."""

from __future__ import annotations

import time

import pytest

from steb_core.obtain import DownloadPolicy
from steb_core.obtain.errors import FetchError
from steb_core.obtain.gdrive import fetch_gdrive
from tests.support.fake_http import FakeServer

DRIVE_ID = "1HFWoFk3V7vqTESTONLYxxxxxxxxxxxxx"  # not a real Drive file: the local server answers for it
POLICY = DownloadPolicy(retries=0, timeout=5)


def _drive_mirror(monkeypatch, server: FakeServer) -> None:
    monkeypatch.setenv("STEB_DATA_MIRROR", f"drive.google.com={server.url},drive.usercontent.google.com={server.url}")


def test_a_confirm_page_whose_form_leads_to_a_local_file_is_refused(tmp_path, server, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("a local file of the user's\n")
    server.add_drive_file(DRIVE_ID, "x.tar.gz", b"data", confirm=True, form_action=secret.as_uri())
    _drive_mirror(monkeypatch, server)
    dest = tmp_path / "data" / "x.tar.gz"
    with pytest.raises(FetchError, match=r"the confirm page leads to 'file://.*secret.txt.*not https on a Drive host"):
        fetch_gdrive(DRIVE_ID, dest, policy=POLICY)
    assert not dest.exists() and not dest.with_name("x.tar.gz.part").exists()


def test_a_confirm_page_leading_to_another_host_is_refused(tmp_path, server, monkeypatch):
    server.add_drive_file(DRIVE_ID, "x.tar.gz", b"data", confirm=True, form_action="https://files.example.org/x")
    _drive_mirror(monkeypatch, server)
    with pytest.raises(FetchError, match="leads to 'https://files.example.org/x"):
        fetch_gdrive(DRIVE_ID, tmp_path / "x.tar.gz", policy=POLICY)
    assert not any(r.path == "/x" for r in server.requests)


def test_a_drive_redirect_to_another_origin_is_refused_naming_it(tmp_path, server, monkeypatch):
    with FakeServer() as elsewhere:
        other = elsewhere.add_file("payload.bin", b"not Drive's")
        server.redirect("uc", other)
        _drive_mirror(monkeypatch, server)
        with pytest.raises(FetchError, match=f"redirects to '{other}'"):
            fetch_gdrive(DRIVE_ID, tmp_path / "x.bin", policy=POLICY)
        assert elsewhere.requests == []
    assert not (tmp_path / "x.bin").exists()


def test_the_missing_extra_advice_keeps_its_brackets(tmp_path, monkeypatch, capsys):
    # rich read "[get]" as markup and printed pip install 'steb-core'
    import sys

    from steb_core.cli.main import main

    from .conftest import write_plugin

    monkeypatch.setitem(sys.modules, "gdown", None)
    monkeypatch.setitem(sys.modules, "gdown.download", None)
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "drv",
                "folder": "drv",
                "file": "t.jsonl",
                "sources": [{"kind": "gdrive", "url": DRIVE_ID, "files": ["t.jsonl"]}],
            }
        ],
    )
    with pytest.raises(SystemExit) as exited:
        main(["data", "get", "--dataset", "drv", "--data-dir", str(tmp_path / "data"), "-p", str(plugin)])
    assert exited.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "pip install 'steb-core[get]'" in err, err


def test_a_source_without_a_published_size_is_bounded_by_the_catalogue(tmp_path, server, monkeypatch):
    # issue 47: a pinned URL source that declares no size grew to the 64 GiB cap
    from typer.testing import CliRunner

    from steb_core import cli as cli_module

    from .conftest import write_plugin

    server.endless("pub/corpus.jsonl")  # no Content-Length, never ends
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    source = {"kind": "url", "url": "https://files.example.org/pub/corpus.jsonl", "max_bytes": 1 << 20}
    plugin = write_plugin(
        tmp_path / "plug.py", [{"name": "big", "folder": "big", "file": "corpus.jsonl", "sources": [source]}]
    )
    args = [
        "data",
        "get",
        "--dataset",
        "big",
        "--data-dir",
        str(tmp_path / "data"),
        "-p",
        str(plugin),
        "--retries",
        "0",
    ]
    got = CliRunner().invoke(cli_module.build_app(args), args)
    message = " ".join(str(got.exception).split())
    assert got.exit_code != 0 and "past the 1048576 bytes steb's catalogue allows this file" in message, message
    assert not (tmp_path / "data" / "big").exists()


def test_the_default_deadline_is_scaled_to_the_catalogue_bound(tmp_path, server, monkeypatch):
    # a one-byte-at-a-time server held the download for the whole default deadline (4 hours)
    from steb_core.obtain import http as http_module
    from steb_core.obtain.http import DownloadPolicy, download, scaled_deadline

    default = DownloadPolicy(deadline=4 * 3600.0, scale_deadline=True)
    assert scaled_deadline(default, 5 << 20).deadline == 600.0  # 5 MB: ten minutes, not four hours
    assert scaled_deadline(default, 10 << 30).deadline == 4 * 3600.0  # never longer than the default
    users = DownloadPolicy(deadline=30.0)
    assert scaled_deadline(users, 5 << 20) is users  # a deadline the user chose stays
    monkeypatch.setattr(http_module, "SHORTEST_DEADLINE", 0.5)
    server.trickle("slow.bin", b"x" * 400, 0.02)  # 400 bytes, one every 20 ms: 8 s, never idle
    started = time.monotonic()
    with pytest.raises(FetchError, match="deadline of 0.5 s passed"):
        download(f"{server.url}/slow.bin", tmp_path / "slow.bin", policy=default, max_size=400)
    assert time.monotonic() - started < 4


def test_a_url_source_redirected_to_another_host_is_pinned_naming_that_host(tmp_path, server, monkeypatch):
    # issue 47: a redirect to another origin was followed and pinned without naming the host
    import hashlib
    import json

    from typer.testing import CliRunner

    from steb_core import cli as cli_module
    from steb_core.obtain import MANIFEST

    from .conftest import ROWS, jsonl, write_plugin

    with FakeServer() as elsewhere:
        moved = elsewhere.add_file("cdn/corpus.jsonl", jsonl(ROWS))
        server.redirect("pub/corpus.jsonl", moved)
        monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
        source = {"kind": "url", "url": "https://files.example.org/pub/corpus.jsonl"}
        plugin = write_plugin(
            tmp_path / "plug.py", [{"name": "tofu", "folder": "tofu", "file": "corpus.jsonl", "sources": [source]}]
        )
        root = tmp_path / "data"
        args = ["data", "get", "--dataset", "tofu", "--data-dir", str(root), "-p", str(plugin)]
        got = CliRunner().invoke(cli_module.build_app(args), args)
    assert got.exit_code == 0, got.output
    digest = hashlib.sha256(jsonl(ROWS)).hexdigest()
    line = " ".join(got.output.split())
    assert f"corpus.jsonl sha256 {digest}" in line and f"the bytes came from {moved}" in line, line
    manifest = json.loads((root / "tofu" / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["sources"][0]["fetched_from"] == {"corpus.jsonl": moved}
