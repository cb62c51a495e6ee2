"""Report plots as inline PNG data URIs (matplotlib, imported only here, only when an HTML page is written).

Figures are built with :class:`matplotlib.figure.Figure` directly rather than pyplot, so no GUI
backend is chosen and no global figure state is touched.
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

from ..aggregators.result import Column
from .leaderboard import Leaderboard

__all__ = ["task_bars", "dataset_heatmap", "definitional_radar", "radar_columns"]

_DPI = 100


def _data_uri(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(width: float, height: float, **kwargs: Any) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), **kwargs)


def task_bars(board: Leaderboard) -> str | None:
    """Grouped bars: one group per task type (operational sub-columns), one bar per encoder."""
    agg = board.aggregate("operational")
    if agg is None or not agg.sub_columns:
        return None
    tasks, encoders = agg.sub_columns, board.encoders
    fig = _figure(max(6.0, 1.2 * len(tasks) * max(1, len(encoders)) / 3 + 3), 3.8)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(encoders))
    for i, enc in enumerate(encoders):
        xs = [t + (i - (len(encoders) - 1) / 2) * width for t in range(len(tasks))]
        ys = [(col.scores.get(enc) or 0.0) * 100 for col in tasks]
        ax.bar(xs, ys, width, label=enc)
        for x, col in zip(xs, tasks):
            if col.scores.get(enc) is None:  # a gap is shown as such, not as a zero score
                ax.text(x, 1, "n/a", ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_xticks(range(len(tasks)), [col.name.split("/", 1)[-1] for col in tasks])
    ax.set_ylabel("score x100")
    ax.set_title("Operational score per task type")
    ax.legend(fontsize=8, ncols=min(len(encoders), 5), loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _data_uri(fig)


def dataset_heatmap(board: Leaderboard) -> str | None:
    """Encoders x (dataset, task) heat map of the operational metric; blank cells are missing results."""
    import numpy as np

    cols, values = board.dataset_scores()
    encoders = board.encoders
    if not cols or not encoders:
        return None
    grid = np.array([[np.nan if values[e][(d, t)] is None else values[e][(d, t)] * 100 for d, t, _ in cols] for e in encoders])
    fig = _figure(min(40.0, 2.5 + 0.32 * len(cols)), 1.6 + 0.42 * len(encoders) + 0.09 * max(len(f"{d}/{t}") for d, t, _ in cols))
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap="viridis", vmin=0, vmax=100)
    ax.set_xticks(range(len(cols)), [f"{d} / {t}" for d, t, _ in cols], rotation=90, fontsize=7)
    ax.set_yticks(range(len(encoders)), encoders, fontsize=8)
    if grid.size <= 400:
        for (r, c), v in np.ndenumerate(grid):
            if not math.isnan(v):
                ax.text(c, r, f"{v:.0f}", ha="center", va="center", fontsize=6, color="white" if v < 60 else "black")
    fig.colorbar(image, ax=ax, fraction=0.03, pad=0.01, label="x100")
    ax.set_title("Per-dataset score (operational metric)")
    return _data_uri(fig)


def radar_columns(board: Leaderboard) -> list[Column]:
    """The definitional axes: the object-of-study sub-columns, linguistic features, content independence."""
    axes: list[Column] = []
    objects = board.aggregate("objects-of-study")
    if objects is not None:
        axes += objects.sub_columns
    for name in ("linguistic-features", "content-independence"):
        agg = board.aggregate(name)
        if agg is not None:
            axes.append(agg)
    return [col for col in axes if any(v is not None for v in col.scores.values())]


def definitional_radar(board: Leaderboard) -> str | None:
    """Radar of the definitional categories per encoder (axes no encoder has are left out)."""
    import numpy as np

    axes = radar_columns(board)
    if len(axes) < 3:
        return None
    angles = np.linspace(0, 2 * np.pi, len(axes), endpoint=False).tolist()
    fig = _figure(6.5, 6.0)
    ax = fig.add_subplot(projection="polar")
    for enc in board.encoders:
        vals = [np.nan if col.scores.get(enc) is None else col.scores[enc] * 100 for col in axes]
        ax.plot(angles + angles[:1], vals + vals[:1], marker="o", linewidth=1.5, label=enc)
        if not any(math.isnan(v) for v in vals):
            ax.fill(angles + angles[:1], vals + vals[:1], alpha=0.08)
    ax.set_xticks(angles, [col.label.replace(" ", "\n") if len(col.label) > 10 else col.label for col in axes], fontsize=9)
    ax.set_ylim(0, 100)
    ax.set_title("Definitional categories (x100)", pad=20)
    ax.legend(fontsize=8, loc="upper right", bbox_to_anchor=(1.35, 1.1), frameon=False)
    return _data_uri(fig)
