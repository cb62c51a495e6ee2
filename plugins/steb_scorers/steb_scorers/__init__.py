"""steb-scorers: style-transfer scorers (content, style, fluency, overall, LLM judges) and their meta-evaluation.

Every scorer has ``score(sources, outputs, references=None, target_style=None) -> ScoreResult``.
"""

from .result import ScoreResult

__all__ = ["ScoreResult"]
__version__ = "0.1.0"
