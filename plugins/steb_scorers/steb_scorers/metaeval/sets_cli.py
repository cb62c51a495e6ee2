"""``steb meta-eval --set NAME ...``: registered judgement sets under the ``pauli2025`` protocol, and the metrics
leaderboard over several sets.

Kept apart from :mod:`.cli` (Lai et al.'s release and its two protocols) so that either can change alone. Where a
set's release lies: ``--data PATH`` (one set), ``--data NAME=PATH`` (several), else ``$STEB_DATA_DIR/FOLDER`` (the
folder ``steb data get --judgement-set NAME`` fills).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

__all__ = ["PAULI_SCORERS", "DEFAULT_SET", "run_judgement_sets", "resolve_data", "figures_csv", "print_pauli"]

PAULI_SCORERS = ("bleu:against=source,variant=pauli", "bleu:against=reference,variant=pauli")
DEFAULT_SET = "pauli2025-constructed"
FORMATS = ("json", "csv")


def resolve_data(names: Sequence[str], data: Sequence[str], folders: dict[str, str]) -> dict[str, Path]:
    """Each set's folder: ``--data PATH`` (only with one set), ``--data NAME=PATH``, or ``$STEB_DATA_DIR/FOLDER``."""
    given: dict[str, Path] = {}
    plain = []
    for value in data:
        name, sep, path = value.partition("=")
        if sep and name in names:
            given[name] = Path(path)
        else:
            plain.append(Path(value))
    if plain:
        if len(names) != 1 or len(plain) != 1:
            raise typer.BadParameter(
                "with several judgement sets, say whose folder each is: --data NAME=PATH", param_hint="--data"
            )
        given[names[0]] = plain[0]
    root = os.environ.get("STEB_DATA_DIR")
    out: dict[str, Path] = {}
    for name in names:
        if name in given:
            out[name] = given[name]
        elif root:
            out[name] = Path(root) / folders[name]
        else:
            raise typer.BadParameter(
                f"where is judgement set '{name}'? pass --data PATH (or NAME=PATH), or set STEB_DATA_DIR",
                param_hint="--data",
            )
    return out


def figures_csv(figures: Sequence[dict[str, Any]]) -> str:
    """The report's ``figures`` as CSV rows (the same keys as columns; None as an empty cell)."""
    columns = list(dict.fromkeys(k for f in figures for k in f))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for f in figures:
        writer.writerow({k: ("" if f.get(k) is None else f.get(k)) for k in columns})
    return buffer.getvalue()


def _cell(c: dict[str, Any] | None) -> str:
    if not c or c.get("pearson") is None:
        return "–"
    mark = "*" if c["p_value"] is None or c["p_value"] >= 0.05 else ""
    return f"{c['pearson']:.2f}{mark}"


