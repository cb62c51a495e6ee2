"""Folder-per-problem AV (PAN13/14/15, Enron): official layout fixtures and bad fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets

SPECS = {s.name: s for s in pan_datasets()}


def load(name: str, data_dir: Path, **options):
    return SPECS[name].loader(LoadContext(name, data_dir, options=options))


def _problem(folder: Path, pid: str, known: list[str], unknown: str, write, **enc) -> None:
    for i, text in enumerate(known, start=1):
        write(folder / pid / f"known{i:02d}.txt", text, **enc)
    write(folder / pid / "unknown.txt", unknown, **enc)


@pytest.fixture
def pan14(tmp_path: Path, write) -> Path:
    """PAN14-style test corpus: English essays (EE), English novels (EN) and Dutch essays (DE) in one tree."""
    corpus = tmp_path / "pan14-author-verification-test-corpus2-2014-04-22"
    essays = corpus / "pan14-author-verification-test-corpus2-english-essays-2014-04-22"
    _problem(essays, "EE001", ["First known essay.\n", "Second known essay.\n"], "Unknown essay.\n", write, crlf=True)
    _problem(essays, "EE002", ["Only known.\n"], "\ufeffOther unknown.\n", write)
    write(essays / "truth.txt", "EE001 Y\nEE002 N\n", bom=True, crlf=True)
    write(essays / "contents.json", '{"language": "English", "genre": "essays", "problems": ["EE001", "EE002"]}')
    novels = corpus / "pan14-author-verification-test-corpus2-english-novels-2014-04-22"
    _problem(novels, "EN001", ["Novel text."], "Novel unknown.", write, bom=True)
    write(novels / "truth.txt", "EN001 N\n")
    dutch = corpus / "pan14-author-verification-test-corpus2-dutch-essays-2014-04-22"
    _problem(dutch, "DE001", ["Een tekst."], "Nog een tekst.", write)
    write(dutch / "truth.txt", "DE001 Y\n")
    return tmp_path


def test_known01_only_unstripped_and_problems_filtered_by_prefix(pan14: Path) -> None:
    """Issue 37: PAN14/15 as the reference's load_pan15_dataset reads them: known01.txt vs unknown.txt, problems in
    sorted id order, texts not stripped (CRLF read as text mode reads it, a BOM kept); known=all joins every known
    text."""
    bundle = load("pan14_authorship_verification_corpus2_english_essays_test", pan14)
    assert [(p.id, p.text_a, p.text_b, p.same) for p in bundle.pairs] == [
        ("EE001", "First known essay.\n", "Unknown essay.\n", True),
        ("EE002", "Only known.\n", "\ufeffOther unknown.\n", False),
    ]
    joined = load("pan14_authorship_verification_corpus2_english_essays_test", pan14, known="all")
    assert joined.pairs[0].text_a == "First known essay.\n\n\nSecond known essay.\n"
    novels = load("pan14_authorship_verification_corpus2_english_novels_test", pan14)
    assert [(p.id, p.same) for p in novels.pairs] == [("EN001", False)]
    dutch = load("pan14_authorship_verification_corpus2_dutch_essays_test", pan14)
    assert [p.id for p in dutch.pairs] == ["DE001"]


def test_pan13_single_truth_file_for_all_languages(tmp_path: Path, write) -> None:
    root = (
        tmp_path
        / "pan13-authorship-verification-test-and-training"
        / "pan13-authorship-verification-test-corpus2-2013-05-29"
    )
    _problem(root, "EN01", ["Known A."], "Unknown A.", write)
    _problem(root, "GR01", ["Γνωστό κείμενο."], "Άγνωστο κείμενο.", write)
    _problem(root, "SP01", ["Texto conocido."], "Texto desconocido.", write)
    _problem(root, "EN00", ["Known one.", "Known two."], "Unknown B.", write)
    write(root / "truth.txt", "EN01 Y\nGR01 N\nSP01 Y\nEN00 N\n")
    # sorted ids; PAN13 joins all known texts
    english = load("pan13_authorship_verification_english_test", tmp_path).pairs
    assert [(p.id, p.text_a) for p in english] == [("EN00", "Known one.\n\nKnown two."), ("EN01", "Known A.")]
    greek = load("pan13_authorship_verification_greek_test", tmp_path).pairs
    assert [(p.id, p.text_a, p.same) for p in greek] == [("GR01", "Γνωστό κείμενο.", False)]


def test_enron_layout_all_cases(tmp_path: Path, write) -> None:
    for case, _answer in (("Case01", "Y"), ("Case02", "N")):
        _problem(tmp_path, case, [f"mail {i} of {case}" for i in range(4)], f"unknown mail {case}", write)
    write(tmp_path / "truth.txt", "Case01 Y\r\nCase02 N\r\n")
    pairs = load("enron_authorship_corpus", tmp_path, layout="pan").pairs  # the older PAN-style reading stays an option
    assert [p.same for p in pairs] == [True, False]
    assert pairs[0].text_a == "mail 0 of Case01\n\nmail 1 of Case01\n\nmail 2 of Case01\n\nmail 3 of Case01"


# --- bad fixtures ------------------------------------------------------------------------------------


def test_problem_folder_without_truth_line(pan14: Path, write) -> None:
    essays = next(pan14.rglob("*english-essays*"))
    _problem(essays, "EE003", ["k."], "u.", write)
    with pytest.raises(DataValidationError) as err:
        load("pan14_authorship_verification_corpus2_english_essays_test", pan14)
    assert err.value.path.endswith("truth.txt") and err.value.record == "EE003"


def test_truth_line_without_folder(pan14: Path, write) -> None:
    essays = next(pan14.rglob("*english-essays*"))
    write(essays / "truth.txt", "EE001 Y\nEE002 N\nEE009 Y\n")
    with pytest.raises(DataValidationError, match="no folder") as err:
        load("pan14_authorship_verification_corpus2_english_essays_test", pan14)
    assert err.value.record == "EE009"


def test_empty_unknown_text_names_file(pan14: Path, write) -> None:
    essays = next(pan14.rglob("*english-essays*"))
    write(essays / "EE002" / "unknown.txt", " \r\n")
    with pytest.raises(DataValidationError, match="is empty") as err:
        load("pan14_authorship_verification_corpus2_english_essays_test", pan14)
    assert err.value.path.endswith("EE002/unknown.txt") and err.value.record == "EE002"


def test_bad_answer_and_missing_truth(pan14: Path, write, tmp_path: Path) -> None:
    essays = next(pan14.rglob("*english-essays*"))
    write(essays / "truth.txt", "EE001 Y\nEE002 maybe\n")
    with pytest.raises(DataValidationError, match="maybe") as err:
        load("pan14_authorship_verification_corpus2_english_essays_test", pan14)
    assert err.value.record == "EE002" and err.value.field == "answer"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DatasetNotFoundError, match="truth.txt"):
        load("pan15_authorship_verification_english_test", empty)


def test_no_problem_of_the_language(pan14: Path) -> None:
    with pytest.raises(DataValidationError, match="prefix") as err:
        load("pan14_authorship_verification_corpus2_greek_articles_test", pan14)
    assert "EE" in str(err.value)


def test_truth_line_repeated_with_flipped_answer_is_refused(pan14: Path, write) -> None:
    truth = next(pan14.rglob("*english-essays*/truth.txt"))
    write(truth, "EE001 Y\nEE002 N\nEE001 N\n")
    with pytest.raises(DataValidationError, match="conflicting problem 'EE001'") as err:
        load("pan14_authorship_verification_corpus2_english_essays_test", pan14)
    assert err.value.path == str(truth) and err.value.record == "line 3" and err.value.field == "problem"


def test_truth_line_naming_a_folder_outside_the_release_is_refused(tmp_path: Path, write) -> None:
    """Issue 20 (8): a problem id like '../../outside' must not join to a folder outside the release."""
    release = tmp_path / "data" / "pan13"
    _problem(release, "EN001", ["Known."], "Unknown.", write)
    _problem(tmp_path, "outside", ["Secret known."], "Secret unknown.", write)
    write(release / "truth.txt", "EN001 Y\n../../outside N\n")
    with pytest.raises(DataValidationError, match="outside the release folder") as err:
        load("enron_authorship_corpus", tmp_path / "data", layout="pan")  # Enron (PAN-style) takes every problem id
    assert err.value.path.endswith("truth.txt") and err.value.field == "problem"


def test_invalid_utf8_is_read_as_the_reference_reads_it_and_counted(pan14: Path) -> None:
    """Issue 47: bytes that are not UTF-8 are read as U+FFFD (the reference's errors="replace") and counted per
    dataset in the bundle's info (so in every record's dataset_info; tests/core/test_replaced_bytes.py: the notes)."""
    from steb_core import REPLACED_BYTES_INFO

    essays = pan14 / "pan14-author-verification-test-corpus2-2014-04-22"
    unknown = next(essays.rglob("EE001/unknown.txt"))
    raw = b"Caf\xe9 au lait, \xff\xfe twice.\n"  # Latin-1 e-acute, then two stray bytes
    unknown.write_bytes(raw)
    name = "pan14_authorship_verification_corpus2_english_essays_test"
    bundle = load(name, pan14)
    assert bundle.pairs[0].text_b == raw.decode("utf-8", errors="replace")  # the reference's text, unchanged
    assert bundle.info[REPLACED_BYTES_INFO] == {"bytes": 3, "files": 1, "example": str(unknown)}
    clean = load("pan14_authorship_verification_corpus2_english_novels_test", pan14)
    assert REPLACED_BYTES_INFO not in clean.info
