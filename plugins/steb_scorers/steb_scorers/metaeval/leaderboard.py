"""The metrics leaderboard: scorers x judgement sets, each cell a scorer's Pearson with the mean rating over all of
a set's rows, ranked per set, with the average rank over the sets (as ``steb report`` ranks encoders).

Rendered as a rich table, markdown, CSV or a self-contained HTML page with a bar plot of the average ranks
(matplotlib, imported only when the page is written). The path's suffix picks the format.
"""

from __future__ import annotations

import base64
import csv
import html
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["build_leaderboard", "leaderboard_markdown", "leaderboard_csv", "leaderboard_html", "write_leaderboard"]


def build_leaderboard(reports: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per aspect rated by every set: one row per scorer with its ALL Pearson and rank in each set, and the mean
    rank (over the sets it has a figure on; ties share the mean rank)."""
    from scipy.stats import rankdata

    from .pauli2025 import ALL

    sets = list(reports)
    aspects = [
        a for a in next(iter(reports.values()))["config"]["aspects"] if all(a in r["human"] for r in reports.values())
    ]
    board: dict[str, Any] = {"sets": sets, "aspects": {}, "statistic": "Pearson with the mean rating, ALL rows"}
    for aspect in aspects:
        labels = list(dict.fromkeys(label for r in reports.values() for label in r["metrics"]))
        values = {
            label: {
                name: (r["metrics"].get(label, {}).get("correlations", {}).get(aspect, {}).get(ALL) or {}).get(
                    "pearson"
                )
                for name, r in reports.items()
            }
            for label in labels
        }
        ranks: dict[str, dict[str, float]] = {label: {} for label in labels}
        for name in sets:
            present = [(label, float(x)) for label, v in values.items() if (x := v[name]) is not None]
            for (label, _), rank in zip(present, rankdata([-x for _, x in present], method="average")):
                ranks[label][name] = float(rank)
        rows = []
        for label in labels:
            over = list(ranks[label].values())
            rows.append(
                {
                    "scorer": label,
                    "pearson": values[label],
                    "rank": ranks[label],
                    "average_rank": float(np.mean(over)) if over else None,
                }
            )
        rows.sort(key=lambda r: (r["average_rank"] is None, r["average_rank"] or 0.0, r["scorer"]))
        board["aspects"][aspect] = rows
    return board


def _num(v: float | None, fmt: str = ".2f") -> str:
    return "–" if v is None else f"{v:{fmt}}"


def leaderboard_markdown(board: Mapping[str, Any]) -> str:
    lines = []
    for aspect, rows in board["aspects"].items():
        lines.append(f"### {aspect}: {board['statistic']} (rank in brackets)\n")
        lines.append("| scorer | " + " | ".join(board["sets"]) + " | average rank |")
        lines.append("|---|" + "---:|" * (len(board["sets"]) + 1))
        for r in rows:
            cells = [
                f"{_num(r['pearson'][s])} ({_num(r['rank'].get(s), 'g')})" if r["pearson"][s] is not None else "–"
                for s in board["sets"]
            ]
            lines.append(f"| `{r['scorer']}` | " + " | ".join(cells) + f" | {_num(r['average_rank'])} |")
        lines.append("")
    return "\n".join(lines)


def leaderboard_csv(board: Mapping[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["aspect", "scorer", "set", "pearson", "rank", "average_rank"])
    for aspect, rows in board["aspects"].items():
        for r in rows:
            for s in board["sets"]:
                writer.writerow([aspect, r["scorer"], s, r["pearson"][s], r["rank"].get(s), r["average_rank"]])
    return buffer.getvalue()


def _plot(rows: list[dict[str, Any]], aspect: str) -> str:
    from matplotlib.figure import Figure

    shown = [r for r in rows if r["average_rank"] is not None]
    fig = Figure(figsize=(7, 0.5 * len(shown) + 1.2), dpi=100)
    ax = fig.add_subplot()
    ax.barh([r["scorer"] for r in shown][::-1], [r["average_rank"] for r in shown][::-1])
    ax.set_xlabel("average rank over the sets (1 = best)")
    ax.set_title(aspect)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def leaderboard_html(board: Mapping[str, Any]) -> str:
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>steb metrics leaderboard</title></head><body>"]
    parts.append("<h1>Metrics leaderboard</h1>")
    for aspect, rows in board["aspects"].items():
        parts.append(f"<h2>{html.escape(aspect)}: {html.escape(board['statistic'])}</h2><table border='1'>")
        parts.append(
            "<tr><th>scorer</th>"
            + "".join(f"<th>{html.escape(s)}</th>" for s in board["sets"])
            + "<th>average rank</th></tr>"
        )
        for r in rows:
            parts.append(
                f"<tr><td>{html.escape(r['scorer'])}</td>"
                + "".join(f"<td>{_num(r['pearson'][s])} ({_num(r['rank'].get(s), 'g')})</td>" for s in board["sets"])
                + f"<td>{_num(r['average_rank'])}</td></tr>"
            )
        parts.append("</table>")
        parts.append(
            f"<p><img alt='average rank of each scorer ({html.escape(aspect)})' src='{_plot(rows, aspect)}'></p>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def write_leaderboard(board: Mapping[str, Any], path: Path) -> None:
    """Write the leaderboard as markdown (.md), CSV (.csv) or HTML (.html), by the path's suffix."""
    from steb_core import atomic_write_text

    renderers = {".md": leaderboard_markdown, ".csv": leaderboard_csv, ".html": leaderboard_html}
    suffix = Path(path).suffix.lower()
    if suffix not in renderers:
        raise ValueError(f"leaderboard {path}: the suffix must be one of {', '.join(renderers)}")
    atomic_write_text(path, renderers[suffix](board))


def print_leaderboard(board: Mapping[str, Any], console: Any = None) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console(width=None if Console().is_terminal else 170)
    for aspect, rows in board["aspects"].items():
        table = Table(title=f"metrics leaderboard, {aspect}: {board['statistic']} (rank)")
        table.add_column("scorer")
        for s in board["sets"]:
            table.add_column(s, justify="right")
        table.add_column("average rank", justify="right")
        for r in rows:
            table.add_row(
                escape(r["scorer"]),
                *(
                    f"{_num(r['pearson'][s])} ({_num(r['rank'].get(s), 'g')})" if r["pearson"][s] is not None else "–"
                    for s in board["sets"]
                ),
                _num(r["average_rank"]),
            )
        console.print(table)
