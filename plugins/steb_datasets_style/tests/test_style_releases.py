"""Pinned sources and BibTeX of the style datasets (issues 30, 26), and the paper's own releases for
retrieval (the STEB authors' subsample) and probing (StyleEmbeddingData, Kaggle blogtext.csv, STEB's
probing files), read from synthetic files written in the exact layouts of those releases."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from steb_core import DataValidationError, FeatureExtractorSpec, LoadContext, hookimpl, register_object
from steb_datasets_style.catalogue import all_specs
from steb_datasets_style.probing import STYLE_EMBEDDING_TEST, n_tokens
from steb_datasets_style.releases import CITATIONS, SOURCES

SPECS = {s.name: s for s in all_specs()}
#: datasets whose sources and citations catalogue.py owns (helper S1), not releases.py
INLINE = {"bible_versions", "ceeces", "blog_age", "blog_gender", "gede_essay_detection"} | {
    f"pastel_{a}" for a in ("age", "education", "ethnic", "gender", "politics", "tod")
}
RETRIEVAL_PROBING = (
    "amazon",
    "fanfiction",
    "reddit",
    "stackexchange_retrieval",
    "probing_amazon",
    "probing_blog",
    "probing_reddit",
    "probing_stackexchange",
)

_ENTRY = re.compile(r"@(\w+)\{([^,\s]+),(.*?)\n\}", re.S)


def fields(entry_body: str) -> dict[str, str]:
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r"^\s*(\w+)\s*=\s*(.+?),?\s*$", entry_body, re.M)}


def entries(bibtex: str) -> list[tuple[str, str, dict[str, str]]]:
    return [(m.group(1), m.group(2), fields(m.group(3))) for m in _ENTRY.finditer(bibtex)]


# ---- sources and citations ----------------------------------------------------------------------------
def test_releases_cover_every_dataset_not_owned_inline():
    want = sorted(set(SPECS) - INLINE)  # all_specs() is this plugin's catalogue
    assert len(want) == 44 and sorted(SOURCES) == want and sorted(CITATIONS) == want


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_source_is_pinned_and_every_citation_is_real_bibtex(name):
    sources = SOURCES[name]
    assert sources, name
    for src in sources:
        if src.kind == "git":
            assert re.fullmatch(r"[0-9a-f]{40}", src.revision), (name, src.revision)
            assert src.files and src.target, name
        if src.kind == "hf":  # a full hub commit where one could be found, else "" (listed as unpinned in the report)
            assert src.revision == "" or re.fullmatch(r"[0-9a-f]{40}", src.revision), (name, src.revision)
            assert src.files and "/" in src.url, name
        if src.kind == "manual":
            assert "ROOT" in src.instructions, (name, "say where to unpack")
        if src.accept:
            assert src.licence, name
    found = entries(CITATIONS[name])
    assert found, CITATIONS[name]
    for _kind, key, f in found:
        assert {"author", "title", "year"} <= set(f), (name, key, sorted(f))
        assert re.fullmatch(r"\{?\d{4}\}?", f["year"]), (name, key, f["year"])
        assert {"booktitle", "journal", "url", "doi", "howpublished", "publisher"} & set(f), (
            name,
            key,
            "no venue or URL",
        )
        assert "@misc{" not in CITATIONS[name] or "url" in f or "doi" in f, (name, key)


def test_one_key_per_work():
    """A key names one work everywhere: the same key never carries two different texts."""
    by_key: dict[str, str] = {}
    for text in CITATIONS.values():
        for m in _ENTRY.finditer(text):
            assert by_key.setdefault(m.group(2), m.group(0)) == m.group(0), m.group(2)
    assert CITATIONS["wikipedia_politeness"] == CITATIONS["stackexchange_politeness"]
    assert len({CITATIONS[n] for n in SOURCES if "MAGE" in n}) == 1


@pytest.mark.parametrize("name", RETRIEVAL_PROBING)
def test_retrieval_and_probing_specs_carry_them(name):
    spec = SPECS[name]
    assert spec.sources == SOURCES[name] and spec.citation == CITATIONS[name]
    assert spec.license and spec.license != "see release"


def test_git_sources_of_every_spec_have_full_commits():
    for spec in SPECS.values():
        for src in spec.sources:
            if src.kind == "git":
                assert re.fullmatch(r"[0-9a-f]{40}", src.revision), (spec.name, src.url)


# ---- helpers -------------------------------------------------------------------------------------------
def jl(path: Path, *objs) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")


def load(name: str, data_dir: Path, seed: int = 0, **options):
    return SPECS[name].loader(LoadContext(dataset=name, data_dir=data_dir, seed=seed, options=options))


class WordCount:
    feature_names = ["n_chars", "n_words"]

    def extract(self, texts):
        return np.array([[len(t), len(t.split())] for t in texts], dtype=float)


class WordCountPlugin:
    @hookimpl
    def register_feature_extractors(self, register):
        register(FeatureExtractorSpec(name="wc-probing", description="test stand-in", factory=lambda **kw: WordCount()))


@pytest.fixture()
def wc_extractor(monkeypatch, tmp_path):
    monkeypatch.setenv("STEB_CACHE_DIR", str(tmp_path / "cache"))
    unregister = register_object(WordCountPlugin(), "wc-probing-plugin")
    yield
    unregister()


def long_text(i: int, words: int = 40) -> str:
    return " ".join(f"w{i}x{j}" for j in range(words)) + "."


# ---- retrieval: the STEB authors' subsample -------------------------------------------------------------
def steb_release(folder: Path, n: int = 3) -> None:
    """download_datasets.sh unpacks amazon_retrieval.tar.gz into raw_datasets/amazon_retrieval/: JSON lines with
    text (a text or a list), label and is_query, read by STEB's default_retrieval_loader."""
    rows = []
    for i in range(n):
        rows.append({"text": [f"q{i} one", f"q{i} two"], "label": f"author{i}", "is_query": True})
        rows.append({"text": f"t{i} one", "label": f"author{i}", "is_query": False})
        rows.append({"text": [f"t{i} two", "  "], "label": f"author{i}", "is_query": False})
    jl(folder / "amazon_retrieval.jsonl", *rows)


