"""``--draws K``: every score as mean ± sd over K independent seeded random draws of the evaluated texts.

Why: the STEB reference evaluates one fixed sample (the first N texts per class in the loader's order,
:mod:`steb_core._sampling`), and a fixed sample can sit far from what the dataset says on average (bible
versions, function words: V-measure 0.049 on the reference's verses, 0.010 ± 0.004 over 20 random draws).
K draws with ``sampling=random`` show the spread; the default result stays the reference's.

How: draw ``i`` is an ordinary run with ``sampling=random`` and seed :func:`draw_seeds` ``(seed, K)[i]``,
written under ``OUTPUT/.draws/seed-<s>/`` (a folder :func:`steb_core._results.load_results` and the
report do not read, so a draw never appears as, or replaces, the first-N result; a draw already
computed is reused like any stored result). Then one record per (dataset, task) that every draw
produced is written under the encoder name ``NAME~random<K>`` (:func:`draws_name`): each numeric
metric is the mean over the draws, ``metrics["draws"]`` holds the seeds, the per-draw values and the
sample standard deviations (``ddof=1``), and the run key hashes the draws' run keys.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ._errors import StebError
from ._results import ResultRecord, run_key

__all__ = [
    "draw_seeds",
    "draws_name",
    "combine_draws",
    "evaluate_draws",
    "check_draws",
    "draws_estimate",
    "DRAWS_FOLDER",
    "MAX_DRAWS",
    "HARD_MAX_DRAWS",
]

#: where the single draws are written inside the output folder (skipped by load_results: a dot folder)
DRAWS_FOLDER = ".draws"
#: the most draws a run makes without ``confirm`` (``--yes``): each draw is a whole run of the selection,
#: and the spread of a mean is well estimated long before this (the paper's figures use 20)
MAX_DRAWS = 100
#: the most draws a run makes at all (a typo such as ``--draws 1000000000`` is refused, never run for ever)
HARD_MAX_DRAWS = 10_000


def draw_seeds(seed: int, draws: int) -> list[int]:
    """K distinct seeds derived from the run seed (sha256 of ``steb-draw|seed|i``, 31 bits): stable, independent."""
    out: list[int] = []
    seen: set[int] = set()
    i = 0
    while len(out) < draws:
        value = int.from_bytes(hashlib.sha256(f"steb-draw|{seed}|{i}".encode()).digest()[:4], "little") & 0x7FFFFFFF
        if value not in seen:
            seen.add(value)
            out.append(value)
        i += 1
    return out


def check_draws(draws: object, *, confirm: bool = False) -> int:
    """``draws`` when it is a number of draws this run may make; an error saying why and what to do otherwise.

    Why a cap: K draws cost K whole runs, so ``--draws 1000000000`` would run silently for ever. Up to
    :data:`MAX_DRAWS` run as asked; more only with ``confirm`` (``--yes``), and never more than
    :data:`HARD_MAX_DRAWS`. How long they take is said after the first draw (:func:`evaluate_draws`).
    """
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 2:
        raise StebError(f"draws={draws!r}: give 2 or more draws (a standard deviation needs two)")
    if draws > HARD_MAX_DRAWS:
        raise StebError(
            f"--draws {draws}: more than {HARD_MAX_DRAWS} draws is refused (each draw is a whole run of the "
            f"selected datasets); {MAX_DRAWS} or fewer give the spread of a mean"
        )
    if draws > MAX_DRAWS and not confirm:
        raise StebError(
            f"--draws {draws}: each draw is a whole run of the selected datasets, so {draws} draws take {draws} "
            f"times as long as one run; pass --yes to run more than {MAX_DRAWS} (the time per draw is said after "
            "the first)"
        )
    return draws


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def draws_estimate(first_seconds: float, draws: int) -> str:
    """What the first draw's time says about the whole run, in words (printed and kept in the notes)."""
    return (
        f"draw 1 of {draws} took {_duration(first_seconds)}; the {draws} draws will take about "
        f"{_duration(first_seconds * draws)} in all (later draws reuse the cached vectors of texts already encoded, "
        "so often less)"
    )


