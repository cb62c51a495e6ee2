"""The generic loader: every format and shape on tiny tables, sampling, and errors that locate the fault."""

from __future__ import annotations

import builtins
import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext
from steb_core._tables import budgeted, generic_dataset, generic_loader, infer_format, read_table


def ctx(tmp_path: Path, name: str = "ds", seed: int = 0, **options) -> LoadContext:
    return LoadContext(dataset=name, data_dir=tmp_path, seed=seed, options=options)


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# formats
# --------------------------------------------------------------------------------------------
def test_csv_labelled_with_quoted_newlines_bom_and_crlf(tmp_path):
    raw = '\ufeffbody,register,uid\r\n"line one\r\nline two",formal,a\r\nhey there,informal,b\r\n\r\n'
    (tmp_path / "t.csv").write_bytes(raw.encode("utf-8"))
    bundle = generic_loader(
        "t.csv", shape="labelled_texts", columns={"text": "body", "label": "register", "id": "uid"}, line_breaks="any"
    )(ctx(tmp_path))  # a table whose texts span lines says so (issue 41)
    recs = bundle.labelled_texts
    assert [(r.label, r.id) for r in recs] == [("formal", "a"), ("informal", "b")]
    assert recs[0].text == "line one\r\nline two"  # quoted newline kept inside the field
    assert bundle.info["class_counts"] == {"formal": 1, "informal": 1}
    assert bundle.info["shape"] == "labelled_texts" and bundle.info["format"] == "csv"


def test_headerless_tsv_multilabel_and_label_map(tmp_path):
    # CORE-like: labels first, space separated; one document under each of its labels
    (tmp_path / "c.tsv").write_text("NA ne\td1\tA news text\nIN dtp\td2\tA how-to\n", encoding="utf-8")
    loader = generic_loader(
        "c.tsv",
        shape="labelled_texts",
        header=False,
        columns={"text": 2, "label": 0, "id": 1},
        multi_label=" ",
        label_map=lambda lab: lab if lab.islower() else None,
    )
    recs = loader(ctx(tmp_path)).labelled_texts
    assert [(r.label, r.id) for r in recs] == [("ne", "d1"), ("dtp", "d2")]


def test_gzipped_jsonl_pairs(tmp_path):
    lines = [{"a": "x one", "b": "y one", "same": 1}, {"a": "x two", "b": "y two", "same": "false", "doc": "d"}]
    with gzip.open(tmp_path / "p.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write("\n".join(json.dumps(o) for o in lines) + "\n")
    pairs = generic_loader("p.jsonl.gz", shape="pairs", columns={"text_a": "a", "text_b": "b", "group": "doc"})(
        ctx(tmp_path)
    ).pairs
    assert [p.same for p in pairs] == [True, False]
    assert pairs[1].group == "d"


def test_json_array_and_infer_format(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"data": [{"text": "t1", "label": 3}]}), encoding="utf-8")
    recs = generic_loader("a.json", shape="labelled_texts")(ctx(tmp_path)).labelled_texts
    assert recs[0].label == "3"
    assert infer_format("x.TSV.gz") == "tsv"
    with pytest.raises(DataValidationError, match="cannot tell the format"):
        infer_format("x.xlsx")


def test_order_groups_from_columns(tmp_path):
    write_csv(tmp_path / "o.csv", "informal,formal,alt1,alt2,ans\nhey u,Hello you,Good day,gud day,1 0\n")
    groups = generic_loader(
        "o.csv",
        shape="order_groups",
        columns={"anchors": ["informal", "formal"], "alternatives": ["alt1", "alt2"], "answer": "ans"},
    )(ctx(tmp_path)).order_groups
    assert groups[0].anchors == ("hey u", "Hello you") and groups[0].answer == (1, 0)


def test_retrieval_split_column_and_separate_files(tmp_path):
    write_csv(
        tmp_path / "r.csv",
        "who,body,side\na,q text a,query\na,t text a,target\nb,q b,query\nb,t b1,target\nb,t b2,target\n",
    )
    rs = generic_loader("r.csv", shape="retrieval", columns={"author": "who", "text": "body", "split": "side"})(
        ctx(tmp_path)
    ).retrieval
    assert sorted(q.author for q in rs.queries) == ["a", "b"]
    assert {t.author: t.texts_ for t in rs.targets}["b"] == ("t b1", "t b2")
    # LUAR-like: one JSON line per collection, the text field a list
    (tmp_path / "q.jsonl").write_text(
        '{"author_id": "u1", "syms": ["a", "b"]}\n{"author_id": "u2", "syms": ["c"]}\n', encoding="utf-8"
    )
    (tmp_path / "t.jsonl").write_text(
        '{"author_id": "u1", "syms": ["d"]}\n{"author_id": "u2", "syms": ["e", "f"]}\n', encoding="utf-8"
    )
    loader = generic_loader(
        {"queries": "q.jsonl", "targets": "t.jsonl"}, shape="retrieval", columns={"author": "author_id", "text": "syms"}
    )
    bundle = loader(ctx(tmp_path))
    assert [q.texts_ for q in bundle.retrieval.queries] == [("a", "b"), ("c",)]
    assert bundle.info["n_authors"] == 2
    one = loader(ctx(tmp_path, limit=1)).retrieval
    assert len(one.queries) == 1 and one.queries[0].author == one.targets[0].author


