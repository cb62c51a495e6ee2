"""Fetching jobs: staging under ``ROOT/.steb-partial/<target>``, verification, an atomic rename into
``ROOT/<target>`` and a manifest, in parallel over targets with one progress display.

A target folder appears only when every one of its sources arrived and verified, so a loader never
reads half a release. Each source works in ``src-<i>`` of the staging folder and leaves a ``src-<i>.done``
marker when finished: an interrupted run resumes there (partial plain downloads continue through
``Range``). Markers are written atomically, and one that cannot be read (empty, cut short) counts as
"not done": that source is fetched again instead of failing every rerun. The manifest
``ROOT/<target>/.steb-source.json`` records the sources, the revision each resolved to, who pins it
(``pinned_by``), the bytes fetched, and the sha256 of every file, which is also how a later run knows the
folder is complete and how ``steb data check`` / ``steb data get --verify`` find a changed file.

A URL or Drive file without a published checksum is pinned by its first download (trust on first use):
its sha256 is recorded in the source's manifest entry (``sha256``), returned in :attr:`JobResult.recorded`
for the command to print, and a later ``--force`` fetch must give the same bytes.

Before an archive is unpacked the fetched tree is checked for links leading out of it, and the
unpacker never writes through a link (:mod:`steb_core.obtain.unpack`), so no file outside the data
root can be touched (issue 41).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .._io import atomic_write_text
from .._sources import PINNED_BY_FIRST_DOWNLOAD, DataSource
from .errors import FetchError
from .gdrive import fetch_gdrive
from .git import fetch_git
from .http import DownloadPolicy, download, file_digest
from .hub import fetch_hf
from .mirror import rewrite
from .plan import MANIFEST, PARTIAL, Job, present_folder, read_manifest
from .unpack import refuse_links_out, safe_unpack
from .zenodo import fetch_zenodo

__all__ = ["JobResult", "fetch_job", "fetch_all", "Progress", "file_name"]

#: ``progress(target, nbytes, state)``: bytes that arrived (0 when only the state changes)
Progress = Callable[[str, int, str], None]


@dataclass
class JobResult:
    """How one target folder ended: ``fetched``, ``present`` (skipped) or ``failed`` (``message`` says why).

    ``nbytes`` counts the bytes fetched (downloaded files, git objects received); ``recorded`` lists the
    ``(file, sha256)`` pins taken now, at the first download of sources without a published checksum
    (a ``--force`` refetch checks against the pins already recorded instead)."""

    target: str
    datasets: list[str]
    status: str
    message: str = ""
    seconds: float = 0.0
    path: str = ""
    nbytes: int = 0
    recorded: list[tuple[str, str]] = field(default_factory=list)
    #: file -> the URL its bytes came from, for files whose source URL redirected to another origin
    fetched_from: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Outcome:
    resolved: str
    nbytes: int
    recorded: dict[str, str]  # sha256 pins of files without a published checksum (kept in the manifest)
    first: bool = False  # those pins were taken now (printed), not checked against earlier ones
    #: file -> where its bytes came from when the source URL redirected to another origin (issue 47)
    fetched_from: dict[str, str] = field(default_factory=dict)


def _origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port: what makes another origin (a CDN a release URL redirects to is one)."""
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


def file_name(source: DataSource) -> str:
    """The file a url or gdrive source saves: ``files[0]``, else the last segment of the URL's path."""
    name = source.files[0] if source.files else unquote(urlsplit(source.url).path.rsplit("/", 1)[-1])
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise FetchError(f"{source.kind} source {source.url}: needs a plain file name (files=[NAME])")
    return name


def _single_file(
    source: DataSource,
    work: Path,
    policy: DownloadPolicy,
    report: Callable[[int, int | None], None],
    known: Mapping[str, str],
) -> _Outcome:
    """A url or gdrive source: one file, verified against the publisher's sha256, else against the one
    recorded at steb's first download (``known``), else recorded now."""
    name = file_name(source)
    published = source.sha256.get(name) or (next(iter(source.sha256.values())) if len(source.sha256) == 1 else None)
    expected = published or known.get(name)
    hasher = hashlib.sha256()
    where: list[str] = []
    try:
        if source.kind == "gdrive":
            fetch_gdrive(
                source.url,
                work / name,
                sha256=expected,
                policy=policy,
                progress=report,
                expected_size=source.size_bytes,
                max_size=source.max_bytes,
                hasher=hasher,
                where=where,
            )
        else:
            download(
                rewrite(source.url),
                work / name,
                sha256=expected,
                policy=policy,
                progress=report,
                expected_size=source.size_bytes,
                max_size=source.max_bytes,
                hasher=hasher,
                where=where,
            )
    except FetchError as exc:
        if expected and not published and str(exc).startswith("checksum mismatch"):
            raise FetchError(
                f"{exc}. {name} differs from the file steb fetched first (its sha256 is recorded in the "
                "folder's manifest); if the publisher replaced it on purpose, remove the folder and fetch again "
                "to record the new file"
            ) from exc
        raise
    digest = hasher.hexdigest()
    asked = rewrite(source.url) if source.kind == "url" else ""
    final = where[-1] if where else ""
    moved = bool(asked and final and _origin(final) != _origin(asked))
    return _Outcome(
        f"sha256:{digest}",
        (work / name).stat().st_size,
        {} if published else {name: digest},
        first=not published and not known.get(name),
        fetched_from={name: final} if moved else {},
    )


