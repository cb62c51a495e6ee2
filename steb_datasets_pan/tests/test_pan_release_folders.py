"""Issue 16: PAN releases are found under their official folder names and in a pan-code clone,
not only as ``<data-dir>/<steb dataset name>``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steb_core import DatasetNotFoundError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets

SPECS = {s.name: s for s in pan_datasets()}


def load_from_root(name: str, root: Path, **options):
    """What `steb run --data-dir ROOT` gives the loader: ROOT/<dataset name>, which need not exist."""
    return SPECS[name].loader(LoadContext(name, LoadContext.resolve_data_dir(name, root), options=options))


def _style_change_problem(folder: Path, write, n: int = 1) -> None:
    write(folder / f"problem-{n}.txt", "First sentence here.\nSecond sentence here.\nThird one, another author.\n")
    write(folder / f"truth-problem-{n}.json", json.dumps({"authors": 2, "changes": [0, 1]}))


@pytest.mark.realdata
def test_official_smoketest_folder_name_in_the_data_root(pan_data: Path) -> None:
    """`--data-dir` at the folder holding `pan26-style-change-smoketest/` (the official name, with hyphens)."""
    bundle = load_from_root("pan26_style_change_easy", pan_data)
    assert bundle.info["folder"].endswith("pan26-style-change-smoketest/easy/train")
    gen = load_from_root("pan26_generative_ai_detection_smoketest", pan_data)
    assert len(gen.labelled_texts) == 34


def test_official_release_folder_with_levels(tmp_path: Path, write) -> None:
    _style_change_problem(tmp_path / "pan24-multi-author-analysis" / "hard" / "validation", write)
    _style_change_problem(tmp_path / "pan24-multi-author-analysis" / "easy" / "validation", write)
    bundle = load_from_root("pan24_style_change_hard", tmp_path)
    assert bundle.info["folder"].endswith("pan24-multi-author-analysis/hard/validation")
    assert [p.same for p in bundle.pairs] == [True, False]
    with pytest.raises(DatasetNotFoundError):  # another edition's folder is never taken
        load_from_root("pan25_style_change_hard", tmp_path)


def test_pan_code_clone_layout(tmp_path: Path, write, write_jsonl) -> None:
    """A clone of github.com/pan-webis-de/pan-code kept as <data-dir>/pan-code (real file names and nesting)."""
    clef = tmp_path / "pan-code" / "clef26"
    for level in ("easy", "medium", "hard"):
        _style_change_problem(clef / "multi-author-analysis" / "smoketest" / level / "train", write)
    smoke = clef / "generative-authorship-verification" / "pan26-generative-ai-detection-smoke-test"
    write_jsonl(smoke / "dataset.jsonl", [{"id": f"id{i}", "text": f"Text number {i}."} for i in range(4)])
    write_jsonl(smoke / "test-truth.jsonl", [{"id": f"id{i}", "label": i % 2} for i in range(4)])
    bundle = load_from_root("pan26_style_change_medium", tmp_path)
    assert bundle.info["folder"].endswith("multi-author-analysis/smoketest/medium/train")
    gen = load_from_root("pan26_generative_ai_detection_smoketest", tmp_path)
    assert sorted(t.label for t in gen.labelled_texts) == ["human", "human", "machine", "machine"]


def test_steb_name_still_wins_and_missing_data_names_the_dataset(tmp_path: Path, write) -> None:
    _style_change_problem(tmp_path / "pan23_style_change_easy" / "train", write)
    _style_change_problem(tmp_path / "pan23-multi-author-analysis" / "dataset1" / "train", write, n=2)
    bundle = load_from_root("pan23_style_change_easy", tmp_path)
    assert bundle.info["folder"].endswith("pan23_style_change_easy/train")
    with pytest.raises(DatasetNotFoundError, match="pan20_authorship_verification_test"):
        load_from_root("pan20_authorship_verification_test", tmp_path)


def test_pan23_one_official_folder_per_level(tmp_path: Path, write) -> None:
    """PAN23 ships dataset1/2/3 as separate archives; each level takes only its own folder."""
    for n in (1, 2, 3):
        _style_change_problem(
            tmp_path / f"pan23-multi-author-analysis-dataset{n}" / f"pan23-multi-author-analysis-dataset{n}-train",
            write,
            n=n,
        )
    for n, level in ((1, "easy"), (2, "medium"), (3, "hard")):
        bundle = load_from_root(f"pan23_style_change_{level}", tmp_path)
        assert f"dataset{n}" in bundle.info["folder"] and bundle.pairs[0].id == f"problem-{n}:0", level
