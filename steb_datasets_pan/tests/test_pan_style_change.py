"""Style-change loaders: the real PAN26 smoke test, fixtures in the PAN18/22/23 layouts, bad fixtures."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext
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


def _reference_kept(truth: dict[str, tuple[list[str], list[int]]]) -> dict[str, list[int]]:
    """The reference's PAN26 balancing, computed here from its description: documents in sorted file-name order, rate =
    all changes / all same pairs, per document round(rate * same) drawn with one random.Random(42), then every
    change."""
    docs = sorted(truth, key=lambda d: f"{d}.txt")
    same = {d: [i for i, c in enumerate(truth[d][1]) if c == 0] for d in docs}
    diff = {d: [i for i, c in enumerate(truth[d][1]) if c == 1] for d in docs}
    rate = sum(map(len, diff.values())) / sum(map(len, same.values()))
    rng = random.Random(42)
    out = {}
    for d in docs:
        n = min(len(same[d]), round(rate * len(same[d])))
        out[d] = (rng.sample(same[d], n) if n > 0 else []) + diff[d]
    return out


@pytest.mark.realdata
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_pan26_smoke_test_loads_with_the_reference_downsampling(pan_data: Path, level: str) -> None:
    root = pan_data / "pan26-style-change-smoketest"
    truth = _truth(root / level / "train")
    bundle = load(f"pan26_style_change_{level}", root, seed=3)
    expected = _reference_kept(truth)
    order = sorted(expected, key=lambda d: f"{d}.txt")
    assert [p.id for p in bundle.pairs] == [f"{d}:{i}" for d in order for i in expected[d]]
    diff = sum(sum(ch) for _, ch in truth.values())
    assert sum(not p.same for p in bundle.pairs) == diff
    assert bundle.info["split"] == "train" and bundle.info["different_kept"] == diff
    assert bundle.info["downsample"] == "reference"
    for p in bundle.pairs:  # every pair is two consecutive lines (as read, not stripped) with the truth's label
        lines, changes = truth[p.group]
        i = int(p.id.split(":")[1])
        assert (p.text_a, p.text_b) == (lines[i], lines[i + 1])
        assert p.same == (changes[i] == 0)


@pytest.mark.realdata
def test_pan26_smoke_test_without_downsampling_keeps_every_pair(pan_data: Path) -> None:
    root = pan_data / "pan26-style-change-smoketest"
    truth = _truth(root / "medium" / "train")
    bundle = load("pan26_style_change_medium", root, downsample=False)
    assert len(bundle.pairs) == sum(len(ch) for _, ch in truth.values())
    assert sum(p.same for p in bundle.pairs) == sum(ch.count(0) for _, ch in truth.values())


@pytest.mark.realdata
def test_pan26_reference_draw_is_fixed_and_per_document_draw_is_seeded(pan_data: Path) -> None:
    root = pan_data / "pan26-style-change-smoketest"
    ids = lambda seed, **o: [p.id for p in load("pan26_style_change_easy", root, seed=seed, **o).pairs]  # noqa: E731
    assert ids(1) == ids(2)  # the reference draws with random.Random(42) whatever the run seed
    per_doc = "per-document"
    assert ids(1, downsample=per_doc) == ids(1, downsample=per_doc)
    assert ids(1, downsample=per_doc) != ids(2, downsample=per_doc)  # 91 same-author pairs, 51 drawn: seeds must differ


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
    write(
        folder / f"truth-problem-{n}.json",
        json.dumps({"authors": 1 + sum(changes), "changes": changes}, indent=4),
        **enc,
    )


def test_pan23_release_layout_with_bom_and_crlf(tmp_path: Path, write) -> None:
    top = tmp_path / "pan23_style_change_easy" / "pan23-multi-author-analysis-dataset1"
    _doc(top / "pan23-multi-author-analysis-dataset1-train", 1, ["Train only.", "Never read."], [1], write)
    val = top / "pan23-multi-author-analysis-dataset1-validation"
    _doc(val, 2, ["First para.", "Second para.", "Third para."], [0, 1], write, bom=True, crlf=True)
    _doc(val, 10, ["Alpha.", "Beta."], [0], write)
    bundle = load("pan23_style_change_easy", tmp_path / "pan23_style_change_easy")
    assert bundle.info["split"].endswith("validation")
    assert [(p.text_a, p.text_b, p.same, p.id, p.group) for p in bundle.pairs] == [  # sorted names: problem-10 first
        ("Alpha.", "Beta.", True, "problem-10:0", "problem-10"),
        # read as the reference reads it: BOM kept
        ("\ufeffFirst para.", "Second para.", True, "problem-2:0", "problem-2"),
        ("Second para.", "Third para.", False, "problem-2:1", "problem-2"),
    ]
    train = load("pan23_style_change_easy", tmp_path / "pan23_style_change_easy", split="train")
    assert [(p.text_a, p.same) for p in train.pairs] == [("Train only.", False)]


def test_pan26_reference_balance_one_global_rate_one_generator(tmp_path: Path, write) -> None:
    """Issue 37: rate = all changes / all same pairs; per document (sorted names) round(rate * same) drawn with one
    random.Random(42), kept same pairs first, then every change."""
    folder = tmp_path / "easy" / "validation"
    docs = {1: [0, 0, 0, 1, 0, 0, 0, 0], 2: [0, 0, 1, 0], 10: [0, 0, 0, 0, 0, 1, 0]}
    for n, changes in docs.items():
        _doc(folder, n, [f"doc {n} sentence {i}." for i in range(len(changes) + 1)], changes, write)
    _doc(folder, 3, ["too short"], [], write)  # one unit: skipped, as the reference skips it
    bundle = load("pan26_style_change_easy", tmp_path, seed=11)
    truth = {f"problem-{n}": ([f"doc {n} sentence {i}." for i in range(len(ch) + 1)], ch) for n, ch in docs.items()}
    # 3 changes / 16 same pairs: round(7 * 3/16) = 1, round(3 * 3/16) = 1, round(6 * 3/16) = 1
    expected = _reference_kept(truth)
    order = ("problem-1", "problem-10", "problem-2")
    assert [p.id for p in bundle.pairs] == [f"{d}:{i}" for d in order for i in expected[d]]
    assert sum(p.same for p in bundle.pairs) == 3 and bundle.info["documents_skipped_first"] == ["problem-3"]
    assert [p.id for p in load("pan26_style_change_easy", tmp_path, downsample="none").pairs][:4] == [
        "problem-1:0",
        "problem-1:1",
        "problem-1:2",
        "problem-1:4",
    ]  # same-author pairs first, then the change


def test_pan22_levels_pick_their_dataset_folder(tmp_path: Path, write) -> None:
    root = tmp_path / "release"
    _doc(root / "dataset1" / "validation", 1, ["P1.", "P2."], [1], write)
    _doc(root / "dataset3" / "validation", 1, ["S1.", "S2.", "S3."], [0, 0], write)
    assert [p.text_a for p in load("pan22_style_change_basic", root).pairs] == ["P1."]
    sentence = load("pan22_style_change_sentence", root)
    assert [p.text_b for p in sentence.pairs] == ["S2.", "S3."] and sentence.info["unit"] == "sentence"
    with pytest.raises(DatasetNotFoundError, match="dataset2"):
        load("pan22_style_change_advanced", root)


def test_pan18_cut_at_the_change_positions_or_the_midpoint(tmp_path: Path, write) -> None:
    """Issue 37 (load_pan18_style_change @a8445f54): with changes, text[:p0] vs text[p0:p1]; without, the halves split
    after the whitespace nearest the character midpoint; a trial with a blank side is skipped."""
    folder = tmp_path / "pan18-style-change-detection-validation-dataset-2018-01-31"
    write(folder / "problem-1.txt", "Para one.\n\nPara two.\n\nPara three.\n", crlf=True)  # read with "\n" line ends
    write(folder / "problem-1.truth", '{"changes": true, "positions": [11, 22]}')
    # 18 characters with the BOM: midpoint 9 ('o'); the nearest whitespace is the space at 10 (distance 1, found
    # before the newline at 6, distance 3)
    write(folder / "problem-2.txt", "Only.\nTwo lines.\n", bom=True)
    write(folder / "problem-2.truth", '{"changes": false}')
    write(folder / "problem-3.txt", "Solo text.")
    write(folder / "problem-3.truth", '{"changes": true, "positions": [0]}')  # side A blank: skipped
    bundle = load("pan18_style_change", tmp_path)
    assert [(p.text_a, p.text_b, p.same, p.id) for p in bundle.pairs] == [
        ("Para one.\n\n", "Para two.\n\n", False, "problem-1"),
        ("\ufeffOnly.\nTwo ", "lines.\n", True, "problem-2"),
    ]
    assert bundle.info["documents_skipped_first"] == ["problem-3"]


# --- bad fixtures ------------------------------------------------------------------------------------


def test_changes_length_mismatch_skips_the_document_as_the_reference_does(tmp_path: Path, write) -> None:
    folder = tmp_path / "easy" / "train"
    _doc(folder, 1, ["a.", "b.", "c."], [0, 1], write)
    _doc(folder, 2, ["a.", "b.", "c."], [0], write)
    bundle = load("pan24_style_change_easy", tmp_path)
    assert [p.id for p in bundle.pairs] == ["problem-1:0", "problem-1:1"]
    assert bundle.info["documents_skipped"] == 1 and bundle.info["documents_skipped_first"] == ["problem-2"]


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