def _fetch_source(
    source: DataSource,
    work: Path,
    policy: DownloadPolicy,
    report: Callable[[int, int | None], None],
    known: Mapping[str, str] | None = None,
) -> _Outcome:
    """Fetch one source into ``work`` (check the tree, then unpack); returns what it resolved to."""
    if source.kind == "git":
        got = fetch_git(
            rewrite(source.url), source.revision, work, paths=source.files, timeout=max(policy.timeout * 30, 600)
        )
        outcome = _Outcome(got.commit, got.nbytes, {})
    elif source.kind == "hf":
        resolved = fetch_hf(
            source.url, source.revision, work, patterns=source.files, retries=policy.retries, backoff=policy.backoff
        )
        outcome = _Outcome(resolved, _tree_size(work), {})
    elif source.kind == "zenodo":
        work.mkdir(parents=True, exist_ok=True)
        resolved = fetch_zenodo(
            source.url, work, patterns=source.files, sha256=source.sha256, policy=policy, progress=report
        )
        outcome = _Outcome(resolved, _tree_size(work), {})
    elif source.kind in ("url", "gdrive"):
        work.mkdir(parents=True, exist_ok=True)
        outcome = _single_file(source, work, policy, report, known or {})
    else:  # manual sources never reach a job
        raise FetchError(f"source {source.url}: kind '{source.kind}' cannot be fetched")
    refuse_links_out(work)  # before unpacking: an archive must never be written through a link of the release
    for pattern in source.unpack:
        archives = sorted(work.glob(pattern))
        if not archives:
            raise FetchError(f"{source.describe()}: nothing named {pattern!r} to unpack among the fetched files")
        for archive in archives:
            if archive.is_symlink() or not archive.is_file():
                raise FetchError(
                    f"{source.describe()}: {archive.relative_to(work).as_posix()} is not a plain file; not unpacked"
                )
            safe_unpack(archive, work)
            archive.unlink()
    if source.strip:
        _strip(work, source.strip.strip("/"), source)
    refuse_links_out(work)
    return outcome


def _strip(work: Path, name: str, source: DataSource) -> None:
    """Move the contents of ``work/name`` (the folder an archive unpacked into) up into ``work``."""
    inner = work / name
    if inner.is_symlink() or not inner.is_dir():
        raise FetchError(
            f"{source.describe()}: no folder {name!r} to take the files from (strip=); the release holds "
            f"{sorted(p.name for p in work.iterdir())[:10]}"
        )
    for entry in sorted(inner.iterdir()):
        if (work / entry.name).exists() or (work / entry.name).is_symlink():
            raise FetchError(
                f"{source.describe()}: {name}/{entry.name} and {entry.name} both exist; cannot move the folder's "
                "files up"
            )
        entry.rename(work / entry.name)
    inner.rmdir()


def _tree_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _read_marker(marker: Path) -> dict[str, Any] | None:
    """A ``src-N.done`` marker, or None when there is none or it cannot be read (empty, cut short): a bad
    marker means "not done", so the source is fetched again instead of failing every rerun."""
    if not marker.is_file():
        return None
    try:
        done = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        done = None
    if (
        not isinstance(done, dict)
        or not isinstance(done.get("resolved"), str)
        or not isinstance(done.get("source"), str)
    ):
        marker.unlink(missing_ok=True)
        return None
    return done


def _known_pins(folder: Path | None) -> dict[str, dict[str, str]]:
    """Per source (its :meth:`~DataSource.describe` line), the sha256 pins recorded at its first download."""
    manifest = read_manifest(folder) if folder is not None else None
    out: dict[str, dict[str, str]] = {}
    for record in (manifest or {}).get("sources", []) if isinstance(manifest, dict) else []:
        if (
            isinstance(record, dict)
            and record.get("pinned_by") == PINNED_BY_FIRST_DOWNLOAD
            and isinstance(record.get("recorded"), dict)
        ):
            out[str(record.get("describe", ""))] = {str(k): str(v) for k, v in record["recorded"].items()}
    return out


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


