"""CSV outputs: the leaderboard (every column, raw 0-1 scores), per-result metrics, and missing inputs."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Any

from .leaderboard import Leaderboard

__all__ = ["leaderboard_csv", "scores_csv", "missing_csv", "aggregates_json"]


def _csv(rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def leaderboard_csv(board: Leaderboard) -> str:
    """One row per encoder; one column per aggregate and sub-column (empty cell = incomplete)."""
    columns = board.all_columns()
    rows: list[list[Any]] = [["encoder", *(c.name for c in columns)]]
    for enc in board.encoders:
        rows.append([enc, *("" if c.scores.get(enc) is None else repr(float(c.scores[enc])) for c in columns)])
    return _csv(rows)


def scores_csv(board: Leaderboard) -> str:
    """Long format: every numeric top-level metric of every stored record."""
    rows: list[list[Any]] = [["encoder", "dataset", "task", "metric", "value", "main"]]
    for (enc, dataset, task), rec in sorted(board.table.records.items()):
        for metric, value in rec.metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                rows.append([enc, dataset, task, metric, repr(float(value)), int(metric == rec.main_metric)])
    return _csv(rows)


def missing_csv(board: Leaderboard) -> str:
    """Every (column, encoder) gap: which (dataset, task) was missing and why."""
    rows: list[list[Any]] = [["column", "encoder", "dataset", "task", "reason"]]
    for col in board.all_columns():
        for enc in board.encoders:
            rows += [[col.name, enc, g.dataset, g.task, g.reason] for g in col.missing.get(enc, [])]
    return _csv(rows)


def aggregates_json(board: Leaderboard) -> str:
    """Machine-readable aggregates (scores, missing inputs, sub-columns, clusters) for later inspection."""
    data = {
        "encoders": board.encoders,
        "aggregates": [asdict(a) for a in board.aggregates],
        "failures": [asdict(f) for f in board.failures],
        "scope": [list(x) for x in board.table.expected],
        "notes": board.table.notes,
    }
    return json.dumps(data, indent=2, default=str)
