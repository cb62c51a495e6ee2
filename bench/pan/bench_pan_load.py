"""Load time and peak memory of the PAN loaders on synthetic PAN26-scale corpora.

Usage: python bench/pan/bench_pan_load.py [--workdir DIR] [--documents 6000 --sentences 50 --texts 300000]

Each measurement runs in a fresh Python process and reports wall time of ``spec.loader(ctx)`` and the
process's peak resident memory minus its resident memory after imports (the loader's own peak).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _rss_mb() -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def measure(name: str, data_dir: str, options: str) -> None:
    """Child process: load one dataset and print timings as JSON."""
    from steb_core import LoadContext
    from steb_datasets_pan.catalogue import pan_datasets

    spec = {s.name: s for s in pan_datasets()}[name]
    base = _rss_mb()
    t0 = time.perf_counter()
    bundle = spec.loader(LoadContext(name, Path(data_dir), seed=0, options=json.loads(options)))
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "dataset": name,
                "options": json.loads(options),
                "seconds": round(seconds, 2),
                "loader_peak_mb": round(peak - base, 1),
                "records": bundle.counts(),
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--documents", type=int, default=6000)
    ap.add_argument("--sentences", type=int, default=50)
    ap.add_argument("--texts", type=int, default=300_000)
    ap.add_argument("--measure", nargs=3, metavar=("NAME", "DIR", "OPTIONS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(*args.measure)
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="steb-pan-bench-"))
    if not (work / "machine_text_detection_PAN25_26_essays" / "val.jsonl").is_file():
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                str(HERE / "make_synthetic.py"),
                str(work),
                "--documents",
                str(args.documents),
                "--sentences",
                str(args.sentences),
                "--texts",
                str(args.texts),
            ],
            check=True,
        )
        print(f"generated corpora in {work} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    runs = [
        ("pan26_style_change_easy", work / "pan26_style_change_easy", {}),
        ("pan26_style_change_easy", work / "pan26_style_change_easy", {"downsample": False}),
        ("machine_text_detection_PAN25_26_essays", work / "machine_text_detection_PAN25_26_essays", {}),
        (
            "machine_text_detection_PAN25_26_essays",
            work / "machine_text_detection_PAN25_26_essays",
            {"per_class": None},
        ),
    ]
    for name, data_dir, options in runs:
        out = subprocess.run(
            [sys.executable, __file__, "--measure", name, str(data_dir), json.dumps(options)],
            check=True,
            capture_output=True,
            text=True,
        )
        print(out.stdout.strip())


if __name__ == "__main__":
    main()
