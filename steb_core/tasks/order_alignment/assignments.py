"""Injective assignments of anchors to candidates: enumeration, near-optimal search, chance level.

Both scoring rules (:mod:`.stel_rule`, :mod:`.reference_rule`) decide an instance by comparing the
assignments anchor i -> candidate p(i); this module holds what they share, so neither imports the other:
every assignment of a small instance in one array (``EXHAUSTIVE_LIMIT``), and for a large one every
assignment whose cost sum stays within a bound of the optimum (:func:`near_optimal`, built on
``scipy.optimize.linear_sum_assignment``). Pure functions of arrays.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np

__all__ = [
    "EXHAUSTIVE_LIMIT",
    "TIE_COUNT_CAP",
    "HUNGARIAN_RTOL",
    "PREFILTER_ATOL",
    "BATCH_ELEMENTS",
    "assignments",
    "assignment_rows",
    "chance_level",
    "near_optimal",
]

#: at most this many injective assignments (8! = 40,320) are enumerated at once; beyond, the solver searches
EXHAUSTIVE_LIMIT = 40_320
#: the near-optimal search stops after this many assignments
TIE_COUNT_CAP = 10_000
#: relative window (of the cost scale) that absorbs the solver's rounding on the near-optimal search
HUNGARIAN_RTOL = 1e-9
#: absolute part of the windows: squares of tiny distances underflow (a sum of m subnormals is far below it).
PREFILTER_ATOL = 1e-300
#: elements of the (instances x assignments x anchors) block scored at once (bounds memory, ~16 MB)
BATCH_ELEMENTS = 2_000_000


@lru_cache(maxsize=64)
def assignments(k: int, m: int) -> np.ndarray:
    """All injective maps of m anchors into k candidates, one per row (lexicographic order)."""
    return np.asarray(list(itertools.permutations(range(k), m)), dtype=np.int64).reshape(-1, m)


@lru_cache(maxsize=64)
def assignment_rows(k: int, m: int) -> dict[tuple[int, ...], int]:
    """Each assignment of :func:`assignments` (as a tuple) -> its row."""
    return {tuple(int(v) for v in row): i for i, row in enumerate(assignments(k, m))}


def chance_level(anchors: int, candidates: int) -> float:
    """Probability that a uniformly random injective assignment is the true one: (c - m)! / c!."""
    return 1.0 / math.perm(candidates, anchors)


def near_optimal(cost: np.ndarray, limit: float) -> list[tuple[int, ...]] | None:
    """Every injective assignment whose cost sum is at most ``limit`` (None when over ``TIE_COUNT_CAP``).

    Anchor 0 is fixed to each candidate whose restricted optimum (the solver on the rest) stays within
    the budget, recursively: only the branches that can still reach the bound are walked.
    """
    from scipy.optimize import linear_sum_assignment

    def rest_optimum(sub: np.ndarray) -> float:
        if sub.shape[0] == 0:
            return 0.0
        r, c = linear_sum_assignment(sub)
        return float(sub[r, c].sum())

    found: list[tuple[int, ...]] = []

    def walk(sub: np.ndarray, columns: list[int], budget: float, prefix: tuple[int, ...]) -> bool:
        if sub.shape[0] == 0:
            found.append(prefix)
            return len(found) <= TIE_COUNT_CAP
        for j, col in enumerate(columns):
            rest = np.delete(sub[1:], j, axis=1)
            if sub[0, j] + rest_optimum(rest) <= budget:
                if not walk(rest, columns[:j] + columns[j + 1 :], budget - sub[0, j], prefix + (col,)):
                    return False
        return True

    complete = walk(cost, list(range(cost.shape[1])), limit, ())
    return found if complete else None
