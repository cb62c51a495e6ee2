"""tfidf-ngrams: blocks against scikit-learn's TfidfVectorizer (configured as STEB's reference code and as
steb 0.1), hand-computed values, save/load (old and new format, bad files), settings and fingerprints, CLI."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from steb_models_stylometry.spacy_pipeline import DEFAULT_SPACY_MODEL
from steb_models_stylometry.tfidf import (
    SHIPPED_VECTORISERS,
    TOKEN_PATTERN,
    TfidfNgramsEncoder,
    TfidfVectoriser,
    analyzer,
    block_settings,
    fit_vectoriser,
)

# newlines and double spaces give spaCy SPACE tokens; "etc." and "la vie en rose" are tagged X;
# "I", "a", "n't" and punctuation are dropped by the reference's token pattern
CORPUS = [
    "The cat sat on the mat.",
    "The dog sat on the log!",
    "A cat and a dog, sitting together.",
    "I don't think the cat likes the dog.",
    "THE CAT SAT. THE DOG SAT.",
    "the cat, the dog, the mat, the log",
    "Cats, dogs, mats etc. are  here\n\nand there.",
    "She sang la vie en rose, etc.\nThe end.",
]
PROBE = [
    "The cat sat with the dog.",
    "",
    "   ",
    "😀 café",
    "cat cat cat cat",
    "Dogs and cats  etc.\n\nla vie",
    "I a ! ?",
]


@pytest.fixture(scope="module")
def nlp():
    """spaCy loaded directly (not through steb's SpacyPipeline), as the reference code loads it."""
    import spacy

    return spacy.load(DEFAULT_SPACY_MODEL, disable=["ner", "textcat"])


def reference_inputs(nlp, texts):
    """STEB's ``_prepare_representations``: raw text, lower-cased token texts, POS tags of all tokens."""
    docs = list(nlp.pipe(texts))
    return list(texts), [" ".join(t.text.lower() for t in d) for d in docs], [" ".join(t.pos_ for t in d) for d in docs]


def reference_vectorizers(ranges, max_features=2000):
    """STEB's ``_fit_vectorizers``: three TfidfVectorizers, lower-cased, min_df 1, l2, at most 2,000 terms."""
    common = dict(lowercase=True, min_df=1, norm="l2", max_features=max_features)
    return (
        TfidfVectorizer(analyzer="char", ngram_range=ranges[0], **common),
        TfidfVectorizer(analyzer="word", ngram_range=ranges[1], **common),
        TfidfVectorizer(analyzer="word", ngram_range=ranges[2], **common),
    )


@pytest.mark.parametrize(
    "name, blocks, ranges, max_features",
    [
        ("tfidf-ngrams", ("char_3_5", "token_1_2", "pos_1_2"), ((3, 5), (1, 2), (1, 2)), None),
        ("tfidf-ngrams-13", ("char_3_5", "token_1_3", "pos_1_3"), ((3, 5), (1, 3), (1, 3)), None),
        ("tfidf-ngrams", ("char_3_5", "token_1_2", "pos_1_2"), ((3, 5), (1, 2), (1, 2)), 25),  # ranking and ties
    ],
)
def test_steb_settings_match_reference_vectorizers(nlp, tmp_path, name, blocks, ranges, max_features):
    limits = {b: max_features for b in blocks} if max_features else None
    path = fit_vectoriser(CORPUS, blocks, max_features=limits).save(tmp_path / "vec")
    refs = reference_vectorizers(ranges, max_features or 2000)
    fit_inputs, probe_inputs = reference_inputs(nlp, CORPUS), reference_inputs(nlp, PROBE)
    for ref, docs in zip(refs, fit_inputs):
        ref.fit(docs)
    vec = TfidfVectoriser.load(path)
    assert vec.settings == "steb"
    for block, ref in zip(blocks, refs):
        assert vec.blocks[block].vocabulary == sorted(ref.vocabulary_, key=ref.vocabulary_.get), block
    enc = TfidfNgramsEncoder(name=name, vectoriser=path)
    expected = np.hstack([ref.transform(docs).toarray() for ref, docs in zip(refs, probe_inputs)])
    np.testing.assert_allclose(enc.encode(PROBE).toarray(), expected, rtol=1e-5, atol=1e-6)
    if max_features is None:
        pos_vocab, tok_vocab = vec.blocks[blocks[2]].vocabulary, vec.blocks[blocks[1]].vocabulary
        # the cases the reference's settings decide are present in the data, so this test can tell them apart
        assert "space" in pos_vocab and "x" not in pos_vocab and "X" not in pos_vocab
        assert "the" in tok_vocab and not {"i", "a", "n't", ".", ","} & set(tok_vocab)
        assert "the" in vec.blocks["char_3_5"].vocabulary and "THE" not in vec.blocks["char_3_5"].vocabulary


@pytest.mark.parametrize(
    "block, reference",
    [
        ("char_3_5", dict(analyzer=analyzer("char", (3, 5), block_settings("steb-0.1", "char_3_5")))),
        ("token_1_2", dict(lowercase=True, token_pattern=TOKEN_PATTERN, ngram_range=(1, 2))),
    ],
)
def test_steb01_block_matches_sklearn_tfidf(block, reference):
    vec = fit_vectoriser(CORPUS, [block], settings="steb-0.1")
    ref = TfidfVectorizer(min_df=2, sublinear_tf=True, smooth_idf=True, norm="l2", max_features=10000, **reference).fit(
        CORPUS
    )
    ours = vec.blocks[block]
    assert ours.vocabulary == sorted(ref.vocabulary_, key=ref.vocabulary_.get)
    np.testing.assert_allclose(ours.transform(PROBE).toarray(), ref.transform(PROBE).toarray(), rtol=1e-5, atol=1e-6)


def test_steb01_char_analyzer_keeps_case_and_steb_lowercases():
    text = "AbC  dE"
    assert analyzer("char", (3, 3), block_settings("steb-0.1", "char_3_5"))(text) == ["AbC", "bC ", "C d", " dE"]
    assert analyzer("char", (3, 3), block_settings("steb", "char_3_5"))(text) == ["abc", "bc ", "c d", " de"]


def test_hand_computed_token_blocks():
    texts = ["cat dog", "cat", "dog fish"]
    # steb-0.1 (min_df 2): 'cat' and 'dog' (df 2 of 3, idf ln(4/3) + 1); tf = 1 + ln(count)
    block = fit_vectoriser(texts, ["token_1_2"], settings="steb-0.1").blocks["token_1_2"]
    assert block.vocabulary == ["cat", "dog"]
    np.testing.assert_allclose(block.idf, [np.log(4 / 3) + 1] * 2, rtol=1e-6)
    row = block.transform(["cat cat dog"]).toarray()[0]
    expected = np.array([1 + np.log(2), 1.0])
    np.testing.assert_allclose(row, expected / np.linalg.norm(expected), rtol=1e-6)
    # steb (min_df 1, plain tf), on the spaCy-token strings: every uni- and bigram is kept
    block = fit_vectoriser(texts, ["token_1_2"]).blocks["token_1_2"]
    assert block.vocabulary == ["cat", "cat dog", "dog", "dog fish", "fish"]
    idf = np.log(4 / np.array([3, 2, 3, 2, 2])) + 1
    np.testing.assert_allclose(block.idf, idf, rtol=1e-6)
    row = block.transform(["cat cat dog"]).toarray()[0]  # cat 2, cat dog 1, dog 1 ("cat cat" is unknown)
    expected = np.array([2, 1, 1, 0, 0]) * idf
    np.testing.assert_allclose(row, expected / np.linalg.norm(expected), rtol=1e-6)


def test_save_load_roundtrip_and_encoder(tmp_path):
    vec = fit_vectoriser(CORPUS, ["char_3_5", "token_1_2"], corpus="test corpus")
    path = vec.save(tmp_path / "tfidf")
    manifest = json.loads((path / "manifest.json").read_text())
    assert (
        manifest["format"] == "steb-tfidf/2" and manifest["corpus"] == "test corpus" and manifest["settings"] == "steb"
    )
    loaded = TfidfVectoriser.load(path)
    for name, block in vec.blocks.items():
        assert loaded.blocks[name].settings == block.settings == block_settings("steb", name)
        # IDF weights are stored with 6 decimals
        np.testing.assert_allclose(
            loaded.blocks[name].transform(PROBE).toarray(), block.transform(PROBE).toarray(), rtol=1e-5, atol=1e-7
        )
    enc = TfidfNgramsEncoder(name="tfidf-ngrams-nopos", vectoriser=path)
    X = enc.encode(PROBE).toarray()
    assert X.dtype == np.float32 and X.shape == (len(PROBE), enc.dim) and np.isfinite(X).all()
    # each non-empty block is unit length: norms^2 = number of non-zero blocks
    assert np.sum(X[0] ** 2) == pytest.approx(2.0, rel=1e-5)
    assert not X[1].any() and not X[2].any()
    np.testing.assert_allclose(enc.cosine(PROBE[:1], PROBE[:1]), [1.0], rtol=1e-5)
    assert enc.fingerprint() != TfidfNgramsEncoder(name="tfidf-ngrams-nopos").fingerprint()
    with pytest.raises(ValueError, match="fitted with settings 'steb'"):
        TfidfNgramsEncoder(name="tfidf-ngrams-nopos", vectoriser=path, settings="steb-0.1")


def _write_v1(folder, name, vocabulary, idf):
    """A vectoriser folder as steb 0.1 wrote it: format steb-tfidf/1, no settings."""
    folder.mkdir()
    block = {
        "format": "steb-tfidf/1",
        "name": name,
        "kind": "token",
        "ngram_range": [1, 2],
        "vocabulary": vocabulary,
        "idf": idf,
    }
    (folder / f"{name}.json.gz").write_bytes(gzip.compress(json.dumps(block).encode()))
    manifest = {"format": "steb-tfidf/1", "blocks": {name: f"{name}.json.gz"}, "corpus": "old", "n_docs": 3}
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_old_format_reads_as_steb01(tmp_path):
    _write_v1(tmp_path / "old", "token_1_2", ["cat", "dog"], [1.5, 2.0])
    vec = TfidfVectoriser.load(tmp_path / "old")
    block = vec.blocks["token_1_2"]
    assert vec.settings == "steb-0.1" and block.settings == block_settings("steb-0.1", "token_1_2")
    row = block.transform(["Cat cat dog"]).toarray()[0]  # steb-0.1: lower-cased regex tokens, 1 + ln(count)
    expected = np.array([(1 + np.log(2)) * 1.5, 2.0])
    np.testing.assert_allclose(row, expected / np.linalg.norm(expected), rtol=1e-6)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda b, m: b["settings"].update(source="python"), "source"),
        (lambda b, m: b["settings"].update(token_pattern="(a+)+$"), "token_pattern"),
        (lambda b, m: b["settings"].update(min_df="2"), "min_df"),
        (lambda b, m: b["settings"].pop("lowercase"), "lowercase"),
        (lambda b, m: b.update(idf=["x"] * len(b["idf"])), "idf"),
        (lambda b, m: b.update(format="steb-tfidf/9"), "format"),
        (lambda b, m: m["blocks"].update(token_1_2="../token_1_2.json.gz"), "plain file name"),
        (lambda b, m: m.update(settings="fast"), "settings"),
    ],
)
def test_bad_vectoriser_files_are_rejected(tmp_path, change, message):
    path = fit_vectoriser(["cat dog", "dog"], ["token_1_2"]).save(tmp_path / "vec")
    block = json.loads(gzip.decompress((path / "token_1_2.json.gz").read_bytes()))
    manifest = json.loads((path / "manifest.json").read_text())
    change(block, manifest)
    (path / "token_1_2.json.gz").write_bytes(gzip.compress(json.dumps(block).encode()))
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=message):
        TfidfVectoriser.load(path)


