"""``steb run``: evaluate encoders on datasets and print each run's summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from .._errors import StebError
from . import common


@common.app.command("run")
def run(
    ctx: typer.Context,
    encoder: list[str] = typer.Option(
        ...,
        "--encoder",
        "-e",
        help="Registered encoder name (see `steb list encoders`) or a model path; repeatable: each encoder runs in "
        "turn.",
    ),
    dataset: list[str] | None = typer.Option(
        None, "--dataset", "-d", help="Dataset name (repeatable; see `steb list datasets`)."
    ),
    suite: str | None = typer.Option(
        None, "--suite", "-s", help="Run every dataset of a suite, e.g. demo (built in, no download), stel, steb."
    ),
    task: list[str] | None = typer.Option(
        None, "--task", "-t", help="Only these task types (repeatable); default: every task each dataset feeds."
    ),
    output: Path = typer.Option(
        Path("steb-results"),
        "--output",
        "-o",
        help="Results folder: one JSON per (encoder, dataset, task); re-runs resume here.",
    ),
    data_dir: Path | None = typer.Option(
        None,
        "--data-dir",
        help="Root folder holding downloaded datasets as DATA_DIR/<dataset-name>/ (default: $STEB_DATA_DIR).",
    ),
    protocol: str = typer.Option(
        "chunk-and-pool",
        "--protocol",
        help="Long-text protocol: chunk-and-pool (sentence chunks, mean-pooled) or truncate.",
    ),
    max_length: int | None = typer.Option(
        None, "--max-length", help="Token limit for the long-text protocol (default: the encoder's own)."
    ),
    seed: int = typer.Option(
        42,
        "--seed",
        help=(
            "Run seed (default 42, the STEB reference's): draws the texts under --sampling random and seeds --draws."
        ),
    ),
    sampling: str | None = typer.Option(
        None,
        "--sampling",
        help=(
            "Which texts per class: first (default: the STEB reference's first N in the release's order) or random "
            "(a draw seeded by --seed)."
        ),
    ),
    draws: int | None = typer.Option(
        None,
        "--draws",
        min=2,
        help=(
            "K random draws (seeds derived from --seed): each score as mean ± sd, under the encoder name NAME~randomK; "
            "the default first-N result is kept. More than 100 draws need --yes; the time they take is said after "
            "the first."
        ),
    ),
    yes: bool = typer.Option(False, "--yes", help="Run more than 100 --draws (each draw is a whole run)."),
    cache_dir: Path | None = typer.Option(
        None, "--cache-dir", help="Embedding cache folder (default: $STEB_CACHE_DIR or ~/.cache/steb/embeddings)."
    ),
    executor: str = typer.Option(
        "local", "--executor", help="Where encoding runs: local (default) or a registered executor such as ray."
    ),
    address: str | None = typer.Option(
        None, "--address", help="Cluster address for distributed executors (none: start a local cluster)."
    ),
    executor_option: list[str] | None = typer.Option(
        None,
        "--executor-option",
        "-X",
        help="Executor option key=value (repeatable), e.g. --executor ray -X num_workers=1.",
    ),
    option: list[str] | None = typer.Option(
        None, "--option", "-O", help="Encoder option key=value (repeatable), e.g. -O batch_size=64 -O device=cuda."
    ),
    dataset_option: list[str] | None = typer.Option(
        None, "--dataset-option", help="Dataset loader option key=value (repeatable)."
    ),
    task_option: list[str] | None = typer.Option(
        None,
        "--task-option",
        help="Task option TASK.KEY=VALUE (repeatable), e.g. --task-option order_alignment.ties=split; only the "
        "results of that task type are recomputed.",
    ),
    batch_size: int = typer.Option(1024, "--batch-size", help="Texts per encoding batch / cache shard."),
    batch_tokens: int | None = typer.Option(
        None,
        "--batch-tokens",
        min=1,
        help="Cut encoding batches by a budget of padded tokens (texts x longest text, length-sorted; at most "
        "--batch-size texts) instead of every --batch-size texts, e.g. 16384 on a GPU.",
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="Recompute results even when a matching result exists."),
    fail_fast: bool = typer.Option(
        False, "--fail-fast", help="Stop at the first dataset or task that fails (default: report failures at the end)."
    ),
    threads: int | None = typer.Option(
        None,
        "--threads",
        help="BLAS/OpenMP threads for task computations (default: chosen from the work size and the free cores).",
    ),
    max_memory: str | None = typer.Option(
        None,
        "--max-memory",
        help="Process datasets in groups whose vectors fit this budget, e.g. 4G (default: one dataset at a time, "
        "which bounds peak memory by the largest dataset).",
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
    prefetch: int = typer.Option(
        4,
        "--prefetch",
        min=0,
        help="Datasets loaded ahead (in a worker process) while the current one is encoded and scored; 0: one dataset "
        "after another in this process. Same results either way; lower it if loaded datasets are large next to "
        "your memory.",
    ),
    prefetch_mode: str = typer.Option(
        "auto",
        "--prefetch-mode",
        help="Where datasets are loaded ahead: auto (a forked process where the OS can fork, else a thread), process "
        "or thread.",
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Treat datasets whose data is missing as failures (exit 1); by default they are skipped, listed with the "
        "`steb data get` command that fetches them, and the run exits 0.",
    ),
    download: bool = typer.Option(
        False,
        "--download",
        help="Fetch missing model weights into the Hugging Face cache first (as `steb models get`); without it "
        "nothing is downloaded.",
    ),
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Evaluate ENCODER on datasets: embeds each distinct text once (cached on disk), runs every task, writes results
    atomically.

    Interrupt with Ctrl-C at any time: finished results and encoded batches are kept, and the same
    command resumes where it stopped.
    """
    from .._run_manifest import record_run
    from ..run import evaluate

    # third-party bars (weight loading, hub downloads) would interleave with steb's display, and must not
    # print at all under --no-progress: steb's own display (or its absence) is the only one
    common.quiet_third_party_progress()
    common.manager(plugin)
    executor_options = {
        **common.parse_options(executor_option, "executor"),
        **({"address": address} if address else {}),
    }
    names = list(dict.fromkeys(encoder))  # -e A -e B runs both, in order (a name given twice runs once)
    _check_weights(names, common.parse_options(option, "encoder"), download, progress, plugin)
    failed = False
    command = _typed_command(ctx)
    for name in names:
        try:
            summary = evaluate(
                name,
                dataset,
                suite=suite,
                tasks=task,
                output=output,
                data_dir=data_dir,
                protocol=protocol,
                max_length=max_length,
                seed=seed,
                cache_dir=cache_dir,
                executor=executor,
                executor_options=executor_options,
                encoder_options=common.parse_options(option, "encoder"),
                dataset_options=common.parse_options(dataset_option, "dataset"),
                task_options=common.parse_options(task_option, "task"),
                plugins=tuple(plugin or ()),
                batch_size=batch_size,
                batch_tokens=batch_tokens,
                progress=progress,
                overwrite=overwrite,
                fail_fast=fail_fast,
                threads=threads,
                max_memory=max_memory,
                errors="collect",
                prefetch=prefetch,
                prefetch_mode=prefetch_mode,
                strict=strict,
                sampling=sampling,
                draws=draws,
                confirm_draws=yes,
                announce=lambda text: common.err_console.print(text, markup=False, highlight=False),
            )
        except KeyboardInterrupt:
            common.err_console.print(
                f"[yellow]interrupted[/]: finished results are in {output} and encoded batches in the cache; run the "
                "same command again to resume."
            )
            raise typer.Exit(130) from None
        failed = _print_summary(summary) or failed
        if summary.results:  # the run manifest: which command produced (or reused) these results
            try:
                record_run(output, command, summary.encoder, len(summary.results))
            except (OSError, StebError) as exc:  # the results are written; a manifest that cannot be is a note
                from rich.markup import escape

                common.err_console.print(f"[yellow]run manifest not written:[/] {escape(str(exc))}", highlight=False)
    if failed:
        raise typer.Exit(1)


