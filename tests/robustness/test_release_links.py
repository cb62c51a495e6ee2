"""Issue 41 (reads outside the release): every file a loader opens passes one containment check.

Issue 29 checked the files loaders find by listing a folder (``tests/robustness/test_symlinks.py``);
these are the reads it left: fixed-name files (PAN18 ``collection-info.json``, ``problem-info.json``,
``ground-truth.json``), Enron-Spam's mails, the Twitter AAE/SAE files and archive, and a hub
``save_to_disk`` folder. The check is made by the core for every loader call
(:func:`steb_core._io.release_scope`, entered by :class:`steb_core.DatasetSpec`'s loader), so a loader
reading through ``steb_core``'s readers cannot forget it; the last test makes sure the dataset plugins
of this repository open no file another way.

Each case builds a small release in ``tmp_path/data``, puts the "secret" beside it in ``tmp_path/secret``
and links a release file to it: the load must fail naming the link and where it leads, and never return
the secret. A link that stays inside the release is followed.
"""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import pytest

from steb_core import DataValidationError, LoadContext
from steb_datasets_pan.catalogue import pan_datasets
from steb_datasets_parallel.plugin import parallel_specs
from steb_datasets_style.catalogue import labelled_corpora

from .links import SECRET, assert_link_refused, pan18_release
from .links import relink as _relink
from .links import write_file as _write

SPECS = {s.name: s for s in [*pan_datasets(), *parallel_specs(), *(c.spec() for c in labelled_corpora())]}
REPO = Path(__file__).resolve().parents[2]


def load(name: str, data: Path, **options):
    """The dataset as the runner loads it: through the spec's loader, data folder resolved from the data root."""
    return SPECS[name].loader(LoadContext(name, LoadContext.resolve_data_dir(name, data), options=options))


def _refused(name: str, data: Path, link: Path, **options) -> None:
    assert_link_refused(lambda: load(name, data, **options), link)


# -- PAN18 attribution: the fixed-name info and truth files (the README listed them as a gap) ----------------------


def _pan18(data: Path) -> Path:
    return pan18_release(data)


PAN18 = "pan18_cross_domain_authorship_attribution_english"


@pytest.mark.parametrize(
    "relative", ["collection-info.json", "problem00001/problem-info.json", "problem00001/ground-truth.json"]
)
def test_pan18_info_and_truth_files_linking_outside_are_refused(tmp_path: Path, relative: str) -> None:
    root = _pan18(tmp_path / "data")
    link = root / relative
    outside = _write(tmp_path / "secret" / link.name, link.read_text(encoding="utf-8"))
    _relink(link, outside)
    _refused(PAN18, tmp_path / "data", link)


def test_pan18_truth_file_linking_inside_is_followed(tmp_path: Path) -> None:
    root = _pan18(tmp_path / "data")
    truth = (root / "problem00001" / "ground-truth.json").read_text(encoding="utf-8")
    kept = _write(root / "kept" / "truth.json", truth)
    _relink(root / "problem00001" / "ground-truth.json", kept)
    assert [q.texts_ for q in load(PAN18, tmp_path / "data").retrieval.queries] == [("Asked about.",)]


# -- Enron-Spam: enron1..6/{ham,spam}/*.txt ----------------------------------------------------------------------


def _enron_spam(data: Path) -> Path:
    folder = data / "enron_spam" / "enron1"
    _write(folder / "ham" / "0001.1999-12-10.farmer.ham.txt", "Subject: meeting\nsee you at ten")
    _write(folder / "spam" / "0006.2003-12-18.GP.spam.txt", "Subject: cheap meds\nbuy now")
    return folder


def test_enron_spam_mail_linking_outside_is_refused(tmp_path: Path) -> None:
    folder = _enron_spam(tmp_path / "data")
    secret = _write(tmp_path / "secret" / "mail.txt", SECRET)
    link = folder / "spam" / "0007.2003-12-18.GP.spam.txt"
    link.symlink_to(secret)
    _refused("enron_spam", tmp_path / "data", link, per_class="all")


def test_enron_spam_mail_linking_inside_is_followed(tmp_path: Path) -> None:
    folder = _enron_spam(tmp_path / "data")
    (folder / "spam" / "0007.copy.spam.txt").symlink_to(folder / "ham" / "0001.1999-12-10.farmer.ham.txt")
    bundle = load("enron_spam", tmp_path / "data", per_class="all")
    ham = "Subject: meeting\nsee you at ten"
    assert sorted(r.text for r in bundle.labelled_texts) == ["Subject: cheap meds\nbuy now", ham, ham]


# -- Twitter AAE/SAE: two line-aligned files, or the EMNLP supplementary zip -----------------------------------------


def _lines(prefix: str) -> str:
    return "".join(f"{prefix} {i}\n" for i in range(5))