def test_settings_choose_the_shipped_vectoriser_and_the_fingerprint():
    steb = TfidfNgramsEncoder(name="tfidf-ngrams")
    old = TfidfNgramsEncoder(name="tfidf-ngrams", settings="steb-0.1")
    named = TfidfNgramsEncoder(name="tfidf-ngrams-steb01")
    assert (
        steb.vectoriser_path == SHIPPED_VECTORISERS["steb"] and old.vectoriser_path == SHIPPED_VECTORISERS["steb-0.1"]
    )
    assert steb.vectoriser.settings == "steb" and named.vectoriser.settings == old.vectoriser.settings == "steb-0.1"
    assert len({steb.fingerprint(), old.fingerprint(), named.fingerprint()}) == 3  # the name is part of it too
    assert steb.info()["settings"] == "steb" and old.info()["settings"] == "steb-0.1"
    assert [len(b.vocabulary) for b in steb.vectoriser.blocks.values()][:2] == [2000, 2000]
    with pytest.raises(ValueError, match="fitted with settings 'steb'"):
        TfidfNgramsEncoder(name="tfidf-ngrams-steb01", vectoriser=SHIPPED_VECTORISERS["steb"])
    with pytest.raises(ValueError, match="unknown TF-IDF settings"):
        TfidfNgramsEncoder(settings="paper")


