"""Reports over stored results: the terminal leaderboard, Markdown, CSV, JSON and a self-contained HTML page.

``steb report DIR`` calls :func:`build_report`. The leaderboard is printed before anything slow
happens: matplotlib is imported only when the HTML page is written, so the table appears in well
under two seconds on a small run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..io import atomic_write_text
from .leaderboard import AggregatorFailure, Leaderboard, compute_leaderboard, load_merged, rank_marks

__all__ = ["ReportPaths", "build_report", "compute_leaderboard", "Leaderboard", "AggregatorFailure", "rank_marks", "load_merged"]


@dataclass
class ReportPaths:
    """Where the report files went, the leaderboard they show, and how long each stage took (seconds)."""

    out_dir: Path
    markdown: Path
    leaderboard_csv: Path
    scores_csv: Path
    missing_csv: Path
    aggregates_json: Path
    html: Path | None
    leaderboard: Leaderboard
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def csv(self) -> Path:
        return self.leaderboard_csv

    def files(self) -> list[Path]:
        written = [self.markdown, self.leaderboard_csv, self.scores_csv, self.missing_csv, self.aggregates_json]
        return written + ([self.html] if self.html is not None else [])


def build_report(
    results_dir: str | Path | Sequence[str | Path],
    out_dir: str | Path | None = None,
    *,
    console: Any = None,
    html: bool = True,
    suites: Iterable[str] = (),
    datasets: Any = "registered",
) -> ReportPaths:
    """Aggregate the results in ``results_dir`` (one folder or several, merged), print, and write the report.

    ``out_dir`` defaults to ``<results_dir>/report`` (of the first folder). ``console`` is a
    :class:`rich.console.Console` (default: a new one on stdout); pass ``console=False`` to print
    nothing. ``suites`` makes every registered dataset of those suites required (see
    :class:`~steb_core.aggregators.ResultTable`); ``datasets=None`` ignores installed dataset specs and
    uses the metadata stored in the records.
    """
    started = time.perf_counter()
    timings: dict[str, float] = {}
    first = Path(results_dir if isinstance(results_dir, (str, Path)) else results_dir[0])
    out = Path(out_dir) if out_dir is not None else first / "report"
    records = load_merged(results_dir)
    board = compute_leaderboard(records, datasets=datasets, suites=suites)
    timings["aggregate"] = time.perf_counter() - started

    con = None
    if console is not False:
        from rich.console import Console

        from .console import print_leaderboard

        con = console if console is not None else Console()
        if not records:
            con.print(f"[yellow]no steb result records under {results_dir}[/] (run `steb run ... --output DIR` first)")
        print_leaderboard(board, con)
    timings["leaderboard_printed"] = time.perf_counter() - started

    from .markdown import render_markdown
    from .tables import aggregates_json, leaderboard_csv, missing_csv, scores_csv

    out.mkdir(parents=True, exist_ok=True)
    paths = ReportPaths(
        out_dir=out,
        markdown=out / "report.md",
        leaderboard_csv=out / "leaderboard.csv",
        scores_csv=out / "scores.csv",
        missing_csv=out / "missing.csv",
        aggregates_json=out / "aggregates.json",
        html=(out / "report.html") if html else None,
        leaderboard=board,
        timings=timings,
    )
    atomic_write_text(paths.markdown, render_markdown(board))
    atomic_write_text(paths.leaderboard_csv, leaderboard_csv(board))
    atomic_write_text(paths.scores_csv, scores_csv(board))
    atomic_write_text(paths.missing_csv, missing_csv(board))
    atomic_write_text(paths.aggregates_json, aggregates_json(board))
    timings["text_files"] = time.perf_counter() - started
    if paths.html is not None:
        from .html import render_html

        atomic_write_text(paths.html, render_html(board))
        timings["html"] = time.perf_counter() - started
    if con is not None:
        con.print(f"[dim]report written to {out}/: {', '.join(p.name for p in paths.files())}[/]")
    return paths
