"""A named paper model's reference pipeline, built from its route (the STEB reference's ``get_model`` choice).

Kept apart from :mod:`.reference` (the plain Hugging Face and causal classes) and :mod:`.reference_episode` (LUAR)
because it needs both, and the LUAR module builds on the plain one's chunking: here neither imports the other back.
"""

from __future__ import annotations

from typing import Any

from .base import TokenizerEncoder
from .errors import EncoderOptionError
from .reference import REFERENCE_OPTIONS, ReferenceEncoder
from .reference_episode import ReferenceEpisodeEncoder

__all__ = ["build_reference_encoder"]


def build_reference_encoder(route: str, name: str, options: dict[str, Any], **fixed: Any) -> TokenizerEncoder:
    """A named configuration's reference pipeline (``route`` ``hf``/``causal``: :class:`ReferenceEncoder`;
    ``luar``: :class:`ReferenceEpisodeEncoder`); an option of the other pipeline (prompt,
    normalize, task, ...) is refused with the way to ask for that pipeline."""
    allowed = REFERENCE_OPTIONS - {"pooling"} if route == "luar" else REFERENCE_OPTIONS
    unknown = sorted(set(options) - allowed)
    if unknown:
        variant = "episode" if route == "luar" else "model-card"
        raise EncoderOptionError(
            f"option(s) {', '.join(unknown)} belong to the {variant} pipeline of '{name}'; the reference pipeline "
            f"takes {', '.join(sorted(allowed))} (pass pipeline={variant} for the others)"
        )
    if route == "luar":
        return ReferenceEpisodeEncoder(**{"name": name, **options}, **fixed)
    return ReferenceEncoder(route=route, **{"name": name, **options}, **fixed)
