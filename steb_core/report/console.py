"""The leaderboard in the terminal (rich): one row per encoder, one column per aggregator."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .._specs import STEB_PROTOCOL_VERSION
from .format import MISSING, fmt
from .leaderboard import Leaderboard, rank_marks

__all__ = ["print_leaderboard", "protocol_line", "cluster_line"]

_STYLE = {1: "bold green", 2: "underline"}


def protocol_line(board: Leaderboard) -> str:
    """Which STEB protocol steb implements and which the stored results say they follow."""
    return (
        f"STEB protocol: steb implements {STEB_PROTOCOL_VERSION}; results follow "
        f"{', '.join(board.protocols()) or 'unknown'}"
    )


def cluster_line(board: Leaderboard) -> str:
    """Which operational cluster set was used and how many models it came from ('' without an operational score)."""
    op = board.aggregate("operational")
    if op is None or not op.details.get("cluster_source"):
        return ""
    return f"operational clusters: {op.details['cluster_source']}"


def print_leaderboard(board: Leaderboard, console: Console, several: bool = False) -> None:
    """Print the main columns; best in bold green, second best underlined; then what is incomplete."""
    columns = board.main_columns()
    n_datasets = len({d for d, _ in board.table.expected})
    wide = sum(max(len(c.label), 5) + 3 for c in columns) + max(len(e) for e in board.encoders or ["Encoder"]) + 8
    headers = [c.label if wide <= console.width or not c.short else c.short for c in columns]
    scope = f"{board.title}: " if several or board.suite else ""
    table = Table(
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
        title=f"steb leaderboard — {scope}{len(board.table.encoders)} encoder(s), {n_datasets} dataset(s), "
        f"{len(board.table)} result(s)",
        caption=f"scores x100 · [bold green]best[/] · [underline]second best[/] · {MISSING} incomplete",
    )
    table.add_column("#", justify="right")
    table.add_column("Encoder", overflow="fold")
    origins = board.origins()
    if origins:  # your model among the published ones: each row says which it is
        table.add_column("Results")
    for header in headers:  # long headers fold over several lines; numbers keep their width
        table.add_column(header, justify="right", overflow="fold")
    marks = {col.name: rank_marks(col.scores) for col in columns}
    for position, enc in enumerate(board.encoders, start=1):
        cells = [Text(fmt(col.scores.get(enc)), style=_STYLE.get(marks[col.name].get(enc, 0), "")) for col in columns]
        table.add_row(str(position), enc, *([origins.get(enc, "")] if origins else []), *cells)
    console.print(table)
    if board.ranks is not None:
        shown = " · ".join(f"{r.rank} {r.encoder} [{r.interval_text()}]" for r in board.ranks.rows)
        console.print(f"ranks [{round(board.ranks.level * 100)}% interval]: {shown}", highlight=False, markup=False)
        console.print(f"[dim]{board.ranks.method()}[/]", highlight=False)
    if board.partial_mark():  # a partial run's aggregates must not pass for the suite's
        console.print(
            f"[yellow]partial suite '{board.suite}':[/] every score above covers {board.partial_mark()}; "
            f"what is missing: missing.csv in the report folder",
            highlight=False,
        )
    abbreviated = [f"{h} = {c.label}" for h, c in zip(headers, columns) if h != c.label]
    if abbreviated:
        console.print(f"[dim]{'; '.join(abbreviated)}[/]", highlight=False)
    if cluster_line(board):
        console.print(f"[dim]{cluster_line(board)}[/]", highlight=False)
    if board.dropped:
        names = ", ".join(a.label for a in board.aggregates if a.name in board.dropped)
        console.print(
            f"[dim]not columns here (cannot be complete in this scope): {names} (report.md says why)[/]",
            highlight=False,
        )
    for col in columns:
        gaps = {enc: col.missing[enc] for enc in board.encoders if col.missing.get(enc)}
        if gaps:
            first_enc, first = next(iter(gaps.items()))
            who = ", ".join(f"{enc} ({len(g)})" for enc, g in gaps.items())
            console.print(
                f"[yellow]{col.label}[/] incomplete for {who} input(s) missing, e.g. {first_enc}: "
                f"{first[0].describe()}",
                highlight=False,
            )
    for failure in board.failures:
        console.print(
            f"[red]aggregator '{escape(failure.name)}' failed:[/] {escape(str(failure.error))}", highlight=False
        )
    for note in board.table.notes:
        console.print(f"[dim]{escape(note)}[/]", highlight=False)