def test_feature_texts_star_and_parquet_both_backends(tmp_path, monkeypatch):
    pl = pytest.importorskip("polars")
    pl.DataFrame({"text": ["a b", "c"], "n_words": [2, 1], "n_chars": [3.0, 1.0]}).write_parquet(tmp_path / "f.parquet")
    loader = generic_loader("f.parquet", shape="feature_texts", columns={"features": "*"})
    recs = loader(ctx(tmp_path)).feature_texts
    assert recs[0].features == {"n_words": 2.0, "n_chars": 3.0}
    pytest.importorskip("pyarrow")
    real_import = builtins.__import__

    def no_polars(name, *args, **kwargs):
        if name == "polars":
            raise ImportError("polars hidden")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_polars)
    assert loader(ctx(tmp_path)).feature_texts == recs


def test_glob_reads_files_in_order(tmp_path):
    (tmp_path / "parts").mkdir()
    write_csv(tmp_path / "parts" / "b.csv", "text,label\nsecond,y\n")
    write_csv(tmp_path / "parts" / "a.csv", "text,label\nfirst,x\n")
    bundle = generic_loader("parts/*.csv", shape="labelled_texts")(ctx(tmp_path))
    assert [r.text for r in bundle.labelled_texts] == ["first", "second"]
    assert len(bundle.info["files"]) == 2


# --------------------------------------------------------------------------------------------
# sampling budgets
# --------------------------------------------------------------------------------------------
def _many(tmp_path: Path) -> Path:
    rows = ["text,label"] + [f"text {i},{'a' if i % 3 else 'b'}" for i in range(60)]
    return write_csv(tmp_path / "m.csv", "\n".join(rows) + "\n")


def test_per_class_budget_is_a_seeded_cap(tmp_path):
    _many(tmp_path)  # 40 'a', 20 'b'
    loader = generic_loader("m.csv", shape="labelled_texts", per_class=25)
    b0 = loader(ctx(tmp_path, seed=0))
    counts = Counter(r.label for r in b0.labelled_texts)
    assert counts == {"a": 25, "b": 20}  # a class below the cap keeps everything
    assert b0.info["class_counts_available"] == {"a": 40, "b": 20}
    assert b0.info["per_class"] == 25 and b0.info["seed"] == 0
    assert [r.text for r in loader(ctx(tmp_path, seed=0)).labelled_texts] == [r.text for r in b0.labelled_texts]
    assert {r.text for r in loader(ctx(tmp_path, seed=1)).labelled_texts} != {r.text for r in b0.labelled_texts}
    # the user can override the budget per run
    assert len(loader(ctx(tmp_path, per_class=5)).labelled_texts) == 10


def test_budgeted_reports_counts():
    kept, info = budgeted(list(range(10)), lambda x: x % 2, 3, seed=4, salt="s")
    assert (
        len(kept) == 6
        and info["class_counts"] == {"0": 3, "1": 3}
        and info["class_counts_available"] == {"0": 5, "1": 5}
    )


# --------------------------------------------------------------------------------------------
# errors name file, row/line and column
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, content, kwargs, needles",
    [
        ("h.csv", "body,label\nhello,x\n", {}, ["h.csv", "row 1", "'text'", "is missing"]),
        ("e.csv", "text,label\nok,x\n  ,y\n", {}, ["e.csv", "row 2", "text", "empty"]),
        (
            "e2.csv",
            "body,label\nok,x\n  ,y\n",
            {"columns": {"text": "body"}},
            ["e2.csv", "row 2", "body (text)", "empty"],
        ),
        ("x.csv", 'text,label\n"a",b,c\n', {}, ["x.csv", "row 1", "3 fields for 2 columns"]),
        ("j.jsonl", '{"text": "a", "label": "b"}\n{"text": "a", \n', {}, ["j.jsonl", "line 2", "invalid JSON"]),
        ("n.jsonl", '{"text": 5, "label": "b"}\n', {}, ["n.jsonl", "line 1", "'text'", "int"]),
        ("s.csv", "text_a,text_b,same\na,b,maybe\n", {"shape": "pairs"}, ["s.csv", "row 1", "'same'", "maybe"]),
        (
            "f.csv",
            "text,f1\na,1.5\nb,lots\n",
            {"shape": "feature_texts", "columns": {"features": ["f1"]}},
            ["f.csv", "row 2", "'f1'", "lots"],
        ),
        (
            "r.csv",
            "author,text,split\na,t,train\n",
            {"shape": "retrieval", "columns": {"split": "split"}},
            ["r.csv", "row 1", "'split'", "train"],
        ),
        (
            "nolabels.tsv",
            "x\ty\n",
            {"header": False, "columns": {"text": 0, "label": 5}},
            ["nolabels.tsv", "row 1", "'5'", "column 5"],
        ),
    ],
)
def test_malformed_tables_are_located(tmp_path, name, content, kwargs, needles):
    (tmp_path / name).write_text(content, encoding="utf-8")
    kwargs = dict(kwargs)
    shape = kwargs.pop("shape", "labelled_texts")
    with pytest.raises(DataValidationError) as err:
        generic_loader(name, shape=shape, **kwargs)(ctx(tmp_path))
    message = str(err.value)
    for needle in needles:
        assert needle in message, (needle, message)


