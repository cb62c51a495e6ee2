"""Chunk planning time against text length: linear now, quadratic before (issue 20 §6).

Plans chunk-and-pool chunks (no encoding) for one text of N characters with all-MiniLM-L6-v2's own
tokenizer (packaged, offline; 254 text tokens per chunk), for unpunctuated text (one endless
"sentence", cut at the limit over and over) and punctuated prose (sentence-boundary chunks):

- ``linear``: ``plan_chunks`` as shipped (the encoder's token offsets, one window per cut);
- ``generic``: the same planner through ``count_tokens``/``truncate`` only (encoders without offsets);
- ``before``: the previous planner, which re-tokenised the whole remainder at every cut (reproduced by
  making every window the whole remainder); skipped above ``--before-max`` characters.

All three give identical chunks (checked). ``--encode N`` also times the whole chunk-and-pool encoding of
an N-character text of each kind (the issue's measurement: 531 s unpunctuated against 105 s punctuated
for 1 MB). Run: ``.venv/bin/python bench/neural/bench_longtext.py``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

WORDS = (
    "the of and to a in that is was he for it with as his on be at by this had not are but from or have an they "
    "which one you were her all she there would their we him been has when who will more no if out so said what "
    "style writer letter morning question evening garden window journey river mountain history science music"
).split()


def make_text(chars: int, punctuated: bool, seed: int = 0) -> str:
    rng = random.Random(seed)
    out, size = [], 0
    while size < chars:
        n = rng.randint(4, 30)
        sentence = " ".join(rng.choice(WORDS) for _ in range(n))
        if punctuated:
            sentence = sentence.capitalize() + rng.choice([".", ".", "!", "?"])
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:chars]


class CountAndTruncateOnly:
    def __init__(self, encoder):
        self.count_tokens, self.truncate = encoder.count_tokens, encoder.truncate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="text lengths in characters")
    parser.add_argument(
        "--before-max", type=int, default=100_000, help="largest text the quadratic planner is timed on"
    )
    parser.add_argument(
        "--encode", type=int, default=0, help="also time end-to-end chunk-and-pool encoding of texts this long"
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    import steb_core._longtext as longtext
    from steb_core import get_encoder

    encoder = get_encoder("all-MiniLM-L6-v2", device="cpu")
    budget = encoder.chunk_budget(encoder.max_length)
    rows = []
    for punctuated in (False, True):
        for size in map(int, args.sizes.split(",")):
            text = make_text(size, punctuated)
            row = {"chars": size, "punctuated": punctuated, "tokens": encoder.count_tokens([text])[0]}
            t0 = time.perf_counter()
            chunks, _ = longtext.plan_chunks([text], budget, encoder)
            row["linear_s"] = time.perf_counter() - t0
            row["chunks"] = len(chunks)
            t0 = time.perf_counter()
            generic, _ = longtext.plan_chunks([text], budget, CountAndTruncateOnly(encoder))
            row["generic_s"] = time.perf_counter() - t0
            assert generic == chunks
            if size <= args.before_max:
                saved = longtext._window_end
                longtext._window_end = lambda sentence, start, target: len(sentence)
                try:
                    t0 = time.perf_counter()
                    before, _ = longtext.plan_chunks([text], budget, CountAndTruncateOnly(encoder))
                    row["before_s"] = time.perf_counter() - t0
                finally:
                    longtext._window_end = saved
                assert before == chunks, "the linear planner must give the chunks the previous one gave"
            rows.append(row)
            print(json.dumps(row), flush=True)
    encoded = []
    if args.encode:
        from steb_core._longtext import LongTextProtocol

        protocol = LongTextProtocol("chunk-and-pool", encoder.max_length)
        for punctuated in (False, True):
            text = make_text(args.encode, punctuated)
            t0 = time.perf_counter()
            encoder.encode_with_protocol([text], protocol)
            row = {"chars": args.encode, "punctuated": punctuated, "encode_s": time.perf_counter() - t0}
            encoded.append(row)
            print(json.dumps(row), flush=True)
    figures = {
        "encoded": encoded,
        "tokenizer": "all-MiniLM-L6-v2 (fast BERT WordPiece)",
        "chunk_budget": budget,
        "load": os.getloadavg(),
        "rows": rows,
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
