"""``steb meta-eval``: correlate registered scorers with human judgements (Lai et al.'s release; any judgement set).

Added to the root ``steb`` typer app through the ``register_commands`` hook. Prints one rich table
per aspect (pooled directions) and writes the full report (both directions, CIs, comparisons,
human-side statistics, and every figure as one row of its flat ``figures`` list, :mod:`.figures`) as JSON, or
those rows as CSV (``--format csv``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import typer

from .figures import POOLED  # the standard library only: the command still starts fast

# The evaluation modules import scipy.stats (about 0.5 s); they are imported inside the command so
# that every other `steb` command starts fast.
ASPECTS = ("content", "style", "fluency")  # kept equal to human.ASPECTS (checked by a test)
DIRECTIONS = ("informal-to-formal", "formal-to-informal")  # kept equal to human.DIRECTIONS
PROTOCOLS = ("wmt17-darr", "lai2022")  # kept equal to evaluate.PROTOCOLS' names
PAULI_PROTOCOL = "pauli2025"  # any judgement set (sets_cli, pauli2025)
LAI_SET = "lai2022-formality"  # the judgement set the two protocols above read
TABLES = ("none", "A.2", "4")
REFERENCE_CHOICES = ("1", "2", "3", "4", "all")  # the runs of --table 4
# --references / --corpus-references: those, and the release's first reference file as it is (not the column)
REFERENCE_OPTIONS = (*REFERENCE_CHOICES, "ref0")

DEFAULT_SCORERS = ("bleu:against=source", "bleu:against=reference", "chrf:against=source", "chrf:against=reference")
# what Lai et al. used: nltk sentence BLEU (method 1) with multi-bleu at system level, chrF averaged per system
LAI_SCORERS = (
    "bleu:against=source,variant=lai2022",
    "bleu:against=reference,variant=lai2022",
    "chrf:against=source,system_level=mean",
    "chrf:against=reference,system_level=mean",
)
DATASET_FOLDER = "formality_human_judgements"


def _default_data() -> Path | None:
    root = os.environ.get("STEB_DATA_DIR")
    return Path(root) / DATASET_FOLDER if root else None


def _console() -> Any:
    from rich.console import Console

    return Console(width=None if Console().is_terminal else 170)


def _fmt(cell: dict[str, Any]) -> str:
    v, (lo, hi) = cell["value"], cell["ci"]
    if v is None:
        return "n/a"
    return f"{v:.3f}" + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None else "")


def _num(v: Any, fmt: str = ".3f") -> str:
    return "n/a" if v is None else f"{v:{fmt}}"


def _name(label: str, entry: dict[str, Any]) -> str:
    from rich.markup import escape  # specs may hold brackets ("[ref 2]") that rich would read as markup

    return (
        escape(label)
        + (" |abs|" if entry["absolute"] else "")
        + (" (corpus)" if entry.get("system_level") == "corpus" else "")
    )


def _systems_note(cfg: dict[str, Any]) -> str:
    """What the title says about the systems correlated: the chosen ones, or whether REF is among them."""
    if cfg.get("systems_restricted"):
        return "systems: " + ", ".join(cfg["systems"])
    return f"REF {'included' if cfg['reference_included'] else 'excluded'}"


def print_tables(report: dict[str, Any], iaa_ref: str = "paper") -> None:
    """The correlation tables, each titled with the protocol that produced it; ``iaa_ref`` chooses Table 1's rows."""
    cfg = report["config"]
    if cfg.get("protocol") == "lai2022":
        print_lai_tables(report, iaa_ref)
        return
    from rich.table import Table

    console = _console()
    for aspect in cfg["aspects"]:
        table = Table(
            title=f"{aspect}: correlation with human {cfg['human_scale']} ratings (protocol: "
            f"{cfg.get('protocol_label', 'wmt17-darr')}) "
            f"(pooled directions; {_systems_note(cfg)}; {int(cfg['confidence'] * 100)}% bootstrap CI)"
        )
        table.add_column("scorer")
        tau_head = (
            f"tau-like (>{cfg['tau_threshold']:g}, ties "
            f"{cfg['tau_ties']}{', per source' if cfg.get('tau_average') == 'per-source' else ''})"
        )
        for col in ("seg Pearson", "seg Spearman", "seg Kendall", tau_head, "sys Pearson", "sys Kendall"):
            table.add_column(col, justify="right")
        for label, entry in report["metrics"].items():
            c = entry["correlations"][aspect][POOLED]
            table.add_row(
                _name(label, entry),
                *(
                    _fmt(c[k])
                    for k in ("segment_pearson", "segment_spearman", "segment_kendall", "tau_like", "system_pearson")
                ),
                _num(c.get("system_kendall")),
            )
        console.print(table)
    print_human(report["human"], console, iaa_ref=iaa_ref)


