"""Issues 30 and 26: every PAN dataset names its pinned release (``sources=``) and cites its overview paper in BibTeX;
a release unpacked into its source's target folder is found by the dataset's loader."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from steb_core import DataSource, LoadContext, new_manager
from steb_core._catalogue import bibtex

_FIELD_RE = re.compile(r"^\s*([a-z]+)\s*=\s*\{(.*)\},?\s*$", re.MULTILINE)
_ENTRY_RE = re.compile(r"^@(inproceedings|article|misc)\{([a-z0-9]+),\n", re.DOTALL)


@pytest.fixture(scope="module")
def pan_specs():
    registry = new_manager(env=False).datasets()
    return {s.name: s for s in registry if registry.provider(s.name) == "pan"}


def _entry(citation: str) -> tuple[str, str, dict[str, str]]:
    """(type, key, fields) of one BibTeX entry, read with a small parser of its own (not steb's)."""
    match = _ENTRY_RE.match(citation)
    assert match, citation[:80]
    assert citation.rstrip().endswith("}") and citation.count("{") == citation.count("}"), citation
    return match.group(1), match.group(2), dict(_FIELD_RE.findall(citation))


def test_every_dataset_cites_a_full_bibtex_entry(pan_specs) -> None:
    for name, spec in pan_specs.items():
        kind, key, fields = _entry(spec.citation)
        assert {"author", "title", "year"} <= set(fields), name
        assert re.fullmatch(r"(19|20)\d\d", fields["year"]), name
        assert {"booktitle", "journal", "howpublished", "publisher"} & set(fields), name
        assert {"doi", "url"} & set(fields), name
        if kind == "inproceedings":
            assert "booktitle" in fields, name
        assert bibtex(name, spec.citation) == spec.citation.strip(), name  # `steb cite` prints it as given


def test_one_key_per_work(pan_specs) -> None:
    by_key: dict[str, set[str]] = {}
    for spec in pan_specs.values():
        _, key, _ = _entry(spec.citation)
        by_key.setdefault(key, set()).add(spec.citation)
    assert all(len(texts) == 1 for texts in by_key.values()), {k: len(v) for k, v in by_key.items()}
    key = {name: _entry(spec.citation)[1] for name, spec in pan_specs.items()}
    # one overview describes both PAN18 tasks; the 2025 lab overview both 2025 tasks
    assert {key[n] for n in pan_specs if n.startswith("pan18_")} == {"kestemont2018overview"}
    assert key["pan25_style_change_hard"] == key["machine_text_detection_PAN25_26_news"] == "bevendorff2025overview"
    assert len({key[f"pan{y}_style_change_easy"] for y in (23, 24, 25, 26)}) == 4
    assert (
        key["pan15_authorship_verification_dutch_test"]
        == key["pan15_authorship_verification_english_test"]
        == "stamatatos2015overview"
    )
    assert key["machine_text_detection_PAN24_news"] == "bevendorff2024overview" != key["pan24_style_change_easy"]


def test_enron_cites_halvanis_mendeley_release(pan_specs) -> None:
    _, key, fields = _entry(pan_specs["enron_authorship_corpus"].citation)
    assert key == "halvani2017enron" and fields["doi"] == "10.17632/n77w7mygwg.1" and fields["year"] == "2017"
    assert "Halvani" in fields["author"]


def test_every_dataset_has_a_usable_source(pan_specs) -> None:
    for name, spec in pan_specs.items():
        assert spec.sources and all(isinstance(s, DataSource) for s in spec.sources), name
        for src in spec.sources:
            assert src.target and "/" not in src.target, name
            if src.kind == "zenodo":
                assert src.url.isdigit() and src.files and src.unpack[0] in src.files, name
                assert src.accept and src.licence, name  # PAN data: research-use terms the user accepts
            elif src.kind == "manual":
                assert (
                    src.url.startswith("https://")
                    and src.url in src.instructions
                    and f"<data-root>/{src.target}/" in src.instructions
                ), name
                assert src.licence, name
            elif src.kind == "git":
                assert re.fullmatch(r"[0-9a-f]{40}", src.revision) and src.url.startswith("https://github.com/"), name
            elif src.kind == "url":  # a public download without a published checksum: pinned at its first download
                assert src.url.startswith("https://") and src.unpack and src.accept and src.licence, name
                assert src.pinned_by == "first download", name
            else:
                pytest.fail(f"{name}: unexpected source kind {src.kind}")


def test_records_pinned_for_the_steb_releases(pan_specs) -> None:
    """The Zenodo records the STEB authors' download script reads (spot checks by hand, not a copy of the table)."""

    def src(name):
        return pan_specs[name].sources[0]

    assert (src("pan22_style_change_basic").kind, src("pan22_style_change_basic").url) == ("zenodo", "6334245")
    assert src("pan23_style_change_hard").url == "7729178" and src("pan26_style_change_easy").files == (
        "mawsa26-pan-zenodo.zip",
    )
    assert src("pan18_cross_domain_authorship_attribution_polish").url == "3737849"
    assert src("pan15_authorship_verification_english_test").kind == "manual"  # Zenodo: "Restricted Access"
    assert "Request access" in src("machine_text_detection_PAN25_26_essays").instructions
    # Mendeley's public archive (the URL the STEB authors' script fetches), no longer by hand
    assert (src("enron_authorship_corpus").kind, src("enron_authorship_corpus").url) == (
        "url",
        "https://prod-dcd-datasets-cache-zipfiles.s3.eu-west-1.amazonaws.com/n77w7mygwg-1.zip",
    )
    # datasets of one release share one target folder, so `steb data get` downloads it once
    assert len({pan_specs[n].sources[0].target for n in pan_specs if n.startswith("pan14_")}) == 1
    assert src("machine_text_detection_PAN25_collaborative").target == "machine_text_detection_PAN25_collaborative"


# --- a release unpacked into its target is read by the loader -----------------------------------------


def _load(spec, root: Path, **options):
    return spec.loader(LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, root), options=options))


