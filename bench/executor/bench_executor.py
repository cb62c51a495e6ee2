"""Encoding throughput (texts/s): the local executor vs the Ray executor with N workers, same run.

Usage: .venv/bin/python bench/executor/bench_executor.py [--encoders function-words all-MiniLM-L6-v2]
       [--texts function-words=200000 all-MiniLM-L6-v2=2000] [--workers 2] [--repeats 2] [--json OUT]

Texts are the demo suite's generated texts (no third-party text), made distinct by a numeric
suffix and repeated up to the requested count. Each measurement encodes every text into an empty
cache folder through the executor's ``encode`` (planning, encoding, shard writes included), as the
runner does. The Ray figure includes starting the worker actors and each worker's model load, which
a run pays once per (encoder, run); the cluster start is timed separately (once per process).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from steb_core import (
    EmbeddingCache,
    EncodeJob,
    EncoderRef,
    LoadContext,
    LocalExecutor,
    LongTextProtocol,
    get_encoder,
    get_manager,
)

DEFAULT_TEXTS = {"function-words": 200000, "all-MiniLM-L6-v2": 2000}


def demo_texts(n: int) -> list[str]:
    """``n`` distinct texts built from the demo suite's generated corpora."""
    base: list[str] = []
    seen: set[str] = set()
    for spec in get_manager().datasets():
        if "demo" not in spec.suites:
            continue
        bundle = spec.loader(LoadContext(spec.name, None, 0, {}))
        for text in bundle.iter_texts(list(bundle.counts())):
            if text not in seen:
                seen.add(text)
                base.append(text)
    return [f"{base[i % len(base)]} ({i // len(base)})" if i >= len(base) else base[i] for i in range(n)]


def measure(executor: Any, name: str, texts: list[str], protocol: LongTextProtocol) -> float:
    """Seconds to encode ``texts`` into a fresh cache through ``executor``."""
    root = Path(tempfile.mkdtemp(prefix="steb-bench-exec-"))
    try:
        cache = EmbeddingCache(root, f"bench-{name}", protocol.key())
        job = EncodeJob(
            EncoderRef(name, {}, True, ()),
            list(texts),
            protocol,
            str(root),
            (f"bench-{name}", protocol.key()),
            batch_size=1024,
        )
        t0 = time.perf_counter()
        done = executor.encode(job, cache)
        seconds = time.perf_counter() - t0
        assert done == len(texts) and len(cache) == len(texts), (done, len(cache))
        return seconds
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoders", nargs="+", default=list(DEFAULT_TEXTS))
    parser.add_argument("--texts", nargs="*", default=[], help="ENCODER=N overrides of the text counts")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--repeats", type=int, default=2, help="measurements per (encoder, executor); the median is reported"
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    counts = {**DEFAULT_TEXTS, **{k: int(v) for k, v in (item.split("=", 1) for item in args.texts)}}

    from steb_executor_ray import RayExecutor

    t0 = time.perf_counter()
    ray_executor = RayExecutor(num_cpus=args.workers, num_workers=args.workers)
    cluster_start = time.perf_counter() - t0
    rows = []
    try:
        for name in args.encoders:
            texts = demo_texts(counts.get(name, 2000))
            limit = getattr(get_encoder(name), "max_length", None)
            protocol = LongTextProtocol("chunk-and-pool", limit if isinstance(limit, int) else None)
            local = statistics.median(measure(LocalExecutor(), name, texts, protocol) for _ in range(args.repeats))
            distributed = statistics.median(measure(ray_executor, name, texts, protocol) for _ in range(args.repeats))
            row = {
                "encoder": name,
                "texts": len(texts),
                "local_s": round(local, 2),
                "ray_s": round(distributed, 2),
                "local_texts_per_s": round(len(texts) / local, 1),
                "ray_texts_per_s": round(len(texts) / distributed, 1),
                "ray_over_local": round(local / distributed, 2),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        ray_executor.close()
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_at_end": os.getloadavg(),
        "workers": args.workers,
        "repeats": args.repeats,
        "ray_cluster_start_s": round(cluster_start, 2),
        "rows": rows,
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    sys.exit(main())
