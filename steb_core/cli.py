"""The ``steb`` command line: list components, run benchmarks, build reports, inspect plugins.

Plugins can add sub-commands through the ``register_commands`` hook; ``--plugin`` values on the
command line are loaded *before* the CLI is assembled so local plugins can do that too.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, Mapping, Optional

import typer
from rich.console import Console
from rich.table import Table

from .choices import check_values, language_codes
from .errors import StebError
from .plugins import KINDS, StebPlugins, get_manager

def _console(stderr: bool = False) -> Console:
    """A console that wraps to the terminal, and does not wrap at all when piped (scripts, grep, files)."""
    stream = sys.stderr if stderr else sys.stdout
    tty = hasattr(stream, "isatty") and stream.isatty()
    return Console(stderr=stderr, soft_wrap=not tty, width=None if tty else 100_000)


console = _console()
err_console = _console(stderr=True)

app = typer.Typer(
    name="steb",
    help=(
        "steb: benchmark how well text representations and metrics capture linguistic style.\n\n"
        "Typical use: `steb list datasets`, then `steb run --encoder function-words --suite demo`, "
        "then `steb report steb-results`. Plugins (pip-installed, --plugin MODULE_OR_FILE, or "
        "$STEB_PLUGINS) add datasets, encoders, tasks, aggregators, scorers and commands."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

PluginOpt = typer.Option(
    None, "--plugin", "-p",
    help="Local plugin: a module name or a path to a .py file (repeatable); `-p no:NAME` switches an installed plugin off "
    "(also $STEB_DISABLE_PLUGINS=NAME,...). A named plugin that fails to load is an error.",
)

_LIST_KINDS = {
    "datasets": "dataset",
    "encoders": "encoder",
    "tasks": "task",
    "aggregators": "aggregator",
    "scorers": "scorer",
    "feature-extractors": "feature_extractor",
    "executors": "executor",
}


def _manager(plugins: Optional[list[str]]) -> StebPlugins:
    """The plugin manager with ``--plugin`` values loaded; installed-plugin failures are warned about once."""
    manager = get_manager(plugins or ())
    for kind in KINDS:  # build every registry now so hook failures and collisions are reported up front
        manager.registry(kind)
    for failure in manager.failures:
        key = (failure.name, failure.source, failure.error)
        if key not in manager.reported:
            manager.reported.add(key)
            err_console.print(f"[yellow]warning:[/] plugin '{failure.name}' ({failure.source}) failed: {failure.error}", highlight=False)
    return manager


def _emit(rows: list[dict[str, Any]], fmt: str, title: str) -> bool:
    """Print rows as JSON or CSV for scripts; False when ``fmt`` is the human ``table``."""
    if fmt == "table":
        return False
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps(rows, indent=2, default=str) + "\n")
        return True
    if fmt == "csv":
        import csv

        columns = list(dict.fromkeys(k for row in rows for k in row))
        writer = csv.DictWriter(sys.stdout, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "; ".join(map(str, v)) if isinstance(v, list) else v for k, v in row.items()})
        return True
    raise StebError(f"unknown --format '{fmt}' for {title}; choose table, json or csv")


FormatOpt = typer.Option("table", "--format", "-f", help="table (for people), json or csv (for scripts).")


@app.command("list")
def list_components(
    kind: str = typer.Argument(..., help=f"What to list: {', '.join(_LIST_KINDS)}."),
    category: Optional[str] = typer.Option(None, "--category", "-c", help="Datasets only: keep those with this category (e.g. register, idiolect)."),
    task: Optional[str] = typer.Option(None, "--task", "-t", help="Datasets only: keep those feeding this task type (e.g. order_alignment)."),
    language: Optional[str] = typer.Option(None, "--language", "-l", help="Datasets only: keep those in this language code (e.g. en, nl)."),
    suite: Optional[str] = typer.Option(None, "--suite", "-s", help="Datasets only: members of this suite, with the suite's tasks (e.g. demo, steb, stel)."),
    fmt: str = FormatOpt,
    plugin: Optional[list[str]] = PluginOpt,
) -> None:
    """List registered components, one line each (datasets: tasks, languages, categories, size, citation, how to obtain)."""
    from .catalogue import component_rows, dataset_rows
    from .runner import suite_members

    if kind not in _LIST_KINDS:
        import difflib

        close = difflib.get_close_matches(kind, list(_LIST_KINDS), n=1)
        raise StebError(f"cannot list '{kind}'{f' (did you mean {close[0]!r}?)' if close else ''}; choose one of: {', '.join(_LIST_KINDS)}")
    manager = _manager(plugin)
    if kind == "datasets":
        specs = suite_members(manager, suite) if suite else list(manager.datasets())
        wanted_languages = _check_dataset_filters(manager, category, task, language)
        specs = [s for s in specs
                 if (category is None or category in s.categories)
                 and (task is None or task in s.tasks_for_suite(suite))
                 and (language is None or any(language_codes(code) & wanted_languages for code in s.languages))]
        rows = dataset_rows(manager, specs, suite)
        if _emit(rows, fmt, "datasets"):
            return
        # one block per dataset: a table squeezes seven columns unreadably on an 80-column terminal
        for r in rows:
            facts = " | ".join(x for x in (", ".join(r["tasks"]), ", ".join(r["languages"]), ", ".join(r["categories"]), r["size"]) if x)
            console.print(f"[bold]{r['name']}[/]  [cyan]{facts}[/]  [dim]({r['provider']})[/]", highlight=False)
            console.print(f"    {r['description']}", highlight=False)
            if r["citation"]:
                console.print(f"    [dim]cite: {' '.join(r['citation'].split())}[/]", highlight=False)
            if r["obtain"]:
                console.print(f"    [dim]obtain: {r['obtain']}[/]", highlight=False)
        console.print(f"{len(rows)} datasets" + (f" in suite '{suite}'" if suite else ""))
        return
    rows = component_rows(manager, _LIST_KINDS[kind])
    if _emit(rows, fmt, kind):
        return
    if not console.is_terminal:  # piped: one line per component, tab-separated, nothing wrapped
        for r in rows:
            sys.stdout.write("\t".join(" ".join(str(v).split()) for v in r.values()) + "\n")
        sys.stdout.write(f"{len(rows)} {kind}\n")
        return
    # a terminal: one line per component too; names whole, long columns cut with an ellipsis (whole in -f csv/json)
    if kind == "encoders":  # why it cannot run here matters more than the description; one flexible column for both
        rows = [{"name": r["name"], "family": r["family"], "here": r["here"],
                 "why not / description": r["why_not"] or r["description"]} for r in rows]
    columns = [c for c in (rows[0] if rows else {"name": ""}) if c != "options"]
    flexible = {"description", "why not / description"}
    widths = {c: max([len(c)] + [len(" ".join(str(r.get(c, "")).split())) for r in rows]) for c in columns if c not in flexible}
    room = max(12, console.width - sum(widths.values()) - 2 * len(columns))  # what is left for the free text
    table = Table(title=f"steb {kind}", show_lines=False, expand=False, box=None, pad_edge=False)
    for column in columns:
        table.add_column(column.replace("_", " "), no_wrap=True, overflow="ellipsis", width=widths.get(column, room))
    for r in rows:
        table.add_row(*(" ".join(str(r.get(c, "")).split()) for c in columns))
    console.print(table)
    console.print(f"{len(rows)} {kind}" + ("; options of each: `steb list encoders -f json`" if kind == "encoders" else ""), highlight=False)


def _check_dataset_filters(manager: StebPlugins, category: Optional[str], task: Optional[str], language: Optional[str]) -> set[str]:
    """Refuse a filter value no dataset has ("did you mean"); the spellings of ``language`` (ISO 639-1 and -3)."""
    everything = list(manager.datasets())
    check_values("category", [category] if category else None, {c for s in everything for c in s.categories},
                 hint="the categories of `steb list datasets`")
    check_values("task type", [task] if task else None, {t.name for t in manager.tasks()} | {t for s in everything for t in s.tasks},
                 hint="see `steb list tasks`")
    if not language:
        return set()
    wanted = language_codes(language)
    known = {code for s in everything for code in s.languages}
    if not any(language_codes(code) & wanted for code in known):
        check_values("language", [language], known, hint="ISO 639-1 or 639-3 codes, e.g. en or eng")
    return wanted


def _parse_options(values: Optional[list[str]], what: str) -> dict[str, Any]:
    """``key=value`` pairs; values are parsed as JSON when possible (numbers, booleans, lists)."""
    import json

    out: dict[str, Any] = {}
    for item in values or []:
        if "=" not in item:
            raise StebError(f"{what} option '{item}' is not of the form key=value")
        key, raw = item.split("=", 1)
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


@app.command("run")
def run(
    encoder: list[str] = typer.Option(..., "--encoder", "-e", help="Registered encoder name (see `steb list encoders`) or a model path; repeatable: each encoder runs in turn."),
    dataset: Optional[list[str]] = typer.Option(None, "--dataset", "-d", help="Dataset name (repeatable; see `steb list datasets`)."),
    suite: Optional[str] = typer.Option(None, "--suite", "-s", help="Run every dataset of a suite, e.g. demo (built in, no download), stel, steb."),
    task: Optional[list[str]] = typer.Option(None, "--task", "-t", help="Only these task types (repeatable); default: every task each dataset feeds."),
    output: Path = typer.Option(Path("steb-results"), "--output", "-o", help="Results folder: one JSON per (encoder, dataset, task); re-runs resume here."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Root folder holding downloaded datasets as DATA_DIR/<dataset-name>/ (default: $STEB_DATA_DIR)."),
    protocol: str = typer.Option("chunk-and-pool", "--protocol", help="Long-text protocol: chunk-and-pool (sentence chunks, mean-pooled) or truncate."),
    max_length: Optional[int] = typer.Option(None, "--max-length", help="Token limit for the long-text protocol (default: the encoder's own)."),
    seed: int = typer.Option(0, "--seed", help="Seed for every random choice (sampling, clustering, probing splits)."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Embedding cache folder (default: $STEB_CACHE_DIR or ~/.cache/steb/embeddings)."),
    executor: str = typer.Option("local", "--executor", help="Where encoding runs: local (default) or a registered executor such as ray."),
    address: Optional[str] = typer.Option(None, "--address", help="Cluster address for distributed executors (none: start a local cluster)."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-O", help="Encoder option key=value (repeatable), e.g. -O batch_size=64 -O device=cuda."),
    dataset_option: Optional[list[str]] = typer.Option(None, "--dataset-option", help="Dataset loader option key=value (repeatable)."),
    batch_size: int = typer.Option(1024, "--batch-size", help="Texts per encoding batch / cache shard."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Recompute results even when a matching result exists."),
    fail_fast: bool = typer.Option(False, "--fail-fast", help="Stop at the first dataset or task that fails (default: report failures at the end)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="BLAS/OpenMP threads for task computations (default: chosen from the work size and the free cores)."),
    max_memory: Optional[str] = typer.Option(None, "--max-memory", help="Process datasets in groups whose vectors fit this budget, e.g. 4G (default: one dataset at a time, which bounds peak memory by the largest dataset)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
    plugin: Optional[list[str]] = PluginOpt,
) -> None:
    """Evaluate ENCODER on datasets: embeds each distinct text once (cached on disk), runs every task, writes results atomically.

    Interrupt with Ctrl-C at any time: finished results and encoded batches are kept, and the same
    command resumes where it stopped.
    """
    from .runner import evaluate

    # third-party bars (weight loading, hub downloads) would interleave with steb's display, and must not
    # print at all under --no-progress: steb's own display (or its absence) is the only one
    _quiet_third_party_progress()
    _manager(plugin)
    executor_options = {"address": address} if address else {}
    names = list(dict.fromkeys(encoder))  # -e A -e B runs both, in order (a name given twice runs once)
    failed = False
    for name in names:
        try:
            summary = evaluate(
                name, dataset, suite=suite, tasks=task, output=output, data_dir=data_dir, protocol=protocol,
                max_length=max_length, seed=seed, cache_dir=cache_dir, executor=executor, executor_options=executor_options,
                encoder_options=_parse_options(option, "encoder"), dataset_options=_parse_options(dataset_option, "dataset"),
                plugins=tuple(plugin or ()), batch_size=batch_size, progress=progress, overwrite=overwrite, fail_fast=fail_fast,
                threads=threads, max_memory=max_memory, errors="collect",
            )
        except KeyboardInterrupt:
            err_console.print(f"[yellow]interrupted[/]: finished results are in {output} and encoded batches in the cache; run the same command again to resume.")
            raise typer.Exit(130)
        failed = _print_summary(summary) or failed
    if failed:
        raise typer.Exit(1)


def _quiet_third_party_progress() -> None:
    """Switch off the progress bars of huggingface_hub, tqdm and transformers ("Loading weights")."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    if "transformers" in sys.modules:  # already imported (a plugin did): the environment is read too late
        try:
            from transformers.utils import logging as hf_logging  # noqa: PLC0415

            hf_logging.disable_progress_bar()
        except Exception:  # an old or partial transformers: the variables above still apply to new imports
            pass


