"""Issue 29, item 6: small hostile inputs cannot take unbounded memory or time.

- a ``.csv.gz`` that expands without end (a 3.4 MB one once took 13.5 GB and 207 s through the generic
  loader), and a zip member that does (a 1.5 MB zip bomb took 3.1 GB for twitter_aave_sae): the
  decompressed bytes are counted while streaming and the read fails past the cap, naming the file;
- an LLM-judge endpoint answering with an endless body (3 GB in 5 s): the answer is read in chunks and
  refused past ``max_response_bytes``.

The caps are lowered in the tests (``$STEB_MAX_DECOMPRESSED_BYTES``, ``max_response_bytes=``) so the
bombs stay small; memory is bounded by the cap, so reading stops after about cap bytes.
"""

from __future__ import annotations

import gzip
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from steb_core import DataValidationError
from steb_core._io import MAX_DECOMPRESSED_BYTES, decompression_limit, read_zip_member
from steb_core._tables import read_table

CAP = 1 << 20  # 1 MiB in the tests


@pytest.fixture
def low_cap(monkeypatch):
    monkeypatch.setenv("STEB_MAX_DECOMPRESSED_BYTES", "1M")


def _bomb(size: int) -> bytes:
    return b"text,label\n" + b"a" * size + b",x\n"


def test_default_cap_and_how_to_raise_it(monkeypatch):
    monkeypatch.delenv("STEB_MAX_DECOMPRESSED_BYTES", raising=False)
    assert decompression_limit() == MAX_DECOMPRESSED_BYTES == 1 << 30
    monkeypatch.setenv("STEB_MAX_DECOMPRESSED_BYTES", "8G")
    assert decompression_limit() == 8 << 30
    monkeypatch.setenv("STEB_MAX_DECOMPRESSED_BYTES", "lots")
    with pytest.raises(DataValidationError, match="STEB_MAX_DECOMPRESSED_BYTES"):
        decompression_limit()


def test_a_gzip_bomb_is_refused_by_the_generic_loader(tmp_path, low_cap):
    path = tmp_path / "rows.csv.gz"
    path.write_bytes(gzip.compress(_bomb(20 * CAP)))  # 20 MiB of one value, ~20 KB on disk
    assert path.stat().st_size < CAP // 20
    with pytest.raises(DataValidationError, match="decompresses to more than") as info:
        list(read_table(path))
    assert info.value.path == str(path) and "STEB_MAX_DECOMPRESSED_BYTES" in str(info.value)
    small = tmp_path / "small.csv.gz"
    small.write_bytes(gzip.compress(b"text,label\nhello,x\n"))
    assert [values for _, values in read_table(small)] == [{"text": "hello", "label": "x"}]


def test_a_zip_bomb_member_is_refused(tmp_path, low_cap):
    path = tmp_path / "supplementary.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("aae_samples.txt", b"tweet\n" * (4 * CAP))
        archive.writestr("sae_samples.txt", b"tweet\n")
    with zipfile.ZipFile(path) as archive:
        with pytest.raises(DataValidationError, match="member aae_samples.txt decompresses to") as info:
            read_zip_member(archive, "aae_samples.txt", path=path)
        assert info.value.path == str(path)
        assert read_zip_member(archive, "sae_samples.txt", path=path) == b"tweet\n"


def test_a_zip_member_lying_about_its_size_is_still_capped(tmp_path):
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("big.txt", b"x" * (3 * CAP))
    with zipfile.ZipFile(path) as archive:
        with pytest.raises(DataValidationError, match="decompresses to"):
            read_zip_member(archive, "big.txt", path=path, limit=CAP)
        assert len(read_zip_member(archive, "big.txt", path=path, limit=4 * CAP)) == 3 * CAP


def test_the_parallel_loader_refuses_a_zip_bomb(tmp_path, low_cap):
    line_pairs = pytest.importorskip("steb_datasets_parallel.line_pairs")
    path = tmp_path / "supplementary.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("data/aae_samples.txt", b"tweet\n" * (4 * CAP))
        archive.writestr("data/sae_samples.txt", b"tweet\n")
    with pytest.raises(DataValidationError, match="decompresses to"):
        line_pairs._aae_from_archive(path, {"aae": "aae_samples.txt", "sae": "sae_samples.txt"})


class _Endless(BaseHTTPRequestHandler):
    """Answers every POST with 200 and a body that never ends (no Content-Length, closed by the client)."""

    declare = False

    def do_POST(self) -> None:  # http.server's naming
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.declare:
            self.send_header("Content-Length", str(1 << 40))
        self.end_headers()
        chunk = b" " * 65536
        try:
            for _ in range(100_000):  # 6.5 GB if nobody stops reading
                self.wfile.write(chunk)
        except OSError:
            pass

    def log_message(self, *args) -> None:
        pass


@pytest.mark.parametrize("declare", [False, True], ids=["endless", "declared-huge"])
def test_the_judge_client_caps_the_answer(declare):
    backends = pytest.importorskip("steb_scorers.judges.backends")
    handler = type("Handler", (_Endless,), {"declare": declare})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        assert backends.HTTPBackend(url).max_response_bytes == backends.MAX_RESPONSE_BYTES == 16 << 20
        client = backends.HTTPBackend(url, model="m", timeout=60, max_response_bytes=CAP)
        with pytest.raises(backends.JudgeEndpointError, match="max_response_bytes") as info:
            client.complete(["hi"], n=1, temperature=0.0, seed=0, max_tokens=5)
        assert url in str(info.value) and not isinstance(info.value, backends.JudgeEndpointTimeout)
    finally:
        server.shutdown()
        server.server_close()
