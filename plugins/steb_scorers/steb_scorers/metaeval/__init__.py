"""Meta-evaluation of style-transfer scorers against human judgements (``steb meta-eval``)."""

from typing import Any

# Exports are resolved on first use: `steb` imports this package to add its command, and the
# correlation code pulls in scipy.stats, which would slow down every other command.
_EXPORTS = {
    "kendall": "correlations",
    "pearson": "correlations",
    "segment_correlations": "correlations",
    "spearman": "correlations",
    "system_correlations": "correlations",
    "tau_like": "correlations",
    "tau_like_counts": "correlations",
    "tau_per_source": "correlations",
    "mean_per_source_tau": "correlations",
    "agreement_table": "agreement",
    "PROTOCOLS": "evaluate",
    "protocol_config": "evaluate",
    "MetaEvalConfig": "evaluate",
    "meta_evaluate": "evaluate",
    "parse_scorer_spec": "evaluate",
    "score_judgements": "evaluate",
    "ASPECTS": "human",
    "DIRECTIONS": "human",
    "HumanJudgements": "human",
    "load_human_judgements": "human",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ASPECTS",
    "DIRECTIONS",
    "HumanJudgements",
    "load_human_judgements",
    "MetaEvalConfig",
    "meta_evaluate",
    "parse_scorer_spec",
    "score_judgements",
    "pearson",
    "spearman",
    "kendall",
    "segment_correlations",
    "tau_like",
    "tau_like_counts",
    "system_correlations",
    "tau_per_source",
    "mean_per_source_tau",
    "agreement_table",
    "PROTOCOLS",
    "protocol_config",
]
