"""Reports over stored results: the terminal leaderboard, Markdown, CSV, JSON and a self-contained HTML page.

``steb report DIR`` calls :func:`build_report`. The leaderboard is printed before anything slow
happens: matplotlib is imported only when the HTML page is written, so the table appears in well
under two seconds on a small run.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from .._io import atomic_write_text, check_inside
from .leaderboard import (
    AggregatorFailure,
    Leaderboard,
    choose_suites,
    compute_leaderboard,
    compute_leaderboards,
    load_merged,
    rank_marks,
)
from .ranks import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, rank_intervals

if TYPE_CHECKING:
    from ..reference_tree.read import TreeImport

__all__ = [
    "ReportPaths",
    "build_report",
    "compute_leaderboard",
    "compute_leaderboards",
    "choose_suites",
    "Leaderboard",
    "AggregatorFailure",
    "rank_marks",
    "load_merged",
]


@dataclass
class ReportPaths:
    """Where the report files went, the leaderboards they show, and how long each stage took (seconds)."""

    out_dir: Path
    markdown: Path
    report_csv: Path
    scores_csv: Path
    missing_csv: Path
    aggregates_json: Path
    clusters: list[Path]
    html: Path | None
    leaderboards: list[Leaderboard]
    timings: dict[str, float] = field(default_factory=dict)
    #: the files of STEB results trees (``leaderboard=``) that did not become records, with why (None: none)
    unmapped: Path | None = None

    @property
    def leaderboard(self) -> Leaderboard:
        """The first leaderboard (the only one when the results hold one suite)."""
        return self.leaderboards[0]

    @property
    def csv(self) -> Path:
        return self.report_csv

    def files(self) -> list[Path]:
        written = [
            self.markdown,
            self.report_csv,
            self.scores_csv,
            self.missing_csv,
            self.aggregates_json,
            *self.clusters,
        ]
        written += [self.html] if self.html is not None else []
        return written + ([self.unmapped] if self.unmapped is not None else [])


def _protocols(boards: Sequence[Leaderboard]) -> str:
    from .._specs import STEB_PROTOCOL_VERSION

    found = sorted({p for b in boards for p in b.protocols()})
    return f"STEB protocol: steb implements {STEB_PROTOCOL_VERSION}; results follow {', '.join(found) or 'unknown'}"


def _data_notes(records: Sequence[Any], boards: Sequence[Leaderboard]) -> list[str]:
    """:func:`~.provenance.data_fingerprint_notes` over the results the leaderboards show (filters applied).

    Published results read from a STEB results tree carry no data fingerprint (the reference code records none):
    they are left out here and described once by :func:`_published_notes`.
    """
    from ..reference_tree.read import is_imported
    from .provenance import data_fingerprint_notes

    shown = {(d, t) for b in boards for d, t in b.table.expected}
    encoders = {e for b in boards for e in b.table.encoders}
    return data_fingerprint_notes(
        r for r in records if (r.dataset, r.task) in shown and r.encoder in encoders and not is_imported(r)
    )


def _published_notes(found: Any, renamed: Sequence[str], unmapped: Path | None) -> list[str]:
    """What the report says about results read from STEB results trees (``steb report --leaderboard``)."""
    models = found.models
    notes = [
        f"{len(models)} published model(s) read from {', '.join(str(r) for r in found.roots)} (numbers made by the "
        f"STEB authors' reference code, not by this steb; their data is not fingerprinted): {', '.join(models)}",
    ]
    if renamed:
        notes.append(
            "published model(s) with the name of an encoder of your results shown as 'NAME (published)': "
            + ", ".join(renamed)
        )
    if unmapped is not None:
        notes.append(
            f"{len(found.unmapped)} file(s) or folder(s) of the trees were not mapped "
            f"(listed with the reason in {unmapped})"
        )
    return notes


def published_clusters(
    records: Sequence[Any], *, datasets: Any = "registered", suites: Sequence[str] = (), **filters: Any
) -> Any:
    """The operational clusters discovered from the published records alone (those read from a STEB results tree),
    as a frozen :class:`~steb_core.aggregators.clusters.ClusterSet`, when ``records`` mix published results with
    steb's own; None otherwise (nothing to freeze, or no clusters among the published models)."""
    from ..aggregators.clusters import cluster_set_from_details
    from ..reference_tree.read import is_imported

    published = [r for r in records if is_imported(r)]
    if not published or len(published) == len(records):
        return None
    boards = compute_leaderboards(published, datasets=datasets, suites=list(suites), **filters)
    op = boards[0].aggregate("operational") if boards else None
    if op is None or not op.details.get("clusters"):
        return None
    models = len({r.encoder for r in published})
    return cluster_set_from_details(op.details, name=f"the {models} published models")


