"""``steb run-many``: many encoders x many datasets as parallel jobs on a Ray cluster."""

from __future__ import annotations

from pathlib import Path

import typer


def run_many_command(
    encoder: list[str] = typer.Option(..., "--encoder", "-e", help="Registered encoder name (repeatable)."),
    dataset: list[str] | None = typer.Option(None, "--dataset", "-d", help="Dataset name (repeatable)."),
    suite: str | None = typer.Option(None, "--suite", "-s", help="Every dataset of a suite, e.g. demo."),
    output: Path = typer.Option(
        Path("steb-results"), "--output", "-o", help="Results folder (shared by all jobs; re-runs resume)."
    ),
    cache_dir: Path | None = typer.Option(
        None, "--cache-dir", help="Embedding cache folder (must be shared with the workers)."
    ),
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Root folder of downloaded datasets (must be visible to the workers)."
    ),
    address: str | None = typer.Option(None, "--address", help="Ray cluster address; none starts a local cluster."),
    num_cpus: int | None = typer.Option(None, "--num-cpus", help="CPUs of a local cluster (default: all cores)."),
    job_retries: int = typer.Option(
        2,
        "--job-retries",
        help="Retries per (encoder, dataset) job after a lost worker or a transient error (unknown names, bad options "
        "and bad data are never retried).",
    ),
    seed: int = typer.Option(42, "--seed", help="Run seed (default 42, the STEB reference's, as steb run)."),
    plugin: list[str] | None = typer.Option(
        None, "--plugin", "-p", help="Local plugin module or .py path (repeatable)."
    ),
) -> None:
    """Evaluate every ENCODER on every dataset, one retried job per (encoder, dataset) pair, in parallel on Ray.

    Names are checked here before anything is sent to the cluster. A cluster started with `ray start --head`
    (Ray 2.59+) needs RAY_AUTH_MODE=token and its token (RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN) in this
    environment.
    """
    from rich.console import Console
    from rich.table import Table

    from .many import run_many

    options = {"job_retries": job_retries, **({"num_cpus": num_cpus} if num_cpus and not address else {})}
    outcomes = run_many(
        encoder,
        dataset,
        suite=suite,
        output=output,
        address=address,
        executor_options=options,
        plugins=tuple(plugin or ()),
        cache_dir=cache_dir,
        data_dir=data_dir,
        seed=seed,
    )
    table = Table(title=f"run-many: results in {output}")
    for col in ("encoder", "dataset", "new", "reused", "status"):
        table.add_column(col)
    for o in outcomes:
        if o.error is not None:
            table.add_row(o.encoder, o.dataset, "", "", f"[red]error[/]: {type(o.error).__name__}: {o.error}")
            continue
        s = o.summary
        status = "ok" if o.ok else "; ".join(f"{f.task or 'load'}: {f.error}" for f in s.failures)
        table.add_row(o.encoder, o.dataset, str(len(s.results)), str(len(s.reused)), status)
    Console().print(table)
    if not all(o.ok for o in outcomes):
        raise typer.Exit(1)
