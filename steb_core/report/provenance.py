"""Which data each number came from: a note when encoders are compared on different data.

Two encoders' scores on one dataset are comparable only when they were computed on the same records.
Results carry a fingerprint of the records their task saw (``ResultRecord.data_fingerprint``); a
results folder merged from runs on different releases, ``--data-dir`` folders or plugin versions can
hold one dataset under several fingerprints, and the leaderboard would rank them as if they were one.
The report does not drop or pick any of them (it cannot know which data is right): it says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from .._results import ResultRecord

__all__ = ["data_fingerprint_notes"]


def _draw_seeds(rec: ResultRecord) -> tuple[int, ...]:
    """The seeds of the random draws a ``--draws`` record averages (:mod:`steb_core._draws`); () for one sample."""
    seeds = (rec.dataset_info or {}).get("draw_seeds")
    return tuple(seeds) if isinstance(seeds, (list, tuple)) else ()


def data_fingerprint_notes(records: Iterable[ResultRecord]) -> list[str]:
    """One line per (dataset, task) whose results come from more than one data fingerprint.

    Each line names the fingerprints (first 12 hex digits), the encoders under each and the providing
    plugin version when it differs. Results written before data fingerprints existed (an empty
    fingerprint) are listed as "unknown data" when they sit next to fingerprinted ones.

    Means over random draws (``--draws``) are on other texts than a single sample by design: they are compared
    with the results of the same draws only, and one line (not one per dataset) says which results they are.
    """
    records = list(records)
    by_draws: dict[tuple[int, ...], list[ResultRecord]] = defaultdict(list)
    for rec in records:
        by_draws[_draw_seeds(rec)].append(rec)
    notes = [note for _, group in sorted(by_draws.items()) for note in _fingerprint_notes(group)]
    if len(by_draws) > 1:
        drawn = sorted({r.encoder for r in records if _draw_seeds(r)})
        pairs = sorted({(r.dataset, r.task) for r in records if _draw_seeds(r)})
        notes.append(
            f"{', '.join(drawn)}: means over random draws of the texts (--draws), on {len(pairs)} (dataset, task) "
            f"pair(s) ({', '.join(f'{d} / {t}' for d, t in pairs)}); they are not comparable with the single-sample "
            "results beside them, only with results of the same draws."
        )
    return notes


def _fingerprint_notes(records: Iterable[ResultRecord]) -> list[str]:
    by_key: dict[tuple[str, str], dict[str, list[ResultRecord]]] = defaultdict(lambda: defaultdict(list))
    for rec in records:
        by_key[(rec.dataset, rec.task)][rec.data_fingerprint or ""].append(rec)
    notes = []
    for (dataset, task), groups in sorted(by_key.items()):
        if len(groups) < 2:
            continue
        parts = []
        for fp, recs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            versions = sorted({r.dataset_provider_version for r in recs if r.dataset_provider_version})
            label = f"data {fp[:12]}" if fp else "unknown data (result older than data fingerprints)"
            if versions:
                label += f" (plugin {', '.join(versions)})"
            parts.append(f"{label}: {', '.join(sorted({r.encoder for r in recs}))}")
        notes.append(
            f"{dataset} / {task}: results come from {len(groups)} different data sets, so their scores are not "
            f"comparable; " + "; ".join(parts) + ". Re-run the encoders on one copy of the data."
        )
    return notes