def test_twitter_aae_file_linking_outside_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "twitter_aave_sae"
    _write(folder / "sae_samples.txt", _lines("sae"))
    link = folder / "aave_samples.txt"
    link.symlink_to(_write(tmp_path / "secret" / "aave_samples.txt", "".join(f"{SECRET} {i}\n" for i in range(5))))
    _refused("twitter_aave_sae", tmp_path / "data", link)


def test_twitter_aae_archive_linking_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret" / "supplement.zip"
    outside.parent.mkdir(parents=True)
    with zipfile.ZipFile(outside, "w") as archive:
        archive.writestr("EMNLP-AAVE-files/aave_samples.txt", "".join(f"{SECRET} {i}\n" for i in range(5)))
        archive.writestr("EMNLP-AAVE-files/sae_samples.txt", _lines("sae"))
    link = tmp_path / "data" / "twitter_aave_sae" / "2020.emnlp-main.473.OptionalSupplementaryMaterial.zip"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    _refused("twitter_aave_sae", tmp_path / "data", link)


def test_twitter_aae_file_linking_inside_is_followed(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "twitter_aave_sae"
    _write(folder / "sae_samples.txt", _lines("sae"))
    (folder / "aave_samples.txt").symlink_to(_write(folder / "kept" / "aae.txt", _lines("aae")))
    assert load("twitter_aave_sae", tmp_path / "data", per_class="all").info["pairs"] == 5


# -- a Hugging Face save_to_disk folder (SynthSTEL) ----------------------------------------------------------------


def _synthstel_rows(word: str) -> dict[str, list[str]]:
    return {
        "positive": [f"FORMAL {word} {i}" for i in range(4)],
        "negative": [f"informal {word} {i}" for i in range(4)],
        "feature": ["Formal / Informal"] * 4,
        "feature_clean": ["Formal / Informal"] * 4,
    }


def test_hub_save_to_disk_arrow_file_linking_outside_is_refused(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    release = tmp_path / "data" / "SynthSTEL"
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(_synthstel_rows("mine"))}).save_to_disk(str(release))
    outside = datasets.DatasetDict({"train": datasets.Dataset.from_dict(_synthstel_rows(SECRET))})
    outside.save_to_disk(str(tmp_path / "secret"))
    arrow = sorted((release / "train").glob("*.arrow"))
    assert len(arrow) == 1
    link = arrow[0]
    _relink(link, tmp_path / "secret" / "train" / link.name)
    with pytest.raises(DataValidationError, match="outside the release folder") as err:
        load("SynthSTEL_register", tmp_path / "data")
    assert str(link) in str(err.value) and SECRET not in str(err.value)


# -- StyleTransferBibleData: chapter files found by listing the book folders ---------------------------------------


def _bible(data: Path) -> Path:
    book = data / "bible_versions" / "Data" / "Bibles" / "KJV" / "Acts"
    _write(book / "Acts1.txt", "1 Inside the release.\n")
    _write(book / "Acts2.txt", "1 Also inside.\n")
    return book


def test_bible_chapter_file_linking_outside_is_refused(tmp_path: Path) -> None:
    book = _bible(tmp_path / "data")
    _relink(book / "Acts2.txt", _write(tmp_path / "secret" / "Acts2.txt", f"1 {SECRET}\n"))
    _refused("bible_versions", tmp_path / "data", book / "Acts2.txt")


def test_bible_book_folder_linking_outside_is_refused(tmp_path: Path) -> None:
    book = _bible(tmp_path / "data")
    for chapter in book.iterdir():
        chapter.unlink()
    book.rmdir()
    book.symlink_to(_write(tmp_path / "secret" / "Acts" / "Acts1.txt", f"1 {SECRET}\n").parent)
    _refused("bible_versions", tmp_path / "data", book / "Acts1.txt")


def test_bible_chapter_file_linking_inside_is_followed(tmp_path: Path) -> None:
    book = _bible(tmp_path / "data")
    _relink(book / "Acts2.txt", _write(tmp_path / "data" / "bible_versions" / "kept" / "Acts2.txt", "1 Kept.\n"))
    records = load("bible_versions", tmp_path / "data", per_class="all").labelled_texts
    assert [r.text for r in records] == ["Inside the release.", "Kept."]


# -- no loader of this repository opens a file around the check ----------------------------------------------------

#: calls that open or map a file by name: the builtin ``open`` and these methods (``Path.read_bytes``,
#: ``zipfile.ZipFile``, ``sqlite3.connect``, ``pyarrow.parquet.read_table``, ``np.load``, ``ET.parse`` ...). Loaders
#: read through steb_core's
#: readers (read_text, read_bytes, open_release, read_table, load_hub_split, ...), which apply the containment check,
#: or pass the path through ``steb_core._io.release_file`` first (on the same line).
_RAW_METHODS = {
    "open",
    "read_bytes",
    "read_text",
    "ZipFile",
    "TarFile",
    "connect",
    "read_parquet",
    "read_csv",
    "read_json",
    "load",
    "fromfile",
    "parse",
    "iterparse",
    "memory_map",
    "read_table",
}
#: modules whose functions of those names parse text already read (``json.load`` is never given a path here)
_PARSERS = {"json", "codecs", "pickle"}
#: reads of files that are not part of a release: (file, method) -> why
_NOT_RELEASE_READS = {
    ("plugins/steb_datasets_style/steb_datasets_style/probing.py", "load"): "FeatureCache: steb's own cache",
}
#: the dataset plugins of this repository that the scan must at least find (a floor for the discovery below)
_KNOWN_LOADER_PACKAGES = {
    "steb_datasets_pan",
    "plugins/steb_datasets_parallel/steb_datasets_parallel",
    "plugins/steb_datasets_stel/steb_datasets_stel",
    "plugins/steb_datasets_style/steb_datasets_style",
    "examples/steb_datasets_example/steb_datasets_example",
}


