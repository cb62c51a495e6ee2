"""The ``pauli2025`` protocol: Pauli et al.'s meta-evaluation of style-transfer metrics on any judgement set.

What it computes on a :class:`steb_core.JudgementTable` and the scores of each scorer (their Tables 2 and 5):

- Pearson (scipy ``pearsonr``, two-sided p-value) between a scorer's per-output scores and the mean rating of an
  aspect (mean over the row's annotators), per subset and over all rows (``ALL``);
- where the set has systems, the system-level Kendall tau (scipy ``kendalltau``, tau-b) between the systems' mean
  scores and mean ratings, per subset and ``ALL``;
- each scorer's rank per subset (1 = the highest correlation; a lower-is-better scorer is ranked, and shown, by
  its absolute correlation; ties share the mean of their ranks) and its average rank over the subsets it was
  computed on (Table 5's last column);
- the human side: Krippendorff's alpha of the annotators, ordinal, interval and nominal (the paper prints the
  ordinal one), and the share of rows whose mean rating is at least the scale's midpoint (3 on their 1-5 scale:
  ``share_mean_at_least_3``, Table 2), per subset and ``ALL``.

A scorer that needs references runs on the rows that have them (Pauli's subsets 1-2); its ``ALL`` is then over
those rows, and the subsets without references have no figure. Every printed number is also one entry of the
report's flat ``figures`` list: ``{"aspect", "subset", "scorer", "statistic", "value", "p_value"}`` (``scorer`` the
``-s`` spec as given, None for human statistics; the row is :func:`.figures.figure`, shared with Lai et al.'s
protocols).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from steb_core import JudgementTable, ScoreResult

from .figures import ALL, FIGURE_KEYS
from .figures import figure as _figure
from .krippendorff import LEVELS, krippendorff_alpha

__all__ = [
    "ALL",
    "PROTOCOL",
    "ScoredRows",
    "score_table",
    "pauli_evaluate",
    "human_figures",
    "FIGURE_KEYS",
]

PROTOCOL = "pauli2025"
LABEL = "pauli2025 (Pearson with the mean rating per subset and ALL, average rank; Krippendorff's alpha)"


@dataclass(frozen=True)
class ScoredRows:
    """One scorer's scores over a judgement table: ``scores`` NaN on the rows it could not score (``note`` why)."""

    scores: np.ndarray
    higher_is_better: bool = True
    note: str = ""
    details: Mapping[str, Any] | None = None


def _call(scorer: Any, table: JudgementTable, rows: np.ndarray, with_references: bool) -> ScoreResult:
    idx = np.flatnonzero(rows)
    refs = [list(table.references[i]) for i in idx] if with_references else None
    styles = [table.target_style[i] for i in idx] if table.target_style else None
    result: ScoreResult = scorer.score(
        [table.source[i] for i in idx], [table.output[i] for i in idx], references=refs, target_style=styles
    )
    if len(result.scores) != idx.size:
        raise ValueError(
            f"scorer '{getattr(scorer, 'name', scorer)}' returned {len(result.scores)} scores for {idx.size}"
        )
    return result


def score_table(table: JudgementTable, scorer: Any) -> ScoredRows:
    """Run ``scorer`` over every row; a scorer that needs references and fails without them runs on the rows that
    have references (all of them when every row has one)."""
    n = len(table)
    everything = np.ones(n, dtype=bool)
    if table.has_references():
        result = _call(scorer, table, everything, True)
        return ScoredRows(result.scores, result.higher_is_better, "", result.details)
    try:
        result = _call(scorer, table, everything, False)
        return ScoredRows(result.scores, result.higher_is_better, "", result.details)
    except ValueError as exc:
        with_refs = np.array([bool(r) for r in table.references])
        if not with_refs.any():
            raise ValueError(f"{exc} (judgement set '{table.name}' has no references)") from None
        result = _call(scorer, table, with_refs, True)
        scores = np.full(n, np.nan)
        scores[with_refs] = result.scores
        subsets = sorted({table.subset[i] for i in np.flatnonzero(with_refs)})
        return ScoredRows(
            scores,
            result.higher_is_better,
            f"scored only the {int(with_refs.sum())} rows with references (subsets {', '.join(subsets)})",
            result.details,
        )


