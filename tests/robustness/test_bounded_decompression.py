"""Issue 41 (bounded memory): every compressed file steb opens is held to the decompression cap, and refused early.

- a ``.csv.gz`` that expands past the cap used to be parsed row by row into memory until the capped stream
  gave out (a 6 MB file: 3.6 GB and 191 s, ``bench/generic_loader/README.md``); now it is measured in a pass
  that keeps nothing and refused before the first row is read -- shown here by a file whose second row has
  three fields for two columns: the error is the size, not that row, which the parser would have met first;
- a cache shard (``.npz``, a zip) whose member declares more than the cap is set aside, never inflated.

The TF-IDF vectoriser's ``.json.gz`` blocks: ``steb_models_stylometry/tests/test_stylometry_tfidf.py``. The cap
is lowered to 1 MiB here (``$STEB_MAX_DECOMPRESSED_BYTES``); the files expand to a few MiB.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import numpy as np
import pytest

from steb_core import DataValidationError, LoadContext
from steb_core._cache import EmbeddingCache
from steb_core._tables import generic_loader


@pytest.fixture(autouse=True)
def one_mebibyte(monkeypatch):
    monkeypatch.setenv("STEB_MAX_DECOMPRESSED_BYTES", "1M")


def test_a_csv_gz_past_the_cap_is_refused_before_its_rows_are_read(tmp_path: Path) -> None:
    rows = "text,label\nfine row,a\nrow,with,three fields\n" + "".join(f"row {i},c\n" for i in range(300_000))
    assert len(rows) > 3 << 20
    (tmp_path / "big.csv.gz").write_bytes(gzip.compress(rows.encode()))
    load = generic_loader("big.csv.gz", shape="labelled_texts", columns={"text": "text", "label": "label"})
    with pytest.raises(DataValidationError) as err:
        load(LoadContext("big", tmp_path))
    message = str(err.value)
    assert "decompresses to more than 1048576 bytes" in message and "big.csv.gz" in message, message
    assert "fields" not in message


def test_a_corrupt_gzip_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "bad.csv.gz").write_bytes(gzip.compress(b"text,label\nx,y\n")[:-12])
    load = generic_loader("bad.csv.gz", shape="labelled_texts", columns={"text": "text", "label": "label"})
    with pytest.raises(DataValidationError, match="bad.csv.gz.*not a readable gzip file"):
        load(LoadContext("bad", tmp_path))


def test_a_cache_shard_whose_member_expands_past_the_cap_is_set_aside(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path, "fp", "proto")
    shard = cache.dir / "shard-bomb.npz"
    with zipfile.ZipFile(shard, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("keys.npy", "w") as member:
            np.save(member, np.array(["k" * 64] * 40_000))  # 10 MiB of keys, a few KiB compressed
    assert shard.stat().st_size < 1 << 20
    cache.refresh()
    assert len(cache) == 0
    assert [(p.name, "decompresses to" in why) for p, why in cache.problems] == [("shard-bomb.npz", True)]