def test_missing_block_is_reported(tmp_path):
    path = fit_vectoriser(CORPUS, ["char_3_5"]).save(tmp_path / "vec")
    with pytest.raises(ValueError, match="pos_1_2"):
        TfidfNgramsEncoder(name="tfidf-ngrams", vectoriser=path)


@pytest.mark.parametrize("settings", ["steb", "steb-0.1"])
def test_default_vectoriser_with_pos_and_long_text(settings):
    enc = TfidfNgramsEncoder(settings=settings)  # shipped, char + token + POS 1-2
    long = ("The quick brown fox, they said, doesn't jump over 12 lazy dogs. " * 1600)[:100_000]
    X = enc.encode(["", "   ", "😀🔥", long, "Hello there!"]).toarray()
    assert np.isfinite(X).all() and not X[0].any()
    assert np.sum(X[3] ** 2) == pytest.approx(3.0, rel=1e-4)
    assert enc.info()["blocks"] == ["char_3_5", "token_1_2", "pos_1_2"]


def test_fit_tfidf_command(tmp_path):
    import typer
    from typer.testing import CliRunner

    from steb_models_stylometry.cli import add_commands

    app = typer.Typer()
    add_commands(app)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing the app into one command
        pass

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(t.replace("\n", " ") for t in CORPUS) + "\n", encoding="utf-8")
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text('{"text": "The cat sat."}\n{"text": "The dog sat."}\n', encoding="utf-8")
    for settings in ("steb", "steb-0.1"):
        out = tmp_path / f"vec-{settings}"
        args = [
            "fit-tfidf",
            "--corpus",
            str(corpus),
            "--corpus",
            str(jsonl),
            "--out",
            str(out),
            "--block",
            "token_1_2",
            "--settings",
            settings,
        ]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        loaded = TfidfVectoriser.load(out)
        assert list(loaded.blocks) == ["token_1_2"] and loaded.n_docs == len(CORPUS) + 2 and loaded.settings == settings
        assert loaded.blocks["token_1_2"].settings == block_settings(settings, "token_1_2")
    result = CliRunner().invoke(
        app, ["fit-tfidf", "--corpus", str(corpus), "--out", str(tmp_path / "v3"), "--settings", "paper"]
    )
    assert result.exit_code != 0 and "steb-0.1" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"txt": "x"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["fit-tfidf", "--corpus", str(bad), "--out", str(tmp_path / "v2")])
    assert result.exit_code != 0 and "text" in str(result.exception)


