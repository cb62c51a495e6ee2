"""Where a result lives in the STEB authors' results tree: ``<dataset>/<short_name>/<episode>/<task>/metrics.json``.

As ``steb/core.py`` @18c49153 ``evaluate`` writes it: ``os.path.join(output_folder, basename(dataset_name),
model_str, f"{episode_size}_{n_episodes_per_class}", task_name[, f"tokens_{N}"], "metrics.json")`` where
``model_str`` is the last path component of the model name (the SUBMISSION.md "short name"), the episode folder has
the *resolved* N per class ("auto" becomes e.g. ``1_200``), a ``tokens_<N>`` level is added only when the run capped
the token count (``--truncate`` or ``--max-tokens``), and the file is ``json.dumps(metrics)``: one line, default
separators, full float precision, no trailing newline. ``output_folder/logs/`` holds run logs, not results.
The leaderboard scripts (``scripts/benchmark_clustering/discovery.py`` @f568bff4) read
``<dataset>/<model>/<episode>/<task>/metrics.json`` only: a ``tokens_<N>`` result is never on the leaderboard.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = [
    "METRICS_FILE",
    "LOGS_FOLDER",
    "episode_folder",
    "parse_episode_folder",
    "tokens_folder",
    "parse_tokens_folder",
    "check_short_name",
    "metrics_path",
    "metrics_text",
]

METRICS_FILE = "metrics.json"
LOGS_FOLDER = "logs"

# matched whole (``fullmatch``: ``$`` would let a trailing newline through) and ASCII digits only (``\d`` is any
# Unicode digit): a folder name is what it shows
_EPISODE = re.compile(r"(-?[0-9]+)_([0-9]+)")
_TOKENS = re.compile(r"tokens_([0-9]+)")
_SHORT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def episode_folder(episode_size: int, n_per_class: int) -> str:
    """``1_200``: episode size and the resolved number of episodes per class."""
    return f"{int(episode_size)}_{int(n_per_class)}"


def parse_episode_folder(name: str) -> tuple[int, int] | None:
    """(episode size, N per class) of an episode folder name; None when the name is not one."""
    match = _EPISODE.fullmatch(name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def tokens_folder(max_tokens: int) -> str:
    return f"tokens_{int(max_tokens)}"


def parse_tokens_folder(name: str) -> int | None:
    match = _TOKENS.fullmatch(name)
    return int(match.group(1)) if match else None


def check_short_name(name: str) -> str | None:
    """Why ``name`` cannot be a model folder (None when it can): one path component of plain characters.

    core.py takes the last component of the model path, so a short name never holds ``/``; steb also refuses
    names that a shell or a file system would treat specially (leading ``.``/``-``, spaces, ``..``).
    """
    if not name:
        return "is empty"
    if not _SHORT_NAME.fullmatch(name):
        return "must start with a letter or digit and hold only letters, digits and . _ + - (it is one folder name)"
    return None


def metrics_path(
    root: str | Path, dataset: str, short_name: str, episode: str, task_folder: str, tokens: int | None = None
) -> Path:
    """The metrics.json of one run under ``root``."""
    path = Path(root) / dataset / short_name / episode / task_folder
    if tokens is not None:
        path = path / tokens_folder(tokens)
    return path / METRICS_FILE


def metrics_text(metrics: dict[str, Any]) -> str:
    """The file content as core.py writes it (``json.dumps``; steb refuses NaN, which it never computes)."""
    return json.dumps(metrics, allow_nan=False)