@pytest.mark.parametrize("folder", ["amazon", "amazon_retrieval"])
def test_steb_retrieval_release_is_read_as_is(tmp_path, folder):
    steb_release(tmp_path / folder, n=600)
    b = load("amazon", tmp_path / "amazon")
    rs = b.retrieval
    assert len(rs.queries) == 600 and len(rs.targets) == 600  # no further subsample of the paper's draw
    q0 = next(q for q in rs.queries if q.author == "author0")
    t0 = next(t for t in rs.targets if t.author == "author0")
    assert q0.texts_ == ("q0 one", "q0 two") and t0.texts_ == ("t0 one", "t0 two")
    assert b.info["layout"] == "STEB release" and "paper's redistributed subsample" in b.info["subsample"]
    assert b.info["skipped_empty"] == 600
    capped = load("amazon", tmp_path / "amazon", authors=10)
    assert len(capped.retrieval.queries) == 10 and "on request" in capped.info["subsample"]


def test_luar_fallback_says_it_is_not_the_papers_draw(tmp_path):
    jl(tmp_path / "fanfiction" / "test_queries.jsonl", {"author_id": "a", "syms": ["x"]})
    jl(tmp_path / "fanfiction" / "test_targets.jsonl", {"author_id": "a", "syms": ["y"]})
    b = load("fanfiction", tmp_path / "fanfiction")
    assert b.info["layout"] == "LUAR" and "not the paper's draw" in b.info["subsample"]


@pytest.mark.parametrize(
    "row, needles",
    [
        ({"text": "x", "label": "a"}, ("line 2", "is_query")),
        ({"text": 3, "label": "a", "is_query": True}, ("line 2", "text", "list of texts")),
        ({"text": "x", "label": "a", "is_query": "maybe"}, ("line 2", "is_query", "true or false")),
    ],
)
def test_malformed_steb_release(tmp_path, row, needles):
    jl(tmp_path / "stackexchange_retrieval" / "part.jsonl", {"text": "ok", "label": "a", "is_query": True}, row)
    with pytest.raises(DataValidationError) as err:
        load("stackexchange_retrieval", tmp_path / "stackexchange_retrieval")
    assert all(n in str(err.value) for n in ("part.jsonl",) + needles), str(err.value)


