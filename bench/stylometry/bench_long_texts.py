"""Peak memory of the spaCy-based encoders on one long text (issue 41): windows and bounded batches vs before.

    .venv/bin/python bench/stylometry/bench_long_texts.py                      # 1.3 MB text, both encoders, after only
    .venv/bin/python bench/stylometry/bench_long_texts.py --modes before after # also the old behaviour (5 GB each)

Each (encoder, mode) runs in a fresh process (peak RSS is per process); the workload is one generated
text of ``--chars`` characters (``generated_texts`` prose with paragraph breaks, double spaces and runs of
punctuation) plus two short texts, encoded in one call. *before* is the old behaviour through the knobs
that keep it: ``stylometric`` with ``window_chars`` above the text length (spaCy parses it as one Doc),
``tfidf-ngrams`` with ``batch_chars`` unbounded (its 100,000-character pieces go through spaCy in one
batch). *after* is the default. The vectors of both modes are compared exactly (sha256 of the float32 bytes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ENCODERS = ("stylometric", "tfidf-ngrams")


def long_text(chars: int) -> str:
    from steb_models_stylometry.corpus import generated_texts

    parts: list[str] = []
    size = 0
    for i, text in enumerate(generated_texts(100_000, seed=1, min_words=20, max_words=120)):
        if size > chars:
            break
        part = text + ["", "  ", "\n\n", " ... ?! ", " (don't) ", ' "quoted," she said ', "\n", " -- "][i % 8]
        parts.append(part)
        size += len(part) + 1
    return " ".join(parts)[:chars]


def child(encoder: str, mode: str, chars: int) -> dict:
    import numpy as np

    from steb_models_stylometry.stylometric_lftk import LftkStylometricEncoder
    from steb_models_stylometry.tfidf import TfidfNgramsEncoder

    texts = ["A short one. It has two sentences.", long_text(chars), "Another short text, of one sentence."]
    if encoder == "stylometric":
        enc = LftkStylometricEncoder(window_chars=10**12) if mode == "before" else LftkStylometricEncoder()
    else:
        enc = TfidfNgramsEncoder(encoder)
        if mode == "before":
            enc.pipeline.batch_chars = 10**12
    _ = enc.pipeline.nlp  # loaded before the clock starts
    start_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    vectors = enc.encode(texts)
    seconds = time.perf_counter() - t0
    dense = np.ascontiguousarray(vectors.toarray() if hasattr(vectors, "toarray") else vectors, dtype=np.float32)
    return {
        "encoder": encoder,
        "mode": mode,
        "chars": len(texts[1]),
        "seconds": round(seconds, 1),
        "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "loaded_mib": round(start_rss / 1024),
        "sha256": hashlib.sha256(dense.tobytes()).hexdigest()[:16],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=1_300_000)
    parser.add_argument("--encoders", nargs="+", default=list(ENCODERS), choices=ENCODERS)
    parser.add_argument("--modes", nargs="+", default=["after"], choices=("before", "after"))
    parser.add_argument("--child", nargs=2, metavar=("ENCODER", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.chars)))
        return
    rows = []
    for encoder in args.encoders:
        for mode in args.modes:
            out = subprocess.run(
                [sys.executable, str(HERE), "--chars", str(args.chars), "--child", encoder, mode],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "OMP_NUM_THREADS": "1"},
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["load_avg"] = round(os.getloadavg()[0], 1)
            rows.append(row)
            print(json.dumps(row), flush=True)
    for encoder in args.encoders:
        hashes = {r["sha256"] for r in rows if r["encoder"] == encoder}
        if len(args.modes) > 1:
            print(f"{encoder}: vectors {'identical' if len(hashes) == 1 else 'DIFFER'} across modes")


if __name__ == "__main__":
    main()
