"""How fast the generic loader turns a large table into records (CSV, JSONL, Parquet), with a per-class budget.

Writes synthetic tables of N rows (20 labels, ~200-character texts) to a temp dir and times one load each.
Usage: python bench/generic_loader/bench_generic_loader.py [N]
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
import time
from pathlib import Path

from steb_core import LoadContext
from steb_core._tables import generic_loader


def main(n: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    rows = [{"text": f"text number {i} " + "lorem ipsum dolor sit amet " * 7, "label": f"c{i % 20}"} for i in range(n)]
    with open(tmp / "t.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, ["text", "label"])
        writer.writeheader()
        writer.writerows(rows)
    (tmp / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    try:
        import polars as pl

        pl.DataFrame(rows).write_parquet(tmp / "t.parquet")
        formats = ["csv", "jsonl", "parquet"]
    except ImportError:
        formats = ["csv", "jsonl"]
    print("| format | rows | per_class | seconds | rows/s |\n|---|---|---|---|---|")
    for fmt in formats:
        for per_class in (None, 200):
            loader = generic_loader(f"t.{fmt}", shape="labelled_texts", per_class=per_class)
            start = time.perf_counter()
            bundle = loader(LoadContext(dataset="bench", data_dir=tmp, seed=0))
            secs = time.perf_counter() - start
            print(
                f"| {fmt} | {n:,} | {per_class} | {secs:.2f} | {n / secs:,.0f} |  ({len(bundle.labelled_texts):,} kept)"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
