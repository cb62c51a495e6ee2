"""Registers ``example-politeness``: eight invented rewrites, content and style rated 1-5 by two raters.

A real set's loader reads its release from ``folder`` (the path given with ``--data``, or the folder
``steb data get`` fills); this one writes its few rows itself, so ``needs_data=False`` and ``folder`` is unused.
Everything it uses comes from ``steb_core``'s public API: the spec, the table builder (which checks the scale, the
columns and the subsets) and the hook marker.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from steb_core import AspectRatings, JudgementSetSpec, JudgementTable, RatingScale, hookimpl, judgement_table

SCALE = RatingScale(1, 5, "ordinal")

#: (subset, source, output, content ratings, style ratings): invented for this example
ROWS = (
    ("polite", "Send me the file now.", "Could you send me the file, please?", (5, 4), (5, 5)),
    ("polite", "Send me the file now.", "Send the file.", (4, 4), (1, 2)),
    ("polite", "Stop calling me.", "Would you mind not calling me so often?", (4, 5), (5, 4)),
    ("polite", "Stop calling me.", "Please stop the car.", (1, 2), (4, 3)),
    ("formal", "gonna be late lol", "I am going to be late.", (5, 5), (5, 4)),
    ("formal", "gonna be late lol", "I will arrive early.", (1, 1), (4, 5)),
    ("formal", "thx for the help", "Thank you for your assistance.", (5, 4), (5, 5)),
    ("formal", "thx for the help", "thanks 4 help", (4, 4), (1, 1)),
)


def load_example(folder: Path) -> JudgementTable:
    """The eight rows above as a judgement table (``folder`` is not read)."""
    blocks = {
        aspect: AspectRatings(
            aspect,
            SCALE,
            ("rater-1", "rater-2"),
            np.array([row[3 + k] for row in ROWS], dtype=float),
            fields=(f"{aspect}-1", f"{aspect}-2"),
        )
        for k, aspect in enumerate(("content", "style"))
    }
    return judgement_table(
        name="example-politeness",
        item_id=[f"{row[0]}/{i}" for i, row in enumerate(ROWS)],
        source=[row[1] for row in ROWS],
        output=[row[2] for row in ROWS],
        subset=[row[0] for row in ROWS],
        target_style=[row[0] for row in ROWS],
        ratings=blocks,
        files=["steb_judgements_example.plugin.ROWS"],
    )


@hookimpl
def register_judgement_sets(register: Callable[[JudgementSetSpec], None]) -> None:
    register(
        JudgementSetSpec(
            name="example-politeness",
            description="worked example: 8 invented rewrites (polite, formal), content and style rated 1-5 by two "
            "raters",
            loader=load_example,
            license="MIT",
            obtain="ships with the plugin",
            aspects=("content", "style"),
            protocols=("pauli2025",),
            size="8 rows, 2 subsets, 2 raters",
            needs_data=False,
        )
    )
