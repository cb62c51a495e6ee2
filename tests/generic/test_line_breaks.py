"""Issue 41, item 6: quotes that swallow rows but stay balanced, and the generic reader's files outside the release.

A value opened with a quote on one row and closed by a stray quote two rows later reads those rows as one
text: 30 rows gave 28 texts, exit status 0, and the swallowed-rows heuristic (two or more row-like lines)
cannot see it. Where the format has one record per line a value holding a line break is now an error
naming file, line and column; the generic loader assumes that unless a table says its values may span
lines (``line_breaks="any"``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext
from steb_core._hub import load_hub_split
from steb_core._io import read_tsv
from steb_core._tables import generic_loader, read_table

ROWS = 30


def swallowing_table(delimiter: str = ",") -> str:
    """30 data rows; the text of row 5 opens a quote that the text of row 7 closes: 28 records, quotes balanced."""
    rows = ["text,label"] + [f"text number {i},l{i % 3}" for i in range(ROWS)]
    rows[5] = '"text number 4 opens,l1'
    rows[7] = 'text number 6 closes",l0'
    return "\n".join(r.replace(",", delimiter) for r in rows) + "\n"


def _ctx(tmp_path: Path) -> LoadContext:
    return LoadContext("t", tmp_path, 0, {})


def test_generic_csv_with_a_quote_swallowing_two_rows_is_refused(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text(swallowing_table())
    assert sum(1 for _ in read_table(path)) == ROWS - 2  # what the csv module (and pandas, pyarrow) make of it
    with pytest.raises(DataValidationError) as info:
        generic_loader("s.csv", shape="labelled_texts")(_ctx(tmp_path))
    err = info.value
    assert (err.path, err.record, err.field) == (str(path), "row 5 (line 6)", "text")
    assert "line 8" in str(err) and "one record per line" in str(err)
    with pytest.raises(DataValidationError, match="row 5 \\(line 6\\)"):
        list(read_table(path, line_breaks="none"))


def test_generic_tsv_and_a_quote_that_swallows_one_row(tmp_path):
    lines = ["text\tlabel"] + [f"text number {i}\tl{i % 3}" for i in range(ROWS)]
    lines[5], lines[6] = '"text number 4 opens\tl1', 'text number 5 closes"\tl2'  # 30 rows read as 29
    (tmp_path / "s.tsv").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataValidationError) as info:
        generic_loader("s.tsv", shape="labelled_texts")(_ctx(tmp_path))
    assert (info.value.record, info.value.field) == ("row 5 (line 6)", "text")


def test_tables_that_declare_multiline_values_still_read_them(tmp_path):
    (tmp_path / "m.csv").write_text('text,label\n"a poem\nover lines, with a comma",a\nplain,b\n')
    loader = generic_loader("m.csv", shape="labelled_texts", line_breaks="any")
    assert [r.text for r in loader(_ctx(tmp_path)).labelled_texts] == ["a poem\nover lines, with a comma", "plain"]
    with pytest.raises(DataValidationError, match="one record per line"):
        generic_loader("m.csv", shape="labelled_texts")(_ctx(tmp_path))
    # a user can say so per run, as for path/per_class/limit
    ctx = LoadContext("t", tmp_path, 0, {"line_breaks": "any"})
    assert len(generic_loader("m.csv", shape="labelled_texts")(ctx).labelled_texts) == 2
    with pytest.raises(ValueError, match="line_breaks"):
        generic_loader("m.csv", shape="labelled_texts", line_breaks="sometimes")


def test_trailing_line_breaks_only_at_the_end_of_a_value(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text('a\tb\n"first\n"\tx\n"second\nthird"\ty\n')
    with pytest.raises(DataValidationError) as info:
        read_tsv(path, line_breaks="trailing")
    assert (info.value.record, info.value.field) == ("row 2 (line 4)", "a") and "before its end" in str(info.value)
    path.write_text('a\tb\n"first\n"\tx\n"second\n"\ty\n')
    assert [r["a"] for r in read_tsv(path, line_breaks="trailing")] == ["first\n", "second\n"]


def test_hub_csv_checks_its_quoting_and_line_breaks(tmp_path):
    folder = tmp_path / "hub"
    folder.mkdir()
    (folder / "train.csv").write_text(swallowing_table())
    with pytest.raises(DataValidationError) as info:
        load_hub_split(folder, "owner/name", line_breaks="none")
    err = info.value
    assert (err.path, err.record, err.field) == (str(folder / "train.csv"), "row 5 (line 6)", "text")
    (folder / "train.csv").write_text('text,label\n"two\nlines",a\nok,b\n')
    # line_breaks="any" (the default): read as pyarrow reads it
    assert [r["text"] for r in load_hub_split(folder, "owner/name")] == ["two\nlines", "ok"]


def test_generic_glob_and_file_linking_outside_the_dataset_folder_are_refused(tmp_path):
    secret = tmp_path / "elsewhere" / "secret.csv"
    secret.parent.mkdir()
    secret.write_text("text,label\nnot part of the release,x\n")
    folder = tmp_path / "root" / "d"
    (folder / "parts").mkdir(parents=True)
    (folder / "parts" / "a.csv").write_text("text,label\nfirst,x\n")
    (folder / "parts" / "b.csv").symlink_to(secret)
    ctx = LoadContext("d", folder, 0, {})
    for path in ("parts/*.csv", "parts/b.csv"):
        with pytest.raises(DataValidationError) as info:
            generic_loader(path, shape="labelled_texts")(ctx)
        assert "b.csv" in str(info.value) and "outside the dataset folder" in str(info.value)
    (folder / "parts" / "b.csv").unlink()
    (folder / "parts" / "b.csv").symlink_to(folder / "parts" / "a.csv")  # a link inside is followed
    assert len(generic_loader("parts/*.csv", shape="labelled_texts")(ctx).labelled_texts) == 2
