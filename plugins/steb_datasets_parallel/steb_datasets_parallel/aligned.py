"""Line-aligned release files (one sentence per line, line i of every file is the same item).

Most parallel corpora ship this way (GYAFC, ASSET, Shakespeare, StylePTB's halves). Reading them in one
place means a short file or an empty line is always reported with the file, the line and the role the
file plays, instead of silently truncating the pairs with ``zip``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from steb_core import DataValidationError, read_lines

__all__ = ["read_aligned"]


def read_aligned(files: Mapping[str, Path]) -> list[dict[str, str]]:
    """Rows ``{role: line}`` of line-aligned files; every file must have the same number of non-empty lines."""
    columns: dict[str, list[str]] = {}
    for role, path in files.items():
        lines = read_lines(path, keep_empty=True)
        for i, line in enumerate(lines, start=1):
            if not line.strip():
                raise DataValidationError(
                    "is an empty line", path=path, record=f"line {i}", field=role, expected="one text per line"
                )
        columns[role] = lines
    lengths = {role: len(lines) for role, lines in columns.items()}
    if len(set(lengths.values())) > 1:
        shortest = min(lengths, key=lambda role: lengths[role])
        longest = max(lengths, key=lambda role: lengths[role])
        raise DataValidationError(
            f"has {lengths[shortest]} lines but {files[longest]} has {lengths[longest]}",
            path=files[shortest],
            record=f"line {lengths[shortest] + 1}",
            field=shortest,
            expected="line-aligned files of equal length",
        )
    n = next(iter(lengths.values()), 0)
    return [{role: columns[role][i] for role in columns} for i in range(n)]