@pytest.mark.parametrize("settings", ["steb", "steb-0.1"])
def test_parallel_transform_equals_serial(settings):
    from steb_models_stylometry.corpus import generated_texts

    texts = generated_texts(1000, seed=7, min_words=5, max_words=20)
    serial = TfidfNgramsEncoder(name="tfidf-ngrams-nopos", settings=settings).transform(texts)
    parallel = TfidfNgramsEncoder(name="tfidf-ngrams-nopos", settings=settings, n_jobs=2).transform(texts)
    assert serial.nnz > 0 and (serial != parallel).nnz == 0


def test_generated_texts_are_seeded_and_in_range():
    from steb_models_stylometry.corpus import generated_texts

    a = generated_texts(50, seed=3)
    assert a == generated_texts(50, seed=3) and a != generated_texts(50, seed=4)
    assert all(50 <= len(t.split()) <= 300 for t in a)


@pytest.mark.parametrize("settings", ["steb", "steb-0.1"])
def test_hashed_char_counts_equal_string_counts(settings):
    from steb_models_stylometry.corpus import generated_texts

    block = TfidfVectoriser.load(SHIPPED_VECTORISERS[settings], ["char_3_5"]).blocks["char_3_5"]
    texts = generated_texts(30, seed=11) + ["😀 café   naïve\n\n x 𝔘𝔫𝔦", "", "ab", "   ", "The the THE", "İSTANBUL"]
    counts = block._char_counts(texts)
    assert counts.nnz > 0 and (counts != block._generic_counts(texts)).nnz == 0


