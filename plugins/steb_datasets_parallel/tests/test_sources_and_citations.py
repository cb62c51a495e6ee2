"""Issues 30 and 26 for the parallel and STEL plugins: every dataset names its pinned release and cites real BibTeX.

Covers both plugins (``steb_datasets_parallel`` and ``steb_datasets_stel``, skipped if the latter is not
installed) so the rule is stated once. The BibTeX is read by a small parser written here, not by steb's
own ``bibtex()``, so a field the catalogue would invent does not make the test pass.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from steb_core import DataSource
from steb_datasets_parallel.plugin import parallel_specs

HEX40 = re.compile(r"[0-9a-f]{40}")
VENUE_FIELDS = ("booktitle", "journal", "howpublished")
#: release folders several datasets read (target != dataset name)
SHARED_TARGETS = {
    "SynthSTEL": {"SynthSTEL_feature", "SynthSTEL_register"},
    "OneStopEnglishCorpus": {"OneStopEnglishCorpus", "OneStopEnglishCorpus.v2"},
    "STEL": {
        "STEL_register",
        "STEL_feature",
        "STEL_register_official",
        "STEL_feature_official",
        "STEL-or-Content_register",
        "STEL-or-Content_feature",
    },
}


def _all_specs():
    specs = list(parallel_specs())
    stel = pytest.importorskip("steb_datasets_stel.plugin")
    return specs + list(stel.stel_specs())


def parse_bibtex(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """``(type, key, fields)`` per entry; field values with their outer braces removed (nested braces kept)."""
    entries = []
    for m in re.finditer(r"@(\w+)\{([^,\s]+),", text):
        body, depth, i = [], 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            body.append(text[i])
            i += 1
        fields = {}
        for f in re.finditer(r"(\w+)\s*=\s*\{", "".join(body)):
            start, depth, j = f.end(), 1, f.end()
            raw = "".join(body)
            while depth:
                depth += {"{": 1, "}": -1}.get(raw[j], 0)
                j += 1
            fields[f.group(1).lower()] = raw[start : j - 1]
        entries.append((m.group(1).lower(), m.group(2), fields))
    return entries


def test_the_parser_reads_nested_braces():
    [(kind, key, fields)] = parse_bibtex("@inproceedings{k2020x,\n  title = {{ASSET}: A {B} c},\n  year = {2020},\n}")
    assert (kind, key) == ("inproceedings", "k2020x") and fields == {"title": "{ASSET}: A {B} c", "year": "2020"}


def test_every_dataset_has_a_pinned_source_with_its_target_folder():
    for spec in _all_specs():
        assert spec.sources, spec.name
        for src in spec.sources:
            assert isinstance(src, DataSource)
            if src.kind == "git":
                assert src.url.startswith("https://github.com/") and HEX40.fullmatch(src.revision), (
                    spec.name,
                    src.revision,
                )
                assert src.files, spec.name
            if src.kind == "hf" and src.revision:
                assert HEX40.fullmatch(src.revision), spec.name
            if src.kind == "manual":
                assert len(src.instructions) > 80 and "<data-dir>/" in src.instructions, spec.name
            assert src.licence, spec.name
            shared = [t for t, names in SHARED_TARGETS.items() if spec.name in names]
            assert src.target == (shared[0] if shared else spec.name), (spec.name, src.target)


def test_licences_that_need_agreement_are_marked():
    by_name = {s.name: s for s in _all_specs()}
    for name in ("GYAFC", "ASSET", "parallel_shakespeare", "twitter_aave_sae"):
        assert all(src.accept for src in by_name[name].sources), name
    for name in ("StylePTB", "OneStopEnglishCorpus", "SynthSTEL_register", "STEL_feature"):
        assert not any(src.accept for src in by_name[name].sources), name  # CC BY / CC BY-SA / MIT
    assert (
        by_name["GYAFC"].sources[0].kind == "manual"
        and "gyafc.dataset@gmail.com" in by_name["GYAFC"].sources[0].instructions
    )
    assert by_name["STEL_register"].sources[0].kind == "git" and by_name["STEL_register"].sources[1].kind == "manual"


def test_every_dataset_cites_real_bibtex_one_key_per_work():
    entries_by_key: dict[str, str] = {}
    key_of_title: dict[str, str] = {}
    for spec in _all_specs():
        entries = parse_bibtex(spec.citation)
        assert entries and spec.citation.lstrip().startswith("@"), spec.name
        for kind, key, fields in entries:
            assert kind in ("inproceedings", "article", "misc"), (spec.name, kind)
            for field in ("author", "title", "year"):
                assert fields.get(field, "").strip(), (spec.name, key, field)
            assert re.fullmatch(r"(19|20)\d\d", fields["year"]), (spec.name, key)
            assert any(fields.get(f) for f in VENUE_FIELDS), (spec.name, key, "venue")
            assert fields.get("doi") or fields.get("url", "").startswith("https://"), (spec.name, key, "doi/url")
            if fields.get("doi"):
                assert fields["doi"].startswith("10."), (spec.name, key)
            text = repr(sorted(fields.items()))
            assert entries_by_key.setdefault(key, text) == text, f"key {key} names two different entries"
            title = re.sub(r"[^a-z0-9]", "", fields["title"].lower())
            assert key_of_title.setdefault(title, key) == key, f"{fields['title']!r} is cited under two keys"


def test_the_two_synthstel_datasets_share_one_release_and_one_entry():
    specs = {s.name: s for s in parallel_specs()}
    assert specs["SynthSTEL_feature"].sources == specs["SynthSTEL_register"].sources
    assert specs["SynthSTEL_feature"].citation == specs["SynthSTEL_register"].citation


MIRRORS = Path(__file__).resolve().parents[4] / ".mirror"  # <workspace>/.mirror/<owner>+<name>/repo (fetched releases)


@pytest.mark.realdata
def test_git_sources_exist_at_their_commit_in_a_local_mirror():
    """Where a bare mirror of the release exists on this machine, the pinned commit and every listed file are in it."""
    checked = 0
    for spec in _all_specs():
        for src in spec.sources:
            if src.kind != "git":
                continue
            owner_name = src.url.removeprefix("https://github.com/")
            mirror = MIRRORS / owner_name.replace("/", "+") / "repo"
            if not mirror.is_dir():
                continue
            for path in src.files:
                listed = subprocess.run(
                    ["git", f"--git-dir={mirror}", "ls-tree", "--name-only", src.revision, path],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                assert listed.returncode == 0 and listed.stdout.strip() == path, (
                    spec.name,
                    src.revision,
                    path,
                    listed.stderr,
                )
            checked += 1
    if not checked:
        pytest.skip(f"no release mirrors under {MIRRORS}")
