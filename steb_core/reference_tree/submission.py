"""A STEB leaderboard submission's two declarations, edited and checked as the leaderboard checks them.

SUBMISSION.md of github.com/rrivera1849/STEB asks a submitter to copy the results tree into ``submitted_results/``,
add an entry to ``SUBMISSIONS.yaml`` and the model to ``scripts/models_all.txt``; ``scripts/validate_submission.py``
(@7edf4f7c, ``validate``) then refuses: a file whose top level is not a YAML list, an entry without the four keys
``short_name``, ``hf_id``, ``run_command``, ``contributor`` as non-empty strings, a short name with no
``submitted_results/<dataset>/<short_name>/`` folder, a model that neither ``hf_id`` nor the short name lists in
``models_all.txt`` (a line, or its part after the last ``/``), and a ``metrics.json`` that does not parse. The
published ``SUBMISSIONS.yaml`` is ``[]``, so appending an entry to it as text makes invalid YAML: :func:`edited_text`
returns the whole edited list instead. :func:`check_clone` applies those rules and two the leaderboard scripts rely
on without checking: numbers are finite (Python's JSON reader accepts ``NaN``, which then ranks as anything), and a
(dataset, model, task) has one episode folder (``discovery.py`` silently takes the first in sorted order).

The rules are re-implemented from the description above; no code of the reference is copied. PyYAML parses the
file (the ``submit`` extra: ``pip install 'steb-core[submit]'``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from itertools import takewhile
from pathlib import Path
from typing import Any

from .._errors import StebError
from .._io import atomic_write_text
from .layout import METRICS_FILE, parse_episode_folder

__all__ = [
    "REQUIRED_KEYS",
    "SUBMISSIONS_FILE",
    "MODELS_FILE",
    "RESULTS_FOLDER",
    "SubmissionEntry",
    "edited_text",
    "models_text",
    "check_clone",
    "add_submission",
]

REQUIRED_KEYS = ("short_name", "hf_id", "run_command", "contributor")
SUBMISSIONS_FILE = "SUBMISSIONS.yaml"
MODELS_FILE = "scripts/models_all.txt"
RESULTS_FOLDER = "submitted_results"


@dataclass(frozen=True)
class SubmissionEntry:
    """One ``SUBMISSIONS.yaml`` entry: the four keys SUBMISSION.md requires."""

    short_name: str
    hf_id: str
    run_command: str
    contributor: str

    def problems(self) -> list[str]:
        return [f"'{k}' must be a non-empty string" for k, v in asdict(self).items() if not str(v).strip()]


def _yaml() -> Any:
    try:
        import yaml
    except ImportError:
        raise StebError(
            "reading SUBMISSIONS.yaml needs PyYAML (pip install PyYAML; steb-core's 'submit' extra installs it)"
        ) from None
    return yaml


def _entries(text: str, where: str) -> list[Any]:
    yaml = _yaml()
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise StebError(f"{where}: not valid YAML ({exc})") from None
    data = [] if data is None else data
    if not isinstance(data, list):
        raise StebError(f"{where}: its top level is a YAML {type(data).__name__}, not a list of entries")
    return data


def edited_text(text: str, entry: SubmissionEntry, *, where: str = SUBMISSIONS_FILE) -> str:
    """The whole ``SUBMISSIONS.yaml`` with ``entry`` added (its comment lines at the top kept): valid YAML whatever
    the file held (``[]``, nothing, a block list). An entry of the same short name with other values is refused;
    the same entry again leaves the list as it is."""
    bad = entry.problems()
    if bad:
        raise StebError(f"SUBMISSIONS.yaml entry: {'; '.join(bad)}")
    entries = _entries(text, where)
    new = asdict(entry)
    same = [e for e in entries if isinstance(e, Mapping) and e.get("short_name") == entry.short_name]
    if same and any(dict(e) != new for e in same):
        raise StebError(
            f"{where} already has an entry for '{entry.short_name}' with other values: edit it by hand, or "
            "submit under another --short-name"
        )
    if not same:
        entries.append(new)
    header = "".join(line + "\n" for line in takewhile(lambda line: line.startswith("#"), text.splitlines()))
    body = str(_yaml().safe_dump(entries, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10**6))
    return header + body


def models_text(text: str, line: str) -> str:
    """``models_all.txt`` with ``line`` added at the end (unchanged when it is listed already)."""
    listed = {raw.strip() for raw in text.splitlines()}
    if line in listed:
        return text
    return text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"


def _finite(value: Any, where: str = "") -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return where or "the document"
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _finite(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def check_clone(clone: str | Path) -> list[str]:
    """Every problem :func:`validate_submission.py <steb_core.reference_tree.submission>`'s rules (and the two the
    scripts rely on) find in the STEB clone ``clone``; empty when the submission is valid."""
    root = Path(clone)
    errors: list[str] = []
    path = root / SUBMISSIONS_FILE
    if not path.is_file():
        return [f"{path}: missing (is {root} a clone of github.com/rrivera1849/STEB?)"]
    try:
        entries = _entries(path.read_text(encoding="utf-8"), str(path))
    except StebError as exc:
        return [str(exc)]
    results = root / RESULTS_FOLDER
    on_disk = (
        {m.name for d in results.iterdir() if d.is_dir() for m in d.iterdir() if m.is_dir()}
        if results.is_dir()
        else set()
    )
    listed: set[str] = set()
    models = root / MODELS_FILE
    if models.is_file():
        for raw in models.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if line and not line.startswith("#"):
                listed |= {line, line.split("/")[-1]}
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            errors.append(f"{SUBMISSIONS_FILE} entry #{i}: a YAML {type(entry).__name__}, not a mapping")
            continue
        bad = [k for k in REQUIRED_KEYS if not isinstance(entry.get(k), str) or not entry[k].strip()]
        if bad:
            errors.append(f"{SUBMISSIONS_FILE} entry #{i}: {', '.join(bad)} missing or not a non-empty string")
            continue
        name = entry["short_name"]
        if name not in on_disk:
            errors.append(f"'{name}': no {RESULTS_FOLDER}/<dataset>/{name}/ folder")
        if entry["hf_id"] not in listed and name not in listed:
            errors.append(f"'{name}': neither '{entry['hf_id']}' nor '{name}' is listed in {MODELS_FILE}")
    if results.is_dir():
        episodes: dict[tuple[str, str, str], list[str]] = {}
        for file in sorted(results.rglob(METRICS_FILE)):
            rel = file.relative_to(results).as_posix()
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                errors.append(f"{RESULTS_FOLDER}/{rel}: not valid JSON ({exc})")
                continue
            bad_number = _finite(data)
            if bad_number is not None:
                errors.append(f"{RESULTS_FOLDER}/{rel}: '{bad_number}' is not a finite number")
            parts = file.relative_to(results).parts
            if len(parts) == 5 and parse_episode_folder(parts[2]) is not None:
                episodes.setdefault((parts[0], parts[1], parts[3]), []).append(parts[2])
        for (dataset, model, task), folders in sorted(episodes.items()):
            if len(folders) > 1:
                errors.append(
                    f"{RESULTS_FOLDER}/{dataset}/{model}: {len(folders)} episode folders for {task} "
                    f"({', '.join(folders)}); the leaderboard reads only the first"
                )
    return errors


def add_submission(clone: str | Path, entry: SubmissionEntry, models_line: str) -> list[str]:
    """Add ``entry`` to the clone's ``SUBMISSIONS.yaml`` and ``models_line`` to its ``models_all.txt`` (each file
    written whole, atomically), then check the clone: the problems found (empty: valid)."""
    root = Path(clone)
    path, models = root / SUBMISSIONS_FILE, root / MODELS_FILE
    if not path.is_file():
        raise StebError(f"{path}: missing (is {root} a clone of github.com/rrivera1849/STEB?)")
    new_submissions = edited_text(path.read_text(encoding="utf-8"), entry, where=str(path))
    old_models = models.read_text(encoding="utf-8") if models.is_file() else ""
    atomic_write_text(path, new_submissions)
    models.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(models, models_text(old_models, models_line))
    return check_clone(root)
