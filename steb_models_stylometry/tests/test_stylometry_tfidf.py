"""tfidf-ngrams: block vectors against scikit-learn's TfidfVectorizer, save/load, CLI, odd texts."""

from __future__ import annotations

import json

import numpy as np
import scipy.sparse as sp
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from steb_models_stylometry.tfidf import TOKEN_PATTERN, TfidfNgramsEncoder, TfidfVectoriser, analyzer, fit_vectoriser

CORPUS = [
    "The cat sat on the mat.",
    "The dog sat on the log!",
    "A cat and a dog, sitting together.",
    "I don't think the cat likes the dog.",
    "THE CAT SAT. THE DOG SAT.",
    "the cat, the dog, the mat, the log",
]
PROBE = ["The cat sat with the dog.", "", "   ", "😀 café", "cat cat cat cat"]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    vec = fit_vectoriser(CORPUS, ["char_3_5", "token_1_2"], corpus="test corpus")
    out = vec.save(tmp_path_factory.mktemp("vec") / "tfidf")
    return vec, out


@pytest.mark.parametrize(
    "block, reference",
    [
        ("char_3_5", dict(analyzer=analyzer("char", (3, 5)))),
        ("token_1_2", dict(lowercase=True, token_pattern=TOKEN_PATTERN, ngram_range=(1, 2))),
    ],
)
def test_block_matches_sklearn_tfidf(fitted, block, reference):
    vec, _ = fitted
    ref = TfidfVectorizer(min_df=2, sublinear_tf=True, smooth_idf=True, norm="l2", **reference).fit(CORPUS)
    ours = vec.blocks[block]
    assert ours.vocabulary == sorted(ref.vocabulary_, key=ref.vocabulary_.get)
    np.testing.assert_allclose(ours.transform(PROBE).toarray(), ref.transform(PROBE).toarray(), rtol=1e-5, atol=1e-6)


def test_hand_computed_token_block():
    # vocabulary (min_df 2): 'cat' (df 2 of 3), 'dog' (df 2 of 3); idf = ln(4/3) + 1 for both
    vec = fit_vectoriser(["cat dog", "cat", "dog fish"], ["token_1_2"])
    block = vec.blocks["token_1_2"]
    assert block.vocabulary == ["cat", "dog"]
    np.testing.assert_allclose(block.idf, [np.log(4 / 3) + 1] * 2, rtol=1e-6)
    # "cat cat dog": tf cat = 1 + ln 2, tf dog = 1 ; same idf -> normalised (1+ln2, 1) / norm
    row = block.transform(["cat cat dog"]).toarray()[0]
    expected = np.array([1 + np.log(2), 1.0])
    np.testing.assert_allclose(row, expected / np.linalg.norm(expected), rtol=1e-6)


def test_save_load_roundtrip_and_encoder(fitted):
    vec, path = fitted
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["format"] == "steb-tfidf/1" and manifest["corpus"] == "test corpus"
    loaded = TfidfVectoriser.load(path)
    for name, block in vec.blocks.items():
        # IDF weights are stored with 6 decimals
        np.testing.assert_allclose(loaded.blocks[name].transform(PROBE).toarray(), block.transform(PROBE).toarray(), rtol=1e-5, atol=1e-7)
    enc = TfidfNgramsEncoder(name="tfidf-ngrams-nopos", vectoriser=path)
    X = enc.encode(PROBE).toarray()
    assert X.dtype == np.float32 and X.shape == (len(PROBE), enc.dim) and np.isfinite(X).all()
    # each non-empty block is unit length: norms^2 = number of non-zero blocks
    assert np.sum(X[0] ** 2) == pytest.approx(2.0, rel=1e-5)
    assert not X[1].any() and not X[2].any()
    np.testing.assert_allclose(enc.cosine(PROBE[:1], PROBE[:1]), [1.0], rtol=1e-5)
    assert enc.fingerprint() != TfidfNgramsEncoder(name="tfidf-ngrams-nopos").fingerprint()


def test_missing_block_is_reported(fitted):
    _, path = fitted
    with pytest.raises(ValueError, match="pos_1_2"):
        TfidfNgramsEncoder(name="tfidf-ngrams", vectoriser=path)


def test_default_vectoriser_with_pos_and_long_text():
    enc = TfidfNgramsEncoder()  # shipped default, char + token + POS 1-2
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
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text('{"text": "The cat sat."}\n{"text": "The dog sat."}\n', encoding="utf-8")
    out = tmp_path / "vec"
    result = CliRunner().invoke(app, ["fit-tfidf", "--corpus", str(corpus), "--corpus", str(jsonl), "--out", str(out), "--block", "token_1_2"])
    assert result.exit_code == 0, result.output
    loaded = TfidfVectoriser.load(out)
    assert list(loaded.blocks) == ["token_1_2"] and loaded.n_docs == len(CORPUS) + 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"txt": "x"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["fit-tfidf", "--corpus", str(bad), "--out", str(tmp_path / "v2")])
    assert result.exit_code != 0 and "text" in str(result.exception)


def test_parallel_transform_equals_serial():
    from steb_models_stylometry.corpus import generated_texts

    texts = generated_texts(1000, seed=7, min_words=5, max_words=20)
    serial = TfidfNgramsEncoder(name="tfidf-ngrams-nopos").transform(texts)
    parallel = TfidfNgramsEncoder(name="tfidf-ngrams-nopos", n_jobs=2).transform(texts)
    assert (serial != parallel).nnz == 0


def test_generated_texts_are_seeded_and_in_range():
    from steb_models_stylometry.corpus import generated_texts

    a = generated_texts(50, seed=3)
    assert a == generated_texts(50, seed=3) and a != generated_texts(50, seed=4)
    assert all(50 <= len(t.split()) <= 300 for t in a)


def test_hashed_char_counts_equal_string_counts():
    from steb_models_stylometry.corpus import generated_texts

    block = TfidfVectoriser.load(TfidfNgramsEncoder().vectoriser_path, ["char_3_5"]).blocks["char_3_5"]
    texts = generated_texts(30, seed=11) + ["😀 café   naïve\n\n x 𝔘𝔫𝔦", "", "ab", "   ", "The the THE"]
    assert (block._char_counts(texts) != block._generic_counts(texts)).nnz == 0


@pytest.mark.parametrize("name", ["tfidf-ngrams", "tfidf-ngrams-nopos", "tfidf-char"])
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
    # ... and equal to the per-block path it replaced: each block transformed alone, then concatenated
    blocks = list(enc.vectoriser.blocks.values())
    pos_docs = None
    if enc.needs_pos:
        from steb_models_stylometry.tfidf import pos_strings

        pos_docs = pos_strings(texts, pipeline=enc.pipeline)
    parts = [b.transform(pos_docs if b.kind == "pos" else texts).toarray() for b in blocks]
    assert np.array_equal(np.hstack(parts).astype(np.float32), D)
    # every non-empty block of every row has unit L2 norm
    start = 0
    for b, part in zip(blocks, parts):
        norms = np.linalg.norm(D[:, start : start + len(b.vocabulary)].astype(np.float64), axis=1)
        assert np.allclose(norms[norms > 0], 1.0, atol=1e-5) and np.array_equal(norms > 0, part.any(axis=1))
        start += len(b.vocabulary)
    with pytest.raises(ValueError):
        TfidfNgramsEncoder(name="tfidf-char", dense="maybe")