def print_lai_tables(report: dict[str, Any], iaa_ref: str = "paper") -> None:
    """Lai et al.'s layout: per aspect, segment tau (per source) / segment Pearson / system Pearson per direction,
    then top-N / last-N."""
    from rich.table import Table

    console = _console()
    cfg = report["config"]
    where = f"(protocol: {cfg['protocol_label']}); human = mean {cfg['human_scale']} rating; {_systems_note(cfg)}"
    for aspect in cfg["aspects"]:
        table = Table(title=f"{aspect}: tau = Kendall tau-like per source, averaged over sources; r = Pearson {where}")
        table.add_column("scorer")
        for d in (POOLED, *DIRECTIONS):
            short = {"pooled": "all", "informal-to-formal": "inf->for", "formal-to-informal": "for->inf"}[d]
            for col in ("seg tau", "seg r", "sys r"):
                table.add_column(f"{short} {col}", justify="right")
        for label, entry in report["metrics"].items():
            cells = []
            for d in (POOLED, *DIRECTIONS):
                c = entry["correlations"][aspect][d]
                cells += [
                    _num(c["tau_like"]["value"]),
                    _num(c["segment_pearson"]["value"]),
                    _num(c["system_pearson"]["value"]),
                ]
            table.add_row(_name(label, entry), *cells)
        console.print(table)
        first = next(iter(report["metrics"].values()), None)
        if first is None:
            continue
        keys = _subset_keys(first["correlations"][aspect][POOLED]["subsets"])
        sub = Table(
            title=f"{aspect}: segment tau (per source) on the top-N / last-N systems by human score (Figures 3 and 5) "
            f"{where}"
        )
        sub.add_column("scorer")
        for k in keys:
            sub.add_column(k, justify="right")
        for label, entry in report["metrics"].items():
            s = entry["correlations"][aspect][POOLED]["subsets"]
            sub.add_row(_name(label, entry), *(_num(s[k]["tau_like"]) for k in keys))
        console.print(sub)
    print_human(report["human"], console, iaa_ref=iaa_ref)


def _subset_keys(subsets: dict[str, Any]) -> list[str]:
    return sorted(subsets, key=lambda k: (k.split("_")[0] != "all", k.split("_")[0] != "top", -int(k.split("_")[1])))


def print_reference_table(table: dict[str, Any], protocol_label: str, console: Any = None) -> None:
    """Table 4: agreement of each metric's scores with reference 1 and with references 2-4, and each choice's
    correlation with humans."""
    from rich.markup import escape
    from rich.table import Table

    console = console or _console()
    out = Table(
        title="references: tau-like (per source, mean over sources) and Pearson between scores against reference 1 "
        f"and against reference k; content tau / sys r per reference choice (protocol: {protocol_label})"
    )
    out.add_column("scorer")
    refs = table["references"]
    others = [k for k in refs[1:] if k != "all"]
    for k in others:
        out.add_column(f"tau(ref1, ref{k})", justify="right", min_width=len(f"tau(ref1, ref{k})"))
    for k in others:
        out.add_column(f"r(ref1, ref{k})", justify="right", min_width=len(f"r(ref1, ref{k})"))
    for k in refs:
        out.add_column(f"ref {k} tau", justify="right")
        out.add_column(f"ref {k} sys r", justify="right")
    for spec, row in table["rows"].items():
        cells = [_num(row["score_tau_with_ref1"].get(k)) for k in others]
        cells += [_num(row["score_pearson_with_ref1"].get(k)) for k in others]
        for k in refs:
            cells += [_num(row["human"][k]["tau_like"]), _num(row["human"][k]["system_pearson"])]
        out.add_row(escape(spec), *cells)
    console.print(out)


