"""Throughput of the batched scorers: items/s for chrF, BLEU and the embedding cosine on generated pairs.

Usage: python bench/scorers/bench_scorers.py [--n 10000] [--encoder all-MiniLM-L6-v2]
Pairs are seeded random sentences (8-25 words from a 2,000-word vocabulary) and noisy rewrites of them
(word drops, substitutions, swaps), so the metrics see realistic partial overlap.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import torch

from steb_core import get_manager, get_scorer

ENCODER_PREFERENCE = ("all-MiniLM-L6-v2", "stylometric", "function-words")


def make_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(2000)] + ["the", "a", "is", "you", "are", "to", "of", "and", ",", "."]
    sources, outputs = [], []
    for _ in range(n):
        words = [rng.choice(vocab) for _ in range(rng.randint(8, 25))]
        out = [w for w in words if rng.random() > 0.15]
        out = [rng.choice(vocab) if rng.random() < 0.15 else w for w in out]
        if len(out) > 3 and rng.random() < 0.5:
            i = rng.randrange(len(out) - 1)
            out[i], out[i + 1] = out[i + 1], out[i]
        sources.append(" ".join(words))
        outputs.append(" ".join(out) or "empty")
    return sources, outputs


def timed(scorer, sources, outputs) -> tuple[float, float]:
    start = time.perf_counter()
    res = scorer.score(sources, outputs)
    seconds = time.perf_counter() - start
    assert len(res) == len(outputs)
    return seconds, len(outputs) / seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument(
        "--encoder",
        default=None,
        help=f"steb encoder for the embedding cosine (default: first registered of {ENCODER_PREFERENCE})",
    )
    args = parser.parse_args()
    sources, outputs = make_pairs(args.n)
    names = get_manager().encoders().names()
    encoder = args.encoder or next((e for e in ENCODER_PREFERENCE if e in names), None)
    rows = []
    for label, name, options in (
        ("chrF (sentence + corpus)", "chrf", {"against": "source"}),
        ("BLEU (sentence + corpus)", "bleu", {"against": "source"}),
        (f"embedding cosine ({encoder})", "embedding-cosine", {"against": "source", "encoder": encoder}),
    ):
        if name == "embedding-cosine" and encoder is None:
            continue
        scorer = get_scorer(name, **options)  # model loading is not timed
        seconds, rate = timed(scorer, sources, outputs)
        rows.append((label, args.n, seconds, rate))
        print(f"{label}: {seconds:.2f} s, {rate:,.0f} items/s", flush=True)
    print(f"machine: {platform.processor() or platform.machine()}, torch threads {torch.get_num_threads()}")
    print("| scorer | pairs | seconds | items/s |\n|---|---:|---:|---:|")
    for label, n, seconds, rate in rows:
        print(f"| {label} | {n:,} | {seconds:.2f} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