def test_not_utf8_is_reported(tmp_path):
    (tmp_path / "l.csv").write_bytes("text,label\ncaf\xe9,x\n".encode("latin-1"))
    with pytest.raises(DataValidationError, match=r"l\.csv.*UTF-8"):
        list(read_table(tmp_path / "l.csv"))


def test_missing_data_says_what_to_obtain(tmp_path):
    loader = generic_loader("absent.csv", shape="labelled_texts", obtain="download it from example.org")
    with pytest.raises(DatasetNotFoundError, match="example.org"):
        loader(ctx(tmp_path))
    with pytest.raises(DatasetNotFoundError, match="STEB_DATA_DIR"):
        loader(LoadContext(dataset="ds", data_dir=None))


def test_bad_mapping_fails_at_registration():
    with pytest.raises(ValueError, match="no field"):
        generic_loader("x.csv", shape="labelled_texts", columns={"txt": "body"})
    with pytest.raises(ValueError, match="unknown shape"):
        generic_loader("x.csv", shape="tables")


# --------------------------------------------------------------------------------------------
# a spec in a few lines, through the plugin manager
# --------------------------------------------------------------------------------------------
def test_generic_dataset_registers_and_loads(tmp_path):
    from steb_core import hookimpl
    from steb_core._plugins import new_manager

    _many(tmp_path)
    spec = generic_dataset(
        "tiny-generic",
        path=tmp_path / "m.csv",
        shape="labelled_texts",
        tasks=("clustering", "pair_all"),
        description="test",
        categories=("register",),
        per_class=4,
    )
    assert spec.needs_data is False and spec.extra["generic"]["per_class"] == 4

    class Plugin:
        @hookimpl
        def register_datasets(self, register):
            register(spec)

    manager = new_manager(entry_points=False, env=False)
    manager.pm.register(Plugin(), name="tiny")
    got = manager.datasets().get("tiny-generic")
    bundle = got.loader(LoadContext(dataset="tiny-generic", data_dir=None, seed=3))
    assert Counter(r.label for r in bundle.labelled_texts) == {"a": 4, "b": 4}


def test_nan_labels_are_missing_in_csv_and_jsonl_alike(tmp_path):
    from steb_core._specs import LoadContext
    from steb_core._tables import generic_loader

    (tmp_path / "a.csv").write_text("text,label\nhello there,x\nbad one,NaN\n")
    (tmp_path / "b.jsonl").write_text('{"text":"hi","label":"x"}\n{"text":"hey","label":NaN}\n')
    for name, where in (("a.csv", "row 2 (line 3)"), ("b.jsonl", "line 2")):
        with pytest.raises(DataValidationError) as info:
            generic_loader(str(tmp_path / name), shape="labelled_texts")(LoadContext("t", tmp_path, 0, {}))
        assert info.value.record == where and info.value.field == "label" and "missing value" in str(info.value)


def test_non_utf8_csv_names_row_line_and_byte(tmp_path):
    from steb_core._specs import LoadContext
    from steb_core._tables import generic_loader

    raw = b'text,label\nhello,x\n"two\nlines",y\n' + b"caf\xe9 time,y\n"
    (tmp_path / "c.csv").write_bytes(raw)
    with pytest.raises(DataValidationError) as info:
        loader = generic_loader(str(tmp_path / "c.csv"), shape="labelled_texts", line_breaks="any")
        loader(LoadContext("t", tmp_path, 0, {}))
    assert info.value.record == f"row 3 (line 5, byte {raw.index(bytes([0xE9]))})"


def test_json_boolean_and_string_labels_are_one_class(tmp_path):
    """Issue 41, item 9: JSON true became "True" while the string "true" stayed "true": two classes of one label."""
    from steb_core._specs import LoadContext
    from steb_core._tables import generic_loader

    rows = [
        {"text": "a", "label": True},
        {"text": "b", "label": "true"},
        {"text": "c", "label": False},
        {"text": "d", "label": "false"},
        {"text": "e", "label": 1},
        {"text": "f", "label": 1.0},
        {"text": "g", "label": "1"},
    ]
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bundle = generic_loader("b.jsonl", shape="labelled_texts")(LoadContext("b", tmp_path, 0, {}))
    assert [r.label for r in bundle.labelled_texts] == ["true", "true", "false", "false", "1", "1", "1"]
    assert bundle.info["class_counts"] == {"1": 3, "false": 2, "true": 2}
