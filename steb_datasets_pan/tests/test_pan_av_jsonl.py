"""PAN20/21 jsonl authorship verification: every pair (the reference), balanced seeded sampling as an option, official
names, bad fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets

SPECS = {s.name: s for s in pan_datasets()}
NAME = "pan20_authorship_verification_test"


def load(data_dir: Path, seed: int = 0, name: str = NAME, **options):
    return SPECS[name].loader(LoadContext(name, data_dir, seed=seed, options=options))


def _release(folder: Path, write_jsonl, n_same: int = 12, n_diff: int = 8, *, official: bool = True, **enc) -> Path:
    pairs, truth = [], []
    for i in range(n_same + n_diff):
        rid = f"6cced668-6e51-5212-873c-{i:012d}"
        same = i < n_same
        pairs.append(
            {
                "id": rid,
                "fandoms": ["Harry Potter", "Naruto"],
                "pair": [f"Text one of pair {i}.", f"Text two of pair {i}."],
            }
        )
        truth.append({"id": rid, "same": same, "authors": ["1446633", "1446633" if same else "1110920"]})
    stem = "pan20-authorship-verification-test" if official else "pairs"
    write_jsonl(folder / f"{stem}.jsonl", pairs, **enc)
    write_jsonl(folder / (f"{stem}-truth.jsonl" if official else "truth.jsonl"), truth, **enc)
    return folder


def test_balanced_seeded_sample(tmp_path: Path, write_jsonl) -> None:
    _release(tmp_path / "pan20-authorship-verification-test", write_jsonl, bom=True, crlf=True)
    bundle = load(tmp_path, seed=7, pairs_per_class=5)
    assert len(bundle.pairs) == 10 and sum(p.same for p in bundle.pairs) == 5
    for p in bundle.pairs:  # texts come from the line of the pair's own id
        i = int(p.id[-12:])
        assert (p.text_a, p.text_b, p.same) == (f"Text one of pair {i}.", f"Text two of pair {i}.", i < 12)
    assert [p.id for p in load(tmp_path, seed=7, pairs_per_class=5).pairs] == [p.id for p in bundle.pairs]
    assert [p.id for p in load(tmp_path, seed=8, pairs_per_class=5).pairs] != [p.id for p in bundle.pairs]


def test_default_is_every_pair_in_file_order_unstripped(tmp_path: Path, write_jsonl) -> None:
    """Issue 37 (load_pan_jsonl_dataset @a8445f54): the folder is taken as subsampled already: every pair, file order,
    pair[0] and pair[1] as they are."""
    _release(tmp_path, write_jsonl, official=False)
    rows = [{"id": f"x{i}", "fandoms": ["a", "b"], "pair": [f" A{i} ", f"B{i}\n"]} for i in (3, 1, 2)]
    write_jsonl(tmp_path / "pairs.jsonl", rows)
    write_jsonl(tmp_path / "truth.jsonl", [{"id": f"x{i}", "same": i != 2, "authors": ["1", "2"]} for i in (1, 2, 3)])
    bundle = load(tmp_path, name="pan21_authorship_verification_test")
    assert [(p.id, p.text_a, p.text_b, p.same) for p in bundle.pairs] == [
        ("x3", " A3 ", "B3\n", True),
        ("x1", " A1 ", "B1\n", True),
        ("x2", " A2 ", "B2\n", False),
    ]
    assert bundle.info["pairs_per_class"] is None and bundle.info["sampling"].startswith("every pair")


def test_missing_truth_for_an_id(tmp_path: Path, write_jsonl, write) -> None:
    _release(tmp_path, write_jsonl)
    truth = tmp_path / "pan20-authorship-verification-test-truth.jsonl"
    lines = truth.read_text(encoding="utf-8").splitlines(keepends=True)
    write(truth, "".join(lines[:3] + lines[4:]))
    with pytest.raises(DataValidationError) as err:
        load(tmp_path)
    assert err.value.path == str(truth) and err.value.record == "6cced668-6e51-5212-873c-000000000003"
    assert "line 4" in str(err.value)


def test_empty_text_in_a_pair(tmp_path: Path, write_jsonl) -> None:
    _release(tmp_path, write_jsonl)
    write_jsonl(
        tmp_path / "pan20-authorship-verification-test.jsonl",
        [{"id": "p1", "fandoms": ["a", "b"], "pair": ["text", "  "]}],
    )
    with pytest.raises(DataValidationError, match="is empty") as err:
        load(tmp_path)
    assert err.value.record == "p1" and err.value.field == "pair[1]"


def test_two_pairs_files_need_an_option(tmp_path: Path, write_jsonl) -> None:
    _release(tmp_path, write_jsonl)
    _release(tmp_path, write_jsonl, official=False)
    assert load(tmp_path).info["truth_file"].endswith("/truth.jsonl")  # pairs.jsonl is preferred, with its truth.jsonl
    for size in ("small", "large"):
        _release(tmp_path / "training", write_jsonl, n_same=3 if size == "small" else 6, n_diff=3)
        for f in (tmp_path / "training").glob("pan20-authorship-verification-test*"):
            f.rename(f.with_name(f.name.replace("test", f"training-{size}")))
    with pytest.raises(DataValidationError, match="option 'pairs_file'"):
        load(tmp_path / "training")
    chosen = load(tmp_path / "training", pairs_file="pan20-authorship-verification-training-large.jsonl")
    assert len(chosen.pairs) == 9 and chosen.info["truth_file"].endswith("training-large-truth.jsonl")
