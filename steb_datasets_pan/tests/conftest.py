"""Shared helpers for the PAN loader tests: writing fixture files byte-exactly, finding the real samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _write(path: Path, text: str, *, bom: bool = False, crlf: bool = False) -> Path:
    """Write ``text`` as UTF-8, optionally with a BOM and Windows line ends (as some PAN releases have)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


def _write_jsonl(path: Path, rows: list[dict], *, bom: bool = False, crlf: bool = False) -> Path:
    return _write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), bom=bom, crlf=crlf)


@pytest.fixture
def write():
    return _write


@pytest.fixture
def write_jsonl():
    return _write_jsonl


@pytest.fixture
def pan_data(steb_shared_data) -> Path:
    """``../shared/data/pan`` beside the checkout, or skip when it is absent (e.g. a bare checkout)."""
    candidate = steb_shared_data / "pan"
    if not candidate.is_dir():
        pytest.skip("real PAN samples (../shared/data/pan) are not available")
    return candidate
