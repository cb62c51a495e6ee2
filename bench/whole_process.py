"""Whole-process timing with the standard library: wall, CPU and peak memory of commands run in turn.

Why: a speed ratio against a peer (the STEB authors' reference code, or steb with another option) means something
only when every side is timed the same way, start-up included, side by side on the same machine, and in rounds so
a drift in the machine's speed during the call hits all of them. Each run is a child process started with
:func:`subprocess.Popen` and reaped with :func:`os.wait4`, whose resource usage is the operating system's own
accounting of that child and the descendants it waited for: ``cpu`` is user + system seconds, ``peak`` the largest
resident set among them (``ru_maxrss``, KiB on Linux), ``wall`` a monotonic clock around start and reap. A peak
cannot read below this timer's own resident set (the child is a fork of it until it executes the command: about
15 MiB here). Rounds run every command once, in the order given, after ``warmup`` uncounted rounds; each figure is
reported as median (min-max), and each command's ratio to the last one (the yardstick) is taken round by round,
then its median. The 1-minute load average before each run is kept: a bench table says its load.

    .venv/bin/python bench/whole_process.py -n 3 --cmd 'CMD_A ...' --cmd 'CMD_B ...' [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Run:
    """One finished run of one command."""

    wall_s: float
    cpu_s: float
    peak_mib: float
    exit_code: int
    load_1min: float


def run_once(command: Sequence[str] | str, env: dict[str, str] | None = None, log: Path | None = None) -> Run:
    """Start ``command`` (a list, or a string given to ``sh -c``), reap it with ``os.wait4`` and read its usage."""
    argv = ["sh", "-c", command] if isinstance(command, str) else list(command)
    load = os.getloadavg()[0]
    out = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115 - closed below
    try:
        start = time.monotonic()
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: keep Popen from waiting again
    finally:
        if log is not None:
            out.close()  # type: ignore[union-attr]
    return Run(
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_mib=usage.ru_maxrss / 1024,
        exit_code=child.returncode,
        load_1min=load,
    )


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


FIGURES = (("wall_s", "wall", "s"), ("cpu_s", "CPU (user + sys)", "s"), ("peak_mib", "peak", "MiB"))


def compare(
    commands: dict[str, Sequence[str] | str],
    runs: int = 3,
    warmup: int = 0,
    env: dict[str, str] | None = None,
    log: Path | None = None,
) -> dict[str, Any]:
    """``runs`` rounds of every command in turn (after ``warmup`` uncounted ones): each command's figures, and its
    ratio to the last command (the yardstick) round by round."""
    for _ in range(warmup):
        for command in commands.values():
            run_once(command, env, log)
    rounds = [{label: run_once(command, env, log) for label, command in commands.items()} for _ in range(runs)]
    yardstick = list(commands)[-1]
    report: dict[str, Any] = {"yardstick": yardstick, "rounds": [{k: asdict(v) for k, v in r.items()} for r in rounds]}
    for label in commands:
        chosen = [r[label] for r in rounds]
        entry: dict[str, Any] = {key: _spread([getattr(x, key) for x in chosen]) for key, _, _ in FIGURES}
        entry["exit_codes"] = [x.exit_code for x in chosen]
        entry["load_1min"] = _spread([x.load_1min for x in chosen])
        entry["ratio"] = {
            key: _spread([getattr(r[label], key) / getattr(r[yardstick], key) for r in rounds])
            for key, _, _ in FIGURES
            if all(getattr(r[yardstick], key) > 0 for r in rounds)
        }
        report[label] = entry
    return report


def format_report(report: dict[str, Any]) -> str:
    """A Markdown table: one row per figure, one column per command, median (min-max) and the ratio's median."""

    def cell(s: dict[str, float], unit: str, digits: int = 1) -> str:
        return f"{s['median']:.{digits}f}{' ' + unit if unit else ''} ({s['min']:.{digits}f}-{s['max']:.{digits}f})"

    labels = [k for k in report if k not in ("yardstick", "rounds")]
    yardstick = report["yardstick"]
    lines = ["| figure | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for key, name, unit in FIGURES:
        row = []
        for label in labels:
            ratio = report[label]["ratio"].get(key)
            suffix = f" = {ratio['median']:.2f}x" if label != yardstick and ratio else ""
            row.append(cell(report[label][key], unit) + suffix)
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    exits = ", ".join(f"{label} {report[label]['exit_codes']}" for label in labels)
    loads = ", ".join(cell(report[label]["load_1min"], "", 2) for label in labels)
    lines.append(f"\nratios: to {yardstick}, round by round, median; exit codes {exits}; 1-minute load {loads}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cmd", action="append", required=True, help="a command run by sh -c; the last is the yardstick")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--log", type=Path, default=None, help="append every command's output here")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    report = compare({f"#{i + 1}": c for i, c in enumerate(args.cmd)}, args.runs, args.warmup, log=args.log)
    print(format_report(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
