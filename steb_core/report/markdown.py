"""The report as Markdown: leaderboard, every sub-column, per-dataset scores, clusters and gaps."""

from __future__ import annotations

from typing import Sequence

from ..aggregators.result import Column
from .format import column_gap_reason, fmt
from .leaderboard import Leaderboard, rank_marks

__all__ = ["markdown_sections", "render_markdown"]


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def esc(cell: str) -> str:
        return str(cell).replace("|", "\\|")

    out = ["| " + " | ".join(esc(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return out


def _score_table(board: Leaderboard, columns: Sequence[Column]) -> list[str]:
    marks = {col.name: rank_marks(col.scores) for col in columns}
    rows = []
    for enc in board.encoders:
        cells = []
        for col in columns:
            text = fmt(col.scores.get(enc))
            mark = marks[col.name].get(enc)
            cells.append(f"**{text}**" if mark == 1 else f"_{text}_" if mark == 2 else text)
        rows.append([enc, *cells])
    return _table(["Encoder", *(c.label for c in columns)], rows)


def markdown_sections(board: Leaderboard) -> list[str]:
    """The report as Markdown sections (the HTML page puts its plots after the first, the leaderboard)."""
    table = board.table
    datasets = sorted({d for d, _ in table.expected})
    sections = [
        "\n".join(
            [
                "# steb report",
                "",
                f"{len(table.encoders)} encoder(s), {len(datasets)} dataset(s), {len(table.expected)} (dataset, task) pair(s) in scope, "
                f"{len(table)} stored result(s). Scores x100; **best**, _second best_; – = incomplete (see *Missing inputs*).",
                "",
                "## Leaderboard",
                "",
                *_score_table(board, board.main_columns()),
            ]
        )
    ]
    for agg in board.aggregates:
        lines = [f"## {agg.label}", "", agg.description, ""]
        if agg.sub_columns:
            lines += _score_table(board, agg.columns())
        if agg.inputs:
            shown = ", ".join(f"{d} ({t})" for d, t in agg.inputs[:40])
            more = f", … (+{len(agg.inputs) - 40} more)" if len(agg.inputs) > 40 else ""
            lines += ["", f"Inputs ({len(agg.inputs)}): {shown}{more}"]
        reason = column_gap_reason(agg)
        if reason:
            lines += ["", f"Not computed: {reason}."]
        for sub in agg.sub_columns:
            sub_reason = column_gap_reason(sub)
            if sub_reason and sub_reason not in reason:
                lines.append(f"- {sub.label}: {sub_reason}")
        clusters = agg.details.get("clusters") if isinstance(agg.details, dict) else None
        if clusters:
            lines += ["", "Redundancy clusters (datasets ranking the models alike are averaged first):", ""]
            for task, info in clusters.items():
                groups = " · ".join("{" + ", ".join(c) + "}" for c in info.get("clusters", []))
                lines.append(f"- **{task}** ({info.get('metric')}; {info.get('method')}): {groups}")
                if info.get("note"):
                    lines.append(f"  - {info['note']}")
        sections.append("\n".join(lines))
    cols, values = board.dataset_scores()
    lines = ["## Per-dataset scores", "", "Operational metric of each (dataset, task), x100.", ""]
    lines += _table(
        ["Dataset", "Task", "Metric", *board.encoders],
        [[d, t, m, *(fmt(values[enc][(d, t)]) for enc in board.encoders)] for d, t, m in cols],
    )
    sections.append("\n".join(lines))
    missing_rows = []
    for agg in board.aggregates:
        for col in agg.columns():
            if column_gap_reason(col):
                continue
            for enc in board.encoders:
                for gap in col.missing.get(enc, []):
                    if gap.dataset:
                        missing_rows.append([col.label, enc, gap.dataset, gap.task, gap.reason])
    if missing_rows:
        sections.append("\n".join(["## Missing inputs", "", *_table(["Column", "Encoder", "Dataset", "Task", "Reason"], missing_rows)]))
    if board.failures:
        sections.append("\n".join(["## Aggregator failures", "", *(f"- `{f.name}`: {f.error}" for f in board.failures)]))
    if table.notes:
        sections.append("\n".join(["## Notes", "", *(f"- {n}" for n in table.notes)]))
    return sections


def render_markdown(board: Leaderboard) -> str:
    return "\n\n".join(markdown_sections(board)) + "\n"
