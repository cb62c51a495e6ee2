"""Model weights in the Hugging Face cache: is a repository there (at a revision), and fetch it on request.

steb downloads weights only when the user asks (``steb models get``, ``steb run --download``): runs
stay reproducible offline and never stall on a network. Both questions are answered here once, so the
availability column of ``steb list encoders``, the error of a run whose weights are missing and the
download command agree on where the cache is and what counts as "present".

The presence check reads the cache folders directly (no ``huggingface_hub`` import), so listing 50
encoders stays instant; the download goes through ``huggingface_hub.snapshot_download`` (imported only
then), which honours ``HF_ENDPOINT`` (mirrors, and the tests' local server), ``HF_HUB_CACHE`` and
``HF_HOME``, and resumes interrupted files.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import StebError

__all__ = ["hub_cache_dir", "cached_weights", "download_weights", "FetchedWeights", "HUB_REPO_ID", "fetch_command"]

#: what a hub model id looks like (``owner/name``; a bare ``name`` for the few legacy top-level repos)
HUB_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][\w.-]*/)?[A-Za-z0-9][\w.-]*$")

#: files whose presence in a snapshot means the weights themselves arrived (not only the config)
_WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
    "tf_model.h5",
    "flax_model.msgpack",
)
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def hub_cache_dir() -> Path:
    """The model cache ``huggingface_hub`` uses: ``HF_HUB_CACHE``, else ``HF_HOME/hub``, else
    ``~/.cache/huggingface/hub``."""
    env = os.environ
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(name):
            return Path(env[name]).expanduser()
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser() / "hub"
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "huggingface" / "hub"


def _has_weights(snapshot: Path) -> bool:
    """A config plus weight files at the top or in a sentence-transformers module folder (e.g. ``0_Transformer``)."""
    if not ((snapshot / "config.json").is_file() or (snapshot / "modules.json").is_file()):
        return False
    folders = [snapshot, *(p for p in snapshot.iterdir() if p.is_dir())]
    return any((folder / name).is_file() for folder in folders for name in _WEIGHT_FILES)


def cached_weights(repo_id: str, revision: str = "", cache_dir: str | Path | None = None) -> Path | None:
    """The snapshot folder of ``repo_id`` at ``revision`` in the cache when its weights are there, else None.

    ``revision`` is a commit (its snapshot folder), a branch or tag (resolved through ``refs/``), or ""
    for ``main``. A folder with a config but no weight file (an interrupted download) does not count.
    """
    repo = Path(cache_dir) if cache_dir is not None else hub_cache_dir()
    repo = repo / ("models--" + repo_id.replace("/", "--"))
    wanted = revision or "main"
    commit = wanted if _COMMIT.match(wanted) else ""
    if not commit:
        ref = repo / "refs" / wanted
        try:
            commit = ref.read_text(encoding="utf-8").strip() if ref.is_file() else ""
        except OSError:
            commit = ""
    if not commit:
        return None
    snapshot = repo / "snapshots" / commit
    return snapshot if snapshot.is_dir() and _has_weights(snapshot) else None


def fetch_command(name: str) -> str:
    """The command that fetches the weights of encoder (or hub id) ``name``, for error messages and listings."""
    return f"steb models get {name}"


@dataclass(frozen=True)
class FetchedWeights:
    """Where a download went and which commit it resolved to (recorded: the pinned revision may be a branch)."""

    repo_id: str
    requested: str  # the revision asked for ("" = main)
    commit: str
    path: Path


def download_weights(
    repo_id: str, revision: str = "", *, cache_dir: str | Path | None = None, progress: bool = True, token: Any = None
) -> FetchedWeights:
    """Fetch ``repo_id`` at ``revision`` ("" = main) into the Hugging Face cache (resumes a partial download).

    Raises :class:`StebError` naming the repository, the revision and the endpoint when the hub refuses
    (unknown repository, gated model, no network) so the user sees what to fix, not a traceback.
    """
    if not HUB_REPO_ID.match(repo_id):
        raise StebError(f"'{repo_id}' is not a Hugging Face model id (expected OWNER/NAME)")
    try:
        import huggingface_hub  # optional, heavy-ish
        from huggingface_hub import snapshot_download
    except ImportError:
        raise StebError(
            "downloading weights needs the huggingface_hub package: pip install steb-models-neural "
            "(or pip install huggingface_hub)"
        ) from None
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    kwargs: dict[str, Any] = {
        "revision": revision or None,
        "cache_dir": str(cache_dir) if cache_dir is not None else None,
    }
    if token is not None:
        kwargs["token"] = token
    if not progress:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    try:
        local = snapshot_download(repo_id, **kwargs)
    except huggingface_hub.errors.RepositoryNotFoundError:
        raise StebError(
            f"model '{repo_id}' does not exist on {endpoint} (or is private: log in with `hf auth login`)"
        ) from None
    except huggingface_hub.errors.RevisionNotFoundError:
        raise StebError(f"model '{repo_id}' has no revision '{revision}' on {endpoint}") from None
    except huggingface_hub.errors.GatedRepoError:
        raise StebError(
            f"model '{repo_id}' is gated on {endpoint}: accept its terms on the model page and log in "
            f"with `hf auth login`, then run the command again"
        ) from None
    except (huggingface_hub.errors.HfHubHTTPError, huggingface_hub.errors.LocalEntryNotFoundError, OSError) as exc:
        raise StebError(
            f"could not download '{repo_id}'{f' at {revision}' if revision else ''} from {endpoint}: "
            f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
        ) from None
    path = Path(local)
    return FetchedWeights(repo_id, revision, path.name, path)
