"""Long-text protocols: sentence splitting, chunk planning, chunk-and-pool and truncation."""

from __future__ import annotations

import numpy as np
import pytest

from steb_core.longtext import LongTextProtocol, encode_with_protocol, plan_chunks, split_sentences


class WordCountEncoder:
    """Vector = (number of words, number of characters): makes pooled results easy to compute by hand."""

    def __init__(self):
        self.batches = []

    def encode(self, texts):
        self.batches.append(list(texts))
        return np.array([[len(t.split()), len(t)] for t in texts], dtype=np.float32)


def test_split_sentences_keeps_closing_quotes_and_newlines():
    text = 'He said "stop." Then he left! Did she? Yes…  Fine\nNext line without stop'
    assert split_sentences(text) == ['He said "stop."', "Then he left!", "Did she?", "Yes…", "Fine", "Next line without stop"]
    assert split_sentences("   ") == []


def test_plan_chunks_packs_sentences_under_the_limit():
    text = "a b c. d e f. g h. i j k l m n o p."
    chunks, owner = plan_chunks([text, "short one"], max_tokens=5)
    # sentences of 3, 3, 2, 8 tokens: [3] [3+2] then the 8-token sentence cut at 5 -> [5] [3]
    assert chunks == ["a b c.", "d e f. g h.", "i j k l m", "n o p.", "short one"]
    assert owner.tolist() == [0, 0, 0, 0, 1]


def test_chunk_and_pool_is_mean_of_manual_chunks():
    enc = WordCountEncoder()
    text = "one two three. four five. six seven eight nine."
    out = encode_with_protocol(enc, [text, "tiny text"], LongTextProtocol("chunk-and-pool", 4))
    manual = enc.encode(["one two three.", "four five.", "six seven eight nine."]).mean(axis=0)
    np.testing.assert_allclose(out[0], manual, rtol=1e-6)
    np.testing.assert_allclose(out[1], [2, 9])


def test_truncate_keeps_first_tokens():
    enc = WordCountEncoder()
    out = encode_with_protocol(enc, ["a b c d e f", "x y"], LongTextProtocol("truncate", 3))
    assert enc.batches[-1] == ["a b c", "x y"]
    np.testing.assert_allclose(out, [[3, 5], [2, 3]])


def test_no_limit_means_whole_text_and_unknown_protocol_is_rejected():
    enc = WordCountEncoder()
    encode_with_protocol(enc, ["a " * 1000], LongTextProtocol("chunk-and-pool", None))
    assert len(enc.batches[-1]) == 1
    with pytest.raises(ValueError, match="chunk-and-pool"):
        LongTextProtocol("sliding-window", 10)


def test_encoder_tokenizer_is_used_when_present():
    class CharTokens(WordCountEncoder):
        def count_tokens(self, texts):
            return [len(t) for t in texts]

        def truncate(self, texts, max_tokens):
            return [t[:max_tokens] for t in texts]

    enc = CharTokens()
    out = encode_with_protocol(enc, ["abcdefghij"], LongTextProtocol("chunk-and-pool", 4))
    assert enc.batches[-1] == ["abcd", "efgh", "ij"]
    np.testing.assert_allclose(out[0], [1, (4 + 4 + 2) / 3])