def print_source_reference_table(table: dict[str, Any], protocol_label: str, console: Any = None) -> None:
    """Table A.2: each metric against the source and against the reference, side by side."""
    from rich.markup import escape
    from rich.table import Table

    console = console or _console()
    out = Table(
        title=f"{table['aspect']}: metrics against the source and against the reference (protocol: {protocol_label})"
    )
    out.add_column("scorer")
    for against in ("source", "reference"):
        for col in ("seg tau", "seg r", "sys r"):
            out.add_column(f"{against} {col}", justify="right")
    for base, row in table["rows"].items():
        cells = []
        for against in ("source", "reference"):
            c = row.get(against)
            cells += (
                ["–"] * 3 if c is None else [_num(c["tau_like"]), _num(c["segment_pearson"]), _num(c["system_pearson"])]
            )
        out.add_row(escape(base), *cells)
    console.print(out)


IAA_CHOICES = ("paper", "include", "exclude")


def print_agreement_table(human: dict[str, Any], iaa_ref: str = "paper", console: Any = None) -> None:
    """Table 1: Pearson between each survey's two annotators, per aspect and pooled over aspects ("overall")."""
    from rich.table import Table

    console = console or _console()
    t1 = human["inter_annotator_table"]
    chosen = {"paper": t1["paper"], "include": t1["with_ref"], "exclude": t1["without_ref"]}[iaa_ref]
    note = {
        "paper": "survey rows with REF, overall row without (as the paper prints it)",
        "include": "REF included in every row",
        "exclude": "REF excluded from every row",
    }[iaa_ref]
    table = Table(title=f"inter-annotator agreement (Pearson, annotator 1 vs 2; {note})")
    table.add_column("survey")
    cols = [*ASPECTS, "overall"]
    for c in cols:
        table.add_column(c, justify="right")
    for survey, row in chosen["surveys"].items():
        table.add_row(str(survey), *(_num(row[c]) for c in cols))
    table.add_row("overall", *(_num(chosen["overall"][c]) for c in cols))
    console.print(table)


def print_human(
    human: dict[str, Any], console: Any = None, systems_table: bool = False, iaa_ref: str = "paper"
) -> None:
    """Inter-annotator and inter-aspect statistics, and (``systems_table``) the per-system human means, raw and z."""
    if console is None:
        console = _console()
    if systems_table:
        from rich.table import Table

        means = human["system_means"]
        aspects = list(means)
        table = Table(
            title="human judgements per system: mean raw rating (0-100) and mean z-score (per-annotator z, averaged "
            "over the two annotators)"
        )
        table.add_column("system")
        for a in aspects:
            table.add_column(f"{a} raw", justify="right")
            table.add_column(f"{a} z", justify="right")
        first = means[aspects[0]]["z"]
        for system in sorted(first, key=lambda s: -first[s]):
            table.add_row(
                system,
                *(f"{means[a][scale][system]:{fmt}}" for a in aspects for scale, fmt in (("raw", ".1f"), ("z", ".3f"))),
            )
        console.print(table)
    if "inter_annotator_table" in human:
        print_agreement_table(human, iaa_ref, console)
    agree = human["inter_annotator_pearson"]
    excluded = ", ".join(human.get("inter_annotator_excludes", [])) or "none"
    console.print(
        f"inter-annotator Pearson (excluding {excluded}): " + ", ".join(f"{a} {agree[a]['overall']:.3f}" for a in agree)
    )
    if "inter_annotator_pearson_with_ref" in human:
        withref = human["inter_annotator_pearson_with_ref"]
        console.print(
            "inter-annotator Pearson (all outputs, REF included): "
            + ", ".join(f"{a} {withref[a]['overall']:.3f}" for a in withref)
        )
    inter = human["inter_aspect_pearson_raw_means"][POOLED]
    console.print("inter-aspect Pearson (mean raw ratings): " + ", ".join(f"{k} {v:.3f}" for k, v in inter.items()))


