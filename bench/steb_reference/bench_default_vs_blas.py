"""steb's default products (the reference machine's, emulated where a last bit can decide) against this CPU's BLAS.

Why: the defaults reproduce the reference code's figures on every CPU by emulating the reference machine's
OpenBLAS kernels, but only where the bits can decide a figure (issue 46); this measures what that costs
on the real releases, whole process, side by side, and checks in the same run that the default figures
are still the reference's.

1. ``bench_steb_reference.py`` lays out the public releases of the encoder's figures (``fetch`` mirrors),
   runs ``steb run`` with its defaults and compares every figure (its table; exit 1 when one is off);
   that run also fills the embedding cache, so the timed runs below time loading and scoring, not encoding.
2. ``bench/whole_process.py`` times, alternately, ``steb run`` with the defaults (A) and with this CPU's own BLAS
   (B: ``--task-option order_alignment.products=blas --task-option pair_all.scores=blas``) on the same
   datasets, each into a fresh results folder,
   the same (warm) cache. Its report: wall / CPU / peak per command (``os.wait4``'s accounting, whole process) and
   the ratio A/B pair by pair.

Usage::

    .venv/bin/python bench/steb_reference/bench_default_vs_blas.py --work /tmp/stebref [--runs 3]
        [--encoder function-words]

The reference code's own side is timed by ``bench_vs_reference.py`` (a scratch rebuild outside the repository).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_steb_reference as ref  # noqa: E402  (this folder's script, not a package)

sys.path.insert(0, str(HERE.parent))
import whole_process  # noqa: E402  (bench/'s whole-process A/B timer)

#: (no pair_predefined dataset among the figures' releases: its option would be refused as unread)
BLAS_OPTIONS = ("order_alignment.products=blas", "pair_all.scores=blas")


def steb_command(
    encoder: str, datasets: list[str], work: Path, tag: str, options: tuple[str, ...], *, fresh_cache: bool = False
) -> str:
    """``sh -c`` line: remove the results folder (results are resumable: a stored one would be read) and, with
    ``fresh_cache``, give the run its own empty embedding cache (else the encoder's shared one, warm); run steb."""
    out = work / "results" / f"timed-{tag}"
    cache = work / "results" / f"timed-{tag}-cache" if fresh_cache else work / "cache" / encoder
    run = [sys.executable, "-m", "steb_core.cli", "run", "--encoder", encoder, "--data-dir", str(work / "data")]
    run += ["--output", str(out), "--cache-dir", str(cache), "--no-progress"]
    for d in datasets:
        run += ["--dataset", d]
    for o in options:
        run += ["--task-option", o]
    removed = [out, cache] if fresh_cache else [out]
    return f"rm -rf {' '.join(shlex.quote(str(p)) for p in removed)} && exec {shlex.join(run)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--encoder", default="function-words")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="steb-reference-"))
    status = ref.main(["--work", str(work), "--mirrors", str(args.mirrors), "--encoder", args.encoder, "--markdown"])
    figures = ref.load_figures([p for p in (ref.SHARED_FIGURES, ref.LOCAL_FIGURES) if p.is_file()])
    datasets = sorted({f["dataset"] for f in figures if f["encoder"] == args.encoder})
    a = steb_command(args.encoder, datasets, work, "default", ())
    b = steb_command(args.encoder, datasets, work, "blas", BLAS_OPTIONS)
    print(f"\n{len(datasets)} datasets: {', '.join(datasets)}\nA: defaults, B: {' '.join(BLAS_OPTIONS)}", flush=True)
    report = whole_process.compare({"defaults": a, "own BLAS": b}, args.runs, args.warmup)
    print(whole_process.format_report(report))
    print(f"figures: {'all reproduced' if status == 0 else 'NOT all reproduced'} (defaults, this CPU)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
