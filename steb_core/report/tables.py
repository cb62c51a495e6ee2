"""CSV and JSON outputs: the leaderboards (every column, raw 0-1 scores), per-result metrics, missing inputs."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from .._specs import STEB_PROTOCOL_VERSION
from .leaderboard import Leaderboard
from .ranks import rank_interval_rows

__all__ = ["report_csv", "leaderboard_csv", "scores_csv", "missing_csv", "aggregates_json"]


def _csv(rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def _boards(boards: Leaderboard | Sequence[Leaderboard]) -> list[Leaderboard]:
    return [boards] if isinstance(boards, Leaderboard) else list(boards)


def report_csv(boards: Leaderboard | Sequence[Leaderboard]) -> str:
    """One row per (suite, encoder); one column per aggregate and sub-column (empty cell = incomplete or
    not a column of that suite's leaderboard); ``partial`` = "N of M datasets (K of L dataset-task pairs)"
    when the results cover part of the suite (every score of the row covers only that). When published results
    are among them (``steb import``), a ``results`` column after the encoder says ``published`` or ``yours`` per
    row, as the Markdown and HTML tables do (:meth:`Leaderboard.origins`)."""
    boards = _boards(boards)
    names: list[str] = []
    for board in boards:
        for col in board.all_columns():
            if col.name not in names:
                names.append(col.name)
    origins = [board.origins() for board in boards]
    marked = any(origins)
    rows: list[list[Any]] = [["suite", "encoder", *(["results"] if marked else []), *names, "partial"]]
    for board, origin in zip(boards, origins, strict=True):
        scores = {col.name: col.scores for col in board.all_columns()}
        for enc in board.encoders:
            cells = []
            for name in names:
                value = scores.get(name, {}).get(enc)
                cells.append("" if value is None else repr(float(value)))
            mark = [origin.get(enc, "")] if marked else []
            rows.append([board.suite or "", enc, *mark, *cells, board.partial_mark()])
    return _csv(rows)


leaderboard_csv = report_csv  # the former name


def scores_csv(boards: Leaderboard | Sequence[Leaderboard]) -> str:
    """Long format: every numeric top-level metric of every stored record (once, whatever its suites)."""
    records = {}
    for board in _boards(boards):
        records.update(board.table.records)
    rows: list[list[Any]] = [["encoder", "dataset", "task", "metric", "value", "main"]]
    for (enc, dataset, task), rec in sorted(records.items()):
        for metric, value in rec.metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                rows.append([enc, dataset, task, metric, repr(float(value)), int(metric == rec.main_metric)])
    return _csv(rows)


def missing_csv(boards: Leaderboard | Sequence[Leaderboard]) -> str:
    """Every (suite, column, encoder) gap: which (dataset, task) was missing and why; first the pairs of a
    partially run suite that no encoder has (column ``(suite)``), so a partial run lists what it lacks."""
    rows: list[list[Any]] = [["suite", "column", "encoder", "dataset", "task", "reason"]]
    for board in _boards(boards):
        cov = board.coverage  # pairs of the suite no encoder has: column "(suite)", no encoder
        if cov is not None:
            rows += [
                [
                    board.suite or "",
                    "(suite)",
                    "",
                    d,
                    t,
                    f"not run: no result (get the data: steb data get --dataset {d})",
                ]
                for d, t in cov.missing
            ]
        for col in board.all_columns():
            for enc in board.encoders:
                rows += [
                    [board.suite or "", col.name, enc, g.dataset, g.task, g.reason] for g in col.missing.get(enc, [])
                ]
    return _csv(rows)


def aggregates_json(boards: Leaderboard | Sequence[Leaderboard]) -> str:
    """Machine-readable aggregates (scores, missing inputs, rows, sub-columns, clusters) per leaderboard."""
    data = {
        "steb_protocol": STEB_PROTOCOL_VERSION,
        "leaderboards": [
            {
                "suite": board.suite,
                "partial": board.partial_mark(),
                "missing_pairs": [list(x) for x in board.coverage.missing] if board.coverage is not None else [],
                "results_protocol": board.protocols(),
                "encoders": board.encoders,
                "aggregates": [asdict(a) for a in board.aggregates],
                "not_columns": board.dropped,
                "failures": [asdict(f) for f in board.failures],
                "scope": [list(x) for x in board.table.expected],
                "notes": board.table.notes,
                "ranks": None
                if board.ranks is None
                else {
                    "method": board.ranks.method(),
                    "level": board.ranks.level,
                    "resamples": board.ranks.resamples,
                    "seed": board.ranks.seed,
                    "columns": [list(x) for x in board.ranks.pairs],
                    "rows": rank_interval_rows(board.ranks),
                },
            }
            for board in _boards(boards)
        ],
    }
    return json.dumps(data, indent=2, default=str)
