"""Small helpers every release reader shares: the files of a release and one validated record."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from steb_core import DataValidationError, LabelledText, located

__all__ = ["release_files", "make_record"]


def release_files(root: Path, pattern: str, obtain: str) -> list[Path]:
    """The files under ``root`` matching ``pattern`` (sorted), or an error saying what to obtain."""
    files = sorted(p for p in root.glob(pattern) if p.is_file())
    if not files:
        raise DataValidationError(f"no file matches '{pattern}' under this folder. Obtain it: {obtain}", path=root)
    return files


def make_record(
    text: str, label: str, rid: str | None, path: Path, record: str, stats: Counter[str]
) -> LabelledText | None:
    """A record, or None (counted) for a blank text: real releases hold a few empty documents."""
    if not text.strip():
        stats["skipped_empty"] += 1
        return None
    with located(path, record):
        return LabelledText(text=text, label=label, id=rid)
