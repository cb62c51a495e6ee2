"""``steb meta-eval``: correlate registered scorers with the formality human judgements.

Added to the root ``steb`` typer app through the ``register_commands`` hook. Prints one rich table
per aspect (pooled directions) and writes the full report (both directions, CIs, comparisons,
human-side statistics) as JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

import typer

# The evaluation modules import scipy.stats (about 0.5 s); they are imported inside the command so
# that every other `steb` command starts fast.
ASPECTS = ("content", "style", "fluency")  # kept equal to human.ASPECTS (checked by a test)
POOLED = "pooled"  # kept equal to evaluate.POOLED

DEFAULT_SCORERS = ("bleu:against=source", "bleu:against=reference", "chrf:against=source", "chrf:against=reference")
DATASET_FOLDER = "formality_human_judgements"


def _default_data() -> Path | None:
    root = os.environ.get("STEB_DATA_DIR")
    return Path(root) / DATASET_FOLDER if root else None


def _fmt(cell: dict[str, Any]) -> str:
    v, (lo, hi) = cell["value"], cell["ci"]
    if v is None:
        return "n/a"
    return f"{v:.3f}" + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None else "")


def print_tables(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if Console().is_terminal else 170)
    cfg = report["config"]
    for aspect in cfg["aspects"]:
        table = Table(title=f"{aspect}: correlation with human {cfg['human_scale']} ratings (pooled directions; REF {'included' if cfg['reference_included'] else 'excluded'}; {int(cfg['confidence'] * 100)}% bootstrap CI)")
        table.add_column("scorer")
        for col in ("seg Pearson", "seg Spearman", "seg Kendall", f"tau-like (>{cfg['tau_threshold']:g}, ties {cfg['tau_ties']})", "sys Pearson", "sys Kendall"):
            table.add_column(col, justify="right")
        for label, entry in report["metrics"].items():
            c = entry["correlations"][aspect][POOLED]
            name = label + (" |abs|" if entry["absolute"] else "") + (" (corpus)" if entry.get("system_level") == "corpus" else "")
            kendall = c.get("system_kendall")
            table.add_row(name, *(_fmt(c[k]) for k in ("segment_pearson", "segment_spearman", "segment_kendall", "tau_like", "system_pearson")),
                          "n/a" if kendall is None else f"{kendall:.3f}")
        console.print(table)
    print_human(report["human"], console)


def print_human(human: dict[str, Any], console: Any = None, systems_table: bool = False) -> None:
    """Inter-annotator and inter-aspect statistics, and (``systems_table``) the per-system human means, raw and z."""
    if console is None:
        from rich.console import Console

        console = Console(width=None if Console().is_terminal else 170)
    if systems_table:
        from rich.table import Table

        means = human["system_means"]
        aspects = list(means)
        table = Table(title="human judgements per system: mean raw rating (0-100) and mean z-score (per-annotator z, averaged over the two annotators)")
        table.add_column("system")
        for a in aspects:
            table.add_column(f"{a} raw", justify="right")
            table.add_column(f"{a} z", justify="right")
        first = means[aspects[0]]["z"]
        for system in sorted(first, key=lambda s: -first[s]):
            table.add_row(system, *(f"{means[a][scale][system]:{fmt}}" for a in aspects for scale, fmt in (("raw", ".1f"), ("z", ".3f"))))
        console.print(table)
    agree = human["inter_annotator_pearson"]
    excluded = ", ".join(human.get("inter_annotator_excludes", [])) or "none"
    console.print(f"inter-annotator Pearson (excluding {excluded}): " + ", ".join(f"{a} {agree[a]['overall']:.3f}" for a in agree))
    if "inter_annotator_pearson_with_ref" in human:
        withref = human["inter_annotator_pearson_with_ref"]
        console.print("inter-annotator Pearson (all outputs, REF included): " + ", ".join(f"{a} {withref[a]['overall']:.3f}" for a in withref))
    inter = human["inter_aspect_pearson_raw_means"][POOLED]
    console.print("inter-aspect Pearson (mean raw ratings): " + ", ".join(f"{k} {v:.3f}" for k, v in inter.items()))


def meta_eval(
    data: Optional[Path] = typer.Option(None, "--data", help=f"the {DATASET_FOLDER} folder (default $STEB_DATA_DIR/{DATASET_FOLDER})"),
    scorer: list[str] = typer.Option(list(DEFAULT_SCORERS), "--scorer", "-s", help="registered scorer, optionally with options: name:key=value,key=value (repeatable)"),
    aspect: list[str] = typer.Option(list(ASPECTS), "--aspect", "-a", help="human aspect(s) to correlate with"),
    human_scale: str = typer.Option("z", help="human scores for correlations: z (per-annotator z-scores, averaged) or raw (mean 0-100)"),
    tau_threshold: float = typer.Option(25.0, help="tau-like: humans order a pair when their scores differ by more than this"),
    tau_scale: str = typer.Option("raw", help="tau-like: human scale the threshold applies to (raw or z)"),
    tau_ties: str = typer.Option("discordant", help="tau-like: metric ties count as discordant (WMT17 DARR) or are excluded"),
    include_ref: bool = typer.Option(False, "--include-ref/--exclude-ref", help="include the human reference (REF) as a system"),
    bootstrap: int = typer.Option(1000, help="bootstrap resamples of sources"),
    seed: int = typer.Option(0, help="bootstrap seed"),
    compare: list[str] = typer.Option([], "--compare", help="paired bootstrap A vs B, as 'A|B' with scorer labels (default: every pair)"),
    output: Path = typer.Option(Path("meta-eval.json"), "--output", "-o", help="JSON report path"),
    human_only: bool = typer.Option(False, "--human-only", help="print the per-system human means (raw and z) per aspect and the agreement statistics; no scorer, no bootstrap"),
) -> None:
    """Correlate style-transfer scorers with human content/style/fluency judgements (Lai et al. 2022 data)."""
    from steb_core import atomic_write_text, get_manager

    from .evaluate import MetaEvalConfig, human_statistics, meta_evaluate, parse_scorer_spec, score_judgements
    from .human import load_human_judgements

    folder = data or _default_data()
    if folder is None:
        raise typer.BadParameter(f"pass --data PATH/{DATASET_FOLDER} or set STEB_DATA_DIR", param_hint="--data")
    pairs = [tuple(c.split("|", 1)) for c in compare] if compare else None
    for pair in pairs or []:  # checked before any scorer runs
        unknown = [key for key in pair if key not in scorer]
        if len(pair) != 2 or unknown:
            raise typer.BadParameter(f"{'|'.join(pair)!r}: compare two of the --scorer specs, written exactly as given ({unknown or 'need A|B'})", param_hint="--compare")
    judgements = load_human_judgements(folder)
    if human_only:
        human = human_statistics(judgements)
        atomic_write_text(output, json.dumps({"human": human, "data": {"folder": str(folder), "files": judgements.files}}, indent=2, default=str))
        print_human(human, systems_table=True)
        typer.echo(f"wrote {output}")
        return
    registry = get_manager().scorers()
    results, info = {}, {}
    for spec in scorer:
        name, options = parse_scorer_spec(spec)
        scorer_spec = registry.get(name)
        results[spec] = score_judgements(judgements, scorer_spec.factory(**options))
        results[spec].higher_is_better = results[spec].higher_is_better and scorer_spec.higher_is_better
        info[spec] = {"scorer": name, "options": options, "aspect": scorer_spec.aspect}
    config = MetaEvalConfig(aspects=tuple(aspect), human_scale=human_scale, tau_scale=tau_scale, tau_threshold=tau_threshold,
                            tau_ties=tau_ties, include_ref=include_ref, n_bootstrap=bootstrap, seed=seed)
    report = meta_evaluate(judgements, results, config, compare=pairs, scorer_info=info)
    report["data"] = {"folder": str(folder), "files": judgements.files}
    atomic_write_text(output, json.dumps(report, indent=2, default=str))
    print_tables(report)
    typer.echo(f"wrote {output}")


def add_command(cli: typer.Typer) -> None:
    cli.command("meta-eval")(meta_eval)
