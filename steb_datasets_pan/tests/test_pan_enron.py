"""Enron AV corpus, Mendeley release (n77w7mygwg v1): synthetic fixtures in the release's exact layout (made-up text).

Layout as the archive unpacks (``Enron-Authorship-Verification-Corpus.zip`` -> ``Enron (80 authors)/``):
``truth.txt`` (UTF-8 with BOM, ``CASE Y|N``), case folders ``<Author.name>[Y|N]`` holding
``known - <Author> - Mail_<n>.txt`` files and one ``unknown - ... - Mail_<n>.txt``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets

NAME = "enron_authorship_corpus"
SPEC = {s.name: s for s in pan_datasets()}[NAME]
RELEASE = "Enron (80 authors)"


def load_from_root(root: Path, **options):
    """What `steb run --data-dir ROOT` hands the loader: ROOT/enron_authorship_corpus, which need not exist."""
    return SPEC.loader(LoadContext(NAME, LoadContext.resolve_data_dir(NAME, root), options=options))


def _case(folder: Path, author: str, mark: str, known: dict[int, str], unknown: tuple[str, int, str], write) -> None:
    case = folder / f"{author}[{mark}]"
    for n, text in known.items():
        write(case / f"known - {author} - Mail_{n}.txt", text)
    who, n, text = unknown
    write(case / f"unknown - {who} - Mail_{n}.txt", text)


@pytest.fixture
def release(tmp_path: Path, write) -> Path:
    """Three cases as the Mendeley archive lays them out, kept inside <root>/enron_authorship_corpus/ (the manual
    source's target)."""
    folder = tmp_path / "root" / NAME / RELEASE
    _case(
        folder,
        "Jane.Doe",
        "Y",
        {12: "Jane mail twelve.", 3: "Jane mail three.\n", 40: "Jane mail forty.", 7: "Jane mail seven."},
        ("Jane.Doe", 99, "Jane unknown mail.\n"),
        write,
    )
    _case(
        folder,
        "John.Roe",
        "N",
        {1: "John one.", 2: "John two.", 5: "John five.", 9: "John nine."},
        ("Ann.Poe", 4, "Someone else wrote this."),
        write,
    )
    _case(
        folder,
        "Max.Moe",
        "Y",
        {10: "Max ten.", 11: "Max eleven.", 20: "Max twenty.", 30: "Max thirty."},
        ("Max.Moe", 31, "Max thirty-one."),
        write,
    )
    write(folder / "truth.txt", "Jane.Doe[Y] Y\nJohn.Roe[N] N\nMax.Moe[Y] Y\n", bom=True, crlf=True)
    return tmp_path / "root"


def test_mendeley_layout_is_the_default_reader(release: Path) -> None:
    bundle = load_from_root(release)
    assert [(p.id, p.same) for p in bundle.pairs] == [("Jane.Doe", True), ("John.Roe", False), ("Max.Moe", True)]
    jane = bundle.pairs[0]
    # file-name order, as the STEB authors read them: "Mail_12" sorts before "Mail_3"; texts not stripped (issue 37)
    assert jane.text_a == "Jane mail twelve.\n\nJane mail three.\n\n\nJane mail forty.\n\nJane mail seven."
    assert jane.text_b == "Jane unknown mail.\n"
    assert bundle.pairs[1].text_b == "Someone else wrote this."
    assert bundle.info["labels_from"] == "truth.txt" and (bundle.info["same"], bundle.info["different"]) == (2, 1)
    assert bundle.info["folder"].endswith(RELEASE)


def test_release_folder_kept_under_its_own_name_in_the_data_root(release: Path) -> None:
    """The unzipped 'Enron (80 authors)' may sit directly in the data root, without the dataset folder."""
    root = release.parent / "other-root"
    root.mkdir()
    (release / NAME / RELEASE).rename(root / RELEASE)
    assert [p.id for p in load_from_root(root).pairs] == ["Jane.Doe", "John.Roe", "Max.Moe"]


def test_release_folder_renamed_to_the_dataset_name(release: Path) -> None:
    """The STEB authors' script renames 'Enron (80 authors)' to enron_authorship_corpus: the case folders then sit at
    the top."""
    root = release.parent / "renamed-root"
    root.mkdir()
    (release / NAME / RELEASE).rename(root / NAME)
    bundle = load_from_root(root)
    assert [(p.id, p.same) for p in bundle.pairs] == [("Jane.Doe", True), ("John.Roe", False), ("Max.Moe", True)]
    assert bundle.info["folder"] == str(root / NAME)


def test_truth_ids_without_the_mark_and_a_release_without_truth(release: Path, write) -> None:
    folder = release / NAME / RELEASE
    write(folder / "truth.txt", "Jane.Doe Y\nJohn.Roe N\nMax.Moe Y\n")
    assert [p.same for p in load_from_root(release).pairs] == [True, False, True]
    (folder / "truth.txt").unlink()
    bundle = load_from_root(release)
    assert [p.same for p in bundle.pairs] == [True, False, True] and bundle.info[
        "labels_from"
    ] == "folder marks [Y]/[N]"


def test_truth_contradicting_the_folder_mark_is_refused(release: Path, write) -> None:
    truth = release / NAME / RELEASE / "truth.txt"
    write(truth, "Jane.Doe[Y] Y\nJohn.Roe[N] Y\nMax.Moe[Y] Y\n")
    with pytest.raises(DataValidationError, match="answers Y but the folder is named 'John.Roe\\[N\\]'") as err:
        load_from_root(release)
    assert err.value.path == str(truth) and err.value.record == "John.Roe"


def test_missing_and_extra_truth_lines(release: Path, write) -> None:
    truth = release / NAME / RELEASE / "truth.txt"
    write(truth, "Jane.Doe[Y] Y\nJohn.Roe[N] N\n")
    with pytest.raises(DataValidationError, match="no line for case") as err:
        load_from_root(release)
    assert err.value.record == "Max.Moe"
    write(truth, "Jane.Doe[Y] Y\nJohn.Roe[N] N\nMax.Moe[Y] Y\nGhost.Case[N] N\n")
    with pytest.raises(DataValidationError, match="no folder") as err:
        load_from_root(release)
    assert err.value.record == "Ghost.Case"
    write(truth, "Jane.Doe[Y] Y\nJohn.Roe[N] N\nMax.Moe[Y] maybe\n")
    with pytest.raises(DataValidationError, match="maybe") as err:
        load_from_root(release)
    assert err.value.record == "line 3"


def test_bad_case_folders(release: Path, write) -> None:
    folder = release / NAME / RELEASE
    write(folder / "Max.Moe[Y]" / "unknown - Max.Moe - Mail_32.txt", "A second unknown text.")
    with pytest.raises(DataValidationError, match="2 'unknown - ...' texts") as err:
        load_from_root(release)
    assert err.value.record == "Max.Moe" and err.value.path.endswith("Max.Moe[Y]")
    (folder / "Max.Moe[Y]" / "unknown - Max.Moe - Mail_32.txt").unlink()
    write(folder / "John.Roe[N]" / "known - John.Roe - Mail_2.txt", "  \r\n")
    with pytest.raises(DataValidationError, match="is empty") as err:
        load_from_root(release)
    assert err.value.path.endswith("known - John.Roe - Mail_2.txt")


def test_one_case_name_with_both_marks_is_refused(release: Path, write) -> None:
    _case(release / NAME / RELEASE, "Jane.Doe", "N", {1: "x"}, ("Bob.Cox", 2, "y"), write)
    with pytest.raises(DataValidationError, match="case 'Jane.Doe'"):
        load_from_root(release)


def test_pan_style_folders_need_the_layout_option(tmp_path: Path, write) -> None:
    for case, _answer in (("Case01", "Y"), ("Case02", "N")):
        write(tmp_path / case / "known01.txt", f"known of {case}")
        write(tmp_path / case / "unknown.txt", f"unknown of {case}")
    write(tmp_path / "truth.txt", "Case01 Y\nCase02 N\n")
    with pytest.raises(DataValidationError, match="layout=pan"):
        SPEC.loader(LoadContext(NAME, tmp_path))
    assert [p.same for p in SPEC.loader(LoadContext(NAME, tmp_path, options={"layout": "pan"})).pairs] == [True, False]
    with pytest.raises(DataValidationError, match="mendeley or pan"):
        SPEC.loader(LoadContext(NAME, tmp_path, options={"layout": "zip"}))
