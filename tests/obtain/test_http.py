"""Downloads: resume with Range after a killed transfer, a server without Range, checksum mismatches,
bounded retries on 500s, a stalled server (read timeout and overall deadline), client errors."""

from __future__ import annotations

import hashlib

import pytest

from steb_core.obtain.errors import FetchError
from steb_core.obtain.http import DownloadPolicy, download
from steb_core.obtain.mirror import hf_endpoint, parse_mirrors, rewrite

DATA = bytes(range(256)) * 400  # 102400 bytes, several chunks
SHA = hashlib.sha256(DATA).hexdigest()
FAST = DownloadPolicy(retries=2, timeout=2, backoff=0.01)


def test_killed_download_resumes_with_range(tmp_path, server):
    url = server.add_file("f.bin", DATA)
    server.cut("f.bin", after_bytes=30000)
    dest = download(url, tmp_path / "f.bin", sha256=SHA, policy=FAST)
    assert dest.read_bytes() == DATA and not (tmp_path / "f.bin.part").exists()
    hits = server.hits("f.bin")
    assert [h.range for h in hits] == [None, "bytes=30000-"] and hits[1].status == 206


def test_partial_file_from_an_earlier_run_continues(tmp_path, server):
    url = server.add_file("f.bin", DATA)
    (tmp_path / "f.bin.part").write_bytes(DATA[:5000])
    download(url, tmp_path / "f.bin", sha256=SHA, policy=FAST)
    assert (tmp_path / "f.bin").read_bytes() == DATA
    assert [h.range for h in server.hits("f.bin")] == ["bytes=5000-"]


def test_server_without_range_support_starts_over(tmp_path, server):
    url = server.add_file("f.bin", DATA)
    server.range_support = False
    (tmp_path / "f.bin.part").write_bytes(b"garbage that must not stay")
    download(url, tmp_path / "f.bin", sha256=SHA, policy=FAST)
    assert (tmp_path / "f.bin").read_bytes() == DATA


def test_checksum_mismatch_names_the_file_and_keeps_nothing(tmp_path, server):
    url = server.add_file("dir/corpus.zip", DATA)
    wrong = hashlib.sha256(b"other").hexdigest()
    with pytest.raises(FetchError, match=r"checksum mismatch for corpus\.zip: sha256 " + SHA + ".*expected " + wrong):
        download(url, tmp_path / "corpus.zip", sha256=wrong, policy=FAST)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FetchError, match="md5"):
        download(url, tmp_path / "corpus.zip", md5=hashlib.md5(b"x").hexdigest(), policy=FAST)


def test_server_errors_are_retried_a_bounded_number_of_times(tmp_path, server):
    url = server.add_file("f.bin", DATA)
    server.fail_next(2, status=503)
    download(url, tmp_path / "ok.bin", sha256=SHA, policy=FAST)  # two failures, third try succeeds
    server.fail_next(50, status=500)
    with pytest.raises(FetchError, match=rf"{url}: gave up after 3 tries: HTTP 500"):
        download(url, tmp_path / "f.bin", sha256=SHA, policy=FAST)
    assert [h.status for h in server.hits("f.bin")] == [503, 503, 200, 500, 500, 500]
    assert not (tmp_path / "f.bin").exists()


def test_client_error_is_not_retried(tmp_path, server):
    with pytest.raises(FetchError, match=rf"{server.url}/absent.bin: HTTP 404"):
        download(f"{server.url}/absent.bin", tmp_path / "a.bin", sha256=SHA, policy=FAST)
    assert len(server.hits("absent.bin")) == 1


def test_stalled_server_hits_the_read_timeout(tmp_path, server):
    url = server.add_file("slow.bin", DATA)
    server.stall("slow.bin", 30, after_bytes=1000)
    with pytest.raises(FetchError, match=rf"{url}: gave up after 2 tries: no data within the read timeout"):
        download(url, tmp_path / "slow.bin", sha256=SHA, policy=DownloadPolicy(retries=1, timeout=0.3, backoff=0.01))
    assert (tmp_path / "slow.bin.part").read_bytes() == DATA[:2000]  # what arrived is kept for a resume
    assert [h.range for h in server.hits("slow.bin")] == [None, "bytes=1000-"]
    assert not (tmp_path / "slow.bin").exists()


def test_overall_deadline(tmp_path, server):
    url = server.add_file("slow.bin", DATA)
    server.stall("slow.bin", 30)
    with pytest.raises(FetchError, match=rf"{url}: deadline of 1 s passed"):
        download(
            url,
            tmp_path / "slow.bin",
            sha256=SHA,
            policy=DownloadPolicy(retries=100, timeout=0.3, backoff=0.05, deadline=1.0),
        )


def test_mirror_setting():
    table = parse_mirrors("github.com=file:///mirror/github, zenodo.org=http://127.0.0.1:8000/")
    assert rewrite("https://github.com/o/r", table) == "file:///mirror/github/o/r"
    assert (
        rewrite("https://zenodo.org/api/records/1/files/a.zip/content", table)
        == "http://127.0.0.1:8000/api/records/1/files/a.zip/content"
    )
    assert rewrite("https://example.org/x?y=1", table) == "https://example.org/x?y=1"
    with pytest.raises(FetchError, match="'github.com'"):
        parse_mirrors("github.com")
    assert hf_endpoint({"HF_ENDPOINT": "http://h:1/"}) == "http://h:1"
    assert hf_endpoint({"STEB_DATA_MIRROR": "huggingface.co=http://m"}) == "http://m"
    assert hf_endpoint({}) == "https://huggingface.co"
