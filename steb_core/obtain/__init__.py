"""Obtaining dataset releases (``steb data get``): mirrors, git, hub, Zenodo and URL sources, safe unpacking,
planning with a licence gate, and staged, verified, atomic fetching. See :mod:`steb_core._sources` for the
record each dataset's spec carries."""

from __future__ import annotations

from .errors import FetchError
from .get import JobResult, fetch_all, fetch_job
from .http import DownloadPolicy, download, verify_file
from .mirror import MIRROR_ENV_VAR, hf_endpoint, rewrite
from .plan import MANIFEST, PARTIAL, Job, Plan, PlanRow, make_plan
from .unpack import safe_unpack

__all__ = [
    "FetchError",
    "JobResult",
    "fetch_all",
    "fetch_job",
    "DownloadPolicy",
    "download",
    "verify_file",
    "MIRROR_ENV_VAR",
    "hf_endpoint",
    "rewrite",
    "MANIFEST",
    "PARTIAL",
    "Job",
    "Plan",
    "PlanRow",
    "make_plan",
    "safe_unpack",
]
