"""Inter-annotator agreement as Lai et al. (2022) tabulate it (their Table 1).

Each survey had its own two annotators, so agreement is Pearson between the survey's annotator 1 and
annotator 2 over the outputs both rated: per survey and over all surveys, per aspect and pooled over the
aspects (the table's "Overall" column: the three aspects' ratings concatenated, one Pearson). Whether the
human references (REF) count among the rated outputs is an explicit choice: the paper's per-survey rows
are reproduced with REF, its overall row without (``evaluate.human_statistics`` records both).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .correlations import pearson
from .human import ASPECTS, REFERENCE_SYSTEM, HumanJudgements

__all__ = ["POOLED_ASPECTS", "agreement_row", "agreement_table"]

POOLED_ASPECTS = "overall"  # the key of the column that pools the aspects


def agreement_row(data: HumanJudgements, keep: np.ndarray) -> dict[str, float]:
    """Pearson of annotator 1 vs annotator 2 per aspect over the rows in ``keep``, and over the aspects pooled."""
    row = {a: pearson(data.ratings[a][keep, 0], data.ratings[a][keep, 1]) for a in ASPECTS}
    first = np.concatenate([data.ratings[a][keep, 0] for a in ASPECTS])
    second = np.concatenate([data.ratings[a][keep, 1] for a in ASPECTS])
    row[POOLED_ASPECTS] = pearson(first, second)
    return row


def agreement_table(data: HumanJudgements, include_ref: bool) -> dict[str, Any]:
    """``{"surveys": {survey id: row}, "overall": row, "include_ref": bool, "n": {...}}``, rows as
    :func:`agreement_row`."""
    rated = np.ones(len(data), bool) if include_ref else data.system != REFERENCE_SYSTEM
    surveys = {int(s): agreement_row(data, rated & (data.survey == s)) for s in np.unique(data.survey)}
    return {
        "include_ref": include_ref,
        "surveys": surveys,
        "overall": agreement_row(data, rated),
        "n": {
            "overall": int(rated.sum()),
            **{str(int(s)): int((rated & (data.survey == s)).sum()) for s in np.unique(data.survey)},
        },
    }