def _av_problem(folder: Path, pid: str, write) -> None:
    write(folder / pid / "known01.txt", f"known text of {folder.name} {pid}")
    write(folder / pid / "unknown.txt", f"unknown text of {folder.name} {pid}")


def test_pan14_both_corpora_in_one_target_are_kept_apart(pan_specs, tmp_path: Path, write) -> None:
    """The PAN14 archive holds both test corpora, with the same problem ids: each dataset reads its own."""
    target = tmp_path / pan_specs["pan14_authorship_verification_corpus1_english_essays_test"].sources[0].target
    for corpus in ("corpus1", "corpus2"):
        essays = (
            target
            / f"pan14-author-verification-test-{corpus}-2014-04-22"
            / f"pan14-author-verification-test-{corpus}-english-essays-2014-04-22"
        )
        for pid in ("EE001", "EE002"):
            _av_problem(essays, pid, write)
        write(essays / "truth.txt", "EE001 Y\nEE002 N\n" if corpus == "corpus1" else "EE001 N\nEE002 Y\n")
    one = _load(pan_specs["pan14_authorship_verification_corpus1_english_essays_test"], tmp_path)
    two = _load(pan_specs["pan14_authorship_verification_corpus2_english_essays_test"], tmp_path)
    assert [(p.id, p.same) for p in one.pairs] == [("EE001", True), ("EE002", False)]
    assert [(p.id, p.same) for p in two.pairs] == [("EE001", False), ("EE002", True)]
    assert "corpus2" in two.pairs[0].text_a