@pytest.mark.parametrize("name", ["tfidf-ngrams", "tfidf-ngrams-nopos", "tfidf-char", "tfidf-ngrams-steb01"])
def test_sparse_output_equals_dense_exactly(name):
    from steb_models_stylometry.corpus import generated_texts

    texts = generated_texts(20, seed=5, min_words=3, max_words=60) + ["", "   ", "😀🔥", "Hello there!", "A. B. C."]
    enc = TfidfNgramsEncoder(name=name)
    dense_enc = TfidfNgramsEncoder(name=name, dense="true")
    assert enc.sparse_output is True and dense_enc.sparse_output is False
    assert enc.fingerprint() == dense_enc.fingerprint()  # same values, same cache entries
    X = enc.encode(texts)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float32 and X.shape == (len(texts), enc.dim)
    assert X.has_sorted_indices and X.nnz == np.count_nonzero(X.data)  # canonical, no explicit zeros
    D = dense_enc.encode(texts)
    assert isinstance(D, np.ndarray) and D.dtype == np.float32
    assert np.array_equal(X.toarray(), D)  # bitwise
    # ... and equal to each block transformed alone on its own input, then concatenated
    blocks = list(enc.vectoriser.blocks.values())
    inputs = enc.inputs(texts)
    parts = [b.transform(inputs[b.source]).toarray() for b in blocks]
    assert np.array_equal(np.hstack(parts).astype(np.float32), D)
    # every non-empty block of every row has unit L2 norm
    start = 0
    for b, part in zip(blocks, parts):
        norms = np.linalg.norm(D[:, start : start + len(b.vocabulary)].astype(np.float64), axis=1)
        assert np.allclose(norms[norms > 0], 1.0, atol=1e-5) and np.array_equal(norms > 0, part.any(axis=1))
        start += len(b.vocabulary)
    with pytest.raises(ValueError):
        TfidfNgramsEncoder(name="tfidf-char", dense="maybe")


def test_a_gzip_bomb_in_a_vectoriser_folder_is_refused_naming_the_file(tmp_path, monkeypatch):
    """Issue 41: a 3 MB ``char_3_5.json.gz`` expanding to gigabytes took 3.2 GB and ended in an "unexpected"
    MemoryError. The decompression cap applies (lowered here to 1 MiB; the bomb expands to 8 MiB)."""
    from steb_core import DataValidationError

    folder = TfidfVectoriser.load(SHIPPED_VECTORISERS["steb"], ["char_3_5"]).save(tmp_path / "vec")
    (folder / "char_3_5.json.gz").write_bytes(gzip.compress(b" " * (8 << 20)))
    monkeypatch.setenv("STEB_MAX_DECOMPRESSED_BYTES", "1M")
    with pytest.raises(DataValidationError, match="decompresses to more than 1048576 bytes") as err:
        TfidfVectoriser.load(folder)
    assert err.value.path == str(folder / "char_3_5.json.gz") and "STEB_MAX_DECOMPRESSED_BYTES" in str(err.value)
