"""Registration through the entry point: names, flags, the probing extractor via the core."""

from __future__ import annotations

import numpy as np

import steb_core
from steb_core import new_manager

ENCODERS = {
    "function-words", "function-words-grammar", "stylometric-standardised", "tfidf-ngrams", "tfidf-ngrams-13",
    "tfidf-ngrams-nopos", "tfidf-ngrams-nopos-13", "tfidf-char", "tfidf-ngrams-steb01",
    "stylometric", "biber", "stel-uppercase", "stel-word-length", "stel-punctuation", "stel-char3-cosine",
    "stel-pos-cosine", "stel-levenshtein",
}  # fmt: skip


def test_components_registered():
    manager = new_manager(env=False)
    encoders = manager.encoders()
    assert ENCODERS <= set(encoders.names())
    for name in ENCODERS:
        spec = encoders.get(name)
        assert spec.similarity_only == name.startswith("stel-")
        assert spec.family == ("baseline" if name.startswith("stel-") else "stylometric")
        assert encoders.provider(name) == "stylometry"
    assert "lftk-probing" in manager.feature_extractors().names()
    assert not [f for f in manager.failures if f.name == "stylometry"]


def test_built_through_core():
    steb_core.reset_manager()
    try:
        extractor = steb_core.get_feature_extractor("lftk-probing")
        X = extractor.extract(["One short sentence.", ""])
        assert X.shape == (2, 46) and len(extractor.feature_names) == 46 and np.isfinite(X).all()
        enc = steb_core.get_encoder("function-words")
        assert enc.name == "function-words" and enc.encode(["of the"]).shape == (1, 458)
        assert steb_core.get_encoder("function-words-grammar").encode(["of the"]).shape == (1, 461)
        assert steb_core.get_encoder("function-words", counting="longest").counting == "longest"
        sim = steb_core.get_encoder("stel-levenshtein")
        assert sim.similarity_only and sim.similarity(["ab"], ["ab"]).tolist() == [1.0]
    finally:
        steb_core.reset_manager()


def test_every_encoder_accepts_an_empty_batch():
    steb_core.reset_manager()
    try:
        for name in sorted(ENCODERS):
            enc = steb_core.get_encoder(name)
            if enc.similarity_only:
                assert enc.similarity([], []).shape == (0,), name
            else:
                out = enc.encode([])
                assert out.shape[0] == 0 and out.dtype == np.float32, name
            assert enc.fingerprint() and enc.info(), name
    finally:
        steb_core.reset_manager()
