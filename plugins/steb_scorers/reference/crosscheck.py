"""Score the reference packages' tiny models with steb and compare (run in steb's venv, after build_reference.py).

Reads ``OUT/reference.json`` (written by ``build_reference.py`` with bleurt-pytorch and unbabel-comet), scores
every model's inputs with :class:`steb_scorers.learned.BleurtScorer` / :class:`~steb_scorers.learned.CometScorer`
from the folders the packages saved, and prints, per model, the largest absolute difference of the segment
scores and of the system score (COMET's ``system_score``; for BLEURT the mean of the segment scores on both
sides). Exits 1 when any difference exceeds the tolerance (default 1e-4).

Usage: python crosscheck.py OUT [--tolerance 1e-4] [--json RESULT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _score(out: Path, model: dict) -> tuple[list[float], float]:
    from steb_scorers.learned import BleurtScorer, CometScorer

    if model["kind"] == "bleurt":
        res = BleurtScorer(model=str(out / model["folder"]), batch_size=3).score(
            model["candidates"], model["candidates"], references=[[r] for r in model["references"]]
        )
        return res.scores.tolist(), float(res.scores.mean())
    scorer = CometScorer(model=str(out / model["folder"]), encoder=str(out / model["encoder"]), batch_size=3)
    res = scorer.score(model["sources"], model["hypotheses"], references=[[r] for r in model["references"]])
    return res.scores.tolist(), float(res.corpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--json", type=Path, default=None, help="also write the per-model differences here")
    args = parser.parse_args(argv)

    reference = json.loads((args.out / "reference.json").read_text(encoding="utf-8"))
    print("reference packages: " + ", ".join(f"{k} {v}" for k, v in reference["versions"].items()))
    rows, worst_seg, worst_sys = [], 0.0, 0.0
    print(f"{'model':<28} {'n':>3} {'max |segment diff|':>20} {'|system diff|':>15}  settings")
    for model in reference["models"]:
        scores, system = _score(args.out, model)
        if len(scores) != len(model["scores"]):
            raise SystemExit(f"{model['folder']}: steb gave {len(scores)} scores for {len(model['scores'])} inputs")
        seg = max(abs(a - b) for a, b in zip(scores, model["scores"]))
        sys_diff = abs(system - model["system_score"])
        worst_seg, worst_sys = max(worst_seg, seg), max(worst_sys, sys_diff)
        rows.append(
            {
                "model": model["folder"],
                "n": len(scores),
                "max_abs_segment_diff": seg,
                "abs_system_diff": sys_diff,
                "settings": model["settings"],
            }
        )
        print(f"{model['folder']:<28} {len(scores):>3} {seg:>20.2e} {sys_diff:>15.2e}  {json.dumps(model['settings'])}")
    ok = worst_seg <= args.tolerance and worst_sys <= args.tolerance
    print(
        f"largest differences: segment {worst_seg:.2e}, system {worst_sys:.2e} (tolerance {args.tolerance:g}): "
        f"{'OK' if ok else 'FAILED'}"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "versions": reference["versions"],
                    "tolerance": args.tolerance,
                    "max_abs_segment_diff": worst_seg,
                    "max_abs_system_diff": worst_sys,
                    "models": rows,
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
