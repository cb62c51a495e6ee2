"""The report as Markdown: per suite the leaderboard, every aggregate's table, rows, clusters, per-dataset scores,
gaps."""

from __future__ import annotations

from collections.abc import Sequence

from .._specs import STEB_PROTOCOL_VERSION
from ..aggregators.result import Column
from .console import cluster_line
from .format import column_gap_reason, fmt
from .leaderboard import Leaderboard, rank_marks

__all__ = ["markdown_sections", "render_markdown", "report_header"]


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
    origins = board.origins()
    if origins:  # your model among the published ones: each row says which it is
        rows = [[row[0], origins.get(row[0], ""), *row[1:]] for row in rows]
        return _table(["Encoder", "Results", *(c.label for c in columns)], rows)
    return _table(["Encoder", *(c.label for c in columns)], rows)


def _rows_table(board: Leaderboard, columns: Sequence[Column]) -> list[str]:
    """The parts behind averaged columns: one line per (column, part). A part is a (task, metric) column of the
    STEB cluster (the default, reference weighting) or a STEB Table 13 row (the ``table13`` weighting)."""
    lines = []
    for col in columns:
        for row in col.rows:
            datasets = ", ".join(dict.fromkeys(d for d, _ in row.inputs))
            lines.append([col.label, row.label, datasets, *(fmt(row.scores.get(enc)) for enc in board.encoders)])
    if not lines:
        return []
    return [
        "",
        "Parts (each part is the mean over its datasets; the column is the mean over its parts: a STEB "
        "cluster's (task, metric) columns, or STEB Table 13 rows under the table13 weighting):",
        "",
        *_table(["Column", "Part", "Datasets", *board.encoders], lines),
    ]


def report_header(boards: Sequence[Leaderboard]) -> str:
    names = ", ".join(
        (f"'{b.suite}'" + (f" (partial: {b.partial_mark()})" if b.partial_mark() else ""))
        if b.suite
        else "results outside any suite"
        for b in boards
    )
    # point at the section only where one is written (a pointer to nothing sends readers searching)
    pointer = " (see *Missing inputs* below)" if any(missing_rows(b) for b in boards) else ""
    protocols = sorted({p for b in boards for p in b.protocols()})
    return "\n".join(
        [
            "# steb report",
            "",
            f"STEB protocol: steb implements **{STEB_PROTOCOL_VERSION}**; the results follow "
            f"{', '.join(protocols) or 'unknown'}.",
            "",
            f"{len(boards)} leaderboard(s): {names}. Scores x100; **best**, _second best_; – = incomplete{pointer}.",
        ]
    )


