"""The result files of a results folder, as ``steb_core.load_results`` finds them.

A results folder also holds steb's own files under dot-named folders and files (``.instances/``: the
per-instance scores ``steb compare`` reads; ``.steb-*`` manifests); a test that lists results by globbing must
leave them out the way the loader does, or it counts one result twice.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["result_files"]


def result_files(folder: Path, pattern: str = "*.json") -> list[Path]:
    """Every file under ``folder`` matching ``pattern`` with no dot-named part below ``folder``, sorted."""
    return sorted(
        path
        for path in Path(folder).rglob(pattern)
        if not any(p.startswith(".") for p in path.relative_to(folder).parts)
    )
