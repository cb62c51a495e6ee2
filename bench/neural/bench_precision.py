"""Precision and batching options of the neural encoders on all-MiniLM-L6-v2 (issue 28 §4).

Encodes the same generated texts (``bench_minilm.generate_texts``) with the packaged model four ways,
in one process: float32 with ``batch_size`` texts per forward pass (the default), float32 with a
token budget per forward pass (``batch_tokens``), float32 weights under bfloat16 autocast
(``autocast=bfloat16``), and bfloat16 weights (``dtype=bfloat16``). Reports texts/s and how far each
variant's vectors are from the default's (max abs difference, smallest cosine).

Every variant is timed ``--rounds`` times, the order reversed every other round (ABCD, DCBA, ...), and
the fastest round is reported, so a load that changes during the run does not favour whichever
variant ran first.

Run: ``.venv/bin/python bench/neural/bench_precision.py --n 300 --device cpu`` (``--device cuda`` on a
GPU, where reduced precision is what pays; on a CPU bfloat16 matmuls are emulated on most parts).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_minilm import generate_texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--batch-tokens", type=int, default=8192, help="token budget of the budget variant (its batch_size cap: 256)"
    )
    parser.add_argument("--lengths", choices=["loguniform", "uniform"], default="loguniform")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rounds", type=int, default=2, help="timed rounds per variant, order reversed every other round"
    )
    args = parser.parse_args()

    import torch

    from steb_core import get_encoder
    from steb_core._longtext import LongTextProtocol

    texts = generate_texts(args.n, args.seed, args.lengths)
    variants = {
        "float32, batch_size": {"batch_size": args.batch_size},
        f"float32, batch_tokens={args.batch_tokens}": {"batch_size": 256, "batch_tokens": args.batch_tokens},
        "autocast=bfloat16": {"batch_size": args.batch_size, "autocast": "bfloat16"},
        "dtype=bfloat16 (weights)": {"batch_size": args.batch_size, "dtype": "bfloat16"},
    }
    rounds = args.rounds
    load = os.getloadavg()[0]
    encoders, best = {}, {}
    for label, options in variants.items():
        encoder = get_encoder("all-MiniLM-L6-v2", device=args.device, **options)
        encoder.encode(texts[:32])  # warm-up: load, allocations, kernel choice
        encoders[label] = encoder
    vectors_of = {}
    labels = list(variants)
    for r in range(rounds):
        for label in labels if r % 2 == 0 else labels[::-1]:
            encoder = encoders[label]
            protocol = LongTextProtocol("chunk-and-pool", encoder.max_length)
            if args.device.startswith("cuda"):
                torch.cuda.synchronize()
            start = time.perf_counter()
            vectors = encoder.encode_with_protocol(texts, protocol)
            if args.device.startswith("cuda"):
                torch.cuda.synchronize()
            seconds = time.perf_counter() - start
            best[label] = min(seconds, best.get(label, float("inf")))
            vectors_of[label] = vectors
    reference = vectors_of[labels[0]]
    for label in labels:
        vectors, seconds = vectors_of[label], best[label]
        cos = np.sum(vectors * reference, axis=1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(reference, axis=1)
        print(
            json.dumps(
                {
                    "variant": label,
                    "n": args.n,
                    "device": encoders[label].device_name,
                    "texts_per_s": round(args.n / seconds, 2),
                    "best_seconds": round(seconds, 2),
                    "rounds": rounds,
                    "max_abs_diff_vs_float32": float(np.abs(vectors - reference).max()),
                    "min_cosine_vs_float32": float(cos.min()),
                    "torch_threads": torch.get_num_threads(),
                    "load_before": round(load, 2),
                    "load_now": round(os.getloadavg()[0], 2),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
