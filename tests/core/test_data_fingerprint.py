"""Issue 29, item 2: a stored number belongs to its data too.

A result is reused only when the fingerprint of the records the task saw and the providing plugin's
version equal the stored ones; both are stored in the record; results written before fingerprints
existed are recomputed; ``steb report`` says when encoders were compared on different data.
"""

from __future__ import annotations

import csv
import enum
import shutil
from pathlib import Path

import pytest

from steb_core import ParallelItem, evaluate
from steb_core._parallel_corpora import order_groups_from_parallel
from steb_core._plugins import get_manager
from steb_core._records import DatasetBundle, LabelledText, OrderGroup, TextPair, data_fingerprint
from steb_core._results import ResultRecord, load_results, result_path, run_key
from steb_core._specs import STEB_PROTOCOL_VERSION
from tests.support.toy_components import CountingEncoder

STEL_SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "data" / "stel"

FILE_PLUGIN = """
import numpy as np
from pathlib import Path
from steb_core import hookimpl, DatasetSpec, TaskSpec, DatasetBundle, LabelledText

def _load(ctx):
    rows = [line.split("\\t") for line in (ctx.data_dir / "data.tsv").read_text().splitlines() if line]
    return DatasetBundle(labelled_texts=[LabelledText(t, lab, id=str(i)) for i, (t, lab) in enumerate(rows)])

def _separation(ctx):
    v = ctx.embed([r.text for r in ctx.data])
    labels = np.array([r.label for r in ctx.data])
    a, b = v[labels == "a"].mean(axis=0), v[labels == "b"].mean(axis=0)
    return {"gap": float(np.linalg.norm(a - b))}

@hookimpl
def register_datasets(register):
    register(DatasetSpec(name="filedata", description="reads data.tsv", tasks=("gap_task",), loader=_load))

@hookimpl
def register_tasks(register):
    register(TaskSpec(name="gap_task", description="distance of class means", shape="labelled_texts",
        main_metric="gap", run=_separation))
"""


def _write_rows(folder: Path, rows: list[tuple[str, str]]) -> None:
    (folder / "filedata").mkdir(parents=True, exist_ok=True)
    (folder / "filedata" / "data.tsv").write_text("".join(f"{t}\t{lab}\n" for t, lab in rows))


ROWS = [("aaaa aaa", "a"), ("aaa aab", "a"), ("bbbb bbb", "b"), ("bbb bba", "b"), ("abab", "a"), ("baba", "b")]


@pytest.fixture
def file_plugin(tmp_path) -> Path:
    path = tmp_path / "file_plugin.py"
    path.write_text(FILE_PLUGIN)
    return path


def _run(plugin, tmp_path, data_dir, output="out", **kw):
    return evaluate(
        CountingEncoder(),
        datasets=["filedata"],
        plugins=[str(plugin)],
        data_dir=data_dir,
        output=tmp_path / output,
        cache_dir=tmp_path / "cache",
        progress=False,
        **kw,
    )


# -- the fingerprint itself -------------------------------------------------------------------------
def test_fingerprint_follows_every_field_and_the_order_but_not_the_info():
    base = [LabelledText("one text", "x", id="1"), LabelledText("two text", "y", id="2")]
    fp = DatasetBundle(labelled_texts=base, info={"folder": "/a"}).fingerprint("labelled_texts")
    assert fp == DatasetBundle(labelled_texts=list(base), info={"folder": "/elsewhere"}).fingerprint("labelled_texts")
    variants = [
        [LabelledText("one text", "y", id="1"), base[1]],  # a flipped label
        [LabelledText("one text!", "x", id="1"), base[1]],  # an edited text
        [base[1], base[0]],  # another order (another sample)
        [base[0]],  # a record less
        [LabelledText("one text", "x", id="9"), base[1]],  # another id
    ]
    fps = {DatasetBundle(labelled_texts=v).fingerprint("labelled_texts") for v in variants}
    assert len(fps) == len(variants) and fp not in fps
    # the field boundaries cannot be forged by the texts: ("ab", "c") and ("a", "bc") differ
    assert data_fingerprint([TextPair("ab", "c", True)]) != data_fingerprint([TextPair("a", "bc", True)])
    # an STEL answer flip (same sentences) changes it
    g = OrderGroup(("a1", "a2"), ("s1", "s2"), (0, 1))
    assert data_fingerprint([g]) != data_fingerprint([OrderGroup(("a1", "a2"), ("s1", "s2"), (1, 0))])
    # a shape the bundle lacks has no fingerprint
    assert DatasetBundle(labelled_texts=base).fingerprint("pairs") == ""


