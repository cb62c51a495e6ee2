"""Speed of steb's ``lftk-probing`` feature pass against the ``lftk`` package's extractor on the same spaCy docs.

Usage (from the repository root):
    .venv/bin/python bench/stylometry/bench_lftk.py [--n 100] [--seed 0]

Parses ``corpus.generated_texts(n, seed)`` once with the extractor's spaCy pipeline (tagger, attribute
ruler, lemmatizer, senter), then times, on those same Docs: steb's one-pass feature computation
(``LftkProbingExtractor.extract_docs``, lexicons loaded beforehand) and ``lftk.Extractor(docs).extract``
for the 46 keys and for the 43 keys without lftk's three norm features (t_kup, t_bry,
t_subtlex_us_zipf, which re-read their CSV table for every document). Checks the values agree (t_kup
may be NaN in lftk, see the module docstring of steb_models_stylometry.lftk). Prints process CPU time
(stable on a shared machine) and wall time, and the load average.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    import lftk

    from steb_models_stylometry.corpus import generated_texts
    from steb_models_stylometry.lftk import PROBING_FEATURES, LftkProbingExtractor

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    texts = generated_texts(args.n, seed=args.seed)
    ex = LftkProbingExtractor()
    _ = ex.lexicons  # load the tables outside the timing (once per process)
    groups, w_parse, c_parse = _timed(lambda: ex.pipeline.docs_per_text(texts))
    docs = [g[0] for g in groups]
    ours, w_ours, c_ours = _timed(lambda: ex.extract_docs(groups))
    no_norms = [f for f in PROBING_FEATURES if f not in ("t_kup", "t_bry", "t_subtlex_us_zipf")]
    ref43, w_43, c_43 = _timed(lambda: lftk.Extractor(docs=docs).extract(features=no_norms))
    ours43, w_o43, c_o43 = _timed(lambda: ex.extract_docs(groups)[:, [PROBING_FEATURES.index(f) for f in no_norms]])
    ref46, w_46, c_46 = _timed(lambda: lftk.Extractor(docs=docs).extract(features=list(PROBING_FEATURES)))
    same = sum(ours[i, j] == r[f] for i, r in enumerate(ref46) for j, f in enumerate(PROBING_FEATURES))
    nan = sum(np.isnan(r[f]) for r in ref46 for f in PROBING_FEATURES)
    words = sum(len(t.split()) for t in texts)
    print(f"texts: {len(texts)} ({words} whitespace words); load average {os.getloadavg()}")
    print(f"spaCy parse (once): wall {w_parse:.2f}s cpu {c_parse:.2f}s")
    print(f"steb 46 features:  wall {w_ours:.3f}s cpu {c_ours:.3f}s")
    print(f"lftk 46 features:  wall {w_46:.2f}s cpu {c_46:.2f}s  -> {c_46 / c_ours:.0f}x steb (CPU)")
    print(f"lftk 43 (no norms): wall {w_43:.2f}s cpu {c_43:.2f}s  -> {c_43 / c_o43:.1f}x steb (CPU)")
    print(f"values equal: {same}/{len(texts) * 46} (lftk NaN: {nan})")


if __name__ == "__main__":
    main()
