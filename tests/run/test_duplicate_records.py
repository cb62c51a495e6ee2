"""Issue 29, item 4: label flips that used to pass silently are refused with file, record and field.

- a JSON object naming a key twice (a style-change truth file with ``"changes"`` twice: ``json``
  keeps the last), in every JSON reader: the core's ``parse_json``/``read_json``/``iter_jsonl``, the
  PAN jsonl scanner, the generic loader's JSON and JSON-lines, result records;
- a duplicate pair id in a PAN20/21 ``pairs.jsonl``;
- a duplicate id naming another text in a generic CSV;
- an unbalanced CSV quote that swallows the rows after it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext, iter_jsonl, parse_json, read_json, read_tsv
from steb_core._results import ResultRecord
from steb_core._tables import generic_loader, read_table

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def _ctx(name: str, data_dir: Path, **options) -> LoadContext:
    return LoadContext(name, data_dir, seed=0, options=options)


# -- duplicate JSON keys ------------------------------------------------------------------------------
def test_parse_json_refuses_a_duplicate_key_naming_it():
    with pytest.raises(DataValidationError) as info:
        parse_json(
            '{"authors": 2, "changes": [0, 1], "changes": [1, 0]}', path="truth-problem-1.json", record="problem-1"
        )
    err = info.value
    assert (err.path, err.record, err.field) == ("truth-problem-1.json", "problem-1", "changes")
    assert "[0, 1]" in str(err) and "[1, 0]" in str(err)
    # nested objects too, and the same key in two objects is fine
    with pytest.raises(DataValidationError, match="field 'label'"):
        parse_json('[{"id": 1, "meta": {"label": 1, "label": 0}}]')
    assert parse_json('[{"id": 1}, {"id": 2}]') == [{"id": 1}, {"id": 2}]


def test_read_json_and_iter_jsonl_refuse_duplicate_keys(tmp_path):
    doc = tmp_path / "doc.json"
    doc.write_text('{"a": 1, "a": 2}')
    with pytest.raises(DataValidationError) as info:
        read_json(doc)
    assert info.value.path == str(doc) and info.value.field == "a"
    lines = tmp_path / "rows.jsonl"
    lines.write_text('{"id": "1", "same": true}\n\n{"id": "2", "same": true, "same": false}\n')
    with pytest.raises(DataValidationError) as info:
        list(iter_jsonl(lines))
    assert (info.value.path, info.value.record, info.value.field) == (str(lines), "line 3", "same")


def _style_change_release(root: Path, truth_text: str) -> Path:
    folder = root / "easy" / "train"
    folder.mkdir(parents=True)
    (folder / "problem-1.txt").write_text("First sentence here.\nSecond sentence here.\nThird sentence here.\n")
    (folder / "truth-problem-1.json").write_text(truth_text)
    return root


def test_style_change_truth_with_changes_twice_is_refused(tmp_path):
    from steb_datasets_pan.catalogue import pan_datasets

    spec = next(s for s in pan_datasets() if s.name == "pan26_style_change_easy")
    ok = _style_change_release(tmp_path / "ok", '{"authors": 2, "changes": [0, 1]}')
    assert [p.same for p in spec.loader(_ctx(spec.name, ok, downsample=False)).pairs] == [True, False]
    bad = _style_change_release(tmp_path / "bad", '{"authors": 2, "changes": [0, 1], "changes": [1, 0]}')
    with pytest.raises(DataValidationError) as info:
        spec.loader(_ctx(spec.name, bad, downsample=False))
    err = info.value
    assert err.path.endswith("truth-problem-1.json") and err.record == "problem-1" and err.field == "changes"


@pytest.mark.skipif(
    not (SHARED / "pan" / "pan26-style-change-smoketest").is_dir(), reason="shared PAN sample not present"
)
def test_real_style_change_release_with_a_repeated_changes_key_is_refused(tmp_path):
    from steb_datasets_pan.catalogue import pan_datasets

    spec = next(s for s in pan_datasets() if s.name == "pan26_style_change_medium")
    root = tmp_path / "pan26-style-change-smoketest"
    shutil.copytree(SHARED / "pan" / "pan26-style-change-smoketest", root)
    truth = sorted((root / "medium" / "train").glob("truth-problem-*.json"))[0]
    data = json.loads(truth.read_text())
    flipped = [1 - c for c in data["changes"]]
    body = json.dumps(data)[:-1] + f', "changes": {json.dumps(flipped)}}}'  # the key again, with every label flipped
    truth.write_text(body)
    with pytest.raises(DataValidationError) as info:
        spec.loader(_ctx(spec.name, root))
    assert info.value.path == str(truth) and info.value.field == "changes"
    assert info.value.record == truth.name.removeprefix("truth-").removesuffix(".json")


def test_pan_jsonl_scanner_refuses_duplicate_keys(tmp_path):
    from steb_datasets_pan.catalogue import pan_datasets

    spec = next(s for s in pan_datasets() if s.name == "pan20_authorship_verification_test")
    folder = tmp_path / "pan20-authorship-verification-test"
    folder.mkdir()
    pairs = [{"id": f"p{i}", "fandoms": ["a", "b"], "pair": [f"Text one {i}.", f"Text two {i}."]} for i in range(4)]
    (folder / "pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs))
    truth = [json.dumps({"id": f"p{i}", "same": i < 2}) for i in range(4)]
    truth[3] = '{"id": "p3", "same": false, "same": true}'
    (folder / "truth.jsonl").write_text("\n".join(truth) + "\n")
    with pytest.raises(DataValidationError) as info:
        spec.loader(_ctx(spec.name, tmp_path))
    assert (info.value.path, info.value.record, info.value.field) == (str(folder / "truth.jsonl"), "line 4", "same")


def test_generic_json_and_jsonl_refuse_duplicate_keys(tmp_path):
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text('{"text": "a b", "label": "x"}\n{"text": "c d", "label": "x", "label": "y"}\n')
    with pytest.raises(DataValidationError) as info:
        list(read_table(jsonl))
    assert (info.value.record, info.value.field) == ("line 2", "label")
    array = tmp_path / "t.json"
    array.write_text('[{"text": "a b", "label": "x"},\n {"text": "c d", "text": "e f", "label": "y"}]')
    with pytest.raises(DataValidationError) as info:
        list(read_table(array))
    assert info.value.path == str(array) and info.value.field == "text"


def test_result_record_with_a_duplicate_key_is_refused(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(
        '{"schema": "steb.result/1", "encoder": "e", "dataset": "d", "task": "t", "main_metric": "m", '
        '"main_score": 0.9, "main_score": 0.1, "metrics": {}}'
    )
    with pytest.raises(DataValidationError) as info:
        ResultRecord.read(path)
    assert info.value.field == "main_score"


# -- duplicate ids ------------------------------------------------------------------------------------
def test_duplicate_pair_id_in_pan20_pairs_file_is_refused(tmp_path):
    from steb_datasets_pan.catalogue import pan_datasets

    spec = next(s for s in pan_datasets() if s.name == "pan20_authorship_verification_test")
    folder = tmp_path / "pan20-authorship-verification-test"
    folder.mkdir()
    pairs = [{"id": f"p{i}", "fandoms": ["a", "b"], "pair": [f"Text one {i}.", f"Text two {i}."]} for i in range(4)]
    pairs.append({"id": "p1", "fandoms": ["a", "b"], "pair": ["Another text.", "And another."]})
    (folder / "pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs))
    (folder / "truth.jsonl").write_text("".join(json.dumps({"id": f"p{i}", "same": i < 2}) + "\n" for i in range(4)))
    with pytest.raises(DataValidationError) as info:
        spec.loader(_ctx(spec.name, tmp_path, pairs_per_class=None))
    err = info.value
    assert (err.path, err.record, err.field) == (str(folder / "pairs.jsonl"), "p1", "id")
    assert "line 2" in str(err) and "line 5" in str(err)


def test_generic_csv_id_naming_another_text_is_refused(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("doc,body,reg\n1,first text,a\n2,second text,b\n3,third text,a\n2,a different text,a\n")
    loader = generic_loader(str(path), shape="labelled_texts", columns={"id": "doc", "text": "body", "label": "reg"})
    with pytest.raises(DataValidationError) as info:
        loader(_ctx("d", tmp_path))
    err = info.value
    assert (err.path, err.record, err.field) == (str(path), "row 4 (line 5)", "doc")
    assert "row 2 (line 3)" in str(err)
    # one text under several labels (one row per label) is still allowed, as is a repeated identical row
    path.write_text("doc,body,reg\n1,first text,a\n1,first text,b\n2,second text,b\n2,second text,b\n")
    assert len(loader(_ctx("d", tmp_path)).labelled_texts) == 4


def test_generic_pairs_id_with_a_flipped_label_is_refused(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("id,text_a,text_b,same\nx,one,two,1\ny,three,four,0\nx,one,two,0\n")
    with pytest.raises(DataValidationError) as info:
        generic_loader(str(path), shape="pairs", columns={"id": "id"})(_ctx("p", tmp_path))
    assert (info.value.record, info.value.field) == ("row 3 (line 4)", "id")


# -- unbalanced quotes ----------------------------------------------------------------------------------
def _swallowing_csv(n_swallowed: int = 20) -> str:
    rows = ["id,text,label", '1,"He said hi,a']  # the quote is opened and never closed on this row
    rows += [f"{i},text number {i},{'ab'[i % 2]}" for i in range(2, 2 + n_swallowed)]
    rows += [f'{2 + n_swallowed},the end",b', f"{3 + n_swallowed},after,a"]  # ... until this stray quote
    return "\n".join(rows) + "\n"


def test_unbalanced_quote_swallowing_rows_is_refused(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text(_swallowing_csv(20))
    with pytest.raises(DataValidationError) as info:
        list(read_table(path))
    err = info.value
    assert (err.path, err.record, err.field) == (str(path), "row 1 (line 2)", "text")
    assert "20 lines that look like rows" in str(err)
    with pytest.raises(DataValidationError, match="field 'text'"):
        generic_loader(str(path), shape="labelled_texts")(_ctx("s", tmp_path))
    tsv = tmp_path / "s.tsv"
    tsv.write_text(_swallowing_csv(20).replace(",", "\t"))
    with pytest.raises(DataValidationError) as info:
        read_tsv(tsv)
    assert (info.value.record, info.value.field) == ("row 1 (line 2)", "text")


def test_quote_closed_mid_value_or_never_is_refused(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('id,text,label\n1,fine,a\n2,"quoted" then more,b\n3,x,a\n')
    with pytest.raises(DataValidationError) as info:
        list(read_table(path))
    assert (info.value.record, info.value.field) == ("row 2 (line 3)", "text")
    path.write_text(
        'id,text,label\n1,fine,a\n2,ok,"b\n3,x,a\n4,y,b\n'
    )  # open to the end of the file: every later row gone
    with pytest.raises(DataValidationError) as info:
        list(read_table(path))
    assert (info.value.record, info.value.field) == ("row 2 (line 3)", "label")


def test_multiline_quoted_values_are_still_read(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(
        'id,text,label\n1,"a poem\nover lines, with a comma\nand more",a\n2,"He said ""hi"", then left",b\n'
    )
    rows = [values for _, values in read_table(path)]
    assert (
        rows[0]["text"] == "a poem\nover lines, with a comma\nand more" and rows[1]["text"] == 'He said "hi", then left'
    )
    stel = SHARED / "stel" / "quad_questions_em-subj-pronoun_100.tsv"
    if stel.is_file():  # the real release quotes values that end in a newline
        assert len(read_tsv(stel)) == 100
