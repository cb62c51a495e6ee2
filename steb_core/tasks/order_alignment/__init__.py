"""Order alignment (STEL generalised): match set B's texts to set A's style order.

STEB §3 (order alignment) and appendix C; STEL: Wegmann & Nguyen (2021), "Does It Capture STEL?".

Instances (:class:`steb_core.OrderGroup`; built for parallel corpora by
:func:`steb_core.order_groups_from_parallel`):

* a **plain** instance is a group without distractor: the anchors (set A, ordered) are aligned with
  the alternatives (set B). Two anchors and two alternatives are STEL's quadruple; one anchor and two
  alternatives STEL's triple.
* a **distractor** instance is a group with a distractor: its candidates are ``alternatives +
  (distractor,)``. One anchor, one alternative and the distractor is STEL-or-Content (Wegmann et al.,
  2022); STEB's distractor variant holds one style out (``k - 1`` anchors, ``k`` candidates).

Two scoring rules; the dataset declares which one its groups are meant for as a task default
(``DatasetSpec(task_defaults={"order_alignment": {"scoring": ...}})``, or its bundle's ``task_defaults`` when a
loader option builds other groups), the run option ``order_alignment.scoring`` overrides it, and data that
declares none is scored by STEL's:

* ``steb-reference`` -- the STEB authors' reference code (:mod:`.reference_rule`), the rule of every STEB
  order-alignment dataset built by :func:`steb_core.order_groups_from_parallel`, on the reference machine's
  cosines (:mod:`.products`);
* ``stel`` -- STEL's rule (:mod:`.stel_rule`), for STEL's own instances and for groups of steb's earlier
  construction ``steb-all-pairs/v1``.

Metrics (:mod:`.metrics`, one assembly for both rules): ``accuracy`` is the plain order-alignment accuracy,
over plain instances only (absent when the data has none, e.g. STEL-or-Content datasets);
``distractor_accuracy`` is the content-independence variant, over distractor instances only (absent when the
data has none, e.g. ``distractors=false``). The main score is ``distractor_accuracy``, falling back to
``accuracy`` (see :data:`SPEC`), so that ``steb run``, ``summary.scores()`` and the aggregates read the same
number; ``accuracy`` is shown beside it. ``chance_accuracy`` / ``chance_distractor_accuracy`` are the chance
levels of the instances scored: for STEL's rule the analytic ``(c - m)! / c!`` for ``m`` anchors and ``c``
candidates (exchangeable similarities make every injective assignment equally likely to be best): ``1 / k!``
for STEB's construction with ``k`` styles, 0.5 for STEL's quadruple and for STEL-or-Content; for the
reference's, whose credit is the share of anchors right, ``1 / c``.

The package's modules, one job each: :mod:`.stel_rule` and :mod:`.reference_rule` (the rules, pure functions
of similarity arrays), :mod:`.assignments` (what both rules share), :mod:`.products` (the reference rule's
cosines), :mod:`.metrics` (credits to metrics) and :mod:`.task` (the TaskSpec and the plumbing with the
TaskContext). The names below are re-exported from them.
"""

from __future__ import annotations

from .assignments import EXHAUSTIVE_LIMIT, TIE_COUNT_CAP, chance_level
from .metrics import order_alignment_metrics
from .products import PRODUCTS, compensated_dots
from .reference_rule import REFERENCE_TIE_WINDOW, TIES, reference_credits
from .stel_rule import PREFILTER_RTOL, alignment_credit, alignment_credits, exact_square_sum, stel_credits
from .task import FALLBACK_SCORING, SCORINGS, SPEC, run_order_alignment, scoring_of

__all__ = [
    "reference_credits",
    "SCORINGS",
    "FALLBACK_SCORING",
    "TIES",
    "PRODUCTS",
    "REFERENCE_TIE_WINDOW",
    "alignment_credit",
    "alignment_credits",
    "stel_credits",
    "chance_level",
    "compensated_dots",
    "exact_square_sum",
    "order_alignment_metrics",
    "run_order_alignment",
    "scoring_of",
    "SPEC",
    "EXHAUSTIVE_LIMIT",
    "TIE_COUNT_CAP",
    "PREFILTER_RTOL",
]
