"""A stored result of an older STEB protocol version (or task version) is recomputed with a note saying why."""

from __future__ import annotations

import json

import numpy as np

import steb_core
from steb_core import STEB_PROTOCOL_VERSION
from steb_core._results import ResultRecord


class Enc:
    name = "enc"

    def encode(self, texts):
        return np.asarray([[len(t), t.count("a") + 1.0] for t in texts], dtype=np.float32)


def _data():
    rows = [{"text": f"{'a' * (i % 5)} text {i}", "label": f"c{i % 2}"} for i in range(20)]
    return steb_core.dataset_from(rows, shape="labelled_texts", name="versions", tasks=["pair_all"])


def _rewritten(out, **changes):
    """The stored result with ``changes`` (and another run key), written back as an older steb would have."""
    path = next(out.rglob("pair_all.json"))
    data = json.loads(path.read_text())
    data.update(run_key="old", **changes)
    old = ResultRecord.from_dict(data)
    old.content_hash = ""
    old.write(out)


def test_old_protocol_result_is_recomputed_with_a_note(tmp_path):
    out = tmp_path / "o"
    first = steb_core.evaluate(Enc(), [_data()], output=out, cache_dir=tmp_path / "c", progress=False)
    _rewritten(out, steb_protocol="STEB-2026.06 (arXiv:2606.31741v1)")
    again = steb_core.evaluate(Enc(), [_data()], output=out, cache_dir=tmp_path / "c", progress=False)
    assert len(again.results) == 1 and not again.reused
    assert any(
        "STEB-2026.06 (arXiv:2606.31741v1)" in n and STEB_PROTOCOL_VERSION in n and "recomputed" in n
        for n in again.notes
    )
    assert again.results[0].main_score == first.results[0].main_score


def test_old_task_version_result_is_recomputed_with_a_note(tmp_path):
    out = tmp_path / "o"
    steb_core.evaluate(Enc(), [_data()], output=out, cache_dir=tmp_path / "c", progress=False)
    _rewritten(out, task_version="1")
    again = steb_core.evaluate(Enc(), [_data()], output=out, cache_dir=tmp_path / "c", progress=False)
    assert any("version 1 of task 'pair_all'" in n for n in again.notes)
