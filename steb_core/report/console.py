"""The leaderboard in the terminal (rich): one row per encoder, one column per aggregator."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .format import MISSING, column_gap_reason, fmt
from .leaderboard import Leaderboard, rank_marks

__all__ = ["print_leaderboard"]

_STYLE = {1: "bold green", 2: "underline"}


def print_leaderboard(board: Leaderboard, console: Console) -> None:
    """Print the main columns; best in bold green, second best underlined; then what is incomplete."""
    columns = board.main_columns()
    n_datasets = len({d for d, _ in board.table.expected})
    wide = sum(max(len(c.label), 5) + 3 for c in columns) + max(len(e) for e in board.encoders or ["Encoder"]) + 8
    headers = [c.label if wide <= console.width or not c.short else c.short for c in columns]
    table = Table(
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
        title=f"steb leaderboard — {len(board.table.encoders)} encoder(s), {n_datasets} dataset(s), {len(board.table)} result(s)",
        caption=f"scores x100 · [bold green]best[/] · [underline]second best[/] · {MISSING} incomplete",
    )
    table.add_column("#", justify="right")
    table.add_column("Encoder", overflow="fold")
    for header in headers:  # long headers fold over several lines; numbers keep their width
        table.add_column(header, justify="right", overflow="fold")
    marks = {col.name: rank_marks(col.scores) for col in columns}
    for position, enc in enumerate(board.encoders, start=1):
        cells = [Text(fmt(col.scores.get(enc)), style=_STYLE.get(marks[col.name].get(enc, 0), "")) for col in columns]
        table.add_row(str(position), enc, *cells)
    console.print(table)
    abbreviated = [f"{h} = {c.label}" for h, c in zip(headers, columns) if h != c.label]
    if abbreviated:
        console.print(f"[dim]{'; '.join(abbreviated)}[/]")
    for col in columns:
        shared = column_gap_reason(col)
        if shared:
            console.print(f"[dim]{col.label}: not computed — {shared}[/]")
            continue
        for enc in board.encoders:
            gaps = col.missing.get(enc)
            if gaps:
                console.print(f"[yellow]{col.label}[/] incomplete for [bold]{enc}[/]: {len(gaps)} input(s) missing, e.g. {gaps[0].describe()}")
    for failure in board.failures:
        console.print(f"[red]aggregator '{failure.name}' failed:[/] {failure.error}")
    for note in board.table.notes:
        console.print(f"[dim]{note}[/]")
