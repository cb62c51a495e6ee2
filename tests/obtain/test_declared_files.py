"""Issue 45, item 5: what ``steb data get`` fetches is what each loader reads (one declaration drives both).

A git or hub source names the paths its loader reads (``DataSource.files``); ``steb data get`` fetches only
those. hate_speech's loader read ``sampled_test/`` while its source fetched ``all_files/`` and the metadata,
so ``data get`` then ``run`` gave "missing data". For every registered dataset whose sources are all git or hub
sources with declared files (their layout is known without unpacking anything), a release folder holding
one placeholder per declared path must be enough for the loader to find its files: it may refuse the
placeholders' content (too few texts, no parallel lines), never name a path of the release that is not
there (what ``steb data check`` then reports as missing).

The other direction (a loader that starts reading a path nobody declared): on the same release, every file the
loader opens and every folder it lists under the data root, from any thread, must be covered by a declared
entry (:func:`steb_core.testing.check_declared_reads`). A loader stops at the first placeholder it refuses, so
what it would read after that is not seen here; the plugins' own fixture tests run the same check on releases
it accepts.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from steb_core import DatasetNotFoundError, LoadContext
from steb_core._plugins import get_manager, reset_manager
from steb_core.testing import check_declared_reads


def _declared_specs():
    reset_manager()
    specs = [
        s
        for s in get_manager().datasets()
        if s.sources and all(src.kind in ("git", "hf") and src.files and not src.unpack for src in s.sources)
    ]
    reset_manager()
    return specs


SPECS = _declared_specs()
#: datasets whose declared entry is a folder glob the loader reads by fixed names a placeholder cannot guess; their
#: loader's "no data at <dataset folder>" is about the placeholder, the declared folder itself is fetched
NAMED_FILES = {"pan26_generative_ai_detection_smoketest": "dataset.jsonl and test-truth.jsonl in the declared folder"}


def _placeholder(pattern: str) -> str:
    """A path the pattern matches: ``*`` and ``?`` and ``[...]`` filled in."""
    return (
        re.sub(r"\[[^\]]*\]", "x", pattern.strip("/")).replace("**/", "").replace("*", "placeholder").replace("?", "x")
    )


def _lay_out(root: Path, spec) -> None:
    for source in spec.sources:
        folder = root / (source.target or spec.name) / source.subdir
        for pattern in source.files:
            path = folder / _placeholder(pattern)
            name = path.name
            if not re.search(r"[*?\[]", pattern) and "." not in name and not name.isupper():  # a folder entry
                path = path / "placeholder.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                path.write_text("placeholder\n", encoding="utf-8")


def _absent_paths(message: str, root: Path) -> list[str]:
    """The paths under ``root`` that ``message`` names and that do not exist."""
    named = re.findall(re.escape(str(root)) + r"[^\s:;,()'\"]*", message)
    return [p.rstrip(".") for p in named if not Path(p.rstrip(".")).exists()]


def test_the_scan_finds_the_datasets_it_is_about():
    names = {s.name for s in SPECS}
    assert {"hate_speech", "hate_speech_and_offensive_language"} <= names and len(names) >= 20


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_what_data_get_fetches_is_what_the_loader_reads(tmp_path, spec):
    root = tmp_path / "data"
    _lay_out(root, spec)
    ctx = LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, root))
    try:
        spec.loader(ctx)
    except (DatasetNotFoundError, FileNotFoundError) as exc:
        absent = [p for p in _absent_paths(str(exc), root) if Path(p) != ctx.data_dir or spec.name not in NAMED_FILES]
        declared = [
            f"{s.target or spec.name}/{s.subdir + '/' if s.subdir else ''}{p}" for s in spec.sources for p in s.files
        ]
        assert not absent, (
            f"{spec.name}: the loader looks for {absent}, which data get does not fetch ({declared}): {exc}"
        )
    except Exception:  # noqa: BLE001 - placeholders are no real release: refusing their content is fine
        pass


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_the_loader_reads_nothing_data_get_does_not_fetch(tmp_path, spec):
    root = tmp_path / "data"
    _lay_out(root, spec)
    try:
        reads = check_declared_reads(spec, root)  # AssertionError: a read of a path no source declares
    except AssertionError:
        raise
    except Exception:  # noqa: BLE001 - the loader refused a placeholder after reading only declared paths
        return
    assert reads.opened, f"{spec.name}: loaded without opening a file of the release"


def test_an_undeclared_read_is_named(tmp_path):
    # hate_speech's loader made to read one more file of its clone, README.md, which its source does not declare
    spec = next(s for s in SPECS if s.name == "hate_speech")
    root = tmp_path / "data"
    _lay_out(root, spec)
    (root / "hate_speech" / "README.md").write_text("readme\n", encoding="utf-8")
    loader = spec.loader

    def reads_more(ctx):
        from steb_core import read_text

        read_text(ctx.data_dir / "README.md")
        return loader(ctx)

    with pytest.raises(AssertionError, match=r"dataset 'hate_speech': its loader read hate_speech/README.md under"):
        check_declared_reads(dataclasses.replace(spec, loader=reads_more), root)
    with pytest.raises(ValueError, match="has no sources="):
        check_declared_reads(dataclasses.replace(spec, sources=()), root)


def test_a_read_from_a_worker_thread_is_seen(tmp_path):
    # recording_reads (steb_core._file_reads) sees only its own thread; a loader may read from a pool's workers
    from concurrent.futures import ThreadPoolExecutor

    from steb_core import read_text

    spec = next(s for s in SPECS if s.name == "hate_speech")
    root = tmp_path / "data"
    _lay_out(root, spec)
    (root / "hate_speech" / "notes.txt").write_text("notes\n", encoding="utf-8")

    def in_a_worker(ctx):
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(read_text, ctx.data_dir / "notes.txt").result()
            pool.submit(read_text, ctx.data_dir / "LICENSE").result()
        return spec.loader(ctx)

    with pytest.raises(AssertionError, match=r"read hate_speech/notes.txt under") as err:
        check_declared_reads(dataclasses.replace(spec, loader=in_a_worker), root)
    assert "LICENSE," not in str(err.value).split("which no source")[0]


def test_data_check_names_what_is_missing_not_the_obtain_text(tmp_path):
    # hate_speech: metadata and all_files/ there, sampled_test/ not: the check said "all_files/" (the obtain text)
    from steb_core._catalogue import check_dataset

    spec = next(s for s in SPECS if s.name == "hate_speech")
    root = tmp_path / "data"
    (root / "hate_speech" / "all_files").mkdir(parents=True)
    (root / "hate_speech" / "all_files" / "1_1.txt").write_text("a text\n", encoding="utf-8")
    (root / "hate_speech" / "annotations_metadata.csv").write_text(
        "file_id,user_id,subforum_id,num_contexts,label\n1_1,1,1,0,noHate\n", encoding="utf-8"
    )
    (root / "hate_speech" / "LICENSE").write_text("licence\n", encoding="utf-8")
    check = check_dataset(spec, root)
    assert check.status == "missing"
    assert f"missing folder {root / 'hate_speech' / 'sampled_test'}" in check.message, check.message
    assert "not there: hate_speech/sampled_test/*" in check.message, check.message
    assert "all_files/* " not in check.message.split("not there:")[1]


def test_data_check_matches_declared_entries_as_data_get_fetches_them(tmp_path):
    # one rule for get, check and the contract (steb_core.obtain.git.matches): a hub pattern's * crosses folders, as
    # the hub's allow-patterns do; a declared folder with no file in it was never fetched (git keeps no empty folder)
    from steb_core import DatasetSpec, DataSource
    from steb_core._catalogue import declared_absent

    source = DataSource("hf", "owner/name", files=("data/*.parquet", "texts", "README.md"))
    spec = DatasetSpec("declared_demo", "a test dataset", ("clustering",), lambda ctx: None, sources=(source,))
    folder = tmp_path / "declared_demo"
    (folder / "data" / "train").mkdir(parents=True)
    (folder / "data" / "train" / "part-0.parquet").write_bytes(b"PAR1")
    (folder / "texts").mkdir()
    assert declared_absent(spec, tmp_path) == ["declared_demo/texts", "declared_demo/README.md"]
    (folder / "texts" / "a.txt").write_text("a text\n", encoding="utf-8")
    assert declared_absent(spec, tmp_path) == ["declared_demo/README.md"]
