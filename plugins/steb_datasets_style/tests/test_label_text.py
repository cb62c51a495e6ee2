"""Issue 47: JSON ``true`` and the string ``"true"`` name one class (one author) in every loader path.

The generic table loader already read them as one (``steb_core._tables``); the STEB retrieval release reader
(``read_steb_release``) grouped texts by ``str(label)``, so ``true`` became author ``True`` beside ``true``,
and ``1.0`` became ``1.0`` beside ``1``. Both now go through :func:`steb_core.label_text`.
"""

from __future__ import annotations

import json

import pytest

from steb_core import DataValidationError, label_text
from steb_datasets_style.retrieval import read_steb_release


def _release(folder, rows):
    folder.mkdir(parents=True)
    (folder / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def test_json_true_and_the_string_true_are_one_author_in_the_retrieval_release(tmp_path):
    folder = _release(
        tmp_path / "rel",
        [
            {"text": "a query", "label": True, "is_query": True},
            {"text": "a target", "label": "true", "is_query": False},
            {"text": "another query", "label": 1.0, "is_query": True},
            {"text": "another target", "label": "1", "is_query": False},
        ],
    )
    retrieval, _ = read_steb_release(folder)
    assert sorted(c.author for c in retrieval.queries) == ["1", "true"]
    assert sorted(c.author for c in retrieval.targets) == ["1", "true"]


def test_a_missing_author_is_refused_naming_the_line(tmp_path):
    folder = _release(tmp_path / "rel", [{"text": "a query", "label": None, "is_query": True}])
    with pytest.raises(DataValidationError, match=r"record line 1, field 'label': holds None, a missing value"):
        read_steb_release(folder)


@pytest.mark.parametrize(
    ("value", "text"), [(True, "true"), (False, "false"), ("true", "true"), (" x ", "x"), (3, "3"), (3.0, "3")]
)
def test_label_text(value, text):
    assert label_text(value) == text


@pytest.mark.parametrize("value", [None, float("nan"), "", "NaN", [1], {"a": 1}, 1.5])
def test_label_text_refuses_what_names_no_class(value):
    with pytest.raises(DataValidationError):
        label_text(value)