def _specs(datasets: Any) -> list[Any]:
    """The dataset specs ``build_report`` was told to use, as a list (copied into imported records' metadata)."""
    if isinstance(datasets, str) and datasets == "registered":
        from .._plugins import get_manager

        return list(get_manager().datasets())
    from ..aggregators.table import as_spec_map

    return list(as_spec_map(datasets).values())


def _csv_cell(text: str) -> str:
    return '"' + str(text).replace('"', '""') + '"'


def _cluster_file(out: Path, board: Leaderboard, several: bool) -> Path:
    from .._results import slug

    return out / (f"clusters-{slug(board.suite or 'other')}.json" if several else "clusters.json")


def build_report(
    results_dir: str | Path | Sequence[str | Path],
    out_dir: str | Path | None = None,
    *,
    console: Any = None,
    html: bool = True,
    suites: Iterable[str] = (),
    datasets: Any = "registered",
    only_datasets: Iterable[str] | None = None,
    only_tasks: Iterable[str] | None = None,
    only_encoders: Iterable[str] | None = None,
    clusters: str | Path | Any = None,
    leaderboard: Sequence[str | Path] = (),
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
) -> ReportPaths:
    """Aggregate the results in ``results_dir`` (one folder or several, merged), print, and write the report.

    One leaderboard per suite: the named ``suites`` (each required in full, so a partial run shows as
    partial), else the suites the results belong to (see :func:`~.leaderboard.choose_suites`).
    ``only_datasets``/``only_tasks``/``only_encoders`` filter; ``clusters`` (a path or a
    :class:`~steb_core.aggregators.clusters.ClusterSet`) freezes the operational clusters.
    ``out_dir`` defaults to ``<results_dir>/report`` (of the first folder). ``console`` is a
    :class:`rich.console.Console` (default: a new one on stdout); pass ``console=False`` to print
    nothing. ``datasets=None`` ignores installed dataset specs and uses the metadata stored in the records.

    Writes ``report.md``, ``report.csv`` (the leaderboards), ``scores.csv`` (every metric of every
    result), ``missing.csv``, ``aggregates.json``, ``clusters.json`` (the operational clusters used, to
    freeze with ``--clusters``; ``clusters-<suite>.json`` when there are several leaderboards) and
    ``report.html``. ``leaderboard`` names STEB results trees (the canonical baselines, ``submitted_results/``) read
    into the same leaderboards (:mod:`steb_core.reference_tree.read`), so your encoders rank among the published
    models; what could not be mapped is written to ``leaderboard-unmapped.csv``. Every leaderboard with two or more
    encoders gets each encoder's rank with an interval (:mod:`.ranks`: a paired bootstrap over its datasets and over
    ``--draws`` results' draws; ``resamples`` replicates, ``level`` the interval's share, ``seed`` the bootstrap's).
    """
    started = time.perf_counter()
    timings: dict[str, float] = {}
    first = Path(results_dir if isinstance(results_dir, (str, Path)) else results_dir[0])
    out = Path(out_dir) if out_dir is not None else first / "report"
    if (
        out_dir is None
    ):  # a results folder's own report/ must not be a link that writes elsewhere (an explicit --out may)
        check_inside(out, first, what="results folder")
    cluster_set = clusters
    if isinstance(clusters, (str, Path)):
        from ..aggregators.clusters import load_cluster_set

        cluster_set = load_cluster_set(clusters)
    records = load_merged(results_dir)
    found: TreeImport | None = None
    renamed: list[Any] = []
    if leaderboard:
        from ..reference_tree.read import keep_apart, read_trees

        found = read_trees(list(leaderboard), specs={s.name: s for s in _specs(datasets)})
        published, renamed = keep_apart(records, found.records)
        records = records + published
    filters: dict[str, Any] = {"only_datasets": only_datasets, "only_tasks": only_tasks}
    frozen = None
    if cluster_set is None:  # your model among published ones: the clusters are the published models' own
        cluster_set = frozen = published_clusters(records, datasets=datasets, suites=list(suites), **filters)
    boards = compute_leaderboards(
        records,
        datasets=datasets,
        suites=list(suites),
        only_encoders=only_encoders,
        cluster_set=cluster_set,
        **filters,
    )
    for board in boards:
        board.ranks = rank_intervals(board, resamples=resamples, level=level, seed=seed)
    timings["aggregate"] = time.perf_counter() - started
    data_notes = _data_notes(records, boards)
    out_unmapped = (out / "leaderboard-unmapped.csv") if found is not None and found.unmapped else None
    published_notes = _published_notes(found, renamed, out_unmapped) if found is not None else []
    if frozen is not None:
        published_notes.append(
            f"operational redundancy clusters frozen from the {frozen.n_models} published model(s), as the STEB "
            "leaderboard computes them from its own models: your results are scored with them and do not move them"
        )

    con = None
    if console is not False:
        from rich.console import Console

        from .console import print_leaderboard

        con = console if console is not None else Console()
        if not records:
            con.print(
                f"[yellow]no steb result records under {escape(str(results_dir))}[/] "
                "(run `steb run ... --output DIR` first)"
            )
        for board in boards:
            print_leaderboard(board, con, several=len(boards) > 1)
        from .console import protocol_line

        con.print(f"[dim]{protocol_line(boards[0]) if len(boards) == 1 else _protocols(boards)}[/]", highlight=False)
        for note in data_notes:
            con.print(f"[yellow]different data:[/] {escape(note)}", highlight=False)
        for note in published_notes:
            con.print(f"[cyan]published:[/] {escape(note)}", highlight=False)
    timings["leaderboard_printed"] = time.perf_counter() - started

    from ..aggregators.clusters import cluster_set_from_details
    from .markdown import render_markdown, report_header
    from .tables import aggregates_json, missing_csv, report_csv, scores_csv

    out.mkdir(parents=True, exist_ok=True)
    several = len(boards) > 1
    paths = ReportPaths(
        out_dir=out,
        markdown=out / "report.md",
        report_csv=out / "report.csv",
        scores_csv=out / "scores.csv",
        missing_csv=out / "missing.csv",
        aggregates_json=out / "aggregates.json",
        clusters=[],
        html=(out / "report.html") if html else None,
        leaderboards=boards,
        timings=timings,
        unmapped=out_unmapped,
    )
    markdown = render_markdown(boards)
    if data_notes or published_notes:  # right after the header, before any score is read
        head = report_header(boards)
        sections = ("\n\n## Data provenance\n\n" + "\n".join(f"- {n}" for n in data_notes)) if data_notes else ""
        if published_notes:
            sections += "\n\n## Published results\n\n" + "\n".join(f"- {n}" for n in published_notes)
        markdown = head + sections + markdown[len(head) :]
    if out_unmapped is not None and found is not None:  # (a file to write only when the import left some out)
        rows = "".join(f"{_csv_cell(u.path)},{_csv_cell(u.reason)}\n" for u in found.unmapped)
        atomic_write_text(out_unmapped, "path,reason\n" + rows)
    atomic_write_text(paths.markdown, markdown)
    atomic_write_text(paths.report_csv, report_csv(boards))
    atomic_write_text(paths.scores_csv, scores_csv(boards))
    atomic_write_text(paths.missing_csv, missing_csv(boards))
    atomic_write_text(paths.aggregates_json, aggregates_json(boards))
    for board in boards:
        op = board.aggregate("operational")
        if op is not None and op.details.get("clusters"):
            target = _cluster_file(out, board, several)
            cluster_set_from_details(op.details, name=board.suite or "").write(target)
            paths.clusters.append(target)
    timings["text_files"] = time.perf_counter() - started
    if paths.html is not None:
        from .html import render_html

        atomic_write_text(paths.html, render_html(boards, data_notes))
        timings["html"] = time.perf_counter() - started
    if con is not None:
        con.print(f"[dim]report written to {out}/: {', '.join(p.name for p in paths.files())}[/]")
    return paths
