"""Meta-evaluation of style-transfer scorers against human judgements (``steb meta-eval``)."""

from .correlations import kendall, pearson, segment_correlations, spearman, system_correlations, tau_like, tau_like_counts
from .evaluate import MetaEvalConfig, meta_evaluate, parse_scorer_spec, score_judgements
from .human import ASPECTS, DIRECTIONS, HumanJudgements, load_human_judgements

__all__ = [
    "ASPECTS", "DIRECTIONS", "HumanJudgements", "load_human_judgements", "MetaEvalConfig", "meta_evaluate",
    "parse_scorer_spec", "score_judgements", "pearson", "spearman", "kendall", "segment_correlations",
    "tau_like", "tau_like_counts", "system_correlations",
]
