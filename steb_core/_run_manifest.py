"""The run manifest: which command wrote the results of which encoder into a results folder.

``steb run`` appends one JSON line per encoder it ran to ``OUTPUT/steb-runs.jsonl`` (the command line as typed,
from the options the user set, not their defaults; the encoder; when it finished; how many results the run
wrote or reused). ``steb export`` reads it back, so a leaderboard submission names the command that produced its
numbers instead of a made-up one. A ``.jsonl`` file, so :func:`steb_core._results.load_results` never reads it as a
result record.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ._io import atomic_write_text, check_inside

__all__ = ["RUNS_FILE", "record_run", "run_commands", "command_line"]

RUNS_FILE = "steb-runs.jsonl"
#: a manifest past this is not one steb wrote (a line is a few hundred bytes)
_MAX_BYTES = 16 * 2**20


def command_line(program: str, params: Sequence[Any], values: Mapping[str, Any], given: set[str]) -> str:
    """The command line that sets the parameters ``given`` (click parameters ``params`` with ``values``): options as
    their long form, repeatable ones repeated, flags by the spelling that sets their value; shell-quoted."""
    words = shlex.split(program)
    positional: list[str] = []
    for param in params:
        name = param.name
        if name not in given or name not in values:
            continue
        value = values[name]
        if getattr(param, "param_type_name", "") == "argument":
            positional += [str(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
            continue
        opts = sorted(param.opts, key=lambda o: (not o.startswith("--"), -len(o)))
        if getattr(param, "is_flag", False) and not getattr(param, "count", False):
            secondary = sorted(getattr(param, "secondary_opts", []) or [], key=lambda o: not o.startswith("--"))
            if value:
                words.append(opts[0])
            elif secondary:
                words.append(secondary[0])
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is not None:
                words += [opts[0], str(item)]
    return shlex.join(words + positional)


def record_run(output: str | Path, command: str, encoder: str, results: int) -> Path:
    """Append a line for ``encoder``'s run of ``command`` to ``OUTPUT/steb-runs.jsonl`` (the file rewritten whole,
    atomically)."""
    path = Path(output) / RUNS_FILE
    check_inside(path, output, what="output folder")
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    line = {
        "command": command,
        "encoder": encoder,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "results": results,
    }
    atomic_write_text(path, old + ("" if not old or old.endswith("\n") else "\n") + json.dumps(line) + "\n")
    return path


def run_commands(output: str | Path, encoder: str) -> list[str]:
    """The distinct commands the manifest of ``output`` records for ``encoder``, oldest first ([] when none)."""
    path = Path(output) / RUNS_FILE
    if not path.is_file() or path.stat().st_size > _MAX_BYTES:
        return []
    found: list[str] = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("encoder") == encoder and isinstance(entry.get("command"), str):
            if entry["command"] not in found:
                found.append(entry["command"])
    return found
