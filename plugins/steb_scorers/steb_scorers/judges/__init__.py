"""LLM judges of writing style: detection and pairwise ranking, local or over an OpenAI-compatible endpoint."""

from .agreement import agreement_with_humans, majority, randolph_kappa
from .backends import CachedBackend, HTTPBackend, JudgeEndpointError, JudgeEndpointTimeout, LocalBackend, make_backend
from .judges import (
    PairwiseOutcome,
    PairwiseStyleJudge,
    StyleDetectionJudge,
    human_pairwise_label,
    human_pairwise_majority,
)
from .prompts import JudgePrompt, PromptTemplate, get_prompt, load_prompts, prompts_about

__all__ = [
    "agreement_with_humans",
    "majority",
    "randolph_kappa",
    "CachedBackend",
    "HTTPBackend",
    "JudgeEndpointError",
    "JudgeEndpointTimeout",
    "LocalBackend",
    "make_backend",
    "human_pairwise_label",
    "human_pairwise_majority",
    "JudgePrompt",
    "PairwiseOutcome",
    "PairwiseStyleJudge",
    "StyleDetectionJudge",
    "PromptTemplate",
    "get_prompt",
    "load_prompts",
    "prompts_about",
]