def _source_record(source: DataSource, outcome: _Outcome) -> dict[str, Any]:
    record = {k: v for k, v in asdict(source).items() if v not in ("", (), {}, None, False, [])}
    record.update(
        describe=source.describe(), resolved=outcome.resolved, pinned_by=source.pinned_by, bytes_fetched=outcome.nbytes
    )
    if outcome.recorded:
        record["recorded"] = dict(outcome.recorded)
    if outcome.fetched_from:  # the source URL redirected to another origin: say where the pinned bytes came from
        record["fetched_from"] = dict(outcome.fetched_from)
    return record


def fetch_job(
    job: Job,
    root: Path,
    *,
    force: bool = False,
    policy: DownloadPolicy = DownloadPolicy(),
    progress: Progress | None = None,
    tidy: bool = True,
) -> JobResult:
    """Fill ``root/job.target`` from the job's sources; never leaves a half-filled target folder.

    ``tidy`` removes the staging folders left empty; :func:`fetch_all` does that itself once every job
    ended, so that one job cannot remove a folder another job is about to create."""
    started = time.monotonic()
    say = progress or (lambda target, n, state: None)
    here = present_folder(root, job.target)
    if here is not None and not force:
        why = "fetched earlier" if read_manifest(here) is not None else "laid out by hand (no manifest)"
        return JobResult(
            job.target, job.datasets, "present", f"{here} exists, {why}; --force fetches again", 0.0, str(here)
        )
    staging = root / PARTIAL / job.target
    if force and staging.exists():
        shutil.rmtree(staging)
    try:
        staging.mkdir(parents=True, exist_ok=True)
        known = _known_pins(here)
        records = []
        first_pins: list[tuple[str, str]] = []
        fetched_from: dict[str, str] = {}
        for i, source in enumerate(job.sources):
            work, marker = staging / f"src-{i}", staging / f"src-{i}.done"
            done = _read_marker(marker)
            if done is None or done.get("source") != source.describe():
                marker.unlink(missing_ok=True)
                say(job.target, 0, f"{source.kind} {i + 1}/{len(job.sources)}")
                outcome = _fetch_source(
                    source, work, policy, lambda n, total: say(job.target, n, ""), known.get(source.describe())
                )
                atomic_write_text(
                    marker,
                    json.dumps(
                        {
                            "source": source.describe(),
                            "resolved": outcome.resolved,
                            "nbytes": outcome.nbytes,
                            "recorded": outcome.recorded,
                            "first": outcome.first,
                            "fetched_from": outcome.fetched_from,
                        }
                    ),
                )
            else:
                recorded = done.get("recorded")
                recorded = recorded if isinstance(recorded, dict) else {}
                nbytes = done.get("nbytes")
                nbytes = nbytes if isinstance(nbytes, int) else 0
                moved = done.get("fetched_from")
                outcome = _Outcome(
                    done["resolved"],
                    nbytes,
                    {str(k): str(v) for k, v in recorded.items()},
                    done.get("first") is True,
                    {str(k): str(v) for k, v in moved.items()} if isinstance(moved, dict) else {},
                )
            records.append(_source_record(source, outcome))
            if outcome.first:
                first_pins += list(outcome.recorded.items())
            fetched_from.update(outcome.fetched_from)
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
        manifest = {
            "target": job.target,
            "datasets": job.datasets,
            "fetched": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "sources": records,
            "files": _checksums(out),
        }
        atomic_write_text(out / MANIFEST, json.dumps(manifest, indent=2, sort_keys=False) + "\n")
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
        nbytes = sum(r["bytes_fetched"] for r in records)
        return JobResult(
            job.target,
            job.datasets,
            "fetched",
            f"{len(manifest['files'])} files",
            time.monotonic() - started,
            str(final),
            nbytes,
            first_pins,
            fetched_from,
        )
    except Exception as exc:  # noqa: BLE001 - one target's failure must not stop the others
        say(job.target, 0, "failed")
        if isinstance(exc, FetchError) or hasattr(exc, "path"):
            message = str(exc)
        elif isinstance(exc, OSError) and exc.filename:  # a full disk, a read-only folder: name the file
            message = f"{exc.strerror or type(exc).__name__}: {exc.filename}"
        else:
            message = f"{type(exc).__name__}: {exc}"
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


def fetch_all(
    jobs: Iterable[Job],
    root: Path,
    *,
    force: bool = False,
    workers: int = 4,
    policy: DownloadPolicy = DownloadPolicy(),
    progress: Progress | None = None,
) -> list[JobResult]:
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
