"""Fixtures for ``steb data get`` tests: a local HTTP server, bare git repositories as a GitHub mirror, and a
plugin file registering small datasets whose sources point at them. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from steb_core import _plugins as plugins_module
from tests.support.fake_http import FakeServer

PLUGIN = """
import json
from steb_core import hookimpl, DataSource, DatasetSpec
from steb_core._records import DatasetBundle, LabelledText

DATASETS = json.loads({payload!r})


def _loader(folder, file):
    def load(ctx):
        root = ctx.release_dir(folder, "steb data get --dataset " + ctx.dataset)
        path = root / file
        if not path.is_file():
            raise FileNotFoundError(f"missing {{path}}")
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return DatasetBundle(labelled_texts=[LabelledText(r["text"], r["label"]) for r in rows])
    return load


@hookimpl
def register_datasets(register):
    for d in DATASETS:
        register(DatasetSpec(name=d["name"], description="test dataset", tasks=("clustering",), suites=("fetchtest",),
                             loader=_loader(d["folder"], d["file"]), license=d.get("license", ""),
                             obtain=d.get("obtain", ""), sources=tuple(DataSource(**s) for s in d["sources"])))
"""


def jsonl(rows: list[tuple[str, str]]) -> bytes:
    """Records the test loader reads: one ``{"text", "label"}`` object per line."""
    return "".join(json.dumps({"text": t, "label": lab}) + "\n" for t, lab in rows).encode()


ROWS = [
    ("The cat sat on the mat.", "a"),
    ("A dog ran in the park.", "a"),
    ("Hello there, friend!", "b"),
    ("Good morning to you.", "b"),
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh plugin manager per test and no mirror settings from the developer's shell."""
    for name in ("STEB_PLUGINS", "STEB_DATA_MIRROR", "HF_ENDPOINT", "STEB_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    plugins_module.reset_manager()
    yield
    plugins_module.reset_manager()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as s:
        yield s


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def make_git_repo(
    mirror: Path, owner: str, name: str, commits: list[Mapping[str, bytes]], links: Mapping[str, str] | None = None
) -> list[str]:
    """A bare repository ``mirror/owner/name`` with one commit per mapping (files written on top of the
    previous commit; ``links`` adds symbolic links ``{path: target}`` to the first); returns the commit shas,
    oldest first."""
    work = mirror.parent / f"work-{owner}-{name}"
    work.mkdir(parents=True)
    _git("init", "-q", cwd=work)
    shas = []
    for files in commits:
        for rel, data in files.items():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).write_bytes(data)
        for rel, target in (links or {}).items() if not shas else ():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).symlink_to(target)
        _git("add", "-A", cwd=work)
        _git("commit", "-q", "-m", f"commit {len(shas)}", cwd=work)
        shas.append(_git("rev-parse", "HEAD", cwd=work))
    (mirror / owner).mkdir(parents=True, exist_ok=True)
    _git("clone", "-q", "--bare", str(work), str(mirror / owner / name))
    return shas


def write_plugin(path: Path, datasets: list[dict[str, Any]]) -> Path:
    """A plugin file registering ``datasets``: name, folder (release folder), file (JSON lines), sources
    (DataSource keyword dicts), optional license and obtain."""
    path.write_text(PLUGIN.format(payload=json.dumps(datasets)), encoding="utf-8")
    return path
