"""Time and peak memory until a compressed file past the decompression cap is refused (issue 41).

    .venv/bin/python bench/generic_loader/bench_gzip_cap.py                       # after only (seconds, < 100 MiB)
    .venv/bin/python bench/generic_loader/bench_gzip_cap.py --modes before after  # also the old code path (GBs)

Two hostile files, built once under ``--work`` (default: a temp folder):

- ``big.csv.gz``: 6 MB of gzip holding 1.2 GiB of CSV rows (text,label), read by a generic dataset
  (``generic_loader(..., shape="labelled_texts")``);
- a TF-IDF vectoriser folder whose ``char_3_5.json.gz`` is a 3 MB gzip of 3 GiB of spaces, loaded with
  ``TfidfVectoriser.load``.

Each (file, mode) runs in a fresh process with the default cap (1 GiB). *before* is the old code path: the
csv through the capped stream alone (no measuring pass, so rows are parsed and kept until the cap is
reached), the vectoriser block through ``gzip.decompress`` of the whole file (as ``tfidf.py`` did).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()


def build(work: Path) -> None:
    csv_gz = work / "big.csv.gz"
    if not csv_gz.exists():
        row = "a fairly ordinary sentence that repeats itself many times over and over,lab{}\n"
        block = "".join(row.format(i % 7) for i in range(10000))
        with gzip.open(csv_gz, "wt", encoding="utf-8", compresslevel=9) as fh:
            fh.write("text,label\n")
            for _ in range(int(1.2 * 2**30) // len(block) + 1):
                fh.write(block)
    vec = work / "vectoriser"
    if not (vec / "manifest.json").exists():
        from steb_models_stylometry.tfidf import SHIPPED_VECTORISERS, TfidfVectoriser

        TfidfVectoriser.load(SHIPPED_VECTORISERS["steb"], ["char_3_5"]).save(vec)
        with gzip.open(vec / "char_3_5.json.gz", "wb", compresslevel=9) as fh:
            chunk = b" " * (64 << 20)
            for _ in range(48):  # 3 GiB
                fh.write(chunk)


def child(what: str, mode: str, work: Path) -> dict:
    from steb_core import LoadContext

    if mode == "before":
        import steb_core._tables as generic
        from steb_core._decompress import CappedReader

        def capped_stream_only(path, *, limit=None):
            return io.BufferedReader(CappedReader(gzip.open(path, "rb"), path=path, limit=limit))

        generic.open_gzip = capped_stream_only
    t0 = time.perf_counter()
    try:
        if what == "csv.gz":
            from steb_core._tables import generic_loader

            load = generic_loader("big.csv.gz", shape="labelled_texts", columns={"text": "text", "label": "label"})
            load(LoadContext("big", work))
        elif mode == "before":
            from steb_core import parse_json

            file = work / "vectoriser" / "char_3_5.json.gz"
            parse_json(gzip.decompress(file.read_bytes()).decode("utf-8"), path=file)
        else:
            from steb_models_stylometry.tfidf import TfidfVectoriser

            TfidfVectoriser.load(work / "vectoriser")
        outcome = "loaded"
    except BaseException as exc:  # noqa: BLE001 - what the refusal (or the crash) was is the result
        outcome = f"{type(exc).__name__}: {str(exc)[:140]}"
    return {
        "file": what,
        "mode": mode,
        "seconds": round(time.perf_counter() - t0, 1),
        "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "outcome": outcome,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--modes", nargs="+", default=["after"], choices=("before", "after"))
    parser.add_argument("--files", nargs="+", default=["csv.gz", "tfidf"], choices=("csv.gz", "tfidf"))
    parser.add_argument("--child", nargs=2, metavar=("FILE", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = args.work or Path(tempfile.gettempdir()) / "steb-bench-gzip-cap"
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], work)))
        return
    work.mkdir(parents=True, exist_ok=True)
    build(work)
    print(
        f"big.csv.gz {(work / 'big.csv.gz').stat().st_size / 2**20:.1f} MiB, char_3_5.json.gz "
        f"{(work / 'vectoriser' / 'char_3_5.json.gz').stat().st_size / 2**20:.1f} MiB",
        flush=True,
    )
    env = {k: v for k, v in os.environ.items() if k != "STEB_MAX_DECOMPRESSED_BYTES"}
    for what in args.files:
        for mode in args.modes:
            out = subprocess.run(
                [sys.executable, str(HERE), "--work", str(work), "--child", what, mode],
                capture_output=True,
                text=True,
                env=env,
            )
            lines = out.stdout.strip().splitlines()
            ended = {"file": what, "mode": mode, "outcome": f"process ended {out.returncode}"}
            row = json.loads(lines[-1]) if lines else ended
            row["load_avg"] = round(os.getloadavg()[0], 1)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