def _typed_command(ctx: Any) -> str:
    """This invocation as a command line (the options the user set, not their defaults; for the run manifest)."""
    from .._run_manifest import command_line

    given = {
        name
        for name in ctx.params
        if getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")
    }
    return command_line("steb run", ctx.command.params, ctx.params, given)


def _check_weights(
    names: list[str], options: dict[str, Any], download: bool, progress: bool, plugin: list[str] | None
) -> None:
    """Before any work: fetch the weights the encoders read from the hub (``--download``), or refuse with
    the command that fetches them, so a missing model is one clear error instead of a failure per dataset."""
    from .._weights import cached_weights, fetch_command
    from .models import ensure_weights, weights_target

    manager = common.manager(plugin)
    for name in names:
        target = weights_target(manager, name, options, strict=False)
        if target is None or cached_weights(target.repo_id, target.revision) is not None:
            continue
        if download:
            commit, _ = ensure_weights(target, progress=progress)
            common.err_console.print(f"fetched {target.repo_id} at commit {commit}", highlight=False)
            continue
        if name in manager.encoders() or name == target.repo_id:  # a configuration, or a hub id given as the encoder
            at = f" at revision {target.revision}" if target.revision else ""
            rev = f" --revision {target.revision}" if target.pinned and options.get("revision") else ""
            raise StebError(
                f"encoder '{name}' needs the weights of {target.repo_id}{at}, which are not in the Hugging Face "
                f"cache; fetch them with `{fetch_command(target.repo_id if options.get('model') else name)}{rev}` "
                f"or add --download to this command"
            )