def _with_option(spec: str, key: str, value: str) -> str:
    return spec + ("," if ":" in spec else ":") + f"{key}={value}"


def expand_specs(specs: list[str], table: str) -> dict[str, tuple[str, dict[str, str]]]:
    """The scorer runs a table needs: ``{run label: (spec as given, {"against"|"references": value})}``.

    ``A.2`` runs every spec that does not fix ``against`` against the source and against the reference;
    ``4`` runs every spec against references 1, 2, 3, 4 and all four; otherwise each spec runs once.
    """
    from .evaluate import parse_scorer_spec

    runs: dict[str, tuple[str, dict[str, str]]] = {}
    for spec in specs:
        name, options = parse_scorer_spec(spec)
        if table == "A.2" and "against" not in options and name != "precomputed":
            for against in ("source", "reference"):
                runs[_with_option(spec, "against", against)] = (spec, {"against": against})
        elif table == "4":
            if options.get("against", "reference") != "reference":
                raise ValueError(f"{spec!r}: table 4 compares references, so the scorer must run against=reference")
            for ref in REFERENCE_CHOICES:
                runs[f"{spec} [ref {ref}]"] = (spec, {"references": ref})
        else:
            runs[spec] = (spec, {})
    return runs


def _systems(values: list[str]) -> tuple[str, ...] | None:
    chosen = tuple(s.strip() for v in values for s in v.split(",") if s.strip())
    return chosen or None


