"""Issue 29 (7): files a loader finds by *listing* a folder, and the report folder, never lead outside via a link.

The rule (README, Security): a symbolic link that stays inside the release (or the results folder) is
followed; one that leads outside it is refused with an error naming the link and where it leads. Each
case builds a small release in ``tmp_path/data``, puts a "secret" file beside it in ``tmp_path/secret``,
and checks both directions: the outside link is refused (and the secret text is never returned), a link
to another file of the same release loads.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext
from steb_core.report import build_report
from steb_core.report.synthetic import synthetic_results, write_results
from steb_datasets_pan.catalogue import pan_datasets
from steb_datasets_stel.plugin import stel_specs

from .links import SECRET, assert_link_refused, pan18_release
from .links import relink as _relink
from .links import write_file as _write

SPECS = {s.name: s for s in [*pan_datasets(), *stel_specs()]}


def load(name: str, data_dir: Path, **options):
    return SPECS[name].loader(LoadContext(name, data_dir, options=options))


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    return _write(tmp_path / "secret" / "secret.txt", SECRET + "\n")


def _refused(name: str, data: Path, link: Path, **options) -> None:
    """Loading must fail with the link's path and the outside target in the message."""
    assert_link_refused(lambda: load(name, data, **options), link)


# -- PAN22-26 style change: problem-N.txt / truth-problem-N.json found by listing the split folder -------------


def _style_change(data: Path) -> Path:
    folder = data / "easy" / "train"
    _write(folder / "problem-1.txt", "One.\nTwo.\n")
    _write(folder / "truth-problem-1.json", json.dumps({"changes": [1]}))
    _write(folder / "problem-2.txt", "Three.\nFour.\n")
    _write(folder / "truth-problem-2.json", json.dumps({"changes": [0]}))
    return folder


def test_style_change_problem_file_linking_outside_is_refused(tmp_path: Path, secret: Path) -> None:
    folder = _style_change(tmp_path / "data")
    _write(secret.parent / "problem.txt", SECRET + "\nmore secret\n")
    _relink(folder / "problem-2.txt", secret.parent / "problem.txt")
    _refused("pan26_style_change_easy", tmp_path / "data", folder / "problem-2.txt")


def test_style_change_truth_file_linking_outside_is_refused(tmp_path: Path, secret: Path) -> None:
    folder = _style_change(tmp_path / "data")
    _write(secret.parent / "truth.json", json.dumps({"changes": [1]}))
    _relink(folder / "truth-problem-1.json", secret.parent / "truth.json")
    _refused("pan26_style_change_easy", tmp_path / "data", folder / "truth-problem-1.json")


def test_style_change_link_inside_the_release_is_followed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = _style_change(data)
    kept = _write(data / "kept" / "doc.txt", "Kept one.\nKept two.\n")
    _relink(folder / "problem-2.txt", kept)
    pairs = load("pan26_style_change_easy", data, downsample=False).pairs
    assert [(p.text_a, p.text_b, p.same) for p in pairs] == [("One.", "Two.", False), ("Kept one.", "Kept two.", True)]


# -- PAN15 verification: known*.txt / unknown.txt found by listing the problem folder, truth.txt by rglob ---------


def _pan15(data: Path) -> Path:
    corpus = data / "pan15-authorship-verification-test-dataset2-2015-04-19"
    _write(corpus / "EN001" / "known01.txt", "Known text.\n")
    _write(corpus / "EN001" / "unknown.txt", "Unknown text.\n")
    _write(corpus / "truth.txt", "EN001 Y\n")
    return corpus


def test_pan15_known_text_linking_outside_is_refused(tmp_path: Path, secret: Path) -> None:
    corpus = _pan15(tmp_path / "data")
    link = corpus / "EN001" / "known01.txt"  # PAN15 reads known01.txt only (the STEB reference's loader)
    link.unlink()
    link.symlink_to(secret)
    _refused("pan15_authorship_verification_english_test", tmp_path / "data", link)


def test_pan15_truth_file_linking_outside_is_refused(tmp_path: Path, secret: Path) -> None:
    corpus = _pan15(tmp_path / "data")
    _write(secret.parent / "truth.txt", "EN001 N\n")
    _relink(corpus / "truth.txt", secret.parent / "truth.txt")
    _refused("pan15_authorship_verification_english_test", tmp_path / "data", corpus / "truth.txt")


def test_pan15_known_text_linking_inside_is_followed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    corpus = _pan15(data)
    (corpus / "EN001" / "known02.txt").symlink_to(_write(data / "extra" / "k.txt", "Second known.\n"))
    pair = load("pan15_authorship_verification_english_test", data, known="all").pairs[0]  # every known text joined
    assert (pair.text_a, pair.text_b, pair.same) == ("Known text.\n\n\nSecond known.\n", "Unknown text.\n", True)


# -- PAN18 attribution: candidate folders' known texts found by glob ---------------------------------------------


def _pan18(data: Path) -> Path:
    return pan18_release(data) / "problem00001"


