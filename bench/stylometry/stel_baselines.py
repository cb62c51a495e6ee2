"""STEL accuracies of the simple baselines (and optionally any other encoder) through steb's order-alignment task.

Usage (from the repository root):
    .venv/bin/python bench/stylometry/stel_baselines.py [--stel-dir ../shared/data/stel] [--encoder NAME ...]

The STEL release folder is linked as ``<tmp>/STEL`` (the layout the STEL dataset plugin expects), and
``steb_core.evaluate`` runs the datasets STEL_feature (contraction, nbr_substitution, emotives) and
STEL_register (formality, simplicity) with each encoder. Prints a Markdown table of the accuracy per
style type.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import steb_core

BASELINES = ["stel-uppercase", "stel-word-length", "stel-punctuation", "stel-char3-cosine", "stel-pos-cosine", "stel-levenshtein"]
STYLE_TYPES = ["contraction", "nbr_substitution", "emotives", "formality", "simplicity"]


def main() -> None:
    repo = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser()
    ap.add_argument("--stel-dir", type=Path, default=repo.parent / "shared" / "data" / "stel")
    ap.add_argument("--encoder", action="append", default=None)
    args = ap.parse_args()
    encoders = args.encoder or BASELINES
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        root.mkdir()
        (root / "STEL").symlink_to(args.stel_dir.resolve(), target_is_directory=True)
        for name in encoders:
            summary = steb_core.evaluate(
                name, ["STEL_feature", "STEL_register"], data_dir=root, output=Path(tmp) / "results",
                cache_dir=Path(tmp) / "cache", progress=False, fail_fast=True,
            )
            by_type: dict[str, float] = {}
            for record in summary.results:
                by_type.update(record.metrics.get("accuracy_by_style_type", {}))
            rows.append((name, by_type))
    print("| method | " + " | ".join(STYLE_TYPES) + " |")
    print("|---|" + "---:|" * len(STYLE_TYPES))
    for name, by_type in rows:
        cells = [f"{by_type[t]:.3f}" if t in by_type else "n/a" for t in STYLE_TYPES]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