def _print_summary(summary: Any) -> bool:
    """The results table, counts, notes and failures of one encoder's run; True when something failed."""
    table = Table(title=f"{summary.encoder}: results in {summary.output_dir}")
    for col in ("dataset", "task", "main score", "also", "status"):
        table.add_column(col)
    for status, records in (("reused", summary.reused), ("new", summary.results)):
        for record in records:
            also = ", ".join(f"{k} {_fmt(v)}" for k, v in record.companions.items())
            table.add_row(record.dataset, record.task, f"{record.main_metric} {_fmt(record.main_score)}", also, status)
    for ds, tk, why in summary.skipped:
        table.add_row(ds, tk, "", "", f"skipped: {why}")
    for failure in summary.failures:
        table.add_row(failure.dataset, failure.task or "(load)", "", "", "[red]failed[/]")
    console.print(table)
    console.print(
        f"{len(summary.results)} new, {len(summary.reused)} reused, {len(summary.skipped)} skipped, {len(summary.failures)} failed; "
        f"texts: {summary.texts_unique} distinct, {summary.texts_encoded} encoded, {summary.cache_hits} from cache; {summary.seconds:.1f} s"
    )
    for note in summary.notes:
        err_console.print(f"[yellow]note:[/] {note}", highlight=False)
    for failure in summary.failures:
        err_console.print(f"[red]error[/] {failure.dataset}{' / ' + failure.task if failure.task else ''}: {failure.error}", highlight=False)
    return bool(summary.failures)


