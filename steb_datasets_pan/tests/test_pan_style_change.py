"""Style-change loaders: the real PAN26 smoke test, fixtures in the PAN18/22/23 layouts, bad fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steb_core import DataValidationError, DatasetNotFoundError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets
from steb_datasets_pan.style_change import _downsample

SPECS = {s.name: s for s in pan_datasets()}


def load(name: str, data_dir: Path, seed: int = 0, **options):
    return SPECS[name].loader(LoadContext(name, data_dir, seed=seed, options=options))


# --- real smoke-test data ---------------------------------------------------------------------------


def _truth(folder: Path) -> dict[str, tuple[list[str], list[int]]]:
    """Independent reading of the smoke test: problem -> (lines, changes)."""
    out = {}
    for truth in sorted(folder.glob("truth-problem-*.json")):
        doc = truth.name.removeprefix("truth-").removesuffix(".json")
        lines = [ln for ln in (folder / f"{doc}.txt").read_text(encoding="utf-8").splitlines() if ln.strip()]
        out[doc] = (lines, json.loads(truth.read_text(encoding="utf-8"))["changes"])
    return out


@pytest.mark.realdata
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_pan26_smoke_test_loads_with_downsampling(pan_data: Path, level: str) -> None:
    root = pan_data / "pan26-style-change-smoketest"
    truth = _truth(root / level / "train")
    bundle = load(f"pan26_style_change_{level}", root, seed=3)
    diff = sum(sum(ch) for _, ch in truth.values())
    kept_same = sum(min(sum(ch), len(ch) - sum(ch)) for _, ch in truth.values())
    assert len(bundle.pairs) == diff + kept_same
    assert sum(not p.same for p in bundle.pairs) == diff
    assert bundle.info["split"] == "train" and bundle.info["different_kept"] == diff
    for p in bundle.pairs:  # every pair is two consecutive lines with the truth's label
        lines, changes = truth[p.group]
        i = int(p.id.split(":")[1])
        assert (p.text_a, p.text_b) == (lines[i].strip(), lines[i + 1].strip())
        assert p.same == (changes[i] == 0)


@pytest.mark.realdata
def test_pan26_smoke_test_without_downsampling_keeps_every_pair(pan_data: Path) -> None:
    root = pan_data / "pan26-style-change-smoketest"
    truth = _truth(root / "medium" / "train")
    bundle = load("pan26_style_change_medium", root, downsample=False)
    assert len(bundle.pairs) == sum(len(ch) for _, ch in truth.values())
    assert sum(p.same for p in bundle.pairs) == sum(ch.count(0) for _, ch in truth.values())


@pytest.mark.realdata
def test_pan26_downsampling_is_seeded(pan_data: Path) -> None:
    root = pan_data / "pan26-style-change-smoketest"
    ids = lambda seed: [p.id for p in load("pan26_style_change_easy", root, seed=seed).pairs]  # noqa: E731
    assert ids(1) == ids(1)
    assert ids(1) != ids(2)  # 91 same-author pairs, 51 drawn: two seeds agreeing would be a broken RNG


# --- down-sampling rule ------------------------------------------------------------------------------


def test_downsample_keeps_all_different_and_as_many_same() -> None:
    same = [c == "s" for c in "ssdsssssdsss"]
    kept = _downsample(same, 0, "x", "doc")
    assert [i for i in kept if not same[i]] == [2, 8] and sum(same[i] for i in kept) == 2
    assert kept == sorted(kept)  # document order kept
    assert _downsample([False] * 5 + [True], 0, "x", "doc") == list(range(6))  # fewer same than different: keep all
    assert _downsample([True] * 4, 0, "x", "doc") == []


# --- fixtures in the official layouts ----------------------------------------------------------------


def _doc(folder: Path, n: int, lines: list[str], changes: list[int], write, **enc) -> None:
    write(folder / f"problem-{n}.txt", "\n".join(lines) + "\n", **enc)
    write(folder / f"truth-problem-{n}.json", json.dumps({"authors": 1 + sum(changes), "changes": changes}, indent=4), **enc)


def test_pan23_release_layout_with_bom_and_crlf(tmp_path: Path, write) -> None:
    top = tmp_path / "pan23_style_change_easy" / "pan23-multi-author-analysis-dataset1"
    _doc(top / "pan23-multi-author-analysis-dataset1-train", 1, ["Train only.", "Never read."], [1], write)
    val = top / "pan23-multi-author-analysis-dataset1-validation"
    _doc(val, 2, ["First para.", "Second para.", "Third para."], [0, 1], write, bom=True, crlf=True)
    _doc(val, 10, ["Alpha.", "Beta."], [0], write)
    bundle = load("pan23_style_change_easy", tmp_path / "pan23_style_change_easy")
    assert bundle.info["split"].endswith("validation")
    assert [(p.text_a, p.text_b, p.same, p.id, p.group) for p in bundle.pairs] == [
        ("First para.", "Second para.", True, "problem-2:0", "problem-2"),
        ("Second para.", "Third para.", False, "problem-2:1", "problem-2"),
        ("Alpha.", "Beta.", True, "problem-10:0", "problem-10"),
    ]
    train = load("pan23_style_change_easy", tmp_path / "pan23_style_change_easy", split="train")
    assert [(p.text_a, p.same) for p in train.pairs] == [("Train only.", False)]


def test_pan22_levels_pick_their_dataset_folder(tmp_path: Path, write) -> None:
    root = tmp_path / "release"
    _doc(root / "dataset1" / "validation", 1, ["P1.", "P2."], [1], write)
    _doc(root / "dataset3" / "validation", 1, ["S1.", "S2.", "S3."], [0, 0], write)
    assert [p.text_a for p in load("pan22_style_change_basic", root).pairs] == ["P1."]
    sentence = load("pan22_style_change_sentence", root)
    assert [p.text_b for p in sentence.pairs] == ["S2.", "S3."] and sentence.info["unit"] == "sentence"
    with pytest.raises(DatasetNotFoundError, match="dataset2"):
        load("pan22_style_change_advanced", root)


def test_pan18_document_label_gives_one_halves_pair(tmp_path: Path, write) -> None:
    folder = tmp_path / "pan18-style-change-detection-validation-dataset-2018-01-31"
    write(folder / "problem-1.txt", "Para one.\n\nPara two.\n\nPara three.\n\nPara four.\n", crlf=True)
    write(folder / "problem-1.truth", '{"changes": true, "positions": [10]}')
    write(folder / "problem-2.txt", "Only.\nTwo lines.\n", bom=True)
    write(folder / "problem-2.truth", '{"changes": false}')
    bundle = load("pan18_style_change", tmp_path)
    assert [(p.text_a, p.text_b, p.same, p.id) for p in bundle.pairs] == [
        ("Para one.\n\nPara two.", "Para three.\n\nPara four.", False, "problem-1"),
        ("Only.", "Two lines.", True, "problem-2"),
    ]


# --- bad fixtures ------------------------------------------------------------------------------------


def test_changes_length_mismatch_names_truth_file_and_problem(tmp_path: Path, write) -> None:
    folder = tmp_path / "easy" / "train"
    _doc(folder, 1, ["a.", "b.", "c."], [0, 1], write)
    _doc(folder, 2, ["a.", "b.", "c."], [0], write)
    with pytest.raises(DataValidationError) as err:
        load("pan24_style_change_easy", tmp_path)
    e = err.value
    assert e.path.endswith("truth-problem-2.json") and e.record == "problem-2" and e.field == "changes"
    assert "3 non-empty lines" in str(e)


def test_missing_truth_file_names_the_problem(tmp_path: Path, write) -> None:
    folder = tmp_path / "hard" / "test"
    _doc(folder, 1, ["a.", "b."], [0], write)
    write(folder / "problem-2.txt", "x.\ny.\n")
    with pytest.raises(DataValidationError, match="truth-problem-2.json") as err:
        load("pan25_style_change_hard", tmp_path)
    assert err.value.path.endswith("problem-2.txt") and err.value.record == "problem-2"


def test_truth_without_text_and_bad_change_value(tmp_path: Path, write) -> None:
    folder = tmp_path / "medium" / "train"
    _doc(folder, 1, ["a.", "b."], [2], write)
    with pytest.raises(DataValidationError, match="entry 0 is 2"):
        load("pan26_style_change_medium", tmp_path)
    (folder / "problem-1.txt").unlink()
    with pytest.raises(DataValidationError) as err:
        load("pan26_style_change_medium", tmp_path)
    assert err.value.path.endswith("truth-problem-1.json") and "problem-1.txt" in str(err.value)


def test_missing_folder_names_archive_and_layout(tmp_path: Path) -> None:
    with pytest.raises(DatasetNotFoundError) as err:
        load("pan23_style_change_hard", tmp_path / "absent")
    assert "pan.webis.de" in str(err.value) and "truth-problem-N.json" in str(err.value)
