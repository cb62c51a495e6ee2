"""A Hugging Face Hub dataset at a pinned revision, through ``huggingface_hub.snapshot_download``.

The files land in a plain folder (``local_dir``), not in the hub cache, because loaders read a dataset
folder under the data root. The endpoint is :func:`~steb_core.obtain.mirror.hf_endpoint` (``HF_ENDPOINT``
or the mirror setting), passed explicitly so a value set after ``huggingface_hub`` was imported counts.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from .errors import FetchError
from .mirror import hf_endpoint

__all__ = ["fetch_hf"]


def fetch_hf(
    repo_id: str,
    revision: str,
    dest: Path,
    *,
    patterns: tuple[str, ...] = (),
    retries: int = 4,
    kind: str = "dataset",
    backoff: float = 1.0,
) -> str:
    """Download ``repo_id`` at ``revision`` (only files matching ``patterns`` when given) into ``dest``;
    returns the commit the revision resolved to. A half-done download resumes (``local_dir`` keeps what
    arrived); errors name the repository and the endpoint. A server error is retried ``retries`` times,
    after a pause of ``backoff`` seconds doubled before each later try (a busy hub gets time to recover)."""
    try:
        from huggingface_hub import HfApi, snapshot_download  # optional, heavy
        from huggingface_hub.utils import HfHubHTTPError
    except ImportError as exc:
        raise FetchError(f"hf:{repo_id}: huggingface_hub is not installed (pip install huggingface_hub)") from exc
    endpoint = hf_endpoint()
    what = f"hf:{repo_id}@{revision or 'main'} from {endpoint}"
    dest.mkdir(parents=True, exist_ok=True)
    last: BaseException | None = None
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1))
        try:
            api = HfApi(endpoint=endpoint)
            info = (
                api.dataset_info(repo_id, revision=revision or None)
                if kind == "dataset"
                else api.model_info(repo_id, revision=revision or None)
            )
            commit = info.sha or revision
            snapshot_download(
                repo_id,
                repo_type=kind,
                revision=commit,
                allow_patterns=list(patterns) or None,
                local_dir=str(dest),
                endpoint=endpoint,
            )
            break
        except HfHubHTTPError as exc:
            status = getattr(getattr(exc, "response", None), "status_code", None)
            if status is not None and status < 500 and status not in (408, 429):
                raise FetchError(f"{what}: {status} {_first_line(exc)}") from exc
            last = exc
        except (OSError, ValueError) as exc:
            last = exc
        except Exception as exc:
            if type(exc).__module__.split(".")[0] not in ("httpx", "httpx2", "requests", "urllib3"):
                raise
            last = exc
    else:
        raise FetchError(f"{what}: gave up after {retries + 1} tries: {_first_line(last)}", transient=True)
    shutil.rmtree(dest / ".cache", ignore_errors=True)  # huggingface_hub's bookkeeping, not the release
    if revision and len(revision) == 40 and commit != revision:
        raise FetchError(f"{what}: the hub answered commit {commit}, expected the pinned {revision}")
    return commit


def _first_line(exc: BaseException | None) -> str:
    text = str(exc or "").strip()
    return text.splitlines()[0] if text else type(exc).__name__