class _Loud(str):
    """A str subclass: written as its characters, like a str."""


class _Level(enum.IntEnum):
    HIGH = 2


def _format_stream(value: object) -> bytes:
    """The documented byte format, written value by value (independently of steb's writer): type tag, length or
    content, fields in declaration order, mappings by sorted key, floats as ``float.hex``."""
    import dataclasses
    import struct

    if isinstance(value, str):
        raw = value.encode("utf-8", "surrogatepass")
        return b"s" + struct.pack("<Q", len(raw)) + raw
    if value is None:
        return b"n"
    if isinstance(value, bool):
        return b"T" if value else b"F"
    if isinstance(value, int):
        return b"i%d;" % value
    if isinstance(value, float):
        return b"f" + value.hex().encode() + b";"
    if isinstance(value, (list, tuple)):
        return b"l" + struct.pack("<Q", len(value)) + b"".join(_format_stream(v) for v in value)
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: str(kv[0]))
        return (
            b"m"
            + struct.pack("<Q", len(value))
            + b"".join(_format_stream(str(k)) + _format_stream(v) for k, v in items)
        )
    if dataclasses.is_dataclass(value):
        body = [_format_stream(getattr(value, f.name)) for f in dataclasses.fields(value)]
        return b"d" + _format_stream(type(value).__name__) + b"".join(body)
    return _format_stream(value.item())  # type: ignore[attr-defined]  (numpy scalars)


def test_the_fingerprint_is_the_documented_stream_hashed():
    import hashlib

    import numpy as np

    from steb_core._records import FeatureText, RetrievalSet, TextCollection

    texts = [f"text {i} é \u2028" + "x" * (i * 37) for i in range(50)]
    groups = [
        OrderGroup((texts[i], texts[i + 1]), (texts[i + 2], texts[i + 3]), (1, 0), distractor=texts[0], distractor_at=0)
        for i in range(40)
    ] * 30  # texts repeat across groups, as an order-alignment set's do
    cases = [
        groups,
        [LabelledText("a", "b"), LabelledText("ab", "c", id="7")],
        [TextPair("ab", "c", True), TextPair("a", "bc", False, id=None)],
        [FeatureText("t", {"len": 1.5, "b": 0.1}), FeatureText("u", {"len": 2.0}, id="u", bins=None)],
        [np.float32(0.1), np.int64(3), {"k": [1, 2.5, None, True]}],  # numpy scalars, nested values
        [LabelledText("long " * 2000, "x", id=str(10**30)), LabelledText("long " * 2000, "x", id="1")],  # not kept
        [(-0.0, 0.0, 1, True, 1.0), _Loud("text"), _Level.HIGH, ("a", _Loud("a"), 2, _Level.HIGH)],  # look-alikes
        RetrievalSet([TextCollection("a", ("q1", "q2"))], [TextCollection("a", ("t1",), id="t")]),
        ["order_groups", groups[:3]],
    ]
    shared = (1, 0)  # one tuple object in many records (the writer keeps its encoding by identity), look-alikes beside
    cases.append(
        [OrderGroup(("a", "b"), ("c", "d"), shared) for _ in range(5)] + [OrderGroup(("a", "b"), ("c", "d"), (True, 0))]
    )
    cases.append([OrderGroup((_Loud("a"), "b"), ("c", "d"), shared), OrderGroup(("a", "b"), ("c", "d"), shared)])
    for value in cases:
        expected = hashlib.blake2b(_format_stream(value), digest_size=16, person=b"steb-data-v1").hexdigest()
        assert data_fingerprint(value) == expected
    # the reference construction's compact groups: the stream of their list
    items = [ParallelItem((f"{n} a", f"{n} b", texts[n]), id=str(n), style_type=str(n % 2)) for n in range(12)]
    paired, _ = order_groups_from_parallel(items, seed=0, salt="s", per_class=None)
    expected = hashlib.blake2b(_format_stream(list(paired)), digest_size=16, person=b"steb-data-v1").hexdigest()
    assert data_fingerprint(paired) == expected and len(paired) == 2 * 15 * 3
    # the format tells the field boundaries apart: the same characters in other fields give another stream
    assert _format_stream([TextPair("ab", "c", True)]) != _format_stream([TextPair("a", "bc", True)])


