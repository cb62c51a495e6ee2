"""The STEB authors' published results (their 40 models' per-dataset numbers), fetched as their script fetches them.

``scripts/download_results.sh`` of github.com/rrivera1849/STEB (@e82ae604) downloads one Google Drive file,
``results.tar.gz`` (Drive file ``1EC-PLHlMdvS-eKRC8bBfQLOGNg-wiRC7``; "a tarball compresses 62 MB of JSON"), with
``gdown --fuzzy`` and unpacks it with ``tar -xzf ... -C "$(dirname "$OUTPUT_DIR")"``, so the archive holds the tree
in a top-level ``results/`` folder (``results/<dataset>/<model>/<episode>/<task>/metrics.json``, :mod:`.layout`).

steb fetches the same file through ``steb data get``'s Drive path (:func:`steb_core.obtain.get.fetch_job`: Drive's
confirm page followed as gdown follows it, the mirror setting, resume, size caps, the staging folder renamed into
place only when complete) into ``DATA_ROOT/steb-published-results/``, unpacked there by the safe unpacker (no member
outside the folder, no links out, member and size caps). The authors publish no checksum, so the archive's sha256 is
pinned at the first download (recorded in the folder's manifest; a ``--force`` refetch must give the same bytes, and
``steb data check``-style verification reads the same manifest). :func:`published_tree` is the folder to read.
"""

from __future__ import annotations

from pathlib import Path

from .._errors import StebError
from .._sources import DataSource

__all__ = ["PUBLISHED_TARGET", "PUBLISHED_SOURCE", "PUBLISHED_SCRIPT", "fetch_published", "published_tree"]

#: where the script that fetches the published results lives (file @ commit)
PUBLISHED_SCRIPT = "scripts/download_results.sh @e82ae604 of github.com/rrivera1849/STEB"
#: the folder under the data root the published results land in
PUBLISHED_TARGET = "steb-published-results"
PUBLISHED_SOURCE = DataSource(
    kind="gdrive",
    url="1EC-PLHlMdvS-eKRC8bBfQLOGNg-wiRC7",
    files=("results.tar.gz",),
    target=PUBLISHED_TARGET,
    unpack=("results.tar.gz",),
    # steb's bound (issue 47): no size is stated; the tarball compresses 62 MB of JSON, so past 1 GiB it is not theirs
    max_bytes=1 << 30,
)


def published_tree(folder: Path) -> Path:
    """The results tree inside a fetched (or hand-unpacked) published folder: its ``results/``, as the tarball holds
    it, else the folder itself when it holds the dataset folders directly."""
    inner = folder / "results"
    return inner if inner.is_dir() else folder


def fetch_published(
    root: Path, *, force: bool = False, source: DataSource = PUBLISHED_SOURCE, policy: object | None = None
) -> tuple[Path, list[tuple[str, str]], str]:
    """Fetch (or find, fetched earlier) the published results under ``root``: (the tree to read, the sha256 pins
    taken at this first download, what happened). :class:`StebError` when the fetch fails."""
    from ..obtain.get import fetch_job
    from ..obtain.http import DownloadPolicy
    from ..obtain.plan import Job

    job = Job(source.target or PUBLISHED_TARGET, [source], ["published results"])
    result = fetch_job(
        job, Path(root), force=force, policy=policy if isinstance(policy, DownloadPolicy) else DownloadPolicy()
    )
    if result.status == "failed":
        raise StebError(f"the published results ({PUBLISHED_SCRIPT}) could not be fetched: {result.message}")
    folder = Path(result.path) if result.path else Path(root) / job.target
    return published_tree(folder), list(result.recorded), result.status