def _fmt(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.4f}"


from .report.command import export_clusters_command, report_command  # noqa: E402 - the report package owns its commands

app.command("report")(report_command)
app.command("export-clusters")(export_clusters_command)


@app.command("cite")
def cite(
    results_dir: Path = typer.Argument(..., help="A results folder written by `steb run`."),
    plugin: Optional[list[str]] = PluginOpt,
) -> None:
    """Print the BibTeX of steb/STEB and of every dataset whose results are in RESULTS_DIR."""
    from .catalogue import STEB_BIBTEX, bibtex
    from .results import load_results

    _manager(plugin)
    seen: dict[str, str] = {}
    for record in load_results(results_dir):
        seen.setdefault(record.dataset, str(record.dataset_meta.get("citation", "")))
    if not seen:
        raise StebError(f"no results in {results_dir}; run `steb run ... --output {results_dir}` first")
    print(STEB_BIBTEX)
    keys: set[str] = set(re.findall(r"^@\w+\{([^,]+),", STEB_BIBTEX, flags=re.M))
    for name, citation in sorted(seen.items()):
        # one entry per work: a citation may hold several entries (a dataset built on another's), and
        # datasets from one paper share its key, so each key is printed once
        for entry in re.split(r"\n(?=@\w+\{)", bibtex(name, citation or f"steb dataset {name}").strip()):
            key = re.match(r"@\w+\{([^,]+),", entry)
            if key is None or key.group(1) not in keys:
                keys.add(key.group(1) if key else entry)
                print(entry)


