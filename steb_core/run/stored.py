"""The stored-result policy: when a result on disk is reused, why one is recomputed, and what a new one holds.

A stored result is reused only when its ``run_key`` equals the one this run computes (same encoder
identity, data, protocol, seed, options and code versions) and its content hash is intact; otherwise it
is recomputed, with a note when the user would wonder why (steb's protocol, the task's version, the
data or its plugin changed). A result where steb wrote it before result paths became injective is moved
to its new path first (issue 41).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .._containment import check_inside
from .._encoders import SCORING_DEFAULTS, encoder_info
from .._errors import DataValidationError
from .._records import DatasetBundle
from .._results import ResultRecord, legacy_result_path, result_path, run_key
from .._specs import STEB_PROTOCOL_VERSION, DatasetSpec, TaskSpec
from .encoder_setup import RunEncoder
from .plan import Pending
from .settings import RunSettings
from .summary import RunSummary

__all__ = ["as_float", "dataset_meta", "encoder_record_info", "new_record", "reusable", "split_reused", "stale_note"]


def split_reused(
    settings: RunSettings, encoder: RunEncoder, pending: Pending, reused: list[ResultRecord], notes: list[str]
) -> None:
    """Move the tasks whose stored result has the full run key (same data) from ``pending`` to ``reused``."""
    if settings.overwrite:
        return
    left = []
    for task in pending.tasks:
        stored = reusable(settings.output_dir, encoder, pending, task, notes)
        if stored is None:
            left.append(task)
        else:
            reused.append(stored)
    pending.tasks = left


def reusable(
    output_dir: Path, encoder: RunEncoder, pending: Pending, task: TaskSpec, notes: list[str]
) -> ResultRecord | None:
    """The stored result for ``task`` when it may be reused, else None (with a note saying why, if needed)."""
    path = result_path(output_dir, encoder.name, pending.spec.name, task.name)
    if not path.exists() and not _move_legacy_result(output_dir, encoder, path, pending.spec.name, task.name, notes):
        return None
    try:
        stored = ResultRecord.read(path)
    except (DataValidationError, UnicodeDecodeError, OSError) as exc:  # unreadable, NaN, wrong types: recomputed
        notes.append(f"stored result {path} is not usable ({exc}); recomputing it")
        return None
    if stored.run_key != pending.keys[task.name]:
        note = stale_note(path, stored, pending, task, encoder.fingerprint)
        if note is not None:
            notes.append(note)
        return None
    if not stored.verified():
        notes.append(f"stored result {path} does not match its content hash (edited by hand?); recomputing it")
        return None
    return stored


def _move_legacy_result(
    output_dir: Path, encoder: RunEncoder, path: Path, dataset: str, task: str, notes: list[str]
) -> bool:
    """Move this result from where steb wrote it before result paths became injective (issue 41) to ``path``.

    Only a record of exactly this encoder name, identity, dataset and task moves: under the old naming two
    names could share that file (``a/b`` and ``a__b``), and the other name's result stays where it is.
    """
    old = legacy_result_path(output_dir, encoder.name, dataset, task)
    if old == path or not old.is_file():
        return False
    try:
        stored = ResultRecord.read(old)
    except (DataValidationError, UnicodeDecodeError, OSError):
        return False
    mine = (encoder.name, dataset, task, encoder.fingerprint)
    if (stored.encoder, stored.dataset, stored.task, stored.encoder_fingerprint) != mine:
        return False
    check_inside(old, output_dir, what="output folder")
    check_inside(path.parent if path.parent.exists() else output_dir, output_dir, what="output folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    os.replace(old, path)
    notes.append(f"stored result {old} moved to {path} (result paths now differ for every name)")
    return True


def stale_note(path: Path, stored: ResultRecord, pending: Pending, task: TaskSpec, fingerprint: str) -> str | None:
    """A note when a stored result is recomputed because steb's protocol or the task's code changed, or
    because its data changed (or it predates data fingerprints), so the user sees why a number they had
    is recomputed; other differences (encoder, options, seed) need no note (None)."""
    parts = pending.parts[task.name]
    if stored.steb_protocol and stored.steb_protocol != STEB_PROTOCOL_VERSION:
        return (
            f"stored result {path} follows STEB protocol {stored.steb_protocol!r}; this steb implements "
            f"{STEB_PROTOCOL_VERSION!r} (see README, 'STEB protocol version'), so it is recomputed"
        )
    if str(stored.task_version) != str(task.version) and stored.encoder_fingerprint == fingerprint:
        return (
            f"stored result {path} was computed by version {stored.task_version} of task '{task.name}'; "
            f"this steb has version {task.version}, so it is recomputed"
        )
    if stored.run_key == run_key(**parts):
        return (
            f"stored result {path} was written by an older steb without a data fingerprint; "
            "recomputing it (a result is reused only for the data it was computed on)"
        )
    if stored.run_key == run_key(
        **parts, data_fingerprint=stored.data_fingerprint, dataset_provider_version=stored.dataset_provider_version
    ):
        now = pending.fingerprints[task.shape]
        what = (
            f"the data of '{pending.spec.name}' changed (fingerprint {stored.data_fingerprint[:12]} -> {now[:12]})"
            if stored.data_fingerprint != now
            else f"the plugin providing '{pending.spec.name}' changed version "
            f"({stored.dataset_provider_version or 'none'} -> {pending.provider[1] or 'none'})"
        )
        return f"stored result {path}: {what}; recomputing it"
    return None


def new_record(
    settings: RunSettings,
    encoder: RunEncoder,
    pending: Pending,
    bundle: DatasetBundle,
    task: TaskSpec,
    metrics: dict[str, Any],
    *,
    info: dict[str, Any],
    versions: dict[str, str],
    summary: RunSummary,
    timings: dict[str, float],
) -> ResultRecord:
    """The record of one computed result: the task's metrics, the encoder, data and code that produced them,
    the run key a later run compares, and the run's counters so far (``summary``)."""
    spec = pending.spec
    main_metric = task.main_metric_of(metrics)
    return ResultRecord(
        encoder=encoder.name,
        dataset=spec.name,
        task=task.name,
        main_metric=main_metric,
        main_score=as_float(metrics.get(main_metric)),
        metrics=metrics,
        encoder_fingerprint=encoder.fingerprint,
        encoder_info=info,
        encoder_family=encoder.family,
        dataset_version=spec.version,
        dataset_meta=dataset_meta(spec),
        dataset_info=dict(bundle.info),
        data_fingerprint=pending.fingerprints[task.shape],
        dataset_provider=pending.provider[0],
        dataset_provider_version=pending.provider[1],
        task_version=task.version,
        protocol=settings.protocol.as_dict(),
        seed=settings.seed,
        counts={
            f"records_{task.shape}": bundle.counts()[task.shape],
            "texts": sum(1 for _ in bundle.iter_texts([task.shape])),
            "run_unique_texts": summary.texts_unique,
            "run_encoded": summary.texts_encoded,
            "run_cache_hits": summary.cache_hits,
        },
        timings=timings,
        versions=versions,
        run_key=pending.keys[task.name],
        encoder_identity={**encoder.identity.evidence, **({"source": encoder.source} if encoder.source else {})},
        steb_protocol=STEB_PROTOCOL_VERSION,
        companions={
            m: as_float(metrics.get(m))
            for m in (*task.companion_metrics, *task.fallback_metrics, task.main_metric)
            if m != main_metric and metrics.get(m) is not None
        },
    )


def encoder_record_info(encoder: RunEncoder) -> dict[str, Any]:
    """The encoder's ``encoder_info`` in records: what it reports (taken after encoding: the device and dtype
    used), the options it was built with, and its scoring modes when they are not the defaults."""
    ref = encoder.ref
    info = {**encoder_info(encoder.obj), **({"options": dict(ref.options)} if ref.options else {})}
    if encoder.scoring != SCORING_DEFAULTS:
        info["scoring"] = dict(encoder.scoring)
    return info


def dataset_meta(spec: DatasetSpec) -> dict[str, Any]:
    """The spec facts aggregators need, stored with each result so reports work without the plugin."""
    return {
        "categories": list(spec.categories),
        "applications": list(spec.applications),
        "languages": list(spec.languages),
        "content_independence": spec.content_independence,
        "suites": list(spec.suites),
        "tasks": list(spec.tasks),
        "citation": spec.citation,
        "license": spec.license,
    }


def as_float(value: Any) -> float | None:
    """A metric as a finite float, or None (missing, not a number, NaN or infinite)."""
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if np.isfinite(out) else None
