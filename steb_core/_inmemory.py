"""Datasets from memory: a pandas or polars DataFrame, a Hugging Face ``datasets.Dataset`` or a list of
dicts, turned into a dataset steb can evaluate (``steb.evaluate(model, datasets=[steb.dataset_from(df,
shape="labelled_texts", text="sentence", label="register")])``).

The rows go through the generic loader's column mapping (:func:`steb_core._tables.records_from_rows`),
so validation errors are the same as for files: the row, the column and what was expected.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._records import SHAPES, DatasetBundle, RetrievalSet
from ._specs import DatasetSpec, LoadContext, TaskSpec
from ._tables import records_from_rows

__all__ = ["dataset_from", "default_tasks"]


def default_tasks(shape: str, tasks: Iterable[TaskSpec] | None = None) -> tuple[str, ...]:
    """The task types a dataset of ``shape`` feeds when ``dataset_from`` is given no ``tasks``: those of ``tasks``
    (default: the registered task types, in registration order) that read ``shape`` and say
    :attr:`TaskSpec.default_for_shape` (``labelled_texts``: clustering and pair_all)."""
    if tasks is None:
        from ._plugins import get_manager

        tasks = list(get_manager().tasks())
    found = tuple(t.name for t in tasks if t.shape == shape and t.default_for_shape)
    if not found:
        raise ValueError(f"no registered task type reads shape '{shape}' by default: pass dataset_from(tasks=...)")
    return found


def _rows_of(data: Any) -> list[dict[str, Any]]:
    if hasattr(data, "to_dicts"):  # polars
        return list(data.to_dicts())
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # pandas
        return list(data.to_dict("records"))
    if hasattr(data, "to_list") and hasattr(data, "column_names"):  # datasets.Dataset
        return list(data.to_list())
    if isinstance(data, Sequence) and all(isinstance(r, Mapping) for r in data):
        return [dict(r) for r in data]
    raise TypeError(
        "dataset_from needs a pandas/polars DataFrame, a datasets.Dataset or a list of dicts, got "
        f"{type(data).__name__}"
    )


def _content_version(rows: list[dict[str, Any]], shape: str, columns: Mapping[str, Any]) -> str:
    """A version that changes with the data, so results of edited frames are never reused."""
    digest = hashlib.sha256(json.dumps([shape, dict(columns), rows], sort_keys=True, default=str).encode())
    return "mem-" + digest.hexdigest()[:16]


def dataset_from(
    data: Any,
    *,
    shape: str,
    name: str | None = None,
    tasks: Iterable[str] | None = None,
    description: str = "",
    **fields: Any,
) -> DatasetSpec:
    """A :class:`DatasetSpec` over in-memory rows; pass it wherever a dataset name is accepted.

    ``shape`` is one of ``labelled_texts``, ``pairs``, ``order_groups``, ``retrieval``,
    ``feature_texts``. Column names map record fields as in the generic loader: ``text="sentence"``,
    ``label="register"``, ``text_a=``, ``text_b=``, ``same=``, ``anchors=[...]``, ``features="*"`` ...;
    other keyword arguments are spec fields (``categories``, ``languages``, ``citation`` ...).
    The dataset's version is a hash of its content, so an edited frame is never confused with the old one.
    Without ``name`` the dataset is named ``in_memory-<content hash>``, so two frames evaluated into one
    output folder never share a result file (and the same frame always finds its results again); with
    ``name``, an edited frame under the same name is recomputed like an edited release.
    """
    if shape not in SHAPES:
        raise ValueError(f"unknown shape '{shape}'; known: {', '.join(SHAPES)}")
    mapping_fields = {
        "text",
        "label",
        "id",
        "text_a",
        "text_b",
        "same",
        "group",
        "anchors",
        "alternatives",
        "answer",
        "distractor",
        "style_type",
        "author",
        "split",
        "features",
    }
    columns = {k: fields.pop(k) for k in list(fields) if k in mapping_fields}
    rows = _rows_of(data)
    version = _content_version(rows, shape, columns)
    if name is None:
        name = f"in_memory-{version.removeprefix('mem-')[:10]}"
    elif not str(name).strip():
        raise ValueError("dataset_from(name=...) is empty; give a name or leave it out (a content hash names it)")

    def load(ctx: LoadContext) -> DatasetBundle:
        located_rows = ((f"row {i}", row) for i, row in enumerate(rows, start=1))
        records = records_from_rows(located_rows, shape, columns, path=f"<in-memory dataset '{name}'>")
        info = {"source": "memory", "rows": len(rows), "columns": columns}
        if shape == "retrieval":
            return DatasetBundle(
                retrieval=RetrievalSet(
                    queries=tuple(c for side, c in records if side == "query"),
                    targets=tuple(c for side, c in records if side == "target"),
                ),
                info=info,
            )
        records_of: dict[str, Any] = {shape: records}
        return DatasetBundle(**records_of, info=info)

    return DatasetSpec(
        name=name,
        description=description or f"in-memory {shape} ({len(rows)} rows)",
        tasks=tuple(tasks or default_tasks(shape)),
        loader=load,
        needs_data=False,
        version=version,
        **fields,
    )