data_app = typer.Typer(help="Check which datasets are on this machine and how to obtain the others.", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("check")
def data_check(
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Root folder holding datasets (default: $STEB_DATA_DIR)."),
    suite: Optional[str] = typer.Option(None, "--suite", "-s", help="Check the datasets of this suite (default: every registered dataset)."),
    dataset: Optional[list[str]] = typer.Option(None, "--dataset", "-d", help="Check these datasets (repeatable)."),
    fmt: str = FormatOpt,
    plugin: Optional[list[str]] = PluginOpt,
) -> None:
    """For every selected dataset: is its data here, how many records/classes it loads vs the catalogue, and how to obtain a missing one. Nothing is encoded."""
    from .catalogue import check_dataset
    from .runner import resolve_selection

    manager = _manager(plugin)
    selection = resolve_selection(manager, dataset, suite) if (dataset or suite) else [(s, s.tasks) for s in manager.datasets()]
    shapes = {t.name: t.shape for t in manager.tasks()}
    checks = [check_dataset(spec, data_dir, tasks=tasks, shapes=shapes) for spec, tasks in selection]
    rows = [{"dataset": c.dataset, "status": c.status,
             "loaded": "; ".join(f"{t}: {_counts_text(v)}" for t, v in c.counts.items()),
             "catalogue": "; ".join(f"{t}: {_counts_text(v)}" for t, v in c.expected.items()),
             "message": c.message} for c in checks]
    if _emit(rows, fmt, "data check"):
        return
    colour = {"ok": "green", "builtin": "green", "differs": "yellow", "missing": "red", "error": "red"}
    # one short row per dataset; what to do about a dataset (how to obtain it, the error, the differing
    # counts) is listed whole below the table, so commands are never split mid-token and can be copied
    notes = [(c.dataset, c.status, " ".join(c.message.split())) for c in checks if c.message]
    numbered = {name: i for i, (name, _, _) in enumerate(notes, start=1)}
    if not console.is_terminal:  # piped: one tab-separated line per dataset
        sys.stdout.write("dataset\tstatus\ttexts\tcatalogue texts\tnote\n")
        for c in checks:
            sys.stdout.write("\t".join([c.dataset, c.status, _texts_of(c.counts), _texts_of(c.expected),
                                        f"[{numbered[c.dataset]}]" if c.dataset in numbered else ""]) + "\n")
    else:
        table = Table(title=f"steb data check ({data_dir or '$STEB_DATA_DIR'})", expand=False, box=None, pad_edge=False)
        for col in ("dataset", "status", "texts", "catalogue", "note"):
            table.add_column(col, no_wrap=True, overflow="ellipsis" if col != "dataset" else "fold")
        for c in checks:
            table.add_row(c.dataset, f"[{colour[c.status]}]{c.status}[/]", _texts_of(c.counts), _texts_of(c.expected),
                          f"[{numbered[c.dataset]}]" if c.dataset in numbered else "")
        console.print(table)
    if notes:
        console.print("")
        console.print("notes (how to obtain a missing dataset, errors, counts that differ from the catalogue):", highlight=False)
        for i, (name, status, text) in enumerate(notes, start=1):
            console.print(f"[{i}] {name} ({status}): {text}", highlight=False, markup=False, soft_wrap=True)
    counts = {k: sum(1 for c in checks if c.status == k) for k in colour}
    console.print(", ".join(f"{v} {k}" for k, v in counts.items() if v), highlight=False)


def _plural(n: Any, word: str) -> str:
    """``1 class``, ``2 classes``, ``- texts`` (unknown)."""
    if n == 1:
        return f"1 {word}"
    return f"{n} {word + 'es' if word.endswith('s') else word + 's'}"


def _counts_text(counts: Any) -> str:
    return f"{_plural(counts.get('classes', '-'), 'class')}, {_plural(counts.get('texts', '-'), 'text')}"


def _texts_of(counts: Any) -> str:
    """The largest text count over a dataset's tasks: one short number per dataset for the table."""
    values = [v.get("texts") for v in counts.values() if isinstance(v, Mapping) and v.get("texts") is not None]
    return str(max(values)) if values else "-"


@app.command("plugins")
def plugins_cmd(plugin: Optional[list[str]] = PluginOpt) -> None:
    """Show which plugins were loaded, from where, what each registered, and which failed (with the error)."""
    manager = get_manager(plugin or ())
    counts: dict[str, dict[str, int]] = {}
    for kind in KINDS:
        registry = manager.registry(kind)
        for name in registry.names():
            counts.setdefault(registry.provider(name), {}).setdefault(kind, 0)
            counts[registry.provider(name)][kind] += 1
    table = Table(title="steb plugins")
    for col in ("plugin", "source", "version", "location", "registers"):
        table.add_column(col, overflow="fold")
    for info in manager.loaded:
        regs = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in counts.get(info.name, {}).items()) or "-"
        table.add_row(info.name, info.source, info.version or "", info.location, regs)
    console.print(table)
    if manager.failures:
        failed = Table(title="failed plugins", style="red")
        for col in ("plugin", "source", "error"):
            failed.add_column(col, overflow="fold")
        for f in manager.failures:
            failed.add_row(f.name, f.source, f.error)
        console.print(failed)
    else:
        console.print("no plugin failed to load")
    if manager.disabled:
        console.print(f"switched off: {', '.join(sorted(manager.disabled))} (-p no:NAME or $STEB_DISABLE_PLUGINS)", highlight=False)


