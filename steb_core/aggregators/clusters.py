"""Frozen redundancy-cluster sets for the operational score.

Discovered clusters depend on which models are in the results folder (below three models every dataset
is its own cluster), so two users' operational scores are only comparable when they use the same
cluster assignment. A :class:`ClusterSet` is that assignment, stored as JSON (``steb.clusters/1``):

.. code-block:: json

    {"schema": "steb.clusters/1", "name": "...", "steb_protocol": "...", "n_models": 12,
     "models": ["..."], "tasks": {"clustering": {"clusters": [["core", "x_genre"], ["masc_text_genre"]],
                                                 "metric": "v_measure", "models": ["..."]}}}

``steb report --clusters FILE`` scores with it; every report writes the clusters it used to
``report/clusters.json`` and ``steb export-clusters`` writes them anywhere.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import StebError
from .._io import atomic_write_text, parse_json

__all__ = ["CLUSTERS_SCHEMA", "ClusterSet", "load_cluster_set", "cluster_set_from_details"]

CLUSTERS_SCHEMA = "steb.clusters/1"


@dataclass
class ClusterSet:
    """Per task type, the dataset clusters; plus where they came from (a name and the models used)."""

    tasks: dict[str, list[list[str]]]
    name: str = ""
    models: list[str] = field(default_factory=list)
    n_models: int = 0
    steb_protocol: str = ""
    source: str = ""  # the file it was read from (not stored)
    methods: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        where = f" ({self.source})" if self.source else ""
        label = self.name or "unnamed cluster set"
        return f"frozen cluster set '{label}'{where}, discovered from {self.n_models} model(s)"

    def to_json(self) -> str:
        data = {
            "schema": CLUSTERS_SCHEMA,
            "name": self.name,
            "steb_protocol": self.steb_protocol,
            "n_models": self.n_models,
            "models": list(self.models),
            "tasks": {t: {"clusters": c, "method": self.methods.get(t, "")} for t, c in self.tasks.items()},
        }
        return json.dumps(data, indent=2) + "\n"

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, self.to_json())
        return path

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "") -> ClusterSet:
        if data.get("schema") != CLUSTERS_SCHEMA:
            raise StebError(
                f"{source or 'cluster set'}: schema is {data.get('schema')!r}, expected {CLUSTERS_SCHEMA!r}"
            )
        tasks: dict[str, list[list[str]]] = {}
        methods: dict[str, str] = {}
        for task, info in dict(data.get("tasks") or {}).items():
            clusters = info.get("clusters") if isinstance(info, Mapping) else info
            if not isinstance(clusters, list) or not all(
                isinstance(c, list) and all(isinstance(d, str) for d in c) for c in clusters
            ):
                raise StebError(f"{source or 'cluster set'}: task '{task}' needs a list of lists of dataset names")
            seen = [d for c in clusters for d in c]
            if len(seen) != len(set(seen)):
                raise StebError(f"{source or 'cluster set'}: task '{task}' lists a dataset in two clusters")
            tasks[str(task)] = [list(c) for c in clusters if c]
            if isinstance(info, Mapping) and info.get("method"):
                methods[str(task)] = str(info["method"])
        models = [str(m) for m in data.get("models") or []]
        return cls(
            tasks=tasks,
            name=str(data.get("name") or ""),
            models=models,
            n_models=int(data.get("n_models") or len(models)),
            steb_protocol=str(data.get("steb_protocol") or ""),
            source=source,
            methods=methods,
        )


def load_cluster_set(path: str | Path) -> ClusterSet:
    """Read a cluster set written by ``steb export-clusters`` (or a report's ``clusters.json``)."""
    path = Path(path)
    try:
        data = parse_json(path.read_text(encoding="utf-8"), path=path, expected="a cluster set (steb export-clusters)")
    except FileNotFoundError:
        raise StebError(f"cluster set {path} not found") from None
    except ValueError as exc:  # not JSON, a repeated key, nested too deeply
        raise StebError(f"cluster set {path} is not a valid cluster set: {exc}") from None
    return ClusterSet.from_dict(data, source=str(path))


def cluster_set_from_details(details: Mapping[str, Any], name: str = "") -> ClusterSet:
    """The cluster set an operational score used (its ``details``), ready to freeze."""
    from .._specs import STEB_PROTOCOL_VERSION

    clusters = details.get("clusters", {})
    models = sorted({m for info in clusters.values() for m in info.get("models", [])})
    frozen = details.get("cluster_set")
    return ClusterSet(
        tasks={task: [list(c) for c in info.get("clusters", [])] for task, info in clusters.items()},
        name=(frozen or {}).get("name", "") or name or "discovered",
        models=list((frozen or {}).get("models", models)),
        n_models=int((frozen or {}).get("n_models", 0) or details.get("n_models", len(models))),
        steb_protocol=STEB_PROTOCOL_VERSION,
        methods={task: str(info.get("method", "")) for task, info in clusters.items()},
    )
