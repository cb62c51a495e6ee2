"""The plugin module named by the entry point: one hook, two datasets.

``example-register`` ships its data inside the package (a tiny CSV written for this example), so it
runs anywhere. ``example-user-pairs`` reads a file the user downloads, to show how a spec tells them
what to fetch and how the loader finds it under ``--data-dir`` / ``$STEB_DATA_DIR``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from steb_core import DatasetSpec, generic_dataset, hookimpl

DATA = Path(__file__).parent / "data"


@hookimpl
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(
        generic_dataset(
            "example-register",
            path=DATA / "tiny_register.csv",  # absolute: shipped with the package (needs_data=False)
            shape="labelled_texts",
            columns={"text": "sentence", "label": "register", "id": "sid"},
            per_class=8,  # seeded cap per label, recorded in bundle.info
            tasks=("clustering", "pair_all"),
            description="Formal vs informal sentences written for the steb plugin example.",
            categories=("register",),
            languages=("en",),
            license="CC0-1.0",
            citation="",
        )
    )
    register(
        generic_dataset(
            "example-user-pairs",
            path="pairs.jsonl",  # relative: ROOT/example-user-pairs/pairs.jsonl
            shape="pairs",
            columns={"text_a": "first", "text_b": "second", "same": "same_author"},
            tasks=("pair_predefined",),
            description="Same-author pairs from a JSON-lines file the user supplies.",
            categories=("idiolect",),
            applications=("AV",),
            obtain="write pairs.jsonl with one object per line: first, second, same_author (true/false)",
        )
    )