def _preload_plugins(argv: list[str]) -> list[str]:
    """``--plugin`` values from argv, so their commands exist before typer parses the command line."""
    found: list[str] = []
    for i, arg in enumerate(argv):
        if arg in ("--plugin", "-p") and i + 1 < len(argv):
            found.append(argv[i + 1])
        elif arg.startswith("--plugin="):
            found.append(arg.split("=", 1)[1])
    return found


def build_app(argv: Optional[list[str]] = None) -> typer.Typer:
    """The root app with plugin commands added (plugins may add commands only once per process)."""
    manager = get_manager(_preload_plugins(list(argv if argv is not None else sys.argv[1:])))
    if not getattr(app, "_steb_commands_added", False):
        manager.add_commands(app)
        app._steb_commands_added = True  # type: ignore[attr-defined]
    return app


def main(argv: Optional[list[str]] = None) -> None:
    """Console entry point: StebErrors become one readable line and exit status 2."""
    try:
        cli = build_app(argv)
        cli(args=argv, prog_name="steb", standalone_mode=True)
    except StebError as exc:
        err_console.print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(2)
    except Exception as exc:  # a bug or an unexpected library error: one line, the traceback on request
        if os.environ.get("STEB_TRACEBACK"):
            raise
        err_console.print(f"[red]error:[/] {type(exc).__name__}: {exc} (unexpected; set STEB_TRACEBACK=1 to see the traceback)", highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
