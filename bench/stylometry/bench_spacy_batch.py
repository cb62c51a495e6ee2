"""Which spaCy ``pipe`` batch size parses fastest here (the stylometric encoders' ``batch_size``)?

Why: every spaCy-based stylometric encoder parses through :class:`SpacyPipeline`, which hands spaCy
batches of ``batch_size`` texts (and at most ``batch_chars`` characters); too small a batch pays spaCy's
per-batch overhead, too large one its memory and cache misses. This times the POS pipeline (the one most
encoders need) on synthetic sentences of STEB's typical length for a few batch sizes, best of ``--repeat``,
sizes in alternating order.

Usage: ``.venv/bin/python bench/stylometry/bench_spacy_batch.py [--texts 2000] [--repeat 2] [--needs pos,sents]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from steb_models_stylometry.spacy_pipeline import SpacyPipeline

WORDS = (
    "the a of and to in is was that it for on with as his her they at be this from by not but have "
    "had which or one were all we when there can an their said so what up out if about who them then "
    "river garden letter window morning city friend story question answer market teacher evening road "
    "quickly slowly never always often quietly walked wrote found opened carried believed remembered"
).split()


def sentences(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40))).capitalize() + "." for _ in range(n)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--sizes", type=int, nargs="*", default=[32, 64, 128, 256, 512, 1024])
    ap.add_argument("--needs", default="pos", help="the pipeline's needs, comma-separated (pos; pos,sents; ...)")
    args = ap.parse_args(argv)
    needs = tuple(n.strip() for n in args.needs.split(",") if n.strip())
    texts = sentences(args.texts)
    pipelines = {b: SpacyPipeline(needs=needs, batch_size=b) for b in args.sizes}
    for p in pipelines.values():
        p.nlp  # noqa: B018  (load outside the timing)
    best = {b: float("inf") for b in args.sizes}
    for r in range(args.repeat):
        for b in args.sizes if r % 2 == 0 else reversed(args.sizes):
            start = time.perf_counter()
            for _ in pipelines[b].iter_docs(texts):
                pass
            best[b] = min(best[b], time.perf_counter() - start)
    heading = f"seconds ({args.texts} texts, needs {args.needs}, best of {args.repeat})"
    print(f"| batch_size | {heading} | texts/s |\n|---:|---:|---:|")
    for b in args.sizes:
        print(f"| {b} | {best[b]:.2f} | {args.texts / best[b]:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
