"""STEL accuracies of the simple baselines (and optionally any other encoder) through steb's order-alignment task.

Usage (from the repository root):
    .venv/bin/python bench/stylometry/stel_baselines.py [--stel-dir ../shared/data/stel] [--encoder NAME ...]
        [--published STEL_single-preds_all-models.tsv]

The STEL release folder is linked as ``<tmp>/STEL`` (the layout the STEL dataset plugin expects), and
``steb_core.evaluate`` runs the datasets STEL_feature_official (contraction, nbr_substitution, emotives,
em-subj-pronoun) and STEL_register_official (formality, simplicity) -- STEL's official quadruples -- with
each encoder. Prints a Markdown table of the accuracy per
style type.

``--published`` (the per-instance predictions STEL publishes in its repository,
``Data/Experiment-Results/models/STEL_single-preds_all-models.tsv``; not shipped with steb) adds, for
each built-in baseline, a second table: per style type, the accuracy of STEL's published decisions on
the same instances (tie = 0.5), steb's accuracy with STEL's quadruple rule applied directly to the
baseline's similarities (sums of squares compared exactly), and how many instances' decisions agree.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
from pathlib import Path

import numpy as np

import steb_core

BASELINES = [
    "stel-uppercase",
    "stel-word-length",
    "stel-punctuation",
    "stel-char3-cosine",
    "stel-pos-cosine",
    "stel-levenshtein",
]
STYLE_TYPES = ["contraction", "nbr_substitution", "emotives", "formality", "simplicity"]
FILES = {
    "contraction": "quad_questions_char_contraction.tsv",
    "nbr_substitution": "quad_questions_char_substitution.tsv",
    "formality": "quad_stel-dimension_formal-100_sample.tsv",
    "simplicity": "quad_stel-dimension_simple-100_sample.tsv",
}
STEL_COLUMN = {
    "stel-uppercase": "UppercaseSimilarity", "stel-word-length": "WordLengthSimilarity",
    "stel-punctuation": "PunctuationSimilarity", "stel-char3-cosine": "CharacterThreeGramSimilarity",
    "stel-pos-cosine": "PosTagSimilarity", "stel-levenshtein": "LevenshteinSimilarity",
}  # fmt: skip


def _decisions(rows: list[dict], sim) -> np.ndarray:
    """STEL's quadruple rule: 1, 2, or 0 for a tie (sums of squared distances compared exactly)."""
    a1, a2 = [r["Anchor 1"] for r in rows], [r["Anchor 2"] for r in rows]
    s1, s2 = [r["Alternative 1.1"] for r in rows], [r["Alternative 1.2"] for r in rows]
    d11, d22 = 1.0 - np.asarray(sim(a1, s1)), 1.0 - np.asarray(sim(a2, s2))
    d12, d21 = 1.0 - np.asarray(sim(a1, s2)), 1.0 - np.asarray(sim(a2, s1))
    keep, swap = d11 * d11 + d22 * d22, d12 * d12 + d21 * d21
    return np.where(keep == swap, 0, np.where(keep < swap, 1, 2))


def published_table(stel_dir: Path, published: Path) -> None:
    from steb_models_stylometry.stel_baselines import BASELINES as METHODS

    with open(published, encoding="utf-8", newline="") as handle:
        pub = {r["ID"]: r for r in csv.DictReader(handle, delimiter="\t")}
    print("\n| method | " + " | ".join(f"{t} (published / steb / agree)" for t in FILES) + " |")
    print("|---|" + "---:|" * len(FILES))
    for name in BASELINES:
        method = METHODS[name][0]()
        cells = []
        for file in FILES.values():
            with open(stel_dir / file, encoding="utf-8", newline="") as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
            truth = np.array([int(r["Correct Alternative"]) for r in rows])
            ours = _decisions(rows, method.similarity)
            theirs = np.array([int(pub[r["ID"]][STEL_COLUMN[name]]) for r in rows])

            def acc(p: np.ndarray, truth: np.ndarray = truth) -> float:
                return float(np.mean(np.where(p == 0, 0.5, p == truth)))

            cells.append(f"{acc(theirs):.3f} / {acc(ours):.3f} / {int((ours == theirs).sum())}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def main() -> None:
    repo = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser()
    ap.add_argument("--stel-dir", type=Path, default=repo.parent / "shared" / "data" / "stel")
    ap.add_argument("--encoder", action="append", default=None)
    ap.add_argument("--published", type=Path, default=None)
    args = ap.parse_args()
    encoders = args.encoder or BASELINES
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        root.mkdir()
        (root / "STEL").symlink_to(args.stel_dir.resolve(), target_is_directory=True)
        for name in encoders:
            summary = steb_core.evaluate(
                name,
                ["STEL_feature_official", "STEL_register_official"],
                data_dir=root,
                output=Path(tmp) / "results",
                cache_dir=Path(tmp) / "cache",
                progress=False,
                fail_fast=True,
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
    if args.published:
        published_table(args.stel_dir, args.published)


if __name__ == "__main__":
    main()
