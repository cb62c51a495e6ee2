"""Finding a release that serves several datasets (STEL_* and STEL-or-Content_* read one STEL folder).

The core resolves ``ROOT/<dataset name>``; asking users to copy one release under four names would be
silly, so a loader also accepts a sibling folder named after the release (``ROOT/STEL``).
"""

from __future__ import annotations

from pathlib import Path

from steb_core import LoadContext

__all__ = ["shared_release_dir"]


def shared_release_dir(ctx: LoadContext, folder: str, obtain: str, layout: str) -> Path:
    """``ctx.data_dir`` when it exists, else ``<its parent>/<folder>`` when that exists, else the core's error."""
    if ctx.data_dir is not None and not ctx.data_dir.is_dir():
        sibling = ctx.data_dir.parent / folder
        if sibling.is_dir():
            return sibling
    return ctx.require_dir(obtain, layout)
