"""Every validation error names the file, the record and the field, and says what was expected."""

from __future__ import annotations

import json

import pytest

from steb_core import (
    DatasetBundle,
    DataValidationError,
    FeatureText,
    LabelledText,
    LoadContext,
    OrderGroup,
    RetrievalSet,
    TextCollection,
    TextPair,
    iter_jsonl,
    located,
    read_json,
    read_lines,
    read_text,
    read_tsv,
    require_field,
    sample_per_class,
)
from steb_core._errors import DatasetNotFoundError
from steb_core._results import ResultRecord, load_results


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda: LabelledText("", "x"), "text"),
        (lambda: LabelledText("   \n", "x"), "text"),
        (lambda: LabelledText("ok", ""), "label"),
        (lambda: TextPair("a", 3, True), "text_b"),
        (lambda: TextPair("a", "b", "yes"), "same"),
        (lambda: OrderGroup((), ("a",), ()), "anchors"),
        (lambda: OrderGroup(("a", "b"), ("c", "d"), (0,)), "answer"),
        (lambda: OrderGroup(("a", "b"), ("c", "d"), (0, 0)), "answer"),
        (lambda: OrderGroup(("a", "b"), ("c", "d"), (0, 2)), "answer"),
        (lambda: OrderGroup(("a", "b"), ("c",), (0, 1)), "alternatives"),
        (lambda: OrderGroup(("a",), ("c", "d"), (1,), distractor=""), "distractor"),
        (lambda: TextCollection("", ("t",)), "author"),
        (lambda: TextCollection("a", ()), "texts"),
        (lambda: TextCollection("a", ("ok", " ")), "texts[1]"),
        (lambda: RetrievalSet((TextCollection("a", ("x",)),), (TextCollection("b", ("y",)),)), "author"),
        (lambda: FeatureText("t", {}), "features"),
        (lambda: FeatureText("t", {"n": float("nan")}), "features.n"),
        (lambda: DatasetBundle(pairs=[]), "pairs"),
        (lambda: DatasetBundle(pairs=[LabelledText("a", "b")]), "pairs"),
    ],
)
def test_record_errors_name_the_field(make, field):
    with pytest.raises(DataValidationError) as info:
        make()
    assert info.value.field == field
    assert f"field '{field}'" in str(info.value)


def test_located_adds_file_and_record():
    with pytest.raises(DataValidationError) as info:
        with located("data/train.tsv", "row 17"):
            LabelledText("", "formal")
    message = str(info.value)
    assert message.startswith("file data/train.tsv, record row 17, field 'text': is empty")
    assert "expected non-empty text" in message


def test_read_text_handles_bom_and_windows_line_ends(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes("\ufeffline one\r\nline two\r\n\r\nline three".encode("utf-8"))
    assert read_text(path) == "line one\nline two\n\nline three"
    assert read_lines(path) == ["line one", "line two", "line three"]
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(DataValidationError, match=r"latin1.txt.*not valid UTF-8 at byte 3"):
        read_text(bad)


def test_jsonl_errors_name_line_and_field(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "a", "same": true}\n\n[1, 2]\n', encoding="utf-8")
    rows = iter_jsonl(path)
    lineno, obj = next(rows)
    assert lineno == 1 and obj["id"] == "a"
    with pytest.raises(DataValidationError, match=r"pairs.jsonl, record line 3: is a list"):
        next(rows)
    (tmp_path / "broken.jsonl").write_text('{"id": "a"}\n{"id": \n', encoding="utf-8")
    with pytest.raises(DataValidationError, match=r"broken.jsonl, record line 2: invalid JSON"):
        list(iter_jsonl(tmp_path / "broken.jsonl"))
    with pytest.raises(DataValidationError) as info:
        require_field(obj, "pair", path=path, record="line 1", types=list)
    assert str(info.value) == f"file {path}, record line 1, field 'pair': is missing"
    with pytest.raises(DataValidationError, match="field 'same': has type bool"):
        require_field({"same": True}, "same", path=path, record=1, types=int)
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(DataValidationError, match="bad.json, record line 1: invalid JSON"):
        read_json(tmp_path / "bad.json")


def test_tsv_by_header_with_quoted_newlines_and_missing_columns(tmp_path):
    path = tmp_path / "stel.tsv"
    path.write_text('\tAnchor 1\tID\n0\t"two\nlines"\tQQ_1\n1\tplain\tQQ_2\n', encoding="utf-8")
    rows = read_tsv(path, required=["Anchor 1", "ID"])
    assert [r["Anchor 1"] for r in rows] == ["two\nlines", "plain"]
    with pytest.raises(DataValidationError) as info:
        read_tsv(path, required=["Anchor 1", "Correct Alternative"])
    assert "Correct Alternative" in str(info.value) and "record header" in str(info.value)
    ragged = tmp_path / "ragged.tsv"
    ragged.write_text("a\tb\n1\t2\t3\n", encoding="utf-8")
    with pytest.raises(DataValidationError, match="record row 1"):
        read_tsv(ragged)


def test_missing_dataset_names_download_and_layout(tmp_path):
    ctx = LoadContext("stel", tmp_path / "nowhere", 0)
    with pytest.raises(DatasetNotFoundError) as info:
        ctx.require_file("quad.tsv", "github.com/nlpsoc/STEL (Data/STEL)", "ROOT/stel/*.tsv")
    message = str(info.value)
    assert "nowhere" in message and "nlpsoc/STEL" in message and "ROOT/stel/*.tsv" in message
    (tmp_path / "stel").mkdir()
    ctx = LoadContext("stel", LoadContext.resolve_data_dir("stel", tmp_path), 0)
    assert ctx.data_dir == tmp_path / "stel"
    with pytest.raises(DatasetNotFoundError, match="missing file .*quad.tsv"):
        ctx.require_file("quad.tsv", "the STEL repo")


def test_sample_per_class_is_seeded_and_capped():
    items = [(i, "a" if i < 30 else "b") for i in range(40)]
    one = sample_per_class(items, key=lambda x: x[1], per_class=5, seed=1)
    assert sample_per_class(items, key=lambda x: x[1], per_class=5, seed=1) == one
    assert sample_per_class(items, key=lambda x: x[1], per_class=5, seed=2) != one
    assert sum(1 for x in one if x[1] == "a") == 5 and sum(1 for x in one if x[1] == "b") == 5
    assert one == sorted(one)  # input order kept
    assert len(sample_per_class(items, key=lambda x: x[1], per_class=20, seed=1)) == 30


def test_bad_result_files_are_named(tmp_path):
    (tmp_path / "enc").mkdir()
    (tmp_path / "enc" / "x.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataValidationError, match="x.json"):
        list(load_results(tmp_path))
    (tmp_path / "enc" / "x.json").write_text(json.dumps({"schema": "steb.result/1", "encoder": "e"}), encoding="utf-8")
    with pytest.raises(DataValidationError, match="field 'dataset'"):
        list(load_results(tmp_path))
    with pytest.raises(DataValidationError, match="field 'schema'"):
        ResultRecord.from_dict({"schema": "other"}, path="p.json")
