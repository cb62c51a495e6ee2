"""Checking a fetched folder against its manifest: the sha256 of every file recorded when steb fetched it.

This is what makes a trust-on-first-use pin worth something (issue 39): a URL or Drive file without a
published checksum is recorded at its first download, and from then on ``steb data check`` and
``steb data get --verify`` find any file that changed, vanished or turned into a different link. Files
added by hand beside a fetched release (an optional file the instructions mention) are not errors.
"""

from __future__ import annotations

import os
from pathlib import Path

from .http import file_digest
from .plan import MANIFEST, read_manifest

__all__ = ["verify_folder"]


def verify_folder(folder: Path) -> list[str] | None:
    """The differences between ``folder`` and its manifest, one line each ("" entries never); an empty list
    when every recorded file is unchanged, None when the folder has no manifest steb wrote."""
    manifest = read_manifest(folder)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        return None
    problems = []
    real_root = os.path.realpath(folder)
    for rel, recorded in sorted(manifest["files"].items()):
        path = folder / rel
        if rel == MANIFEST or not isinstance(recorded, str):
            continue
        real = os.path.realpath(path)
        if real != real_root and not real.startswith(real_root + os.sep) and not path.is_symlink():
            problems.append(f"{rel}: leads outside the folder")
            continue
        if recorded.startswith("link:"):
            now = ("link:" + os.readlink(path)) if path.is_symlink() else ("a file" if path.exists() else "missing")
            if now != recorded:
                problems.append(f"{rel}: was {recorded}, now {now}")
        elif path.is_symlink():
            problems.append(f"{rel}: was a file, now a link to {os.readlink(path)}")
        elif not path.is_file():
            problems.append(f"{rel}: missing")
        else:
            digest = file_digest(path)
            if digest != recorded:
                problems.append(f"{rel}: sha256 {digest}, recorded {recorded}")
    return problems
