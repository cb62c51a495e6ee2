"""``steb data get``: fetch the public releases of the selected datasets into the layout their loaders read.

Nothing is downloaded unless this command is run; ``--dry-run`` only says what would happen. After
fetching, the fetched datasets are loaded once (``steb data check``) so a release that does not give the
catalogue's counts is reported at once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from .._errors import StebError
from . import common
from .data import data_app

#: seconds one file may take over all its tries: a server trickling bytes is cut off (issue 41)
DEFAULT_DEADLINE = 4 * 3600.0


@data_app.command("get")
def data_get(
    suite: str | None = typer.Option(None, "--suite", "-s", help="Fetch the datasets of this suite (e.g. steb)."),
    dataset: list[str] | None = typer.Option(None, "--dataset", "-d", help="Fetch these datasets (repeatable)."),
    judgement_set: list[str] | None = typer.Option(
        None,
        "--judgement-set",
        help="Fetch these human-judgement sets for `steb meta-eval --set` (repeatable; `steb list judgement-sets`).",
    ),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Root folder to fill (default: $STEB_DATA_DIR)."),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Print, per dataset, the source, size, licence and what to do by hand; download nothing.",
    ),
    accept_licence: list[str] | None = typer.Option(
        None,
        "--accept-licence",
        help="Agree to this licence (or dataset) so its data may be fetched; `all` agrees to every one (repeatable).",
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Fetch again datasets already present (the old folder is replaced only when the new one is complete).",
    ),
    jobs: int = typer.Option(4, "--jobs", "-j", min=1, help="Fetch this many target folders at once."),
    retries: int = typer.Option(
        4, "--retries", min=0, help="Further tries of a download after a server error or a stall."
    ),
    timeout: float = typer.Option(
        60.0, "--timeout", min=0.1, help="Seconds without data before a download try is abandoned."
    ),
    deadline: float = typer.Option(
        DEFAULT_DEADLINE,
        "--deadline",
        min=0,
        help="Seconds one file may take over all its tries (0: no limit; default 4 hours, or less for a file whose "
        "size or catalogue bound is known: its size at 64 KiB/s, at least 10 minutes); what arrived is kept for a "
        "rerun.",
    ),
    pinned_only: bool = typer.Option(
        False,
        "--pinned-only",
        help="Fetch only sources their publisher pins (commit, hub revision, published checksum); skip those steb "
        "would pin at first download.",
    ),
    verify: bool = typer.Option(
        False,
        "--verify",
        help="Download nothing: compare the folders steb fetched with the sha256 recorded in their manifests.",
    ),
    fmt: str = common.FormatOpt,
    plugin: list[str] | None = common.PluginOpt,
) -> None:
    """Fetch every selected dataset whose release is public (git commit, hub revision, Zenodo record, URL or
    Google Drive file), verified and atomically, then check that each loads. A file without a published
    checksum is pinned by its first download (its sha256 is recorded and printed). Mirrors: $HF_ENDPOINT and
    $STEB_DATA_MIRROR."""
    from .._catalogue import check_dataset
    from ..obtain import DownloadPolicy, make_plan
    from ..obtain.mirror import mirrors
    from ..run.selection import resolve_selection

    mirrors()  # a malformed $STEB_DATA_MIRROR is an error before anything else happens
    manager = common.manager(plugin)
    if not (suite or dataset or judgement_set):
        raise StebError(
            "steb data get: name datasets (--dataset D), a suite (--suite steb) or judgement sets (--judgement-set "
            "NAME); nothing is fetched by default"
        )
    selection = resolve_selection(manager, dataset, suite) if (suite or dataset) else []
    judgement_specs = [manager.judgement_sets().get(name) for name in dict.fromkeys(judgement_set or [])]
    specs: list[Any] = [spec for spec, _ in selection] + judgement_specs
    root = data_dir or (Path(os.environ["STEB_DATA_DIR"]) if os.environ.get("STEB_DATA_DIR") else None)
    accepted = list(accept_licence or [])
    plan = make_plan(specs, accepted, root, pinned_only=pinned_only)
    if dry_run:
        _print_plan(plan, fmt, root)
        return
    if root is None:
        raise StebError("steb data get: say where the data goes: --data-dir ROOT or $STEB_DATA_DIR")
    if verify:
        _verify(plan, root, fmt)
        return
    if plan.blocked and _interactive():
        for job in plan.blocked:
            if job.accepted(accepted):  # its licence was accepted for an earlier folder
                continue
            question = (
                f"{', '.join(job.datasets)} ({job.target}/) is under {' and '.join(job.licences)}, which needs your "
                "agreement. Do you accept it?"
            )
            if typer.confirm(question, default=False):
                accepted.extend(job.licences)
        plan = make_plan(specs, accepted, root, pinned_only=pinned_only)
    # the default deadline gives way to one scaled to a file's known size or catalogue bound; the user's never does
    policy = DownloadPolicy(
        retries=retries, timeout=timeout, deadline=deadline or None, scale_deadline=deadline == DEFAULT_DEADLINE
    )
    results = _fetch_with_progress(plan.jobs, root, force, jobs, policy)
    for r in results:
        for name, digest in r.recorded:
            moved = r.fetched_from.get(name)
            common.console.print(
                f"pinned at first download: {r.target}/: {name} sha256 {digest} (no published checksum; "
                "recorded in the folder's manifest, checked by steb data check and steb data get --verify)"
                + (f"; the source redirected to another host: the bytes came from {moved}" if moved else ""),
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
        for name, url in r.fetched_from.items():
            if name not in dict(r.recorded):
                common.console.print(
                    f"{r.target}/: {name} came from {url} (the source redirected to another host)",
                    highlight=False,
                    markup=False,
                    soft_wrap=True,
                )
    for job in plan.unpinned:
        common.console.print(
            f"not fetched (--pinned-only): {', '.join(job.datasets)} ({job.target}/): "
            + ", ".join(s.describe() for s in job.unpinned)
            + " has no published checksum",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    for row in plan.rows:
        if row.category == "manual" and row.instructions:
            common.console.print(
                f"by hand: {row.dataset}: {row.instructions}", highlight=False, markup=False, soft_wrap=True
            )
    for job in plan.blocked:
        names = " ".join(f"--accept-licence {_quoted(lic)}" for lic in job.licences)
        common.console.print(
            f"not fetched: {', '.join(job.datasets)} ({job.target}/): licence {', '.join(job.licences)} "
            f"needs your agreement; read it, then run again with {names}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    ok_targets = {r.target for r in results if r.status in ("fetched", "present")}
    shapes = {t.name: t.shape for t in manager.tasks()}
    checked = []
    for spec, tasks in selection:
        targets = {j.target for j in plan.jobs if spec.name in j.datasets}
        if targets and targets <= ok_targets:
            checked.append(check_dataset(spec, root, tasks=tasks, shapes=shapes))
    for js in judgement_specs:
        targets = {j.target for j in plan.jobs if js.name in j.datasets}
        if targets and targets <= ok_targets:
            checked.append(_check_judgement_set(js, root / next(iter(targets))))
    rows = [
        {
            "target": r.target,
            "datasets": r.datasets,
            "status": r.status,
            "message": r.message,
            "seconds": round(r.seconds, 1),
            "bytes_fetched": r.nbytes,
            "recorded": dict(r.recorded),
        }
        for r in results
    ]
    if not common.emit(
        rows + [{"dataset": c.dataset, "check": c.status, "message": c.message} for c in checked], fmt, "data get"
    ):
        for c in checked:
            common.console.print(
                f"check {c.dataset}: {c.status}{(': ' + ' '.join(c.message.split())) if c.message else ''}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
        for r in results:
            if r.status == "fetched":
                common.console.print(
                    f"fetched {r.target}/: {r.message}, {_size(r.nbytes)} transferred ({', '.join(r.datasets)})",
                    highlight=False,
                    markup=False,
                    soft_wrap=True,
                )
        counts = {k: sum(1 for r in results if r.status == k) for k in ("fetched", "present", "failed")}
        common.console.print(
            ", ".join(f"{v} {k}" for k, v in counts.items() if v) or "nothing to fetch", highlight=False
        )
    failed = [r for r in results if r.status == "failed"]
    if failed:
        raise StebError(
            f"{len(failed)} of {len(results)} target folders could not be fetched: "
            + "; ".join(f"{r.target}: {r.message.rstrip('.')}" for r in failed)
            + f". Partial downloads are kept in {root / '.steb-partial'}; run the same command again to resume"
        )
    if plan.blocked and not plan.jobs:
        licences = sorted({lic for job in plan.blocked for lic in job.licences})
        raise StebError(
            "nothing fetched: the selected data needs licence agreement; read the licence, then add "
            + " ".join(f"--accept-licence {_quoted(n)}" for n in licences)
            + " (or --accept-licence all)"
        )


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} B"


def _verify(plan: object, root: Path, fmt: str) -> None:
    """``--verify``: every selected folder steb fetched, against its manifest; non-zero exit on a difference."""
    from ..obtain.plan import present_folder
    from ..obtain.verify import verify_folder

    rows = []
    for job in [*plan.jobs, *plan.blocked, *plan.unpinned]:  # type: ignore[attr-defined]
        folder = present_folder(root, job.target)
        problems = verify_folder(folder) if folder is not None else None
        status = (
            "missing"
            if folder is None
            else ("not fetched by steb" if problems is None else ("changed" if problems else "ok"))
        )
        rows.append({"target": job.target, "datasets": job.datasets, "status": status, "problems": problems or []})
    if not common.emit(rows, fmt, "data get --verify"):
        for r in rows:
            detail = (
                ("; ".join(r["problems"][:5]) + ("; ..." if len(r["problems"]) > 5 else "")) if r["problems"] else ""
            )
            common.console.print(
                f"verify {r['target']}/: {r['status']}" + (f": {detail}" if detail else ""),
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
    changed = [r for r in rows if r["status"] == "changed"]
    if changed:
        raise StebError(
            f"{len(changed)} folder(s) differ from the sha256 steb recorded when it fetched them: "
            + "; ".join(f"{r['target']}: {r['problems'][0]}" for r in changed)
            + ". Fetch them again with --force (a source without a published checksum must then give the recorded "
            "bytes)"
        )


def _check_judgement_set(spec: Any, folder: Path) -> Any:
    """Load a fetched judgement set once, as ``steb data check`` loads a dataset: its rows, or why it failed."""
    from .._catalogue import DataCheck

    try:
        table = spec.loader(folder)
    except Exception as exc:  # noqa: BLE001 - a plugin's loader: report the failure beside the others
        return DataCheck(spec.name, "error", message=f"{type(exc).__name__}: {exc}", release=str(folder))
    return DataCheck(
        spec.name,
        "ok",
        message=f"{len(table)} rated outputs, subsets {', '.join(table.subsets())}",
        release=str(folder),
    )


def _interactive() -> bool:
    """Whether a person can answer the licence question (a terminal on both ends); never in scripts or CI."""
    return sys.stdin.isatty() and common.console.is_terminal


def _quoted(name: str) -> str:
    return f"'{name}'" if any(c.isspace() for c in name) else name


def _fetch_with_progress(jobs: list[Any], root: Path, force: bool, workers: int, policy: object) -> list[Any]:
    """Run the jobs; one rich progress display on a terminal, one line per finished target otherwise."""
    from ..obtain import fetch_all

    if not jobs:
        return []
    if not common.console.is_terminal:

        def line(target: str, n: int, state: str) -> None:
            if state in ("done", "failed"):
                common.console.print(f"{target}: {state}", highlight=False, markup=False)

        return fetch_all(jobs, root, force=force, workers=workers, policy=policy, progress=line)  # type: ignore[arg-type]
    from rich.progress import FileSizeColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    common.quiet_third_party_progress()
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        FileSizeColumn(),
        TextColumn("{task.fields[state]}"),
        TimeElapsedColumn(),
        console=common.console,
        transient=False,
    ) as bar:
        tasks = {j.target: bar.add_task(j.target, total=None, state="waiting") for j in jobs}

        def update(target: str, n: int, state: str) -> None:
            if state:
                bar.update(tasks[target], advance=n, state=state)
            else:
                bar.update(tasks[target], advance=n)

        return fetch_all(jobs, root, force=force, workers=workers, policy=policy, progress=update)  # type: ignore[arg-type]


def _print_plan(plan: object, fmt: str, root: Path | None) -> None:
    """The dry run: one row per dataset (source, size, licence, action) and manual instructions whole."""
    rows = [dict(vars(r)) for r in plan.rows]  # type: ignore[attr-defined]
    if common.emit(rows, fmt, "data get --dry-run"):
        return
    if not common.console.is_terminal:
        sys.stdout.write("dataset\tkind\tsize\tlicence\taction\tsource\tpinned by\n")
        for r in plan.rows:  # type: ignore[attr-defined]
            sys.stdout.write("\t".join([r.dataset, r.kinds, r.size, r.licence, r.action, r.source, r.pinned]) + "\n")
    else:
        table = Table(title=f"steb data get --dry-run ({root or '$STEB_DATA_DIR unset'})", box=None, pad_edge=False)
        for col in ("dataset", "kind", "source", "size", "licence", "pinned by", "action"):
            table.add_column(col, overflow="fold")
        for r in plan.rows:  # type: ignore[attr-defined]
            table.add_row(r.dataset, r.kinds, r.source, r.size, r.licence, r.pinned, r.action)
        common.console.print(table)
    manual = [r for r in plan.rows if r.instructions]  # type: ignore[attr-defined]
    if manual:
        common.console.print("")
        common.console.print("by hand (exact instructions):", highlight=False)
        for r in manual:
            common.console.print(f"- {r.dataset}: {r.instructions}", highlight=False, markup=False, soft_wrap=True)
    f = plan.figures()  # type: ignore[attr-defined]
    pins = plan.pins()  # type: ignore[attr-defined]
    common.console.print(
        f"sources: {pins['publisher']} pinned by their publisher (commit, hub revision, published checksum), "
        f"{pins['first download']} pinned by steb's first download (no published checksum; its sha256 is "
        f"recorded and checked later; --pinned-only skips them), {pins['not pinned']} not pinned (hub default branch)",
        highlight=False,
    )
    common.console.print(
        f"{len(plan.rows)} datasets: {f['automatic']} automatic, {f['licence']} after licence acceptance, "  # type: ignore[attr-defined]
        f"{f['manual']} by hand only, {f['builtin']} built in; nothing was downloaded",
        highlight=False,
    )