def test_style_change_archives_unpacked_into_their_targets(pan_specs, tmp_path: Path, write) -> None:
    def problem(folder: Path, tag: str) -> None:
        write(folder / "problem-1.txt", f"First {tag}.\nSecond {tag}.\nThird {tag}.\n")
        write(folder / "truth-problem-1.json", json.dumps({"authors": 2, "changes": [0, 1]}))

    pan23 = tmp_path / pan_specs["pan23_style_change_medium"].sources[0].target / "release"
    for i, level in enumerate(("easy", "medium", "hard"), start=1):
        problem(
            pan23 / f"pan23-multi-author-analysis-dataset{i}" / f"pan23-multi-author-analysis-dataset{i}-validation",
            f"pan23 {level}",
        )
    pan26 = tmp_path / pan_specs["pan26_style_change_hard"].sources[0].target / "mawsa26-pan-zenodo"
    for level in ("easy", "medium", "hard"):
        problem(pan26 / level / "validation", f"pan26 {level}")
    bundle = _load(pan_specs["pan23_style_change_medium"], tmp_path)
    assert bundle.pairs[0].text_a == "First pan23 medium." and bundle.info["split"].endswith("dataset2-validation")
    bundle = _load(pan_specs["pan26_style_change_hard"], tmp_path, downsample=False)
    assert bundle.pairs[0].text_a == "First pan26 hard."


def test_pan18_and_pan20_archives_unpacked_into_their_targets(pan_specs, tmp_path: Path, write, write_jsonl) -> None:
    sc = (
        tmp_path
        / pan_specs["pan18_style_change"].sources[0].target
        / "pan18-style-change-detection-validation-dataset-2018-01-31"
    )
    write(sc / "problem-1.txt", "A first paragraph.\n\nA second paragraph.\n")
    write(sc / "problem-1.truth", json.dumps({"changes": False}))
    assert [p.same for p in _load(pan_specs["pan18_style_change"], tmp_path).pairs] == [True]
    av = (
        tmp_path
        / pan_specs["pan20_authorship_verification_test"].sources[0].target
        / "pan20-authorship-verification-test"
    )
    write_jsonl(
        av / "pan20-authorship-verification-test.jsonl",
        [{"id": f"p{i}", "fandoms": ["a", "b"], "pair": [f"x{i}", f"y{i}"]} for i in range(4)],
    )
    write_jsonl(
        av / "pan20-authorship-verification-test-truth.jsonl",
        [{"id": f"p{i}", "same": i < 2, "authors": ["1", "2"]} for i in range(4)],
    )
    bundle = _load(pan_specs["pan20_authorship_verification_test"], tmp_path, pairs_per_class=2)
    assert sorted((p.id, p.same) for p in bundle.pairs) == [("p0", True), ("p1", True), ("p2", False), ("p3", False)]


def test_pan22_24_25_archives_unpacked_into_their_targets(pan_specs, tmp_path: Path, write) -> None:
    """pan22.zip unpacks to dataset1..3/validation; the PAN24/25 archives to easy|medium|hard/validation (the STEB
    script's paths)."""

    def problem(folder: Path, tag: str) -> None:
        write(folder / "problem-7.txt", f"One {tag}.\nTwo {tag}.\n")
        write(folder / "truth-problem-7.json", json.dumps({"authors": 2, "changes": [1]}))

    pan22 = tmp_path / pan_specs["pan22_style_change_advanced"].sources[0].target
    for i, level in enumerate(("basic", "advanced", "sentence"), start=1):
        problem(pan22 / f"dataset{i}" / "validation", f"pan22 {level}")
    for year in (24, 25):
        target = tmp_path / pan_specs[f"pan{year}_style_change_easy"].sources[0].target
        for level in ("easy", "medium", "hard"):
            problem(target / level / "validation", f"pan{year} {level}")
    bundle = _load(pan_specs["pan22_style_change_advanced"], tmp_path)
    assert [(p.text_a, p.text_b, p.same) for p in bundle.pairs] == [
        ("One pan22 advanced.", "Two pan22 advanced.", False)
    ]
    for year, level in ((24, "medium"), (25, "hard")):
        bundle = _load(pan_specs[f"pan{year}_style_change_{level}"], tmp_path)
        assert bundle.pairs[0].text_a == f"One pan{year} {level}.", (year, level)
