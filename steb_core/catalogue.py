"""The component catalogue as data: rows for `steb list`, citations for `steb cite`, `steb data check`.

Kept apart from the CLI so the Python API (:func:`steb.get_datasets`) and the commands read the same
facts, and so `--format json|csv` are just other renderings of the same rows.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import StebError
from .plugins import StebPlugins
from .records import DatasetBundle
from .specs import STEB_PROTOCOL_VERSION, DatasetSpec, LoadContext

__all__ = ["component_rows", "dataset_rows", "bibtex", "STEB_BIBTEX", "DataCheck", "check_dataset", "shape_counts"]

#: How to cite steb's protocol source (the STEB paper) and this software.
STEB_BIBTEX = """@misc{steb2026,
  title  = {{STEB}: Style Text Embedding Benchmark},
  author = {Rivera Soto, Rafael and Wegmann, Anna and Aggazzotti, Cristina},
  year   = {2026},
  note   = {arXiv:2606.31741},
}
@software{steb_software,
  title = {steb: a plugin-based framework for evaluating linguistic style representations},
  note  = {implements %s},
}""" % STEB_PROTOCOL_VERSION


def dataset_rows(plugins: StebPlugins, specs: Iterable[DatasetSpec], suite: str | None = None) -> list[dict[str, Any]]:
    """One dict per dataset with what a researcher needs to pick it (tasks shown for ``suite`` if given)."""
    registry = plugins.datasets()
    return [
        {
            "name": s.name,
            "tasks": list(s.tasks_for_suite(suite)),
            "languages": list(s.languages),
            "categories": list(s.categories),
            "suites": list(s.suites),
            "size": s.size,
            "provider": registry.provider(s.name),
            "description": s.description,
            "obtain": s.obtain if s.needs_data else "",
            "citation": s.citation,
            "license": s.license,
        }
        for s in sorted(specs, key=lambda s: s.name)
    ]


def component_rows(plugins: StebPlugins, kind: str) -> list[dict[str, Any]]:
    """One dict per registered component of a non-dataset kind."""
    registry = plugins.registry(kind)
    rows = []
    for s in sorted(registry, key=lambda s: s.name):
        row: dict[str, Any] = {"name": s.name}
        if kind == "encoder":
            row["family"] = s.family + (" (similarity-only)" if s.similarity_only else "")
            row["options"] = ", ".join(s.options_help)
        if kind == "task":
            row["records"], row["main_metric"] = s.shape, s.main_metric
        row["provider"] = registry.provider(s.name)
        row["description"] = s.description
        rows.append(row)
    return rows


def bibtex(name: str, citation: str) -> str:
    """A dataset's citation as BibTeX: BibTeX entries as given, free text wrapped in ``@misc``."""
    text = citation.strip()
    if text.startswith("@"):
        return text
    key = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "dataset"
    return "@misc{%s,\n  note = {%s},\n}" % (key, text.replace("{", "(").replace("}", ")") or f"steb dataset {name}")


def shape_counts(bundle: DatasetBundle, shape: str) -> dict[str, int]:
    """The catalogue's counts for one record shape: classes (labels, trials, style types, authors,
    features) and texts (records, pair texts, groups, collection texts)."""
    data = bundle.get(shape)
    if data is None:
        return {}
    if shape == "labelled_texts":
        return {"classes": len({r.label for r in data}), "texts": len(data)}
    if shape == "pairs":
        return {"classes": len(data), "texts": 2 * len(data)}
    if shape == "order_groups":  # instances: plain groups when the construction also made distractor ones
        plain = [g for g in data if g.distractor is None]
        return {"classes": len({g.style_type for g in data}), "texts": len(plain) or len(data)}
    if shape == "retrieval":
        queries = getattr(data, "queries", [])
        targets = getattr(data, "targets", [])
        return {"classes": len({q.author for q in queries}), "texts": sum(len(c.texts_) for c in [*queries, *targets])}
    if shape == "feature_texts":
        return {"classes": len(data[0].features) if data else 0, "texts": len(data)}
    return {"texts": len(data) if hasattr(data, "__len__") else 0}


@dataclass
class DataCheck:
    """What `steb data check` found for one dataset."""

    dataset: str
    status: str  # "ok", "differs", "missing", "error", "builtin"
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    expected: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    message: str = ""
    seconds: float = 0.0


def check_dataset(spec: DatasetSpec, data_dir: str | Path | None, *, seed: int = 0, tasks: Iterable[str] | None = None,
                  shapes: Mapping[str, str] | None = None, options: Mapping[str, Any] | None = None) -> DataCheck:
    """Load ``spec`` (nothing is encoded) and compare its counts with the catalogue's promise."""
    started = time.perf_counter()
    ctx = LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, data_dir), seed, dict(options or {}))
    try:
        bundle = spec.loader(ctx)
    except (StebError, OSError) as exc:
        missing = isinstance(exc, FileNotFoundError)
        return DataCheck(spec.name, "missing" if missing else "error", expected=spec.expected,
                         message=str(exc) if not missing else (spec.obtain or str(exc)), seconds=time.perf_counter() - started)
    except ValueError as exc:
        return DataCheck(spec.name, "error", expected=spec.expected, message=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - started)
    counts: dict[str, dict[str, int]] = {}
    for task in tasks or spec.tasks:
        shape = (shapes or {}).get(task)
        if shape:
            counts[task] = shape_counts(bundle, shape)
    status = "ok" if spec.needs_data else "builtin"
    notes = []
    for task, promise in spec.expected.items():
        got = counts.get(task, {})
        for key in ("classes", "texts"):
            if key in promise and got.get(key) is not None and got[key] != promise[key]:
                status = "differs"
                notes.append(f"{task} {key} {got[key]} vs {promise[key]}")
    return DataCheck(spec.name, status, counts, spec.expected, "; ".join(notes), time.perf_counter() - started)