# -- reuse only for the same data -------------------------------------------------------------------
def test_edited_data_is_recomputed_and_the_record_stores_the_fingerprint(file_plugin, tmp_path):
    _write_rows(tmp_path / "data", ROWS)
    first = _run(file_plugin, tmp_path, tmp_path / "data")
    [rec] = first.results
    assert len(rec.data_fingerprint) == 32 and rec.verified()
    again = _run(file_plugin, tmp_path, tmp_path / "data")
    assert len(again.reused) == 1 and not again.results  # same data: reused
    flipped = [(t, "b" if lab == "a" else "a") if i < 2 else (t, lab) for i, (t, lab) in enumerate(ROWS)]
    _write_rows(tmp_path / "data", flipped)
    changed = _run(file_plugin, tmp_path, tmp_path / "data")
    assert not changed.reused and len(changed.results) == 1
    [new] = changed.results
    assert new.data_fingerprint != rec.data_fingerprint and new.main_score != rec.main_score
    assert any("data of 'filedata' changed" in n for n in changed.notes)
    fresh = _run(file_plugin, tmp_path, tmp_path / "data", output="fresh")
    assert fresh.results[0].main_score == new.main_score  # what a fresh folder gives


def test_another_data_dir_is_not_reused(file_plugin, tmp_path):
    _write_rows(tmp_path / "release1", ROWS)
    _write_rows(tmp_path / "release2", ROWS[:4] + [("abab", "b"), ("baba", "a")])
    _run(file_plugin, tmp_path, tmp_path / "release1")
    other = _run(file_plugin, tmp_path, tmp_path / "release2")
    assert not other.reused and len(other.results) == 1
    # the same content in another folder is the same data: reused
    shutil.copytree(tmp_path / "release2", tmp_path / "copy")
    assert len(_run(file_plugin, tmp_path, tmp_path / "copy").reused) == 1


def test_result_of_an_older_steb_without_fingerprint_is_recomputed(file_plugin, tmp_path):
    _write_rows(tmp_path / "data", ROWS)
    [rec] = _run(file_plugin, tmp_path, tmp_path / "data").results
    # what steb wrote before data fingerprints: the key without the data, no fingerprint fields
    rec.run_key = run_key(
        encoder=rec.encoder_fingerprint,
        dataset=rec.dataset,
        dataset_version=rec.dataset_version,
        task=rec.task,
        task_version=rec.task_version,
        protocol=f"{rec.protocol['name']}:{rec.protocol['max_length']}",
        seed=rec.seed,
        dataset_options={},
        steb_protocol=STEB_PROTOCOL_VERSION,
        scoring={"pair_score": "cosine", "cluster_input": "raw"},
    )
    rec.data_fingerprint = rec.dataset_provider = rec.dataset_provider_version = ""
    rec.write(tmp_path / "out")
    assert ResultRecord.read(result_path(tmp_path / "out", rec.encoder, rec.dataset, rec.task)).verified()
    again = _run(file_plugin, tmp_path, tmp_path / "data")
    assert not again.reused and len(again.results) == 1 and again.results[0].data_fingerprint
    assert any("older steb without a data fingerprint" in n for n in again.notes), again.notes