def _pearson(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    from scipy.stats import pearsonr

    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    r = pearsonr(x, y)
    return float(r.statistic), float(r.pvalue)


def _kendall(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    from scipy.stats import kendalltau

    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    r = kendalltau(x, y)
    return float(r.statistic), float(r.pvalue)


def _share_name(low: float, high: float) -> tuple[str, float]:
    mid = (low + high) / 2.0
    return f"share_mean_at_least_{mid:g}", mid


def _groups(table: JudgementTable) -> list[tuple[str, np.ndarray]]:
    subset = np.asarray(table.subset)
    return [(s, subset == s) for s in table.subsets()] + [(ALL, np.ones(len(table), dtype=bool))]


def human_figures(table: JudgementTable, aspects: Sequence[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Krippendorff's alpha (each level) and the share of rows with a mean rating >= the scale's midpoint."""
    human: dict[str, Any] = {}
    figures: list[dict[str, Any]] = []
    for aspect in aspects:
        block = table.ratings[aspect]
        share_name, mid = _share_name(block.scale.low, block.scale.high)
        mean = block.mean()
        human[aspect] = {"scale": block.scale.describe(), "annotators_per_row": len(block.annotators), "subsets": {}}
        for name, rows in _groups(table):
            cell: dict[str, Any] = {"n": int(rows.sum())}
            for level in LEVELS:
                value = krippendorff_alpha(block.values[rows], level)
                cell[f"krippendorff_alpha_{level}"] = None if np.isnan(value) else value
            cell[share_name] = float(np.mean(mean[rows] >= mid))
            human[aspect]["subsets"][name] = cell
            for statistic in (*(f"krippendorff_alpha_{level}" for level in LEVELS), share_name):
                figures.append(_figure(aspect, name, None, statistic, cell[statistic], None))
    return human, figures


def _ranks(values: Mapping[str, float | None]) -> dict[str, float]:
    from scipy.stats import rankdata

    present = {k: v for k, v in values.items() if v is not None}
    if not present:
        return {}
    ranked = rankdata([-v for v in present.values()], method="average")
    return {k: float(r) for k, r in zip(present, ranked)}


def pauli_evaluate(
    table: JudgementTable,
    scored: Mapping[str, ScoredRows],
    aspects: Sequence[str],
    scorer_info: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The protocol's report (module docstring) for one judgement set; ``scored`` maps each ``-s`` spec to its
    scores."""
    unknown = [a for a in aspects if a not in table.ratings]
    if unknown:
        raise ValueError(f"judgement set '{table.name}' rates {list(table.ratings)}, not {unknown}")
    human, figures = human_figures(table, aspects)
    systems = np.asarray(table.system) if table.system is not None else None
    metrics: dict[str, Any] = {}
    ranks: dict[str, Any] = {}
    for aspect in aspects:
        target = table.mean(aspect)
        per_subset: dict[str, dict[str, float | None]] = {}
        for label, result in scored.items():
            entry = metrics.setdefault(
                label,
                {
                    "spec": label,
                    "absolute": not result.higher_is_better,
                    "note": result.note,
                    **(dict(scorer_info[label]) if scorer_info and label in scorer_info else {}),
                    "correlations": {},
                },
            )
            cells: dict[str, Any] = {}
            for name, rows in _groups(table):
                keep = rows & np.isfinite(result.scores)
                if name != ALL and keep.sum() < rows.sum():  # a subset the scorer could not score in full
                    continue
                r, p = _pearson(result.scores[keep], target[keep])
                if r is not None and not result.higher_is_better:
                    r = abs(r)
                cell: dict[str, Any] = {"pearson": r, "p_value": p, "n": int(keep.sum())}
                figures.append(_figure(aspect, name, label, "pearson", r, p))
                if systems is not None:
                    names = sorted(set(systems[keep]))
                    sys_metric = np.array([result.scores[keep & (systems == s)].mean() for s in names])
                    sys_human = np.array([target[keep & (systems == s)].mean() for s in names])
                    tau, tau_p = _kendall(sys_metric, sys_human)
                    if tau is not None and not result.higher_is_better:
                        tau = abs(tau)
                    cell.update(system_kendall_tau=tau, system_kendall_p_value=tau_p, systems=len(names))
                    figures.append(_figure(aspect, name, label, "system_kendall_tau", tau, tau_p))
                cells[name] = cell
                per_subset.setdefault(name, {})[label] = r
            entry["correlations"][aspect] = cells
        aspect_ranks: dict[str, dict[str, float | None]] = {label: {} for label in scored}
        for name in [*table.subsets(), ALL]:
            for label, rank in _ranks(per_subset.get(name, {})).items():
                aspect_ranks[label][name] = rank
                figures.append(_figure(aspect, name, label, "rank", rank, None))
        for label, by_subset in aspect_ranks.items():
            over = [v for k, v in by_subset.items() if k != ALL and v is not None]
            average = float(np.mean(over)) if over else None
            by_subset["average"] = average
            figures.append(_figure(aspect, ALL, label, "average_rank", average, None))
        ranks[aspect] = aspect_ranks
    return {
        "config": {
            "protocol": PROTOCOL,
            "protocol_label": LABEL,
            "set": table.name,
            "aspects": list(aspects),
            "subsets": table.subsets(),
            "rows": len(table),
            "systems": table.systems(),
            "rank_ties": "average",
        },
        "human": human,
        "metrics": metrics,
        "ranks": ranks,
        "figures": figures,
    }
