"""Per-instance scores of a result, kept beside its record for paired tests (``steb compare``).

Why beside and not in the record: a record is read by every report, and thousands of per-instance numbers per
result would slow every leaderboard down; and a record's fields are fixed by the files users already have
(records written before this existed stay valid: they just have no per-instance scores). So a task may return,
under :data:`INSTANCES_KEY`, a dict of name -> list of numbers, one per instance in the task's data order; the
runner takes it out of the metrics and writes it to ``OUTPUT/.instances/<encoder>/<dataset>/<task>.json``
(a dot folder: :func:`steb_core._results.load_results` does not read it) with the record's ``run_key``. A file
whose ``run_key`` is not its record's (the record was recomputed, or the file copied from elsewhere) is not
that result's and is never read for it.

What the built-in tasks store (what their paired tests need):

* ``order_alignment``: ``accuracy`` / ``distractor_accuracy``, each plain / distractor instance's credit;
* ``clustering``: ``label`` (gold class codes) and ``cluster`` (k-means' cluster of each text);
* ``pair_predefined``: ``label`` (1 = positive trial) and ``score`` (the similarity the AUROC ranks);
* ``retrieval``: ``reciprocal_rank``, each query's mean 1 / rank of its true targets (their mean is the MRR).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._errors import DataValidationError
from ._io import atomic_write_text, check_inside, parse_json
from ._results import ResultRecord, slug

__all__ = ["INSTANCES_KEY", "INSTANCES_FOLDER", "instances_path", "write_instances", "read_instances"]

#: the key of a task's metrics under which it returns its per-instance scores (never stored in the record)
INSTANCES_KEY = "per_instance"
#: the folder of the per-instance files inside an output folder
INSTANCES_FOLDER = ".instances"
_SCHEMA = "steb.instances/1"


def instances_path(output_dir: str | Path, encoder: str, dataset: str, task: str) -> Path:
    """``OUTPUT/.instances/<encoder>/<dataset>/<task>.json`` (parts by :func:`steb_core._results.slug`)."""
    return Path(output_dir) / INSTANCES_FOLDER / slug(encoder) / slug(dataset) / f"{slug(task)}.json"


def _checked(values: Mapping[str, Any], who: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, column in values.items():
        if not isinstance(column, Sequence) or isinstance(column, (str, bytes)):
            raise DataValidationError(f"{who}: per-instance '{name}' is {type(column).__name__}", expected="a list")
        numbers = [float(v) for v in column]
        if not all(math.isfinite(v) for v in numbers):
            raise DataValidationError(f"{who}: per-instance '{name}' holds a value that is not finite")
        out[str(name)] = numbers
    return out


def write_instances(output_dir: str | Path, record: ResultRecord, values: Mapping[str, Any]) -> Path:
    """Write ``values`` (name -> one number per instance) for ``record`` (written first: its run key is stored)."""
    path = instances_path(output_dir, record.encoder, record.dataset, record.task)
    check_inside(path, output_dir, what="output folder")
    data = {
        "schema": _SCHEMA,
        "encoder": record.encoder,
        "dataset": record.dataset,
        "task": record.task,
        "run_key": record.run_key,
        "data_fingerprint": record.data_fingerprint,
        "values": _checked(values, f"{record.dataset} / {record.task}"),
    }
    atomic_write_text(path, json.dumps(data, separators=(",", ":")) + "\n")
    return path


def read_instances(output_dir: str | Path, record: ResultRecord) -> dict[str, list[float]] | None:
    """The per-instance scores stored for ``record``; None when there are none for exactly this result (no file:
    a result written before they were kept, or by a task that keeps none; another run key: another result)."""
    path = instances_path(output_dir, record.encoder, record.dataset, record.task)
    if not path.is_file():
        return None
    data = parse_json(path.read_text(encoding="utf-8"), path=path)
    if not isinstance(data, dict) or data.get("schema") != _SCHEMA:
        raise DataValidationError("is not a steb per-instance file", path=path, field="schema", expected=_SCHEMA)
    if data.get("run_key") != record.run_key or not record.run_key:
        return None
    values = data.get("values")
    if not isinstance(values, dict):
        raise DataValidationError("has no values", path=path, field="values", expected="name -> list of numbers")
    return _checked(values, str(path))