def markdown_sections(board: Leaderboard, several: bool = False) -> list[str]:
    """One leaderboard's sections (the HTML page puts its plots after the first, the leaderboard)."""
    table = board.table
    h2, h3 = ("##", "###") if several else ("##", "##")
    datasets = sorted({d for d, _ in table.expected})
    mark = board.partial_mark()
    head = f"{h2} Leaderboard — {board.title}" if several or mark else f"{h2} Leaderboard"
    first = [
        head,
        "",
        f"{len(table.encoders)} encoder(s), {len(datasets)} dataset(s), {len(table.expected)} (dataset, task) pair(s) "
        "in scope, "
        f"{len(table)} stored result(s).",
        "",
    ]
    if mark:  # right above the scores: a partial run's aggregates are not the suite's
        first += [
            f"**Partial suite '{board.suite}'**: every score below covers {mark}; what is missing is listed "
            f"under *Not run* below and in `missing.csv`.",
            "",
        ]
    first += _score_table(board, board.main_columns())
    if cluster_line(board):
        first += ["", cluster_line(board).capitalize() + "."]
    if board.dropped:
        first += ["", "Not columns of this leaderboard (they cannot be complete in this scope):", ""]
        first += [f"- {a.label}: {board.dropped[a.name]}" for a in board.aggregates if a.name in board.dropped]
    sections = ["\n".join(first)]
    if board.ranks is not None:
        sections.append("\n".join(_ranks_section(board, h3, several or bool(mark))))
    for agg in board.shown_aggregates():
        lines = [f"{h3} {agg.label}" + (f" — {board.title}" if several or mark else ""), "", agg.description, ""]
        lines += _score_table(board, agg.columns())
        lines += _rows_table(board, agg.columns())
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
            lines += [
                "",
                f"Redundancy clusters ({agg.details.get('cluster_source', '')}; datasets ranking the models alike are "
                "averaged first):",
                "",
            ]
            for task, info in clusters.items():
                groups = " · ".join("{" + ", ".join(c) + "}" for c in info.get("clusters", []))
                lines.append(f"- **{task}** ({info.get('metric')}; {info.get('method')}): {groups}")
                if info.get("note"):
                    lines.append(f"  - {info['note']}")
        sections.append("\n".join(lines))
    lines = [
        f"{h3} Per-dataset scores" + (f" — {board.title}" if several else ""),
        "",
        "Each cell: the metric the operational score uses, by name, then its companions "
        "(order alignment: distractor accuracy, and the plain accuracy the run printed).",
        "",
    ]
    lines += _table(
        ["Dataset", "Task", *board.encoders],
        [[d, t, *(board.cell(enc, d, t).text() for enc in board.encoders)] for d, t in table.expected],
    )
    sections.append("\n".join(lines))
    cov = board.coverage
    if cov is not None and cov.partial:
        not_run = list(dict.fromkeys(d for d, _ in cov.missing))
        shown = ", ".join(not_run[:40]) + (f", … (+{len(not_run) - 40} more)" if len(not_run) > 40 else "")
        sections.append(
            "\n".join(
                [
                    f"{h3} Not run — {board.title}",
                    "",
                    f"{len(cov.missing)} (dataset, task) pair(s) of the suite have no result, from {len(not_run)} "
                    "dataset(s) "
                    f"(all in `missing.csv`; get the data with `steb data get --suite {board.suite}`): {shown}",
                ]
            )
        )
    missing = missing_rows(board)
    if missing:
        title = f"{h3} Missing inputs" + (f" — {board.title}" if several else "")
        sections.append("\n".join([title, "", *_table(["Column", "Encoder", "Dataset", "Task", "Reason"], missing)]))
    if board.failures:
        sections.append(
            "\n".join([f"{h3} Aggregator failures", "", *(f"- `{f.name}`: {f.error}" for f in board.failures)])
        )
    if table.notes:
        sections.append("\n".join([f"{h3} Notes", "", *(f"- {n}" for n in table.notes)]))
    return sections


def _ranks_section(board: Leaderboard, h3: str, titled: bool) -> list[str]:
    """Each encoder's rank with its bootstrap interval (:mod:`.ranks`), and how the interval was computed; ``titled``:
    the heading names the leaderboard (several of them, or a partial suite's mark)."""
    ranks = board.ranks
    percent = round(ranks.level * 100)
    rows = [
        [r.encoder, fmt(r.mean), str(r.rank), r.interval_text(), f"{r.distribution[0]:.2f}" if r.distribution else ""]
        for r in ranks.rows
    ]
    return [
        f"{h3} Rank intervals" + (f" — {board.title}" if titled else ""),
        "",
        ranks.method()[0].upper() + ranks.method()[1:] + ".",
        "",
        *_table(["Encoder", "Mean per-dataset score", "Rank", f"{percent}% interval", "P(rank 1)"], rows),
    ]


def missing_rows(board: Leaderboard) -> list[list[str]]:
    """(column, encoder, dataset, task, reason) of each input a shown column lacks: the *Missing inputs* section."""
    rows = []
    for agg in board.shown_aggregates():
        for col in agg.columns():
            if column_gap_reason(col):
                continue
            for enc in board.encoders:
                for gap in col.missing.get(enc, []):
                    if gap.dataset:
                        rows.append([col.label, enc, gap.dataset, gap.task, gap.reason])
    return rows


def render_markdown(boards: Leaderboard | Sequence[Leaderboard]) -> str:
    boards = [boards] if isinstance(boards, Leaderboard) else list(boards)
    several = len(boards) > 1
    parts = [report_header(boards)]
    for board in boards:
        parts += markdown_sections(board, several)
    return "\n\n".join(parts) + "\n"
