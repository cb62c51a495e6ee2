"""Encoders for names no plugin registered: a model folder on disk or a hub id in the local cache.

``steb run --encoder path/to/model`` and ``steb.evaluate("org/model-id")`` reach this through the core's
``resolve_encoder`` hook. Anything that is not a sentence-transformers or transformers model folder (or
a hub id whose snapshot is already in the local Hugging Face cache) is passed on (None), so the core can
report an unknown encoder. Nothing is downloaded and nothing is loaded: the encoder is lazy like every
other encoder of this plugin.

**A copy of a paper model runs as the reference runs that model.** The reference's ``get_model`` (``steb/core.py``
@18c49153) routes by the name string it is given: the LUAR ids by ``supported_models``, every other string by the
checkpoint's files (modules.json without config.json: its sentence-transformers class; a causal LM: ``CausalModel``;
else ``HFModel``). steb recognises a folder or hub id as a copy of one of its configured paper models (or of
all-MiniLM-L6-v2) by the name the user gave, in this order (:func:`paper_copy`):

1. a hub id equal to the configuration's (case-insensitive, as the hub treats ids);
2. a folder inside a Hugging Face cache snapshot (``models--ORG--NAME/snapshots/COMMIT``): the hub id ``ORG/NAME``;
3. a folder whose own name is the hub id's model name (``.../all-MiniLM-L6-v2``, ``.../LUAR-MUD``), the layout
   ``hf download ID --local-dir .../NAME`` and most copies have;
4. the packaged all-MiniLM-L6-v2 folder itself, or a folder with the same content;
5. a folder whose config.json says ``model_type`` ``LUAR`` (a LUAR copy under another name: the reference would
   need the hub id for its LUAR class; steb does not run a LUAR checkpoint as a plain transformer).

A recognised copy with a config.json is built by that configuration's factory with ``model=`` the folder or id,
under the name the user gave (``NAME.model-card`` / ``NAME.episode`` for ``-O pipeline=`` the variant): the
reference route by default. A folder with modules.json and no config.json keeps the sentence-transformers family,
as ``get_model``'s sentence-transformers stage does; everything else (a user's own model) keeps the
sentence-transformers family, as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import EncoderOptionError, ModelNotAvailableError
from .identity import read_json
from .loading import ResolvedModel, resolve_model

__all__ = ["resolve_by_name", "is_model_folder", "paper_copy"]

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def is_model_folder(path: Path) -> bool:
    return path.is_dir() and ((path / "modules.json").is_file() or (path / "config.json").is_file())


def _locate(name: str, revision: str | None) -> ResolvedModel | None:
    path = Path(name).expanduser()
    if path.exists():
        return resolve_model(str(path), revision) if is_model_folder(path) else None
    if not _HUB_ID.match(name):
        return None
    try:
        resolved = resolve_model(name, revision)  # the local hub cache only
    except ModelNotAvailableError:
        return None
    return resolved if is_model_folder(resolved.path) else None


def _paper_hub_ids() -> dict[str, str]:
    """hub id (lower case) -> registered configuration, for the paper's models and all-MiniLM-L6-v2."""
    from .catalogue import NAMED_MODELS, reference_route
    from .packaged import MINILM_HUB_ID, MINILM_NAME

    ids = {m.hub_id.lower(): m.name for m in NAMED_MODELS if reference_route(m) is not None}
    ids[MINILM_HUB_ID.lower()] = MINILM_NAME
    return ids


def _snapshot_hub_id(path: Path) -> str | None:
    """``ORG/NAME`` of a folder inside a Hugging Face cache snapshot (``models--ORG--NAME/snapshots/COMMIT/...``)."""
    parts = path.parts
    for i, part in enumerate(parts[:-1]):
        if part.startswith("models--") and parts[i + 1] == "snapshots" and "--" in part[len("models--") :]:
            return part[len("models--") :].replace("--", "/", 1)
    return None


def _is_packaged_minilm(resolved: ResolvedModel) -> bool:
    try:
        from .packaged import packaged_minilm

        packaged = packaged_minilm()
    except ModelNotAvailableError:
        return False
    if resolved.path == packaged.path.resolve():
        return True
    return resolved.revision == f"content:{packaged.revision.rsplit(':content:', 1)[-1]}"


def paper_copy(name: str, resolved: ResolvedModel) -> str | None:
    """The registered configuration ``name`` (a hub id or folder, located as ``resolved``) is a copy of, else None.

    The rules, in order, are the module docstring's.
    """
    ids = _paper_hub_ids()
    path = Path(name).expanduser()
    if not path.exists():  # a hub id
        return ids.get(name.lower())
    folder = resolved.path
    hub_id = _snapshot_hub_id(folder)
    if hub_id is not None and hub_id.lower() in ids:
        return ids[hub_id.lower()]
    by_model_name: dict[str, list[str]] = {}
    for hub, config in ids.items():
        by_model_name.setdefault(hub.rsplit("/", 1)[-1], []).append(config)
    named = by_model_name.get(folder.name.lower(), [])
    if len(named) == 1:
        return named[0]
    from .packaged import MINILM_NAME

    if _is_packaged_minilm(resolved):
        return MINILM_NAME
    if str(read_json(folder / "config.json").get("model_type", "")).lower() == "luar":
        return "luar-mud"
    return None


def resolve_by_name(name: str, options: Mapping[str, Any] | None = None) -> Any:
    """A lazy encoder for ``name`` (folder or cached hub id): a paper model's copy runs as that configuration
    (the reference's route), anything else as a sentence-transformers encoder; None when ``name`` is neither."""
    options = dict(options or {})
    if not isinstance(name, str) or not name:
        return None
    resolved = _locate(name, options.get("revision"))
    if resolved is None:
        return None
    if options.pop("model", None) not in (None, name):
        raise EncoderOptionError(f"encoder '{name}' names the model itself; drop the model= option")
    configuration = paper_copy(name, resolved) if (resolved.path / "config.json").is_file() else None
    if configuration is not None:
        from .catalogue import NAMED_MODELS, variant_pipeline

        pipeline = str(options.get("pipeline") or "reference").strip().lower()
        named = next((m for m in NAMED_MODELS if m.name == configuration), None)
        variant = variant_pipeline(named) if named is not None else "model-card"
        options.setdefault("name", name if pipeline != variant else f"{name}.{variant}")
        from .catalogue import build_configuration

        return build_configuration(configuration, model=name, **options)
    options.pop("revision", None)
    options.setdefault("name", name)
    from .sentence import SentenceTransformerEncoder

    return SentenceTransformerEncoder(resolved=resolved, **options)
