"""Issue 47: bytes read as U+FFFD (as the STEB reference reads PAN's texts) are counted per dataset and said: in
the run's notes and in every record's ``dataset_info``."""

from __future__ import annotations

import numpy as np

import steb_core
from steb_core import REPLACED_BYTES_INFO, DatasetBundle, DatasetSpec, LabelledText, decode_replacing, read_bytes


class Hashing:
    name = "hashing"

    def encode(self, texts):
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, len(t) % 4] += 1
            out[i, sum(map(ord, t)) % 4] += 1
        return out


def test_replaced_bytes_reach_the_notes_and_the_records(tmp_path):
    release = tmp_path / "data" / "latin"
    release.mkdir(parents=True)
    for i in range(12):
        (release / f"{i:02d}.txt").write_bytes(f"text {i} caf".encode() + (b"\xe9" if i < 3 else b"e"))

    def load(ctx):
        files = sorted(ctx.data_dir.glob("*.txt"))
        texts = [decode_replacing(read_bytes(f), path=f) for f in files]
        return DatasetBundle(labelled_texts=[LabelledText(t, f"c{i % 2}") for i, t in enumerate(texts)])

    spec = DatasetSpec(name="latin", description="d", tasks=("pair_all",), loader=load)
    summary = steb_core.evaluate(
        Hashing(), [spec], data_dir=tmp_path / "data", output=tmp_path / "o", cache_dir=tmp_path / "c", progress=False
    )
    assert any("dataset 'latin': 3 byte(s) that are not valid UTF-8, in 3 file(s)" in n for n in summary.notes)
    info = summary.results[0].dataset_info[REPLACED_BYTES_INFO]
    assert info["bytes"] == 3 and info["files"] == 3
    assert (release / "00.txt").read_bytes().decode("utf-8", "replace").endswith("caf\ufffd")