def draws_name(name: str, draws: int) -> str:
    """The encoder name the combined records carry: ``NAME~random<K>`` (never the first-N result's name)."""
    return f"{name}~random{draws}"


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    mean = math.fsum(values) / len(values)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return mean, sd


def combine_draws(
    per_draw: Sequence[Sequence[ResultRecord]], seeds: Sequence[int], name: str, seed: int
) -> list[ResultRecord]:
    """One record per (dataset, task) present in every draw: means of the numeric metrics, sd and values beside."""
    keyed = [{(r.dataset, r.task): r for r in records} for records in per_draw]
    common = [key for key in keyed[0] if all(key in k for k in keyed[1:])]
    out = []
    for key in common:
        records = [k[key] for k in keyed]
        first = records[0]
        names = [
            m for m, v in first.metrics.items() if _numeric(v) and all(_numeric(r.metrics.get(m)) for r in records)
        ]
        values = {m: [float(r.metrics[m]) for r in records] for m in names}
        stats = {m: _mean_sd(v) for m, v in values.items()}
        metrics: dict[str, Any] = {m: stats[m][0] for m in names}
        metrics["draws"] = {
            "k": len(records),
            "seeds": list(seeds),
            "sd": {m: stats[m][1] for m in names},
            "values": values,
        }
        main = first.main_metric if first.main_metric in metrics else None
        out.append(
            dataclasses.replace(
                first,
                encoder=name,
                main_score=metrics[main] if main else None,
                metrics=metrics,
                companions={m: metrics[m] for m in first.companions if m in metrics},
                seed=seed,
                dataset_info={**first.dataset_info, "sampling": "random", "draw_seeds": list(seeds)},
                data_fingerprint=run_key(data=[r.data_fingerprint for r in records]),
                run_key=run_key(draws=[r.run_key for r in records]),
                created="",
                content_hash="",
            )
        )
    return out


def evaluate_draws(
    evaluate: Callable[..., Any],
    *,
    draws: int,
    seed: int,
    output: str | Path,
    dataset_options: Mapping[str, Any] | None,
    kwargs: Mapping[str, Any],
    confirm: bool = False,
    announce: Callable[[str], None] | None = None,
) -> Any:
    """Run ``evaluate`` once per draw (``sampling=random``, derived seeds) and write the combined records.

    Returns the summary of the last draw with ``results`` replaced by the combined records, ``reused``
    emptied and the draws' failures, missing data and notes gathered (each note names its draw's seed).
    ``draws`` is checked by :func:`check_draws` (``confirm`` allows more than :data:`MAX_DRAWS`); after the
    first draw ``announce`` (when given) is told how long all of them will take, which the notes keep too.
    """
    check_draws(draws, confirm=confirm)
    options = dict(dataset_options or {})
    if str(options.get("sampling", "random")).lower() != "random":
        raise StebError("draws are random draws: leave out sampling (or pass sampling=random) with --draws")
    options["sampling"] = "random"
    seeds = draw_seeds(seed, draws)
    root = Path(output)
    summaries = []
    estimate = ""
    for i, s in enumerate(seeds):
        started = time.monotonic()
        summaries.append(evaluate(output=root / DRAWS_FOLDER / f"seed-{s}", seed=s, dataset_options=options, **kwargs))
        if i == 0:
            estimate = draws_estimate(time.monotonic() - started, draws)
            if announce is not None:
                announce(estimate)
    last = summaries[-1]
    name = draws_name(last.encoder, draws)
    per_draw = [list(s.results) + list(s.reused) for s in summaries]
    combined = combine_draws(per_draw, seeds, name, seed)
    for record in combined:
        record.write(root)
    notes = [f"draw seed {s}: {note}" for s, summary in zip(seeds, summaries) for note in summary.notes]
    notes.append(estimate)
    notes.append(
        f"{draws} random draws (seeds {', '.join(map(str, seeds))}) under {root / DRAWS_FOLDER}; "
        "their means and "
        f"standard deviations are the results of '{name}' in {root}"
    )
    return dataclasses.replace(
        last,
        encoder=name,
        output_dir=root,
        results=combined,
        reused=[],
        notes=notes,
        failures=[f for s in summaries for f in s.failures],
        skipped=list(last.skipped),
        missing=list(last.missing),
        seconds=sum(s.seconds for s in summaries),
    )
