"""The example plugin works through steb's plugin manager exactly as an installed community plugin would."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from steb_core import DatasetNotFoundError, LoadContext, new_manager

PLUGIN = "steb_datasets_example.plugin"


@pytest.fixture()
def datasets():
    manager = new_manager([PLUGIN], entry_points=False, env=False)
    assert not manager.failures, manager.failures
    return manager.datasets()


def test_shipped_dataset_loads_with_budget(datasets):
    spec = datasets.get("example-register")
    assert spec.needs_data is False and spec.categories == ("register",) and spec.tasks == ("clustering", "pair_all")
    bundle = spec.loader(LoadContext(dataset="example-register", data_dir=None, seed=0))
    assert Counter(r.label for r in bundle.labelled_texts) == {"formal": 8, "informal": 8}
    assert bundle.info["class_counts_available"] == {"formal": 10, "informal": 10}
    assert bundle.labelled_texts[0].id.startswith("f")
    texts = {
        r.id: r.text
        for r in spec.loader(
            LoadContext(dataset="example-register", data_dir=None, seed=0, options={"per_class": None})
        ).labelled_texts
    }
    assert texts["i08"] == "hmu if u need anything, k?"


def test_user_dataset_reads_data_dir(datasets, tmp_path):
    spec = datasets.get("example-user-pairs")
    with pytest.raises(DatasetNotFoundError, match="pairs.jsonl"):
        spec.loader(LoadContext(dataset="example-user-pairs", data_dir=tmp_path / "example-user-pairs"))
    folder = tmp_path / "example-user-pairs"
    folder.mkdir()
    (folder / "pairs.jsonl").write_text(
        json.dumps({"first": "I reckon so.", "second": "I reckon not.", "same_author": True})
        + "\n"
        + json.dumps({"first": "Indeed.", "second": "nope", "same_author": False})
        + "\n",
        encoding="utf-8",
    )
    data_dir = LoadContext.resolve_data_dir("example-user-pairs", tmp_path)
    pairs = spec.loader(LoadContext(dataset="example-user-pairs", data_dir=data_dir)).pairs
    assert [p.same for p in pairs] == [True, False]


def test_both_datasets_keep_steb_s_contract(datasets, tmp_path):
    """steb_core.testing's contract checks, as a plugin author runs them in their own tests."""
    from steb_core.testing import check_dataset_spec

    bundle = check_dataset_spec(datasets.get("example-register"))
    assert len(bundle.labelled_texts) == 16
    folder = tmp_path / "example-user-pairs"
    folder.mkdir()
    rows = [{"first": f"I reckon {i}.", "second": f"nope {i}", "same_author": i % 2 == 0} for i in range(4)]
    (folder / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert len(check_dataset_spec(datasets.get("example-user-pairs"), data_dir=tmp_path).pairs) == 4