def test_pan18_candidate_text_linking_outside_is_refused(tmp_path: Path, secret: Path) -> None:
    problem = _pan18(tmp_path / "data")
    link = problem / "candidate00001" / "known00002.txt"
    link.symlink_to(secret)
    _refused("pan18_cross_domain_authorship_attribution_english", tmp_path / "data", link)


def test_pan18_candidate_text_linking_inside_is_followed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    problem = _pan18(data)
    (problem / "candidate00001" / "known00002.txt").symlink_to(problem / "unknown" / "unknown00001.txt")
    targets = load("pan18_cross_domain_authorship_attribution_english", data).retrieval.targets
    assert [t.texts_ for t in targets] == [("Known by one.\n\nAsked about.",)]


# -- STEL: instance TSVs found by rglob ----------------------------------------------------------------------------

HEADER = [
    "",
    "Anchor 1",
    "Anchor 2",
    "Alternative 1.1",
    "Alternative 1.2",
    "Correct Alternative",
    "ID",
    "# Votes out of 5 for Correct Alternative",
    "style type",
]


def _tsv(path: Path, ids: range) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(HEADER)
        writer.writerows(
            [str(i), f"a1 {i}", f"A2 {i}", f"s1 {i}", f"S2 {i}", "1", f"QQ_formality-{i}", "", "formality"] for i in ids
        )
    return path


def test_stel_tsv_linking_outside_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _tsv(data / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv", range(3))
    outside = _tsv(tmp_path / "secret" / "quad_secret.tsv", range(10, 12))
    link = data / "dimensions" / "quad_stel-dimension_simple-100_sample.tsv"
    link.symlink_to(outside)
    _refused("STEL_register_official", data, link)


def test_stel_folder_linking_outside_is_never_read(tmp_path: Path) -> None:
    """rglob does not descend into linked folders (Python 3.11-3.13 default); should it ever, the check refuses."""
    data = tmp_path / "data"
    _tsv(data / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv", range(3))
    _tsv(tmp_path / "secret" / "quad_secret.tsv", range(10, 12))
    (data / "characteristics").symlink_to(tmp_path / "secret", target_is_directory=True)
    try:
        ids = sorted(g.id for g in load("STEL_register_official", data).order_groups)
    except DataValidationError as exc:
        assert "outside the release folder" in str(exc)
    else:
        assert ids == [f"QQ_formality-{i}" for i in range(3)]


def test_stel_tsv_linking_inside_is_followed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    real = _tsv(data / "kept" / "formal.tsv", range(4))  # not a quad* name: only found through the link
    (data / "dimensions").mkdir()
    (data / "dimensions" / "quad_stel-dimension_formal-100_sample.tsv").symlink_to(real)
    bundle = load("STEL_register_official", data)
    assert sorted(g.id for g in bundle.order_groups) == [f"QQ_formality-{i}" for i in range(4)]


# -- steb report DIR: the default report/ folder ------------------------------------------------------------------


def test_report_refuses_a_report_folder_linking_out_of_the_results(tmp_path: Path) -> None:
    results, elsewhere = tmp_path / "results", tmp_path / "elsewhere"
    write_results(synthetic_results(("enc-a", "enc-b")), results)
    elsewhere.mkdir()
    (results / "report").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(DataValidationError, match="outside the results folder") as err:
        build_report(results, console=False, html=False, datasets=None)
    assert str(results / "report") in str(err.value) and str(elsewhere.resolve()) in str(err.value)
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
    (results / "report").unlink()
    (results / "inner").mkdir()
    (results / "report").symlink_to(results / "inner", target_is_directory=True)  # a link inside the results is fine
    paths = build_report(results, console=False, html=False, datasets=None)
    assert (results / "inner" / "report.md").is_file() and paths.markdown == results / "report" / "report.md"


# -- PAN20/21 verification: pairs.jsonl / truth.jsonl picked by globbing the release folder -------------------


def _pan20(data: Path) -> Path:
    folder = data / "pan20-authorship-verification-test"
    pairs = [{"id": f"p{i}", "fandoms": ["a", "b"], "pair": [f"Text one {i}.", f"Text two {i}."]} for i in range(4)]
    _write(folder / "pairs.jsonl", "".join(json.dumps(p) + "\n" for p in pairs))
    _write(folder / "truth.jsonl", "".join(json.dumps({"id": f"p{i}", "same": i < 2}) + "\n" for i in range(4)))
    return folder


def test_pan20_pairs_file_linking_outside_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = _pan20(data)
    outside = tmp_path / "secret" / "pairs.jsonl"
    outside.parent.mkdir(parents=True)
    (folder / "pairs.jsonl").rename(outside)
    (folder / "pairs.jsonl").symlink_to(outside)
    _refused("pan20_authorship_verification_test", data, folder / "pairs.jsonl")


def test_pan20_truth_file_linking_inside_is_followed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = _pan20(data)
    kept = folder / "labels" / "truth-copy.json"  # not *.jsonl, so the glob sees only the link
    kept.parent.mkdir()
    (folder / "truth.jsonl").rename(kept)
    (folder / "truth.jsonl").symlink_to(kept)
    assert len(load("pan20_authorship_verification_test", data).pairs) == 4
