"""A git, a hub, a Zenodo and a URL dataset fetched through mirrors of a local server and bare git
repositories, then loaded by their loaders; a shared release folder fetched once; the manifest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from steb_core._catalogue import check_dataset
from steb_core.obtain import MANIFEST, PARTIAL, DownloadPolicy, fetch_all, make_plan
from steb_core.obtain.errors import FetchError
from steb_core.obtain.git import fetch_git

from .conftest import ROWS, jsonl, make_git_repo, write_plugin

FAST = DownloadPolicy(retries=1, timeout=5, backoff=0.01)


def _manager(steb_isolated, plugin: Path):
    return steb_isolated.manager([str(plugin)])


def test_four_kinds_fetched_then_loaded(tmp_path, server, monkeypatch, steb_isolated):
    mirror = tmp_path / "ghmirror"
    old, pinned, newer = make_git_repo(
        mirror,
        "someone",
        "corpus",
        [
            {"data/train.jsonl": jsonl(ROWS[:2]), "README": b"v0"},
            {"data/train.jsonl": jsonl(ROWS), "README": b"v1", "big/unwanted.bin": b"x" * 100},
            {"data/train.jsonl": jsonl(ROWS[:1]), "README": b"v2"},
        ],
    )
    hub_sha = server.add_hub_repo(
        "org/hubset", "dataset", files={"data/train.jsonl": jsonl(ROWS), "other/skip.txt": b"no"}
    )
    server.add_zenodo_record("1234567", {"train.jsonl": jsonl(ROWS), "extra.pdf": b"%PDF"})
    url_data = jsonl(ROWS)
    server.add_file("dl/v1/train.jsonl", url_data)
    monkeypatch.setenv(
        "STEB_DATA_MIRROR", f"github.com=file://{mirror},zenodo.org={server.url},files.example.org={server.url}"
    )
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "gitset",
                "folder": "gitset",
                "file": "data/train.jsonl",
                "sources": [
                    {"kind": "git", "url": "https://github.com/someone/corpus", "revision": pinned, "files": ["data"]}
                ],
            },
            {
                "name": "hubset",
                "folder": "hubset",
                "file": "data/train.jsonl",
                "sources": [{"kind": "hf", "url": "org/hubset", "revision": hub_sha, "files": ["data/*"]}],
            },
            {
                "name": "zenset",
                "folder": "zenset",
                "file": "train.jsonl",
                "sources": [{"kind": "zenodo", "url": "1234567", "files": ["*.jsonl"]}],
            },
            {
                "name": "urlset",
                "folder": "urlset",
                "file": "train.jsonl",
                "sources": [
                    {
                        "kind": "url",
                        "url": "https://files.example.org/dl/v1/train.jsonl",
                        "sha256": {"train.jsonl": hashlib.sha256(url_data).hexdigest()},
                    }
                ],
            },
        ],
    )
    manager = _manager(steb_isolated, plugin)
    specs = [manager.datasets().get(n) for n in ("gitset", "hubset", "zenset", "urlset")]
    root = tmp_path / "data"
    plan = make_plan(specs, root=root)
    assert [j.target for j in plan.jobs] == ["gitset", "hubset", "zenset", "urlset"] and not plan.blocked
    results = fetch_all(plan.jobs, root, workers=2, policy=FAST)
    assert [(r.target, r.status) for r in results] == [
        (t, "fetched") for t in ("gitset", "hubset", "zenset", "urlset")
    ], results
    for spec in specs:  # the loaders find the files where a hand download would have put them
        check = check_dataset(spec, root, shapes={"clustering": "labelled_texts"})
        assert check.status == "ok", (spec.name, check.message)
        assert check.counts["clustering"] == {"classes": 2, "texts": 4}
    # only the pinned commit's tree, only the files asked for; no git metadata, no hub bookkeeping
    assert sorted(p.relative_to(root / "gitset").as_posix() for p in (root / "gitset").rglob("*")) == sorted(
        ["data", "data/train.jsonl", MANIFEST]
    )
    assert not (root / "hubset" / "other").exists() and not (root / "hubset" / ".cache").exists()
    assert sorted(p.name for p in (root / "zenset").iterdir()) == [MANIFEST, "train.jsonl"]
    assert not (root / PARTIAL).exists()
    manifest = json.loads((root / "gitset" / MANIFEST).read_text())
    assert manifest["sources"][0]["resolved"] == pinned != old and pinned != newer
    assert manifest["files"]["data/train.jsonl"] == hashlib.sha256(jsonl(ROWS)).hexdigest()
    assert json.loads((root / "hubset" / MANIFEST).read_text())["sources"][0]["resolved"] == hub_sha
    # complete folders are skipped: a second run asks the server nothing
    before = len(server.requests)
    again = fetch_all(make_plan(specs, root=root).jobs, root, policy=FAST)
    assert {r.status for r in again} == {"present"} and len(server.requests) == before


def test_shared_release_folder_fetched_once_with_subdir(tmp_path, server, monkeypatch, steb_isolated):
    data = jsonl(ROWS)
    server.add_file("rel/part.jsonl", data)
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    source = {
        "kind": "url",
        "url": "https://files.example.org/rel/part.jsonl",
        "target": "SHARED",
        "subdir": "inner",
        "sha256": {"part.jsonl": hashlib.sha256(data).hexdigest()},
    }
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {"name": "one", "folder": "SHARED", "file": "inner/part.jsonl", "sources": [source]},
            {"name": "two", "folder": "SHARED", "file": "inner/part.jsonl", "sources": [source]},
        ],
    )
    manager = _manager(steb_isolated, plugin)
    specs = [manager.datasets().get("one"), manager.datasets().get("two")]
    plan = make_plan(specs)
    assert len(plan.jobs) == 1 and plan.jobs[0].datasets == ["one", "two"]
    root = tmp_path / "data"
    assert [r.status for r in fetch_all(plan.jobs, root, policy=FAST)] == ["fetched"]
    assert len(server.hits("rel/part.jsonl")) == 1
    assert all(check_dataset(s, root, shapes={"clustering": "labelled_texts"}).status == "ok" for s in specs)


def test_git_pin_missing_and_non_tip_commit(tmp_path):
    mirror = tmp_path / "m"
    first, _second = make_git_repo(mirror, "o", "r", [{"a.txt": b"1"}, {"a.txt": b"2"}])
    dest = tmp_path / "out"
    assert fetch_git(f"file://{mirror}/o/r", first, dest).commit == first  # an older commit, not the branch tip
    assert (dest / "a.txt").read_bytes() == b"1" and not (dest / ".git").exists()
    with pytest.raises(FetchError, match="0" * 40):
        fetch_git(f"file://{mirror}/o/r", "0" * 40, tmp_path / "out2")
    with pytest.raises(FetchError, match="cannot fetch the repository"):
        fetch_git(f"file://{mirror}/o/absent", first, tmp_path / "out3")


def test_git_server_refusing_a_fetch_by_sha_gets_a_full_clone(tmp_path, monkeypatch):
    mirror = tmp_path / "m"
    first, _second = make_git_repo(mirror, "o", "r", [{"a.txt": b"1"}, {"a.txt": b"2"}])
    # protocol v0 without uploadpack.allowAnySHA1InWant: an unadvertised (non-tip) commit cannot be fetched by id
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "protocol.version")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "0")
    dest = tmp_path / "out"
    assert fetch_git(f"file://{mirror}/o/r", first, dest).commit == first
    assert (dest / "a.txt").read_bytes() == b"1" and not (dest / ".git").exists()


def test_zenodo_checksum_mismatch_and_server_errors_name_the_file_or_url(tmp_path, server, monkeypatch, steb_isolated):
    server.add_zenodo_record("777", {"train.jsonl": jsonl(ROWS)})
    monkeypatch.setenv("STEB_DATA_MIRROR", f"zenodo.org={server.url}")
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "zen",
                "folder": "zen",
                "file": "train.jsonl",
                "sources": [
                    {
                        "kind": "zenodo",
                        "url": "https://zenodo.org/records/777",
                        "sha256": {"train.jsonl": hashlib.sha256(b"another release").hexdigest()},
                    }
                ],
            }
        ],
    )
    spec = _manager(steb_isolated, plugin).datasets().get("zen")
    root = tmp_path / "data"
    (result,) = fetch_all(make_plan([spec]).jobs, root, policy=FAST)
    assert result.status == "failed" and result.message.startswith("checksum mismatch for train.jsonl: sha256 ")
    assert f"{server.url}/api/records/777/files/train.jsonl/content" in result.message
    assert not (root / "zen").exists() and not list((root / PARTIAL).rglob("train.jsonl*"))
    server.fail_next(10, status=502, path="api/records/777")
    (result,) = fetch_all(make_plan([spec]).jobs, root, policy=FAST)
    assert (
        result.status == "failed"
        and result.message == f"{server.url}/api/records/777: gave up after 2 tries: HTTP 502 Bad Gateway"
    )


def test_hub_server_errors_are_bounded_and_name_the_repository(tmp_path, server, monkeypatch):
    from steb_core.obtain.hub import fetch_hf

    sha = server.add_hub_repo("org/flaky", "dataset", files={"a.txt": b"a"})
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    server.fail_next(100, status=500, path="api/datasets/org/flaky")
    with pytest.raises(FetchError, match=rf"hf:org/flaky@{sha} from {server.url}: gave up after 2 tries"):
        fetch_hf("org/flaky", sha, tmp_path / "out", retries=1, backoff=0.01)
    assert 2 <= len([r for r in server.requests if r.status == 500]) <= 10  # bounded (huggingface_hub may retry too)
    steady = server.add_hub_repo("org/steady", "dataset", files={"a.txt": b"a"})
    server.fail_next(1, status=503, path="api/datasets/org/steady")  # one failure, then the retry succeeds
    assert fetch_hf("org/steady", steady, tmp_path / "out", retries=1, backoff=0.01) == steady
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"a"


def test_a_failed_merge_never_publishes_a_partial_folder_on_the_next_run(tmp_path, server, monkeypatch, steb_isolated):
    a, b = jsonl(ROWS), jsonl(ROWS[:2])
    server.add_file("x/train.jsonl", a)
    server.add_file("y/train.jsonl", b)
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    sources = [
        {
            "kind": "url",
            "url": f"https://files.example.org/{d}/train.jsonl",
            "sha256": {"train.jsonl": hashlib.sha256(data).hexdigest()},
        }
        for d, data in (("x", a), ("y", b))
    ]
    plugin = write_plugin(
        tmp_path / "plug.py", [{"name": "clash", "folder": "clash", "file": "train.jsonl", "sources": sources}]
    )
    spec = _manager(steb_isolated, plugin).datasets().get("clash")
    root = tmp_path / "data"
    for _ in range(2):  # the second run must not take the first run's half-merged leftovers for finished sources
        (result,) = fetch_all(make_plan([spec]).jobs, root, policy=FAST)
        assert (
            result.status == "failed"
            and "two sources both provide" in result.message
            and "train.jsonl" in result.message
        )
        assert not (root / "clash").exists()
    assert len(server.hits("x/train.jsonl")) == 2


def test_strip_moves_the_archives_top_folder_up(tmp_path, server, monkeypatch, steb_isolated):
    """MASC-3.0.0.zip unpacks into MASC-3.0.0/; with strip= its data/ lands directly in the target folder."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("MASC-3.0.0/data/train.jsonl", jsonl(ROWS))
    server.add_file("masc/MASC-3.0.0.zip", buffer.getvalue())
    monkeypatch.setenv("STEB_DATA_MIRROR", f"files.example.org={server.url}")
    source = {"kind": "url", "url": "https://files.example.org/masc/MASC-3.0.0.zip", "unpack": ["MASC-3.0.0.zip"]}
    plugin = write_plugin(
        tmp_path / "plug.py",
        [
            {
                "name": "stripped",
                "folder": "stripped",
                "file": "data/train.jsonl",
                "sources": [{**source, "strip": "MASC-3.0.0"}],
            },
            {
                "name": "wrongstrip",
                "folder": "wrongstrip",
                "file": "data/train.jsonl",
                "sources": [{**source, "strip": "MASC-9"}],
            },
        ],
    )
    manager = _manager(steb_isolated, plugin)
    specs = [manager.datasets().get(n) for n in ("stripped", "wrongstrip")]
    root = tmp_path / "data"
    ok, wrong = fetch_all(make_plan(specs).jobs, root, policy=FAST, workers=1)
    assert ok.status == "fetched" and (root / "stripped" / "data" / "train.jsonl").read_bytes() == jsonl(ROWS)
    assert not (root / "stripped" / "MASC-3.0.0").exists()
    assert check_dataset(specs[0], root, shapes={"clustering": "labelled_texts"}).status == "ok"
    assert wrong.status == "failed" and "no folder 'MASC-9' to take the files from (strip=)" in wrong.message