def meta_eval(
    data: list[str] = typer.Option(
        [],
        "--data",
        help=f"the release's folder: for Lai et al.'s protocols the {DATASET_FOLDER} folder or the release's "
        f"data/outputs (default $STEB_DATA_DIR/{DATASET_FOLDER}); with --set, the set's folder, or NAME=PATH per set "
        "when there are several (default $STEB_DATA_DIR/FOLDER, see `steb list judgement-sets`)",
    ),
    judgement_set: list[str] = typer.Option(
        [],
        "--set",
        help="registered judgement set(s) to evaluate (repeatable; `steb list judgement-sets`); several give the "
        "metrics leaderboard; default with --protocol pauli2025: pauli2025-constructed",
    ),
    fmt: str = typer.Option(
        "json",
        "--format",
        help="what -o holds: json (the report, with its flat figures list) or csv (the figures list: one row per "
        "figure, columns aspect, subset, scorer, statistic, value, p_value)",
    ),
    leaderboard: Path | None = typer.Option(
        None,
        "--leaderboard",
        help="with several --set: also write the metrics leaderboard to this .md, .csv or .html file",
    ),
    scorer: list[str] = typer.Option(
        [],
        "--scorer",
        "-s",
        help="registered scorer, optionally with options: name:key=value,key=value (repeatable; default: BLEU and "
        "chrF against source and reference, in the protocol's variants)",
    ),
    aspect: list[str] = typer.Option(list(ASPECTS), "--aspect", "-a", help="human aspect(s) to correlate with"),
    protocol: str | None = typer.Option(
        None,
        "--protocol",
        help="named settings (default: the set's own protocol with --set, else wmt17-darr): pauli2025 (Pauli et al.: "
        "Pearson with the mean rating per subset and ALL, average rank, Krippendorff's alpha; any judgement set), "
        "wmt17-darr (z-scores, pooled DARR tau-like > 25, top-N as system Kendall) or lai2022 "
        "(what Lai et al.'s scripts compute: mean raw ratings, tau-like per source averaged, no threshold, top-N as "
        "segment tau on N systems); "
        "the flags below override single settings and the change is recorded",
    ),
    human_scale: str | None = typer.Option(
        None, help="human scores for correlations: z (per-annotator z-scores, averaged) or raw (mean 0-100) [protocol]"
    ),
    tau_threshold: float | None = typer.Option(
        None, help="tau-like: humans order a pair when their scores differ by more than this [protocol]"
    ),
    tau_scale: str | None = typer.Option(
        None, help="tau-like: human scale the threshold applies to (raw or z) [protocol]"
    ),
    tau_ties: str | None = typer.Option(
        None, help="tau-like: metric ties count as discordant or are excluded [protocol]"
    ),
    tau_average: str | None = typer.Option(
        None,
        help="tau-like: pooled (one tau over all sources' pairs) or per-source (mean of per-source taus) [protocol]",
    ),
    subsets: str | None = typer.Option(None, help="top-N / last-N headline: system-kendall or segment [protocol]"),
    include_ref: bool = typer.Option(
        False, "--include-ref/--exclude-ref", help="include the human reference (REF) as a system"
    ),
    systems: list[str] = typer.Option(
        [],
        "--systems",
        help="correlate over these systems only, e.g. --systems REF (Pauli et al.'s reference-only tables); "
        "repeatable or comma-separated; a choice naming REF includes it; default: every system but REF",
    ),
    references: str = typer.Option(
        "1",
        "--references",
        help="references for scorers that take them: 1 (the files' reference column), 2-4, all, or ref0 (the "
        "release's first reference file as it is; 2-4, all and ref0 need the release's *.ref0-3 files)",
    ),
    corpus_references: str | None = typer.Option(
        None,
        "--corpus-references",
        help="references of the system-level corpus statistics (corpus BLEU), same choices; default: as "
        "--references, except lai2022 with --references 1: ref0 (Table 3's corpus BLEU; the column when the "
        "release's reference files are absent) [protocol]",
    ),
    reference_dir: Path | None = typer.Option(
        None,
        "--reference-dir",
        help="folder of the release's reference files PREFIX.ref0..ref3 (default: DATA/../xformal when present)",
    ),
    table: str = typer.Option(
        "none",
        "--table",
        help="extra layout: A.2 (each scorer against source and reference) or 4 (each scorer against references 1, 2, "
        "3, 4, all)",
    ),
    iaa_ref: str = typer.Option(
        "paper",
        "--iaa-ref",
        help="inter-annotator table: paper (survey rows with REF, overall without), include or exclude REF everywhere",
    ),
    bootstrap: int = typer.Option(1000, help="bootstrap resamples of sources"),
    seed: int = typer.Option(0, help="bootstrap seed"),
    compare: list[str] = typer.Option(
        [], "--compare", help="paired bootstrap A vs B, as 'A|B' with scorer labels (default: every pair)"
    ),
    output: Path = typer.Option(
        Path("meta-eval.json"), "--output", "-o", help="report path (JSON, or CSV with --format csv)"
    ),
    human_only: bool = typer.Option(
        False,
        "--human-only",
        help="print the per-system human means (raw and z) per aspect and the agreement statistics; no scorer, no "
        "bootstrap",
    ),
) -> None:
    """Correlate style-transfer scorers with human content/style/fluency judgements (Lai et al. 2022 data)."""
    from steb_core import atomic_write_text, get_manager

    from ..lexical import stat_matrix
    from .evaluate import (
        human_statistics,
        meta_evaluate,
        parse_scorer_spec,
        protocol_config,
        reference_table,
        score_judgements,
        source_reference_table,
    )
    from .figures import lai_figures
    from .human import load_human_judgements
    from .sets_cli import FORMATS, figures_csv

    if judgement_set or protocol == PAULI_PROTOCOL:
        from .sets_cli import DEFAULT_SET, PAULI_SCORERS, run_judgement_sets

        chosen = list(judgement_set) or [DEFAULT_SET]
        named = _set_protocols(chosen)
        protocol = protocol or named
        if protocol != PAULI_PROTOCOL:
            if len(chosen) != 1 or chosen[0] != LAI_SET:
                raise typer.BadParameter(
                    f"protocol {protocol!r} reads Lai et al.'s release only; judgement sets are evaluated with "
                    f"--protocol {PAULI_PROTOCOL}",
                    param_hint="--protocol",
                )
        else:
            run_judgement_sets(
                sets=chosen,
                data=data,
                aspects=[] if aspect == list(ASPECTS) else aspect,
                specs=list(scorer) or list(PAULI_SCORERS),
                output=output,
                fmt=fmt,
                leaderboard=leaderboard,
            )
            return
    protocol = protocol or "wmt17-darr"
    if len(data) > 1:
        raise typer.BadParameter("Lai et al.'s protocols read one folder: pass --data once", param_hint="--data")
    folder = Path(data[0]) if data else _default_data()
    if folder is None:
        raise typer.BadParameter(f"pass --data PATH/{DATASET_FOLDER} or set STEB_DATA_DIR", param_hint="--data")
    for value, allowed, hint in (
        (protocol, (*PROTOCOLS, PAULI_PROTOCOL), "--protocol"),
        (table, TABLES, "--table"),
        (references, REFERENCE_OPTIONS, "--references"),
        (corpus_references or "1", REFERENCE_OPTIONS, "--corpus-references"),
        (iaa_ref, IAA_CHOICES, "--iaa-ref"),
        (fmt, FORMATS, "--format"),
    ):
        if value not in allowed:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}", param_hint=hint)
    specs = list(scorer) or list(LAI_SCORERS if protocol == "lai2022" else DEFAULT_SCORERS)
    try:
        runs = expand_specs(specs, table)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--scorer") from None
    pairs: list[tuple[str, ...]] | None = [tuple(c.split("|", 1)) for c in compare] if compare else None
    for pair in pairs or []:  # checked before any scorer runs
        unknown = [key for key in pair if key not in runs]
        if len(pair) != 2 or unknown:
            raise typer.BadParameter(
                f"{'|'.join(pair)!r}: compare two of the --scorer specs, written exactly as given "
                f"({unknown or 'need A|B'})",
                param_hint="--compare",
            )
    judgements = load_human_judgements(folder, references=reference_dir)
    data_record = {
        "folder": str(folder),
        "files": judgements.files,
        "reference_files": judgements.reference_files,
        "reference_file_1_differs_from_column_on_lines": judgements.reference_column_differs,
    }
    if human_only:
        human = human_statistics(judgements)
        figures = lai_figures({"human": human}, human_system_means=True)
        atomic_write_text(
            output,
            figures_csv(figures)
            if fmt == "csv"
            else json.dumps({"human": human, "data": data_record, "figures": figures}, indent=2, default=str),
        )
        print_human(human, systems_table=True, iaa_ref=iaa_ref)
        typer.echo(f"wrote {output}")
        return
    try:
        config = protocol_config(
            protocol,
            aspects=tuple(aspect),
            human_scale=human_scale,
            tau_scale=tau_scale,
            tau_threshold=tau_threshold,
            tau_ties=tau_ties,
            tau_average=tau_average,
            subsets=subsets,
            include_ref=include_ref,
            n_bootstrap=bootstrap,
            seed=seed,
            systems=_systems(systems),
            corpus_references=corpus_references,
        )
    except (TypeError, ValueError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--protocol") from None
    config, corpus_missing = _settle_corpus_references(config, corpus_references, references, judgements)
    fell_back = False  # a run that would have used the protocol's missing corpus references
    unknown = [s for s in config.systems or () if s not in judgements.systems]
    if unknown:  # checked before any scorer runs
        raise typer.BadParameter(
            f"{unknown} not in the human judgements; known: {', '.join(judgements.systems)}", param_hint="--systems"
        )
    registry = get_manager().scorers()
    results, info = {}, {}
    for label, (spec, change) in runs.items():
        name, options = parse_scorer_spec(spec)
        options = {**options, **({"against": change["against"]} if "against" in change else {})}
        scorer_spec = registry.get(name)
        refs = change.get("references", references)
        # a --table 4 run compares reference choices: its corpus statistics use the run's own references
        corpus_refs = refs if "references" in change or corpus_missing else (config.corpus_references or refs)
        try:
            instance = scorer_spec.factory(**options)
            results[label] = score_judgements(judgements, instance, references=refs, corpus_references=corpus_refs)
        except ValueError as exc:
            raise typer.BadParameter(f"{label}: {exc}", param_hint="--scorer") from None
        fell_back = fell_back or (
            corpus_missing
            and "references" not in change
            and getattr(instance, "against", "reference") == "reference"
            and stat_matrix(results[label]) is not None
        )
        results[label].higher_is_better = results[label].higher_is_better and scorer_spec.higher_is_better
        info[label] = {
            "scorer": name,
            "options": options,
            "aspect": scorer_spec.aspect,
            "spec": spec,
            "references": refs,
            "corpus_references": results[label].details.get("corpus_references"),  # None: as "references"
        }
    if fell_back:
        from dataclasses import replace

        typer.echo(
            "note: no reference files (PREFIX.ref0 ...) next to the data (../xformal) or in --reference-dir: the "
            f"corpus statistics use the human files' reference column, not {config.protocol}'s "
            f"{config.corpus_references}",
            err=True,
        )
        config = replace(config, corpus_references=references)
    two = [(a, b) for a, b in pairs] if pairs is not None else None  # each of length 2 (checked above)
    report = meta_evaluate(judgements, results, config, compare=two, scorer_info=info)
    report["data"] = data_record
    if table == "4":
        report["reference_table"] = reference_table(judgements, results, runs, report)
    elif table == "A.2":
        report["source_reference_table"] = {a: source_reference_table(report, runs, a) for a in config.aspects}
    report["figures"] = lai_figures(report)
    atomic_write_text(
        output, figures_csv(report["figures"]) if fmt == "csv" else json.dumps(report, indent=2, default=str)
    )
    print_tables(report, iaa_ref)
    if table == "4":
        print_reference_table(report["reference_table"], config.protocol_label)
    elif table == "A.2":
        for a in config.aspects:
            print_source_reference_table(report["source_reference_table"][a], config.protocol_label)
    typer.echo(f"wrote {output}")


def _settle_corpus_references(config: Any, given: str | None, references: str, judgements: Any) -> tuple[Any, bool]:
    """The corpus references to use, recorded in the config (a departure from the protocol shows in its label), and
    whether the protocol's choice is missing from the data.

    Without ``--corpus-references`` the protocol's choice holds only where the segment scores use its references
    (lai2022: ``ref0`` with ``--references 1``), else the corpus follows ``--references``. Where the protocol's
    ``ref0`` is wanted but the release's reference files were not found, the runs use the column and, if any
    scorer needed the corpus references, the caller records the departure and says so.
    """
    from dataclasses import replace

    if given is not None or config.corpus_references is None:
        return config, False
    if references != "1":
        return replace(config, corpus_references=None), False
    missing = config.corpus_references == "ref0" and not judgements.first_reference_file
    return config, missing


def _set_protocols(names: list[str]) -> str:
    """The protocol the chosen sets share first (pauli2025 when several sets differ)."""
    from steb_core import get_manager

    registry = get_manager().judgement_sets()
    firsts = {(registry.get(n).protocols or (PAULI_PROTOCOL,))[0] for n in names}
    return firsts.pop() if len(firsts) == 1 else PAULI_PROTOCOL


def add_command(cli: typer.Typer) -> None:
    cli.command("meta-eval")(meta_eval)
