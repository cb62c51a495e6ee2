"""LLM judges of writing style: detection and pairwise ranking, local or over an OpenAI-compatible endpoint."""

from .agreement import agreement_with_humans, majority, randolph_kappa
from .backends import HTTPBackend, LocalBackend, make_backend
from .judges import PairwiseOutcome, PairwiseStyleJudge, StyleDetectionJudge
from .prompts import PromptTemplate, get_prompt, load_prompts

__all__ = [
    "agreement_with_humans", "majority", "randolph_kappa", "HTTPBackend", "LocalBackend", "make_backend",
    "PairwiseOutcome", "PairwiseStyleJudge", "StyleDetectionJudge", "PromptTemplate", "get_prompt", "load_prompts",
]
