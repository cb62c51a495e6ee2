"""Find a model's weights on this machine, never on the network, and identify their exact version.

A model is named either by a local folder or by a Hugging Face hub id. Hub ids are looked up in the
local cache only (``HF_HOME`` / ``HF_HUB_CACHE`` are honoured by ``huggingface_hub``); the snapshot
folder name *is* the commit hash, which we record so results say which weights produced them. Local
folders have no commit, so we derive a content identity from their files instead (full SHA-256 of
every model file, memoised by path, size and mtime so re-runs do not re-read gigabytes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from steb_core import parse_json

from .errors import EncoderOptionError, ModelNotAvailableError
from .identity import content_revision

__all__ = ["ResolvedModel", "resolve_model", "folder_identity", "check_remote_code"]


@dataclass(frozen=True)
class ResolvedModel:
    """Where the weights are and which version they are (``revision``: commit hash or content hash)."""

    model_id: str
    path: Path
    revision: str
    source: str  # "hub-cache", "local", or a package name


def folder_identity(folder: Path) -> str:
    """A short content hash of a model folder's files (memoised full SHA-256s, see :mod:`.identity`)."""
    return content_revision(folder)


def _obtain_hint(model_id: str, revision: str | None) -> str:
    rev = f" --revision {revision}" if revision else ""
    return (
        f"On a machine with network run `hf download {model_id}{rev}` (older huggingface_hub: "
        f"`huggingface-cli download {model_id}{rev}`), then either copy the Hugging Face cache over and point "
        f"HF_HOME (or HF_HUB_CACHE) at it, or download into a folder with `--local-dir DIR` and pass model=DIR."
    )


def resolve_model(model: str | os.PathLike[str], revision: str | None = None) -> ResolvedModel:
    """Locate ``model`` (a folder or a hub id) offline; raise :class:`ModelNotAvailableError` if absent."""
    if not model:
        raise EncoderOptionError("no model given: pass model=HUB_ID or model=/path/to/folder")
    text = os.fspath(model)
    path = Path(text).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file() and not (path / "modules.json").is_file():
            raise ModelNotAvailableError(
                f"model folder {path} has neither config.json nor modules.json: it is not a transformers or "
                f"sentence-transformers model folder"
            )
        return ResolvedModel(
            model_id=str(path.resolve()),
            path=path.resolve(),
            revision=f"content:{folder_identity(path)}",
            source="local",
        )
    # hub ids are "name" or "owner/name"; anything else was meant as a folder
    looks_like_path = text.startswith((".", "/", "~")) or text.count("/") > 1 or "\\" in text
    if looks_like_path:
        raise ModelNotAvailableError(f"model folder {path} does not exist")
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        local = snapshot_download(text, revision=revision, local_files_only=True)
    except (LocalEntryNotFoundError, FileNotFoundError, OSError, ValueError) as exc:
        where = os.environ.get("HF_HUB_CACHE") or os.environ.get("HF_HOME") or "~/.cache/huggingface"
        rev = f" at revision {revision}" if revision else ""
        raise ModelNotAvailableError(
            f"model '{text}'{rev} is not in the local Hugging Face cache ({where}); steb downloads weights only "
            f"when asked: run `steb models get {text}{' --revision ' + revision if revision else ''}` (or add "
            f"--download to `steb run`). Offline: {_obtain_hint(text, revision)} ({type(exc).__name__})"
        ) from None
    local_path = Path(local)
    return ResolvedModel(model_id=text, path=local_path, revision=local_path.name, source="hub-cache")


def check_remote_code(resolved: ResolvedModel, trust_remote_code: bool) -> None:
    """Refuse, with instructions, a model that needs its own Python code unless the user allowed it.

    Running a model's code is running a stranger's program, so it must be an explicit choice.
    """
    config = resolved.path / "config.json"
    if trust_remote_code or not config.is_file():
        return
    try:
        data = parse_json(config.read_text(encoding="utf-8"), path=config)
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and data.get("auto_map"):
        raise EncoderOptionError(
            f"model '{resolved.model_id}' ships its own modelling code (config.json has auto_map); steb runs it "
            f"only when asked: pass trust_remote_code=true (CLI: -O trust_remote_code=true) if you "
            f"trust its authors"
        )
