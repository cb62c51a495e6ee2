"""Demo-suite wall time (cold cache vs warm cache) for one encoder, in a fresh process per run.

Usage: .venv/bin/python bench/demo/bench_demo.py [--encoder function-words] [--repeats 3]

Each run is a separate `steb run --suite demo` process so start-up (imports, plugin discovery) counts,
as it does for a user. Cold: empty cache and results folders. Warm: the cache filled by the cold run,
an empty results folder (so every task runs again, but no text is encoded).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEB = Path(sys.executable).with_name("steb")


def timed_run(encoder: str, cache: Path, out: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [
            str(STEB),
            "run",
            "--suite",
            "demo",
            "--encoder",
            encoder,
            "--output",
            str(out),
            "--cache-dir",
            str(cache),
            "--no-progress",
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="function-words")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.repeats):
        root = Path(tempfile.mkdtemp(prefix="steb-bench-demo-"))
        try:
            cold.append(timed_run(args.encoder, root / "cache", root / "out-cold"))
            warm.append(timed_run(args.encoder, root / "cache", root / "out-warm"))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    result = {
        "encoder": args.encoder,
        "machine": f"{platform.machine()}, {platform.python_version()}, cores={__import__('os').cpu_count()}",
        "cold_s_median": round(statistics.median(cold), 2),
        "warm_s_median": round(statistics.median(warm), 2),
        "speedup": round(statistics.median(cold) / statistics.median(warm), 2),
        "cold_runs": [round(x, 2) for x in cold],
        "warm_runs": [round(x, 2) for x in warm],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
