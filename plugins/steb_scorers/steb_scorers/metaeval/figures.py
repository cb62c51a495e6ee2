"""The flat ``figures`` list of a meta-evaluation report: one row per number, ``{"aspect", "subset", "scorer",
"statistic", "value", "p_value"}`` (:data:`FIGURE_KEYS`), the same rows whatever nesting the report uses, so that
they can be plotted, diffed or written as CSV (``--format csv``).

:func:`figure` is the row; the ``pauli2025`` protocol builds its rows as it computes them (:mod:`.pauli2025`).
:func:`lai_figures` flattens the nested report of Lai et al.'s two protocols (``wmt17-darr`` and ``lai2022``,
:func:`.evaluate.meta_evaluate`, and the ``--human-only`` report) into rows:

- per scorer (``scorer`` = the run's label: the ``-s`` spec exactly as given, or, for the runs ``--table A.2`` and
  ``--table 4`` expand a spec into, the label their tables print), aspect and subset (``ALL`` for the pooled
  directions, else the direction, ``informal-to-formal`` / ``formal-to-informal``): ``tau_like``,
  ``segment_pearson``, ``segment_spearman``, ``segment_kendall``, ``system_pearson`` and ``system_kendall`` (the
  point values; the bootstrap intervals stay in the nested report);
- per scorer and aspect, on the top-N / last-N systems by human score (pooled directions; subset ``top_N``,
  ``last_N`` or ``all_N``): ``tau_like``, ``segment_pearson``, ``system_pearson`` (the ``subsets`` entries) and
  ``system_kendall`` (``system_subsets_kendall``);
- with ``--table 4``, per ``-s`` spec: ``score_tau_with_ref1`` and ``score_pearson_with_ref1`` (agreement of the
  scores against reference 1 with those against reference k; subset ``references:k``; aspect None: no human
  rating is involved);
- human statistics (``scorer`` None): ``inter_annotator_pearson`` (REF's ratings excluded) and
  ``inter_annotator_pearson_with_ref`` per aspect and for the aspects pooled (aspect ``overall``), per survey
  (subset ``survey:S``), over all surveys (``ALL``) and per direction; ``inter_aspect_pearson`` (on the mean raw
  ratings; aspect = the pair, e.g. ``style-content``) pooled and per direction; and, where asked
  (``--human-only`` prints them), each system's mean rating, ``human_mean_raw`` / ``human_mean_z`` (subset
  ``system:NAME``).

The reports hold no p-values (their uncertainty is a bootstrap interval): ``p_value`` is None throughout, as is
``value`` where the report has no figure (None or NaN). ``--table A.2`` prints the same figures as the main table,
side by side, and adds no rows; the scorers' per-system values (corpus BLEU, mean scores) are not printed and are
not rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["ALL", "FIGURE_KEYS", "figure", "lai_figures"]

ALL = "ALL"  # the subset of every row (pauli2025) / of the pooled directions (Lai et al.'s protocols)
FIGURE_KEYS = ("aspect", "subset", "scorer", "statistic", "value", "p_value")
POOLED = "pooled"  # the key of the pooled directions in a report (evaluate and the command read it here)
SCORER_STATISTICS = (
    "tau_like",
    "segment_pearson",
    "segment_spearman",
    "segment_kendall",
    "system_pearson",
    "system_kendall",
)
TOP_N_STATISTICS = ("tau_like", "segment_pearson", "system_pearson")  # of each ``subsets`` entry
INTER_ANNOTATOR = {"without_ref": "inter_annotator_pearson", "with_ref": "inter_annotator_pearson_with_ref"}


def figure(
    aspect: str | None,
    subset: str,
    scorer: str | None,
    statistic: str,
    value: float | None,
    p_value: float | None,
) -> dict[str, Any]:
    """One row of the ``figures`` list (keys in :data:`FIGURE_KEYS` order)."""
    return {
        "aspect": aspect,
        "subset": subset,
        "scorer": scorer,
        "statistic": statistic,
        "value": value,
        "p_value": p_value,
    }


def _value(cell: Any) -> float | None:
    """The point value of a report cell (``{"value", "ci"}`` or a bare number); None for a missing or NaN one."""
    v = cell.get("value") if isinstance(cell, Mapping) else cell
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return float(v)


def _subset(direction: str) -> str:
    return ALL if direction == POOLED else direction


def _scorer_figures(label: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for aspect, by_direction in entry["correlations"].items():
        for direction, cell in by_direction.items():
            for statistic in SCORER_STATISTICS:
                rows.append(figure(aspect, _subset(direction), label, statistic, _value(cell.get(statistic)), None))
        pooled = by_direction.get(POOLED, {})
        kendall = pooled.get("system_subsets_kendall", {})
        for key, sub in pooled.get("subsets", {}).items():
            for statistic in TOP_N_STATISTICS:
                rows.append(figure(aspect, key, label, statistic, _value(sub.get(statistic)), None))
            rows.append(figure(aspect, key, label, "system_kendall", _value(kendall.get(key)), None))
    return rows


def _reference_table_figures(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for spec, row in table["rows"].items():
        for statistic in ("score_tau_with_ref1", "score_pearson_with_ref1"):
            for ref, v in row[statistic].items():
                rows.append(figure(None, f"references:{ref}", spec, statistic, _value(v), None))
    return rows


def _human_figures(human: Mapping[str, Any], system_means: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for key, statistic in INTER_ANNOTATOR.items():
        table = human["inter_annotator_table"][key]
        for survey, row in table["surveys"].items():
            rows += [figure(a, f"survey:{survey}", None, statistic, _value(v), None) for a, v in row.items()]
        rows += [figure(a, ALL, None, statistic, _value(v), None) for a, v in table["overall"].items()]
    for statistic in INTER_ANNOTATOR.values():  # the report's keys; their "overall" and "by_survey" are rows above
        for aspect, cell in human[statistic].items():
            for direction, v in cell["by_direction"].items():
                rows.append(figure(aspect, direction, None, statistic, _value(v), None))
    for direction, pairs in human["inter_aspect_pearson_raw_means"].items():
        for pair, v in pairs.items():
            rows.append(figure(pair, _subset(direction), None, "inter_aspect_pearson", _value(v), None))
    if system_means:
        for aspect, scales in human["system_means"].items():
            for scale, by_system in scales.items():
                for system, v in by_system.items():
                    rows.append(figure(aspect, f"system:{system}", None, f"human_mean_{scale}", _value(v), None))
    return rows


def lai_figures(report: Mapping[str, Any], *, human_system_means: bool = False) -> list[dict[str, Any]]:
    """The ``figures`` rows (module docstring) of a report of ``wmt17-darr`` / ``lai2022`` (or ``--human-only``):
    the human statistics first, then each scorer's, then ``--table 4``'s score agreement where the report has it.
    ``human_system_means`` adds the human mean rating of each system (printed by ``--human-only`` only)."""
    rows = _human_figures(report["human"], human_system_means)
    for label, entry in report.get("metrics", {}).items():
        rows += _scorer_figures(label, entry)
    if "reference_table" in report:
        rows += _reference_table_figures(report["reference_table"])
    return rows