# -- the real STEL release (issue 29's reproduction) --------------------------------------------------
def _flip_correct_alternative(path: Path) -> None:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    col = rows[0].index("Correct Alternative")
    for row in rows[1:]:
        row[col] = {"1": "2", "2": "1"}[row[col].strip()]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter="\t", lineterminator="\n").writerows(rows)


def _stel(tmp_path, data_dir, output="out"):
    return evaluate(
        "function-words",
        datasets=["STEL_feature_official"],
        data_dir=data_dir,
        output=tmp_path / output,
        cache_dir=tmp_path / "cache",
        progress=False,
    )


@pytest.fixture
def stel_copy(tmp_path) -> Path:
    if not STEL_SAMPLE.is_dir():
        pytest.skip("shared STEL sample not present")
    if "STEL_feature_official" not in get_manager().datasets():
        pytest.skip("steb-datasets-stel not installed")
    target = tmp_path / "stel" / "STEL_feature_official"
    shutil.copytree(STEL_SAMPLE, target)
    return target


def test_stel_flipped_answers_are_not_reused(stel_copy, tmp_path):
    [first] = _stel(tmp_path, stel_copy.parent).results
    _flip_correct_alternative(stel_copy / "quad_questions_char_contraction.tsv")
    second = _stel(tmp_path, stel_copy.parent)
    assert not second.reused and len(second.results) == 1
    [fresh] = _stel(tmp_path, stel_copy.parent, output="fresh").results
    assert second.results[0].main_score == fresh.main_score != first.main_score
    assert second.results[0].data_fingerprint == fresh.data_fingerprint != first.data_fingerprint


def test_stel_plugin_upgrade_is_not_reused(stel_copy, tmp_path):
    [first] = _stel(tmp_path, stel_copy.parent).results
    manager = get_manager()
    provider = manager.datasets().provider("STEL_feature_official")
    info = next(p for p in manager.loaded if p.name == provider)
    assert first.dataset_provider == provider and first.dataset_provider_version == info.version
    info.version = "999.0.0"  # the same data from another plugin version
    upgraded = _stel(tmp_path, stel_copy.parent)
    assert not upgraded.reused and upgraded.results[0].dataset_provider_version == "999.0.0"
    assert any("changed version" in n for n in upgraded.notes), upgraded.notes
    assert len(_stel(tmp_path, stel_copy.parent).reused) == 1


# -- the report ---------------------------------------------------------------------------------------
def test_report_flags_encoders_compared_on_different_data(file_plugin, tmp_path):
    from steb_core.report import build_report

    _write_rows(tmp_path / "release1", ROWS)
    _write_rows(tmp_path / "release2", ROWS[:4] + [("abab", "b"), ("baba", "a")])
    _run(file_plugin, tmp_path, tmp_path / "release1")

    class Other(CountingEncoder):
        name = "other"

        def fingerprint(self) -> str:
            return "other-v1"

    evaluate(
        Other(),
        datasets=["filedata"],
        plugins=[str(file_plugin)],
        data_dir=tmp_path / "release2",
        output=tmp_path / "out",
        cache_dir=tmp_path / "cache",
        progress=False,
    )
    records = list(load_results(tmp_path / "out"))
    assert len({r.data_fingerprint for r in records}) == 2
    paths = build_report(tmp_path / "out", tmp_path / "report", console=False, html=False, datasets=None)
    text = paths.markdown.read_text()
    assert "## Data provenance" in text and "filedata / gap_task" in text and "counting" in text and "other" in text
    # one copy of the data: no note
    evaluate(
        Other(),
        datasets=["filedata"],
        plugins=[str(file_plugin)],
        data_dir=tmp_path / "release1",
        output=tmp_path / "out",
        cache_dir=tmp_path / "cache",
        progress=False,
    )
    clean = build_report(tmp_path / "out", tmp_path / "report2", console=False, html=False, datasets=None)
    assert "Data provenance" not in clean.markdown.read_text()
