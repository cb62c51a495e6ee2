"""Markdown tables from `steb meta-eval` JSON reports (the figures in plugins/steb_scorers/README.md).

Usage: python bench/scorers/meta_eval_tables.py REPORT.json [REPORT.json ...] [--aspect content] [--label SPEC=NAME ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def cell(entry: dict) -> str:
    v, (lo, hi) = entry["value"], entry["ci"]
    if v is None:
        return "n/a"
    return f"{v:.3f}" + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None else "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--aspect", default="content")
    ap.add_argument("--direction", default="pooled")
    ap.add_argument("--label", action="append", default=[], help="SPEC=NAME: print NAME for the scorer spec SPEC")
    ap.add_argument("--subsets", action="store_true", help="print top-N / last-N system Kendall instead")
    args = ap.parse_args()
    names = dict(x.rsplit("=", 1) for x in args.label)
    rows = []
    for path in args.reports:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
        for spec, entry in report["metrics"].items():
            if args.aspect not in entry["correlations"]:
                continue
            c = entry["correlations"][args.aspect][args.direction]
            rows.append(
                (names.get(spec, spec) + (" (abs)" if entry["absolute"] else ""), c, entry.get("system_level", "mean"))
            )
    if args.subsets:
        keys = sorted(
            {k for _, c, _ in rows for k in c["system_subsets_kendall"]},
            key=lambda k: (k.split("_")[0] != "all", k.split("_")[0], -int(k.split("_")[1])),
        )
        print("| scorer | " + " | ".join(keys) + " |")
        print("|---|" + "---:|" * len(keys))
        for name, c, _ in rows:
            print(
                f"| {name} | "
                + " | ".join(
                    "n/a" if c["system_subsets_kendall"][k] is None else f"{c['system_subsets_kendall'][k]:.2f}"
                    for k in keys
                )
                + " |"
            )
        return
    print("| scorer | segment Pearson | segment Kendall | tau-like | system Pearson | system Kendall | system level |")
    print("|---|---|---|---|---|---|---|")
    for name, c, level in rows:
        sk = c.get("system_kendall")
        print(
            f"| {name} | {cell(c['segment_pearson'])} | {cell(c['segment_kendall'])} | {cell(c['tau_like'])} | "
            f"{cell(c['system_pearson'])} | "
            f"{'n/a' if sk is None else f'{sk:.3f}'} | {level} |"
        )


if __name__ == "__main__":
    main()