def _print_summary(summary: Any) -> bool:
    """The results table, counts, notes and failures of one encoder's run; True when something failed."""
    table = Table(title=f"{summary.encoder}: results in {summary.output_dir}")
    for col in ("dataset", "task", "main score", "also", "status"):
        table.add_column(col)
    for status, records in (("reused", summary.reused), ("new", summary.results)):
        for record in records:
            also = ", ".join(f"{k} {_fmt(v)}" for k, v in record.companions.items())
            sd = (record.metrics.get("draws") or {}).get("sd", {}).get(record.main_metric)
            spread = f" ± {sd:.4f}" if isinstance(sd, float) else ""
            main = f"{record.main_metric} {_fmt(record.main_score)}{spread}"
            table.add_row(record.dataset, record.task, main, also, status)
    for ds, tk, why in summary.skipped:
        table.add_row(ds, tk, "", "", f"skipped: {why}")
    for gap in getattr(summary, "missing", ()):
        table.add_row(gap.dataset, ", ".join(gap.tasks), "", "", "[yellow]missing data[/]")
    for failure in summary.failures:
        table.add_row(failure.dataset, failure.task or "(load)", "", "", "[red]failed[/]")
    common.console.print(table)
    missing = len(getattr(summary, "missing", ()))
    common.console.print(
        f"{len(summary.results)} new, {len(summary.reused)} reused, {len(summary.skipped)} skipped, "
        f"{len(summary.failures)} failed; "
        + (f"{missing} dataset{'s' if missing != 1 else ''} with missing data; " if missing else "")
        + f"texts: {summary.texts_unique} distinct, {summary.texts_encoded} encoded, {summary.cache_hits} from cache; "
        f"{summary.seconds:.1f} s"
    )
    for note in summary.notes:
        common.err_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    for failure in summary.failures:
        common.err_console.print(
            f"[red]error[/] {escape(failure.dataset)}{escape(' / ' + failure.task) if failure.task else ''}: "
            f"{escape(str(failure.error))}",
            highlight=False,
        )
    return bool(summary.failures)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"
