"""Issue 39: Google Drive sources (the local server plays Drive's download and virus-scan confirm pages as gdown
requests them), sources without a published checksum pinned at their first download and checked afterwards
(``steb data check``, ``steb data get --verify``, a ``--force`` refetch), ``--pinned-only``, and git sources that
fetch only the files their loader reads from a repository whose other large files the server does not have."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest
from typer.testing import CliRunner

from steb_core import cli as cli_module
from steb_core.obtain import MANIFEST, DownloadPolicy
from steb_core.obtain.errors import FetchError
from steb_core.obtain.gdrive import fetch_gdrive
from steb_core.obtain.git import fetch_git
from tests.support.fake_http import FakeServer

from .conftest import ROWS, jsonl, make_git_repo, write_plugin

pytestmark = pytest.mark.usefixtures("wide_cli_console")
DRIVE_ID = "1HFWoFk3V7vqTESTONLYxxxxxxxxxxxxx"  # not a real Drive file: the local server answers for it


def invoke(*args):
    return CliRunner().invoke(cli_module.build_app(list(args)), list(args), catch_exceptions=True)


def _drive_mirror(monkeypatch, server: FakeServer, extra: str = "") -> None:
    monkeypatch.setenv(
        "STEB_DATA_MIRROR", f"drive.google.com={server.url},drive.usercontent.google.com={server.url}" + extra
    )


def test_drive_file_through_the_confirm_page_then_recorded_checked_and_changes_caught(tmp_path, server, monkeypatch):
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as t:
        info = tarfile.TarInfo("train.jsonl")
        info.size = len(jsonl(ROWS))
        t.addfile(info, io.BytesIO(jsonl(ROWS)))
    archive = buffer.getvalue()
    server.add_drive_file(
        DRIVE_ID, "retrieval.tar.gz", archive, confirm=True
    )  # "can't scan this file for viruses" first
    _drive_mirror(monkeypatch, server)
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "drv",
                "folder": "drv",
                "file": "train.jsonl",
                "sources": [
                    {"kind": "gdrive", "url": DRIVE_ID, "files": ["retrieval.tar.gz"], "unpack": ["retrieval.tar.gz"]}
                ],
            }
        ],
    )
    root = tmp_path / "data"
    dry = invoke("data", "get", "--dataset", "drv", "--dry-run", "--data-dir", str(root), "-p", str(plugin))
    row = next(line.split("\t") for line in dry.output.splitlines() if line.startswith("drv\t"))
    assert row[1] == "gdrive" and row[5] == f"gdrive:{DRIVE_ID}" and row[6] == "first download"
    assert "no published checksum: pinned by steb's first download" in row[4]
    assert (
        "0 pinned by their publisher (commit, hub revision, published checksum), 1 pinned by steb's first download"
        in dry.output
    )
    got = invoke("data", "get", "--dataset", "drv", "--data-dir", str(root), "-p", str(plugin))
    assert got.exit_code == 0, got.output
    digest = hashlib.sha256(archive).hexdigest()
    assert (
        f"pinned at first download: drv/: retrieval.tar.gz sha256 {digest}" in got.output
        and "check drv: ok" in got.output
    )
    # gdown's requests: uc?id=, the warning page, then the form's download?id=&export=download&confirm=t&uuid=
    assert [(r.path, r.status) for r in server.requests][:2] == [("/uc", 200), ("/download", 200)]
    manifest = json.loads((root / "drv" / MANIFEST).read_text())
    (source,) = manifest["sources"]
    assert source["pinned_by"] == "first download" and source["recorded"] == {"retrieval.tar.gz": digest}
    assert source["resolved"] == f"sha256:{digest}" and source["bytes_fetched"] == len(archive)
    assert (
        invoke("data", "get", "--dataset", "drv", "--verify", "--data-dir", str(root), "-p", str(plugin)).exit_code == 0
    )
    # a changed file is caught by both checks, naming it
    (root / "drv" / "train.jsonl").write_bytes(jsonl(ROWS[:3]))
    verify = invoke("data", "get", "--dataset", "drv", "--verify", "--data-dir", str(root), "-p", str(plugin))
    assert verify.exit_code != 0 and "verify drv/: changed: train.jsonl: sha256 " in verify.output
    checked = invoke("data", "check", "--dataset", "drv", "--data-dir", str(root), "-f", "json", "-p", str(plugin))
    assert checked.exit_code == 1 and "failed to load or verify: drv" in checked.stderr
    check = json.loads(checked.stdout)
    assert (
        check[0]["status"] == "error"
        and "train.jsonl: sha256" in check[0]["message"]
        and "--force" in check[0]["message"]
    )
    # the publisher's file changes: a refetch must give the recorded bytes, so it is refused
    server.add_drive_file(DRIVE_ID, "retrieval.tar.gz", archive + b"\0", confirm=True)
    forced = invoke("data", "get", "--dataset", "drv", "--force", "--data-dir", str(root), "-p", str(plugin))
    assert forced.exit_code != 0 and "differs from the file steb fetched first" in str(forced.exception)
    assert (root / "drv" / "train.jsonl").read_bytes() == jsonl(
        ROWS[:3]
    )  # the old folder stays until a new one is complete


def test_small_drive_file_redirect_and_drive_error_pages(tmp_path, server, monkeypatch):
    server.add_drive_file(DRIVE_ID, "amazon.jsonl", jsonl(ROWS))  # small: /uc redirects to drive.usercontent.google.com
    server.add_drive_file("1QuotaExceededTESTxxxxxxxxxx", "x.jsonl", b"x", quota=True)
    _drive_mirror(monkeypatch, server)
    policy = DownloadPolicy(retries=0, timeout=5)
    fetch_gdrive(DRIVE_ID, tmp_path / "amazon.jsonl", policy=policy, sha256=hashlib.sha256(jsonl(ROWS)).hexdigest())
    assert (tmp_path / "amazon.jsonl").read_bytes() == jsonl(ROWS)
    assert [(r.path, r.status) for r in server.requests][:2] == [("/uc", 303), ("/download", 200)]
    with pytest.raises(
        FetchError,
        match="Google Drive file 1QuotaExceededTESTxxxxxxxxxx: Drive answered with a page, not the file: "
        "Too many users have viewed or downloaded this file recently",
    ):
        fetch_gdrive("1QuotaExceededTESTxxxxxxxxxx", tmp_path / "x.jsonl", policy=policy)
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch_gdrive("1NoSuchFileTESTxxxxxxxxxxxx", tmp_path / "y.jsonl", policy=policy)
    with pytest.raises(FetchError, match="checksum mismatch for amazon.jsonl"):
        fetch_gdrive(DRIVE_ID, tmp_path / "z" / "amazon.jsonl", policy=policy, sha256="0" * 64)


def test_unpinned_url_recorded_then_verified_and_pinned_only(tmp_path, server, monkeypatch):
    data = jsonl(ROWS)
    server.add_file("pub/corpus.jsonl", data)
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "tofu",
                "folder": "tofu",
                "file": "corpus.jsonl",
                "sources": [{"kind": "url", "url": "https://files.example.org/pub/corpus.jsonl"}],
            }
        ],
    )
    root = tmp_path / "data"
    strict = invoke("data", "get", "--dataset", "tofu", "--pinned-only", "--data-dir", str(root), "-p", str(plugin))
    assert (
        "not fetched (--pinned-only): tofu (tofu/): https://files.example.org/pub/corpus.jsonl has no published "
        "checksum" in strict.output
    )
    assert server.requests == [] and not (root / "tofu").exists()
    dry = invoke("data", "get", "--dataset", "tofu", "--pinned-only", "--dry-run", "-p", str(plugin))
    assert "not fetched with --pinned-only: tofu/ has a source without a published checksum" in dry.output
    got = invoke("data", "get", "--dataset", "tofu", "--data-dir", str(root), "-p", str(plugin))
    assert got.exit_code == 0, got.output
    assert f"pinned at first download: tofu/: corpus.jsonl sha256 {hashlib.sha256(data).hexdigest()}" in got.output
    assert (
        "verify tofu/: ok"
        in invoke("data", "get", "--dataset", "tofu", "--verify", "--data-dir", str(root), "-p", str(plugin)).output
    )
    assert (
        json.loads(
            invoke(
                "data", "check", "--dataset", "tofu", "--data-dir", str(root), "-f", "json", "-p", str(plugin)
            ).output
        )[0]["status"]
        == "ok"
    )
    (root / "tofu" / "corpus.jsonl").unlink()
    verify = invoke("data", "get", "--dataset", "tofu", "--verify", "--data-dir", str(root), "-p", str(plugin))
    assert verify.exit_code != 0 and "corpus.jsonl: missing" in verify.output
    refetched = invoke("data", "get", "--dataset", "tofu", "--force", "--data-dir", str(root), "-p", str(plugin))
    assert refetched.exit_code == 0 and "pinned at first download" not in refetched.output  # checked against the record
    assert json.loads((root / "tofu" / MANIFEST).read_text())["sources"][0]["recorded"] == {
        "corpus.jsonl": hashlib.sha256(data).hexdigest()
    }


def _blob(bare, sha: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(bare), "rev-parse", f"{sha}:{path}"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_sparse_git_fetch_needs_only_the_named_files(tmp_path, monkeypatch):
    mirror = tmp_path / "gh"
    big = bytes(range(256)) * 4000  # ~1 MB the loader never reads
    (sha,) = make_git_repo(
        mirror, "o", "bigrepo", [{"data/train.jsonl": jsonl(ROWS), "models/huge.bin": big, "README": b"r"}]
    )
    bare = mirror / "o" / "bigrepo"
    for rel in ("models/huge.bin",):  # the server does not have it (a mirror snapshot without its large files)
        blob = _blob(bare, sha, rel)
        (bare / "objects" / blob[:2] / blob[2:]).unlink()
    got = fetch_git(f"file://{bare}", sha, tmp_path / "out", paths=("data",))
    assert got.mode == "sparse" and got.files == 1 and got.nbytes < 20_000
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")) == [
        "data",
        "data/train.jsonl",
    ]
    assert (tmp_path / "out" / "data" / "train.jsonl").read_bytes() == jsonl(ROWS) and not (
        tmp_path / "out.git"
    ).exists()
    with pytest.raises(FetchError, match=r"cannot fetch the wanted files: the server does not have models/huge.bin"):
        fetch_git(f"file://{bare}", sha, tmp_path / "all")  # the whole tree needs the missing file
    with pytest.raises(FetchError, match=r"no file of the commit matches files=\['nothing/\*'\]"):
        fetch_git(f"file://{bare}", sha, tmp_path / "none", paths=("nothing/*",))


def test_git_from_a_server_that_cannot_filter_falls_back_to_a_full_clone(tmp_path):
    mirror = tmp_path / "gh"
    (sha,) = make_git_repo(mirror, "o", "dumb", [{"data/train.jsonl": jsonl(ROWS), "other.bin": b"o" * 5000}])
    subprocess.run(["git", "--git-dir", str(mirror / "o" / "dumb"), "update-server-info"], check=True)
    with FakeServer(root=mirror) as dumb:  # git's "dumb" HTTP protocol: no fetch by commit id, no filters
        got = fetch_git(f"{dumb.url}/o/dumb", sha, tmp_path / "out", paths=("data/*",))
    assert got.mode == "full" and got.commit == sha and got.nbytes > 0
    assert (tmp_path / "out" / "data" / "train.jsonl").read_bytes() == jsonl(ROWS) and not (
        tmp_path / "out" / "other.bin"
    ).exists()


def test_git_link_leaving_the_folder_is_refused_before_anything_is_written(tmp_path):
    mirror = tmp_path / "gh"
    (sha,) = make_git_repo(mirror, "o", "l", [{"a.txt": b"a"}], links={"out": "../../etc"})
    with pytest.raises(
        FetchError, match=r"out is a link to \.\./\.\./etc, outside the dataset folder; refused, nothing written"
    ):
        fetch_git(f"file://{mirror}/o/l", sha, tmp_path / "dest")
    assert list((tmp_path / "dest").iterdir()) == []
