"""Fetching jobs: staging under ``ROOT/.steb-partial/<target>``, verification, an atomic rename into
``ROOT/<target>`` and a manifest, in parallel over targets with one progress display.

A target folder appears only when every one of its sources arrived and verified, so a loader never
reads half a release. Each source works in ``src-<i>`` of the staging folder and leaves a ``src-<i>.done``
marker when finished: an interrupted run resumes there (partial plain downloads continue through
``Range``). The manifest ``ROOT/<target>/.steb-source.json`` records the sources, the revision each
resolved to and the sha256 of every file, which is also how a later run knows the folder is complete.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import unquote, urlsplit

from ..sources import DataSource
from .errors import FetchError
from .git import fetch_git, keep_matching
from .http import DownloadPolicy, download, file_digest
from .hub import fetch_hf
from .mirror import rewrite
from .plan import MANIFEST, PARTIAL, Job, present_folder, read_manifest
from .unpack import refuse_links_out, safe_unpack
from .zenodo import fetch_zenodo

__all__ = ["JobResult", "fetch_job", "fetch_all", "Progress"]

#: ``progress(target, nbytes, state)``: bytes that arrived (0 when only the state changes)
Progress = Callable[[str, int, str], None]


@dataclass
class JobResult:
    """How one target folder ended: ``fetched``, ``present`` (skipped) or ``failed`` (``message`` says why)."""

    target: str
    datasets: list[str]
    status: str
    message: str = ""
    seconds: float = 0.0
    path: str = ""


def _fetch_source(source: DataSource, work: Path, policy: DownloadPolicy, report: Callable[[int, int | None], None]) -> str:
    """Fetch one source into ``work``; returns the revision it resolved to."""
    if source.kind == "git":
        resolved = fetch_git(rewrite(source.url), source.revision, work, timeout=max(policy.timeout * 30, 600))
        keep_matching(work, source.files)
    elif source.kind == "hf":
        resolved = fetch_hf(source.url, source.revision, work, patterns=source.files, retries=policy.retries, backoff=policy.backoff)
    elif source.kind == "zenodo":
        work.mkdir(parents=True, exist_ok=True)
        resolved = fetch_zenodo(source.url, work, patterns=source.files, sha256=source.sha256, policy=policy, progress=report)
    elif source.kind == "url":
        work.mkdir(parents=True, exist_ok=True)
        name = source.files[0] if source.files else unquote(urlsplit(source.url).path.rsplit("/", 1)[-1])
        digest = source.sha256.get(name) or (next(iter(source.sha256.values())) if len(source.sha256) == 1 else None)
        if not name or "/" in name or not digest:
            raise FetchError(f"url source {source.url}: needs a file name (files=) and its sha256 (sha256={{name: digest}})")
        download(rewrite(source.url), work / name, sha256=digest, policy=policy, progress=report)
        resolved = f"sha256:{digest}"
    else:  # manual sources never reach a job
        raise FetchError(f"source {source.url}: kind '{source.kind}' cannot be fetched")
    for pattern in source.unpack:
        archives = sorted(work.glob(pattern))
        if not archives:
            raise FetchError(f"{source.describe()}: nothing named {pattern!r} to unpack among the fetched files")
        for archive in archives:
            safe_unpack(archive, work)
            archive.unlink()
    refuse_links_out(work)
    return resolved


def _merge(src: Path, dst: Path) -> None:
    """Move the contents of ``src`` into ``dst``; two sources giving one file is an error naming it."""
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.iterdir()):
        there = dst / entry.name
        if entry.is_dir() and not entry.is_symlink() and there.is_dir() and not there.is_symlink():
            _merge(entry, there)
        elif there.exists() or there.is_symlink():
            raise FetchError(f"two sources both provide {there}; give them different subdir= values")
        else:
            entry.rename(there)


def _checksums(folder: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file() and rel != MANIFEST:
            out[rel] = file_digest(path)
    return out


def _source_record(source: DataSource, resolved: str) -> dict:
    record = {k: v for k, v in asdict(source).items() if v not in ("", (), {}, None, False, [])}
    record["resolved"] = resolved
    return record


def fetch_job(job: Job, root: Path, *, force: bool = False, policy: DownloadPolicy = DownloadPolicy(),
              progress: Progress | None = None, tidy: bool = True) -> JobResult:
    """Fill ``root/job.target`` from the job's sources; never leaves a half-filled target folder.

    ``tidy`` removes the staging folders left empty; :func:`fetch_all` does that itself once every job
    ended, so that one job cannot remove a folder another job is about to create."""
    started = time.monotonic()
    say = progress or (lambda target, n, state: None)
    here = present_folder(root, job.target)
    if here is not None and not force:
        why = "fetched earlier" if read_manifest(here) is not None else "laid out by hand (no manifest)"
        return JobResult(job.target, job.datasets, "present", f"{here} exists, {why}; --force fetches again", 0.0, str(here))
    staging = root / PARTIAL / job.target
    if force and staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True, exist_ok=True)
    try:
        records = []
        for i, source in enumerate(job.sources):
            work, marker = staging / f"src-{i}", staging / f"src-{i}.done"
            done = json.loads(marker.read_text(encoding="utf-8")) if marker.is_file() else None
            if done is None or done.get("source") != source.describe():
                marker.unlink(missing_ok=True)
                say(job.target, 0, f"{source.kind} {i + 1}/{len(job.sources)}")
                resolved = _fetch_source(source, work, policy, lambda n, total: say(job.target, n, ""))
                marker.write_text(json.dumps({"source": source.describe(), "resolved": resolved}), encoding="utf-8")
            else:
                resolved = done["resolved"]
            records.append(_source_record(source, resolved))
        say(job.target, 0, "verifying")
        out = staging / "out"
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        for i in range(len(job.sources)):  # merging moves the files: a source is no longer "done" once consumed
            (staging / f"src-{i}.done").unlink(missing_ok=True)
        for i, source in enumerate(job.sources):
            work = staging / f"src-{i}"
            if work.is_dir():
                _merge(work, out / source.subdir if source.subdir else out)
        manifest = {"target": job.target, "datasets": job.datasets, "fetched": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "sources": records, "files": _checksums(out)}
        (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n", encoding="utf-8")
        final = here or root / job.target
        final.parent.mkdir(parents=True, exist_ok=True)
        old = staging / "replaced"
        if final.exists():  # --force: the old folder goes only once the new one is complete
            final.rename(old)
        try:
            out.rename(final)
        except OSError:
            if old.exists() and not final.exists():  # put the user's folder back as it was
                old.rename(final)
            raise
        shutil.rmtree(staging, ignore_errors=True)
        if tidy:
            _drop_empty(root / PARTIAL)
        say(job.target, 0, "done")
        return JobResult(job.target, job.datasets, "fetched", f"{len(manifest['files'])} files", time.monotonic() - started, str(final))
    except Exception as exc:  # noqa: BLE001 - one target's failure must not stop the others
        say(job.target, 0, "failed")
        message = str(exc) if isinstance(exc, FetchError) or hasattr(exc, "path") else f"{type(exc).__name__}: {exc}"
        return JobResult(job.target, job.datasets, "failed", message, time.monotonic() - started)


def _drop_empty(folder: Path) -> None:
    """Remove ``folder`` and the folders under it that hold nothing (what staging of nested targets leaves)."""
    if not folder.is_dir():
        return
    for path in sorted((p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink()), reverse=True):
        try:
            path.rmdir()
        except OSError:
            pass
    try:
        folder.rmdir()
    except OSError:
        pass


def fetch_all(jobs: Iterable[Job], root: Path, *, force: bool = False, workers: int = 4,
              policy: DownloadPolicy = DownloadPolicy(), progress: Progress | None = None) -> list[JobResult]:
    """:func:`fetch_job` over ``jobs`` with ``workers`` threads; results in the jobs' order."""
    jobs = list(jobs)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()

    def guarded(target: str, n: int, state: str) -> None:
        if progress is not None:
            with lock:
                progress(target, n, state)

    def one(job: Job) -> JobResult:
        return fetch_job(job, root, force=force, policy=policy, progress=guarded, tidy=False)

    if workers <= 1 or len(jobs) <= 1:
        results = [one(j) for j in jobs]
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="steb-get") as pool:
            results = list(pool.map(one, jobs))
    _drop_empty(root / PARTIAL)
    return results