def print_pauli(report: dict[str, Any], console: Any = None) -> None:
    """Table 5 (Pearson per subset and ALL, * = p >= 0.05, average rank) and Table 2 (alpha, share) per aspect."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from .pauli2025 import ALL

    console = console or Console(width=None if Console().is_terminal else 170)
    cfg = report["config"]
    columns = [*cfg["subsets"], ALL]
    for aspect in cfg["aspects"]:
        table = Table(
            title=f"{cfg['set']}: Pearson with the mean {aspect} rating (* = not significant, p >= 0.05) and "
            f"average rank over the subsets (protocol: {cfg['protocol_label']})"
        )
        table.add_column("scorer")
        for c in columns:
            table.add_column(c, justify="right")
        has_systems = bool(cfg["systems"])
        if has_systems:
            table.add_column("sys tau ALL", justify="right")
        table.add_column("avg rank", justify="right")
        for label, entry in report["metrics"].items():
            cells = entry["correlations"].get(aspect, {})
            row = [_cell(cells.get(c)) for c in columns]
            if has_systems:
                tau = (cells.get(ALL) or {}).get("system_kendall_tau")
                row.append("–" if tau is None else f"{tau:.2f}")
            average = report["ranks"][aspect][label].get("average")
            row.append("–" if average is None else f"{average:.2f}")
            table.add_row(escape(label) + (" |abs|" if entry["absolute"] else ""), *row)
        console.print(table)
        human = report["human"][aspect]
        share = next(k for k in human["subsets"][ALL] if k.startswith("share_mean_at_least_"))
        agree = Table(
            title=f"{cfg['set']}: {aspect} agreement of the annotators (Krippendorff's alpha; scale "
            f"{human['scale']}) and the share of rows whose mean {aspect} rating is at least "
            f"{share.rsplit('_', 1)[1]}"
        )
        agree.add_column("statistic")
        for c in columns:
            agree.add_column(c, justify="right")
        for statistic in ("krippendorff_alpha_ordinal", "krippendorff_alpha_interval", "krippendorff_alpha_nominal"):
            agree.add_row(
                statistic,
                *(
                    "–" if human["subsets"][c][statistic] is None else f"{human['subsets'][c][statistic]:.3f}"
                    for c in columns
                ),
            )
        agree.add_row(share, *(f"{100 * human['subsets'][c][share]:.0f} %" for c in columns))
        console.print(agree)


def run_judgement_sets(
    *,
    sets: Sequence[str],
    data: Sequence[str],
    aspects: Sequence[str],
    specs: Sequence[str],
    output: Path,
    fmt: str,
    leaderboard: Path | None,
) -> dict[str, Any]:
    """Load each set, score it with every spec, evaluate it under ``pauli2025``, write and print the report."""
    from steb_core import StebError, atomic_write_text, get_manager

    from .evaluate import parse_scorer_spec
    from .leaderboard import build_leaderboard, print_leaderboard, write_leaderboard
    from .pauli2025 import pauli_evaluate, score_table

    if fmt not in FORMATS:
        raise typer.BadParameter(f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="--format")
    manager = get_manager()
    registry = manager.judgement_sets()
    chosen = [registry.get(name) for name in dict.fromkeys(sets)]
    with_data = [s for s in chosen if s.needs_data]
    folders = resolve_data([s.name for s in with_data], data, {s.name: s.folder or s.name for s in with_data})
    folders.update({s.name: Path(".") for s in chosen if not s.needs_data})  # a set that ships its rows
    scorers = manager.scorers()
    parsed = {spec: parse_scorer_spec(spec) for spec in specs}
    for name, _ in parsed.values():
        scorers.get(name)  # an unknown scorer is an error before any set is read
    reports: dict[str, Any] = {}
    for spec in chosen:
        folder = folders[spec.name]
        if spec.needs_data and not folder.exists():
            raise StebError(f"judgement set '{spec.name}': {folder} does not exist; obtain it: {spec.obtain}")
        table = spec.loader(folder)
        wanted = list(aspects) or list(spec.aspects or table.aspects)
        missing = [a for a in wanted if a not in table.ratings]
        if missing:
            raise typer.BadParameter(
                f"judgement set '{spec.name}' rates {', '.join(table.aspects)}, not {', '.join(missing)}",
                param_hint="--aspect",
            )
        scored, info = {}, {}
        for label, (name, options) in parsed.items():
            scorer_spec = scorers.get(name)
            try:
                result = score_table(table, scorer_spec.factory(**options))
            except ValueError as exc:
                raise typer.BadParameter(f"{label} on '{spec.name}': {exc}", param_hint="--scorer") from None
            if not scorer_spec.higher_is_better:
                result = type(result)(result.scores, False, result.note, result.details)
            scored[label] = result
            info[label] = {"scorer": name, "options": options, "aspect": scorer_spec.aspect}
        report = pauli_evaluate(table, scored, wanted, scorer_info=info)
        report["data"] = {"folder": str(folder), "files": list(table.files), "set_version": spec.version}
        reports[spec.name] = report
    if len(reports) == 1:
        out: dict[str, Any] = next(iter(reports.values()))
    else:
        out = {
            "config": {"protocol": "pauli2025", "sets": list(reports), "aspects": list(aspects)},
            "sets": reports,
            "figures": [{"set": name, **f} for name, r in reports.items() for f in r["figures"]],
        }
    board = build_leaderboard(reports) if len(reports) > 1 else None
    if board is not None:
        out["leaderboard"] = board
    text = figures_csv(out["figures"]) if fmt == "csv" else json.dumps(out, indent=2, default=str)
    atomic_write_text(output, text)
    for report in reports.values():
        print_pauli(report)
    if board is not None:
        print_leaderboard(board)
        if leaderboard is not None:
            write_leaderboard(board, leaderboard)
            typer.echo(f"wrote {leaderboard}")
    elif leaderboard is not None:
        raise typer.BadParameter("a leaderboard compares several judgement sets: pass two --set or more")
    typer.echo(f"wrote {output}")
    return out
