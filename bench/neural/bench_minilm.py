"""Throughput of steb's neural encoder path on all-MiniLM-L6-v2 (packaged, offline).

Measures, in one process on the same generated texts:

1. steb chunk-and-pool: ``encode_with_protocol`` (tokenizer-aware sentence chunks, all chunks of the
   call length-sorted, dynamic padding, mean per text);
2. the same chunks encoded by a plain ``SentenceTransformer.encode`` loop, one call per consecutive
   batch of ``--batch-size`` chunks in input order (what a script without global sorting does), then
   pooled the same way: the ratio 1/2 is the gain from length sorting;
3. steb truncation (first 256 tokens) and the same plain loop on the raw texts: the cost of
   chunk-and-pool over truncation, and the sorting gain without chunking.

Run: ``.venv/bin/python bench/neural/bench_minilm.py --n 5000 --device cpu``
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

WORDS = (
    "the of and to a in that is was he for it with as his on be at by i this had not are but from or have an "
    "they which one you were her all she there would their we him been has when who will more no if out so "
    "said what up its about into than them can only other new some could time these two may then do first "
    "any my now such like our over man me even most made after also did many before must through back years "
    "where much your way well down should because each just those people how too little state good very make "
    "world still own see men work long get here between both life being under never day same another know "
    "while last might us great old year off come since against go came right used take three style writer "
    "letter morning question evening garden window journey river mountain history science music"
).split()


def generate_texts(n: int, seed: int, distribution: str) -> list[str]:
    """``n`` texts of 10-1,000 words made of sentences of 4-30 words (log-uniform or uniform lengths)."""
    rng = np.random.default_rng(seed)
    if distribution == "loguniform":
        lengths = np.exp(rng.uniform(np.log(10), np.log(1000), size=n)).astype(int)
    else:
        lengths = rng.integers(10, 1001, size=n)
    vocab = np.asarray(WORDS)
    texts = []
    for target in lengths:
        words = vocab[rng.integers(0, len(vocab), size=target)].tolist()
        out, i = [], 0
        while i < target:
            k = int(rng.integers(4, 31))
            sentence = words[i : i + k]
            sentence[0] = sentence[0].capitalize()
            out.append(" ".join(sentence) + rng.choice([".", ".", ".", "!", "?"]))
            i += k
        texts.append(" ".join(out))
    return texts


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def plain_loop(model, texts: list[str], batch_size: int) -> np.ndarray:
    """One ``encode`` call per consecutive batch: sorting happens only inside each batch."""
    parts = [
        model.encode(texts[i : i + batch_size], batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False)
        for i in range(0, len(texts), batch_size)
    ]
    return np.vstack(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=5000, help="number of texts (default 5000)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, mps or auto")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lengths", choices=["loguniform", "uniform"], default="loguniform")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    import torch

    from steb_core import get_encoder
    from steb_core._longtext import LongTextProtocol, plan_chunks
    from steb_models_neural.pooling import mean_by_owner

    texts = generate_texts(args.n, args.seed, args.lengths)
    encoder = get_encoder("all-MiniLM-L6-v2", device=args.device, batch_size=args.batch_size)
    model = encoder.model  # the very same SentenceTransformer object: only the batching differs
    limit = encoder.max_length
    chunk_protocol, trunc_protocol = LongTextProtocol("chunk-and-pool", limit), LongTextProtocol("truncate", limit)
    encoder.encode(texts[:64])  # warm-up (allocations, kernel selection)

    steb_chunk, t_steb_chunk = timed(lambda: encoder.encode_with_protocol(texts, chunk_protocol))

    def baseline_chunk() -> np.ndarray:
        chunks, owner = plan_chunks(texts, limit - encoder.special_token_budget(), encoder)
        return mean_by_owner(plain_loop(model, chunks, args.batch_size), owner, len(texts))

    base_chunk, t_base_chunk = timed(baseline_chunk)
    steb_trunc, t_steb_trunc = timed(lambda: encoder.encode_with_protocol(texts, trunc_protocol))
    base_trunc, t_base_trunc = timed(lambda: plain_loop(model, texts, args.batch_size))

    n_chunks = len(plan_chunks(texts, limit - encoder.special_token_budget(), encoder)[0])
    tokens = np.asarray(encoder.count_tokens(texts))
    figures = {
        "n_texts": args.n,
        "lengths": args.lengths,
        "words_mean": float(np.mean([len(t.split()) for t in texts])),
        "tokens_mean": float(tokens.mean()),
        "texts_over_limit": int((tokens > limit - 2).sum()),
        "chunks": n_chunks,
        "device": str(encoder.device_name),
        "torch_threads": torch.get_num_threads(),
        "batch_size": args.batch_size,
        "steb_chunk_and_pool_texts_per_s": args.n / t_steb_chunk,
        "plain_loop_chunk_and_pool_texts_per_s": args.n / t_base_chunk,
        "sorting_speedup_chunk_and_pool": t_base_chunk / t_steb_chunk,
        "steb_truncate_texts_per_s": args.n / t_steb_trunc,
        "plain_loop_truncate_texts_per_s": args.n / t_base_trunc,
        "sorting_speedup_truncate": t_base_trunc / t_steb_trunc,
        "chunk_and_pool_cost_vs_truncate": t_steb_chunk / t_steb_trunc,
        "max_abs_diff_chunk": float(np.abs(steb_chunk - base_chunk).max()),
        "max_abs_diff_truncate": float(np.abs(steb_trunc - base_trunc).max()),
        "seconds": {
            "steb_chunk": t_steb_chunk,
            "plain_chunk": t_base_chunk,
            "steb_truncate": t_steb_trunc,
            "plain_truncate": t_base_trunc,
        },
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