# ---- issue 41, item 5: the STEB retrieval JSON lines, parsed strictly --------------------------------------------
def _raw_release(folder: Path, *lines: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "part.jsonl"
    ok = [
        json.dumps({"text": "query a", "label": "a", "is_query": True}),
        json.dumps({"text": "target a", "label": "a", "is_query": False}),
    ]
    path.write_text("\n".join(ok + list(lines)) + "\n", encoding="utf-8")
    return path


def test_steb_release_repeated_key_is_refused(tmp_path):
    """{"label": "auth0", ..., "label": "auth1"} filed the text under auth1 (Python keeps the last value)."""
    path = _raw_release(tmp_path / "amazon", '{"text": "q0", "label": "auth0", "is_query": true, "label": "auth1"}')
    with pytest.raises(DataValidationError) as err:
        load("amazon", tmp_path / "amazon")
    assert (err.value.path, err.value.record, err.value.field) == (str(path), "line 3", "label")
    assert "2 times" in str(err.value)


@pytest.mark.parametrize("value", ["1.0", "1", '"true"', "0", "null"])
def test_steb_release_is_query_must_be_a_json_boolean(tmp_path, value):
    """An is_query of 1.0 was taken for a target (the author's query dropped silently); "true" was guessed."""
    path = _raw_release(
        tmp_path / "amazon",
        f'{{"text": "q1", "label": "b", "is_query": {value}}}',
        '{"text": "t1", "label": "b", "is_query": false}',
    )
    with pytest.raises(DataValidationError) as err:
        load("amazon", tmp_path / "amazon")
    assert (err.value.path, err.value.record, err.value.field) == (str(path), "line 3", "is_query")
    assert "JSON boolean" in str(err.value)


@pytest.mark.parametrize("line", [1, 3])
def test_steb_release_nested_too_deeply_names_file_and_line(tmp_path, line):
    """JSON nested 200,000 deep raised RecursionError from inside the json module, naming nothing."""
    folder = tmp_path / "amazon"
    deep = '{"text": ' + "[" * 200_000 + "]" * 200_000 + ', "label": "c", "is_query": true}'
    if line == 1:
        folder.mkdir(parents=True)
        path = folder / "part.jsonl"
        path.write_text(deep + "\n", encoding="utf-8")
    else:
        path = _raw_release(folder, deep)
    with pytest.raises(DataValidationError) as err:
        load("amazon", folder)
    assert (err.value.path, err.value.record) == (str(path), f"line {line}") and "nested too deeply" in str(err.value)


def test_steb_release_file_linking_outside_the_release_is_refused(tmp_path):
    outside = tmp_path / "elsewhere" / "secret.jsonl"
    jl(
        outside,
        {"text": "not part of the release", "label": "z", "is_query": True},
        {"text": "x", "label": "z", "is_query": False},
    )
    folder = tmp_path / "root" / "amazon"
    _raw_release(folder)
    (folder / "more.jsonl").symlink_to(outside)
    with pytest.raises(DataValidationError) as err:
        load("amazon", folder)
    assert "more.jsonl" in str(err.value) and "outside the release folder" in str(err.value)
    (folder / "more.jsonl").unlink()
    inside = folder / "sub" / "inner.jsonl"
    jl(inside, {"text": "q2", "label": "d", "is_query": True}, {"text": "t2", "label": "d", "is_query": False})
    (folder / "more.jsonl").symlink_to(inside)  # a link that stays inside is followed
    assert len(load("amazon", folder).retrieval.queries) == 2


def test_steb_release_query_without_target(tmp_path):
    jl(
        tmp_path / "amazon" / "a.jsonl",
        {"text": "q", "label": "a", "is_query": True},
        {"text": "t", "label": "b", "is_query": False},
    )
    with pytest.raises(DataValidationError) as err:
        load("amazon", tmp_path / "amazon")
    assert "'a' has no target" in str(err.value)


# ---- probing: the paper's raw sources -----------------------------------------------------------------
def style_embedding_tsv(path: Path, anchors: list[str]) -> None:
    """The layout of AnnaWegmann/StyleEmbeddingData (and nlpsoc/Style-Embeddings' fixtures): tab-separated,
    an unnamed index column first, quoted cells that may hold newlines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = [
        "",
        "Anchor (A)",
        "Utterance 1 (U1)",
        "Utterance 2 (U2)",
        "Utterance ID A",
        "ID U1",
        "ID U2",
        "Author A",
        "Author U1",
        "Author U2",
        "Conversation ID A",
        "Conversation ID U1",
        "Conversation ID U2",
        "Subreddit A",
        "Subreddit U1",
        "Subreddit U2",
        "Same Author Label",
    ]
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(cols)
        for i, a in enumerate(anchors):
            w.writerow(
                [
                    i,
                    a,
                    "u1 text",
                    "u2 text",
                    f"id{i}",
                    "x",
                    "y",
                    f"auth{i}",
                    "b",
                    "c",
                    "conv",
                    "c1",
                    "c2",
                    "sub",
                    "sub",
                    "sub",
                    i % 2,
                ]
            )


def test_probing_reddit_from_style_embedding_data(tmp_path, wc_extractor):
    multi = "first line of a long comment\n" + long_text(99)
    anchors = [f"  {long_text(i)}  " for i in range(5)] + ["too short to probe", multi, long_text(0)]
    style_embedding_tsv(tmp_path / "StyleEmbeddingData" / STYLE_EMBEDDING_TEST, anchors)
    b = load("probing_reddit", tmp_path / "probing_reddit", feature_extractor="wc-probing")
    texts = {r.text for r in b.feature_texts}
    assert texts == {long_text(i) for i in range(5)} | {multi}  # stripped, short dropped, duplicate kept once
    assert (
        b.info["dropped_short"] == 1
        and b.info["min_tokens"] == 32
        and b.info["source"] == "AnnaWegmann/StyleEmbeddingData"
    )
    every = load("probing_reddit", tmp_path / "probing_reddit", feature_extractor="wc-probing", min_tokens=0)
    assert "too short to probe" in {r.text for r in every.feature_texts}


def test_token_count_is_words_and_punctuation():
    # Hello , world ! It ' s 3 . 5 o ' clock
    assert n_tokens("Hello, world! It's 3.5 o'clock") == 13


def test_probing_reddit_names_the_missing_file(tmp_path, wc_extractor):
    with pytest.raises(Exception) as err:
        load("probing_reddit", tmp_path / "probing_reddit", feature_extractor="wc-probing")
    assert STYLE_EMBEDDING_TEST in str(err.value) and "Obtain it" in str(err.value)


def test_probing_blog_from_kaggle_blogtext(tmp_path, wc_extractor):
    path = tmp_path / "blogs" / "blogtext.csv"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "gender", "age", "topic", "sign", "date", "text"])
        for i in range(4):
            w.writerow([1000 + i, "male", 15, "Student", "Leo", "14,May,2004", f"       {long_text(i)}       "])
        w.writerow([2000, "female", 33, "Arts", "Aries", "01,June,2004", "short"])
    b = load("probing_blog", tmp_path / "probing_blog", feature_extractor="wc-probing")
    assert sorted(r.text for r in b.feature_texts) == sorted(long_text(i) for i in range(4))
    assert b.info["source"] == "Kaggle rtatman/blog-authorship-corpus" and b.info["dropped_short"] == 1


def test_steb_probing_file_is_preferred(tmp_path, wc_extractor):
    # download_datasets.sh puts the unified files in raw_datasets/probing/<corpus>.jsonl: text plus the paper's bins
    jl(
        tmp_path / "probing" / "stackexchange.jsonl",
        *[{"text": f"post {i}", "n_word": 2, "label": [0, 1], "split": ["train", None]} for i in range(3)],
    )
    jl(tmp_path / "stackexchange_retrieval" / "test_queries.jsonl", {"author_id": "a", "syms": ["not read"]})
    b = load("probing_stackexchange", tmp_path / "probing_stackexchange", feature_extractor="wc-probing")
    assert sorted(r.text for r in b.feature_texts) == ["post 0", "post 1", "post 2"]
    assert b.info["source"] == "STEB probing release"


def test_probing_amazon_reads_the_steb_retrieval_release(tmp_path, wc_extractor):
    steb_release(tmp_path / "amazon_retrieval", n=2)
    b = load("probing_amazon", tmp_path / "probing_amazon", feature_extractor="wc-probing")
    assert sorted(r.text for r in b.feature_texts) == sorted(
        ["q0 one", "q0 two", "t0 one", "t0 two", "q1 one", "q1 two", "t1 one", "t1 two"]
    )


def test_every_spec_has_a_source():
    assert not [n for n, s in SPECS.items() if not s.sources]


def test_every_spec_cites_real_bibtex():
    for name, spec in SPECS.items():
        found = entries(spec.citation)
        assert found and all({"author", "title", "year"} <= set(f) for _, _, f in found), name


def test_git_sources_name_exactly_the_files_the_readers_read():
    """Issue 39: a git source fetches only its files=; DetectRL's must be the test file of every setting the reader
    knows, PASTEL's the v2 archive it unpacks, the Bible's the eight version folders."""
    from steb_datasets_style import catalogue, releases
    from steb_datasets_style.readers import CARLSON_VERSIONS, DETECTRL_FILES

    (detectrl,) = releases.SOURCES["machine_text_detection_DetectRL_arxiv"]
    assert set(detectrl.files) == {
        f"Benchmark/Benchmark_Data/{folder}/{stem}_test.json" for folder, stem in DETECTRL_FILES.values()
    }
    assert catalogue.PASTEL_SOURCES[0].files == ("data/data_v2.zip",) == catalogue.PASTEL_SOURCES[0].unpack
    assert catalogue.BIBLE_SOURCES[0].files == tuple(f"Data/Bibles/{v}" for v in CARLSON_VERSIONS)
    (m4,) = releases.SOURCES["machine_text_detection_M4_arxiv"]
    assert m4.files and not any("bloomz" in f for f in m4.files)
    assert {f.split("/")[1].split("_")[0] for f in m4.files} == {"arxiv", "peerread", "reddit", "wikihow", "wikipedia"}
