"""Long-text protocols: sentence splitting, chunk planning, chunk-and-pool and truncation."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from steb_core._longtext import (
    LongTextProtocol,
    _tokenizer_functions,
    encode_with_protocol,
    plan_chunks,
    split_sentences,
)


class WordCountEncoder:
    """Vector = (number of words, number of characters): makes pooled results easy to compute by hand."""

    def __init__(self):
        self.batches = []

    def encode(self, texts):
        self.batches.append(list(texts))
        return np.array([[len(t.split()), len(t)] for t in texts], dtype=np.float32)


def test_split_sentences_keeps_closing_quotes_and_newlines():
    text = 'He said "stop." Then he left! Did she? Yes…  Fine\nNext line without stop'
    assert split_sentences(text) == [
        'He said "stop."',
        "Then he left!",
        "Did she?",
        "Yes…",
        "Fine",
        "Next line without stop",
    ]
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


# -- linear-time chunk planning: same chunks as the previous (quadratic) planner ------------------


def reference_plan_chunks(texts, max_tokens, encoder=None):
    """The planner as it was before it was made linear (re-tokenises the whole remainder per cut)."""
    from steb_core._longtext import split_sentences as split

    count, trunc = _tokenizer_functions(encoder)
    lengths = list(count(list(texts)))
    chunks, owner = [], []
    long_idx = [i for i, n in enumerate(lengths) if n > max_tokens]
    sentences_of = {i: split(texts[i]) or [texts[i]] for i in long_idx}
    flat = [s for i in long_idx for s in sentences_of[i]]
    sentence_lengths = iter(count(flat)) if flat else iter(())
    for i, text in enumerate(texts):
        if i not in sentences_of:
            chunks.append(text)
            owner.append(i)
            continue
        current, current_len = [], 0
        for sentence in sentences_of[i]:
            n = next(sentence_lengths)
            if n > max_tokens:
                if current:
                    chunks.append(" ".join(current))
                    owner.append(i)
                    current, current_len = [], 0
                rest = sentence
                while rest:
                    piece = trunc([rest], max_tokens)[0].strip()
                    if not piece:
                        break
                    chunks.append(piece)
                    owner.append(i)
                    pos = rest.find(piece)
                    rest = rest[pos + len(piece) :].strip() if pos >= 0 else rest[len(piece) :].strip()
                continue
            if current and current_len + n > max_tokens:
                chunks.append(" ".join(current))
                owner.append(i)
                current, current_len = [], 0
            current.append(sentence)
            current_len += n
        if current:
            chunks.append(" ".join(current))
            owner.append(i)
    return chunks, np.asarray(owner, dtype=np.int64)


class Subwords(WordCountEncoder):
    """A WordPiece-like tokenizer: a word's first piece has 4 characters, continuations 3; any other
    non-space character is a token. Restarting inside a word changes its pieces, as with real subwords."""

    _WORD = re.compile(r"\w+|[^\w\s]")

    def __init__(self, offsets=False):
        super().__init__()
        self.chars_seen = 0
        if offsets:
            self.token_offsets = self._offsets

    def spans(self, text):
        out = []
        for m in self._WORD.finditer(text):
            a, b = m.span()
            step = 4
            while a < b:
                out.append((a, min(a + step, b)))
                a, step = a + step, 3
        return out

    def _offsets(self, texts):
        self.chars_seen += sum(map(len, texts))
        return [self.spans(t) for t in texts]

    def count_tokens(self, texts):
        self.chars_seen += sum(map(len, texts))
        return [len(self.spans(t)) for t in texts]

    def truncate(self, texts, max_tokens):
        self.chars_seen += sum(map(len, texts))
        out = []
        for t in texts:
            s = self.spans(t)[:max_tokens]
            out.append(t[: s[-1][1]] if s else "")
        return out


class Chars(WordCountEncoder):
    def count_tokens(self, texts):
        return [len(t) for t in texts]

    def truncate(self, texts, max_tokens):
        return [t[:max_tokens] for t in texts]


def varied_texts(seed=0):
    rng = random.Random(seed)
    words = [
        "the",
        "stylistic",
        "a",
        "unbelievably",
        "of",
        "writer's",
        "x",
        "42",
        "naïve",
        "Straße",
        "co-op",
        "lol",
        "...",
        "—",
    ]
    texts = ["short text", "", "   ", "one. two! three?"]
    for n in (30, 200, 900, 2500):
        bag = [rng.choice(words) for _ in range(n)]
        texts.append(" ".join(bag))  # no sentence punctuation at all
        prose, i = [], 0
        while i < n:
            k = rng.randint(3, 40)
            prose.append(" ".join(bag[i : i + k]).capitalize() + rng.choice([".", "!", "?", ".\n", "…"]))
            i += k
        texts.append(" ".join(prose))
    texts.append("x" * 3000)  # one huge 'word' without spaces
    texts.append("漢字かな交じり文" * 200)  # no spaces, no ASCII punctuation
    return texts


@pytest.mark.parametrize(
    "make",
    [WordCountEncoder, Chars, Subwords, lambda: Subwords(offsets=True)],
    ids=["whitespace", "chars", "subwords", "subword-offsets"],
)
@pytest.mark.parametrize("limit", [3, 7, 50])
def test_linear_planner_gives_the_same_chunks_as_before(make, limit):
    texts = varied_texts()
    encoder = make()
    assert plan_chunks(texts, limit, encoder)[0] == reference_plan_chunks(texts, limit, encoder)[0]
    got, owner = plan_chunks(texts, limit, encoder)
    np.testing.assert_array_equal(owner, reference_plan_chunks(texts, limit, encoder)[1])
    if not isinstance(encoder, Chars):  # (with character tokens the spaces joining sentences count too)
        count, _ = _tokenizer_functions(encoder)
        assert max(count(got)) <= limit


def test_whitespace_cut_keeps_every_word_once_with_irregular_spacing():
    # the previous planner repeated a word when a sentence had double spaces or tabs
    text = "a  b\tc   d e  f g\th"
    chunks, _ = plan_chunks([text], 3)
    assert chunks == ["a b c", "d e f", "g h"]


def test_planning_tokenises_each_character_a_bounded_number_of_times():
    # 40k characters without sentence punctuation: re-tokenising the remainder would read ~10M characters
    rng = random.Random(1)
    text = " ".join(rng.choice(["style", "unbelievably", "a", "of", "writer"]) for _ in range(6000))
    for encoder in (Subwords(), Subwords(offsets=True)):
        chunks, _ = plan_chunks([text], 20, encoder)
        assert len(chunks) > 400
        assert encoder.chars_seen < 8 * len(text), encoder.chars_seen