def _dataset_plugin_packages() -> list[Path]:
    """Every package of every plugin distribution in the repository (a folder with its own pyproject.toml)
    whose code implements ``register_datasets``: found, not listed, so a new dataset plugin is scanned too."""
    out = []
    for project in sorted([*REPO.glob("*/pyproject.toml"), *REPO.glob("*/*/pyproject.toml")]):
        home = project.parent
        if any(part.startswith(".") for part in home.relative_to(REPO).parts):
            continue
        for init in sorted(home.rglob("__init__.py")):
            package = init.parent
            if package.parent not in (home, home.parent) or "tests" in package.relative_to(home).parts:
                continue
            if any("def register_datasets" in p.read_text(encoding="utf-8") for p in package.rglob("*.py")):
                out.append(package)
    return sorted(set(out))


def _raw_opens(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            raw = func.id == "open"
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else ""
            raw = func.attr in _RAW_METHODS and owner not in _PARSERS
        else:
            raw = False
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if (str(path.relative_to(REPO)), name) in _NOT_RELEASE_READS:
            continue
        if raw and "release_file(" not in lines[node.lineno - 1]:
            found.append(f"{path.relative_to(REPO)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def test_dataset_plugins_open_files_only_through_checked_readers() -> None:
    packages = _dataset_plugin_packages()
    found = {p.relative_to(REPO).as_posix() for p in packages}
    assert _KNOWN_LOADER_PACKAGES <= found, f"the scan missed {_KNOWN_LOADER_PACKAGES - found}"
    sources = [
        path
        for package in packages
        for path in sorted(package.rglob("*.py"))
        if "tests" not in path.relative_to(package).parts
    ]
    offenders = [hit for path in sources for hit in _raw_opens(path)]
    assert not offenders, "files opened around steb_core's containment check:\n" + "\n".join(offenders)


# -- issue 47: the scope reaches a loader's worker threads ------------------------------------------------------


def _threaded_spec():
    """A loader that reads its files through steb_core._io from a ThreadPoolExecutor, as a fast loader might."""
    from concurrent.futures import ThreadPoolExecutor

    from steb_core import DatasetSpec, read_text
    from steb_core._records import DatasetBundle, LabelledText

    def load(ctx):
        files = sorted(Path(ctx.data_dir).glob("*.txt"))
        with ThreadPoolExecutor(max_workers=2) as pool:
            texts = list(pool.map(read_text, files))
        return DatasetBundle(labelled_texts=[LabelledText(t, f.stem) for t, f in zip(texts, files)])

    return DatasetSpec(name="threaded", description="reads in worker threads", tasks=("clustering",), loader=load)


def test_a_loader_reading_from_worker_threads_is_held_to_its_release(tmp_path: Path) -> None:
    release = tmp_path / "data" / "threaded"
    _write(release / "a.txt", "inside the release")
    link = release / "b.txt"
    _write(link, "placeholder")
    _relink(link, _write(tmp_path / "secret" / "b.txt", SECRET))
    spec = _threaded_spec()
    assert_link_refused(lambda: spec.loader(LoadContext("threaded", release)), link)


def test_a_loader_reading_from_worker_threads_follows_links_inside(tmp_path: Path) -> None:
    release = tmp_path / "data" / "threaded"
    _write(release / "kept" / "b.txt", "kept inside")
    _write(release / "a.txt", "inside the release")
    (release / "b.txt").symlink_to(release / "kept" / "b.txt")
    bundle = _threaded_spec().loader(LoadContext("threaded", release))
    assert [t.text for t in bundle.labelled_texts] == ["inside the release", "kept inside"]


def test_the_scope_is_withdrawn_from_other_threads_when_the_load_ends(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from steb_core import read_text
    from steb_core._containment import release_scope

    release = tmp_path / "data" / "r"
    link = release / "x.txt"
    _write(link, "placeholder")
    _relink(link, _write(tmp_path / "secret" / "x.txt", SECRET))
    with ThreadPoolExecutor(max_workers=1) as pool:
        with release_scope(tmp_path / "data"):
            with pytest.raises(DataValidationError):
                pool.submit(read_text, link).result()
        assert pool.submit(read_text, link).result() == SECRET  # no load in progress: not judged
