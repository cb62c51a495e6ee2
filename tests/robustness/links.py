"""Helpers of the symbolic-link tests (``test_symlinks.py``, ``test_release_links.py``): a release file replaced by a
link, and the check that loading refuses it without returning what lies outside."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from steb_core import DataValidationError

#: the text of the file outside the release; no loader may return it
SECRET = "a secret that is not part of the release"


def write_file(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def relink(link: Path, target: Path) -> None:
    """Replace the file ``link`` with a symbolic link to ``target``."""
    link.unlink()
    link.symlink_to(target)


def assert_link_refused(load: Callable[[], Any], link: Path) -> None:
    """``load()`` must fail with the link's path and the outside target in the message, and no secret."""
    with pytest.raises(DataValidationError, match="outside the release folder") as err:
        load()
    message = str(err.value)
    assert str(link) in message and str(link.resolve()) in message, message
    assert SECRET not in message


def pan18_release(data: Path) -> Path:
    """A one-problem PAN18 attribution release under ``data`` (its official folder name); returns the release folder."""
    root = data / "pan18-cross-domain-authorship-attribution-test-dataset2-2018-04-20"
    collection = [{"problem-name": "problem00001", "language": "en", "encoding": "UTF-8"}]
    write_file(root / "collection-info.json", json.dumps(collection))
    problem = root / "problem00001"
    info = {"unknown-folder": "unknown", "candidate-authors": [{"author-name": "candidate00001"}]}
    write_file(problem / "problem-info.json", json.dumps(info))
    write_file(problem / "candidate00001" / "known00001.txt", "Known by one.\n")
    write_file(problem / "unknown" / "unknown00001.txt", "Asked about.\n")
    truth = {"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author": "candidate00001"}]}
    write_file(problem / "ground-truth.json", json.dumps(truth))
    return root
