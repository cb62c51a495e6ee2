"""steb against the STEB authors' reference code: whole process, fresh caches, the same releases, side by side.

Why: steb reproduces the reference code's figures (``bench_steb_reference.py``), so the two can be timed on the
same instances; a claim that steb is faster must come from such a run, not from one side alone (issue 46).

1. ``bench_steb_reference.py`` lays out the public releases (``fetch`` mirrors) and runs ``steb run`` with its
   defaults, checking every figure against the reference's (its table; exit 1 when one is off).
2. ``bench/whole_process.py`` then times, in rounds, three whole processes on the encoder's datasets, each from a
   fresh embedding cache and a fresh results folder (nothing from an earlier run is reused):
   ``steb run`` with the defaults; ``steb run`` with this CPU's own BLAS for the two reference-product options
   (``order_alignment.products=blas``, ``pair_all.scores=blas``); and the reference code, rebuilt in a scratch
   folder outside this repository (``--reference DIR``: its ``run_reference.py`` runs
   ``evaluate(get_model(MODEL), DATASETS, seed=42)`` with evaluate()'s defaults and keeps every state it writes under
   a ``--cache`` folder it is given fresh). The reference's code is never part of steb: the README of this folder
   says which files at which commits the rebuild holds and what was changed to run it offline.

Usage::

    .venv/bin/python bench/steb_reference/bench_vs_reference.py --work /tmp/stebref --reference /tmp/steb_authors \\
        [--encoder function-words|all-MiniLM-L6-v2] [--runs 3] [--json out.json] [--skip-check]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_steb_reference as ref  # noqa: E402  (this folder's script, not a package)
import whole_process  # noqa: E402  (bench/'s whole-process timer)
from bench_default_vs_blas import BLAS_OPTIONS, steb_command  # noqa: E402

#: steb encoder -> the reference's model argument (``run_reference.py --model``)
REFERENCE_MODEL = {"function-words": "functionwordfreq", "all-MiniLM-L6-v2": "minilm"}


def reference_command(reference: Path, python: str, encoder: str, datasets: list[str], work: Path) -> str:
    """``sh -c`` line: a fresh state folder, then the rebuilt reference code on the same datasets."""
    state = work / "vs-reference" / "reference"
    run = [python, str(reference / "run_reference.py"), "--model", REFERENCE_MODEL[encoder], "--datasets", *datasets]
    run += ["--out", str(state / "figures.json"), "--cache", str(state / "cache")]
    return f"rm -rf {shlex.quote(str(state))} && mkdir -p {shlex.quote(str(state))} && exec {shlex.join(run)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="the folder bench_steb_reference.py lays releases out in")
    ap.add_argument("--reference", type=Path, required=True, help="the scratch rebuild (holds run_reference.py)")
    ap.add_argument("--reference-python", default=sys.executable, help="the Python the rebuild runs under")
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--encoder", choices=sorted(REFERENCE_MODEL), default="function-words")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--skip-check", action="store_true", help="time only (the figures were checked before)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    status = 0
    if not args.skip_check:
        status = ref.main(["--work", str(args.work), "--mirrors", str(args.mirrors), "--encoder", args.encoder])
    files = [p for p in (ref.SHARED_FIGURES, ref.NEURAL_FIGURES, ref.LOCAL_FIGURES) if p.is_file()]
    datasets = sorted({f["dataset"] for f in ref.load_figures(files) if f["encoder"] == args.encoder})
    commands = {
        "steb, defaults": steb_command(args.encoder, datasets, args.work, "default", (), fresh_cache=True),
        "steb, own BLAS": steb_command(args.encoder, datasets, args.work, "blas", BLAS_OPTIONS, fresh_cache=True),
        "reference code": reference_command(
            args.reference.resolve(), args.reference_python, args.encoder, datasets, args.work
        ),
    }
    print(f"{args.encoder}, {len(datasets)} datasets: {', '.join(datasets)}", flush=True)
    log = args.work / "vs-reference.log"
    report = whole_process.compare(commands, args.runs, args.warmup, log=log)
    print(whole_process.format_report(report))
    print(f"(every command's output: {log})")
    if not args.skip_check:
        print(f"figures: {'all reproduced' if status == 0 else 'NOT all reproduced'} (steb defaults, this CPU)")
    if args.json is not None:
        report["datasets"], report["commands"] = datasets, commands
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    failed = any(code != 0 for label in commands for code in report[label]["exit_codes"])
    return 1 if status or failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
