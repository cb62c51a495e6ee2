"""Report plots as inline PNG data URIs (matplotlib, imported only here, only when an HTML page is written).

Figures are built with :class:`matplotlib.figure.Figure` directly rather than pyplot, so no GUI
backend is chosen and no global figure state is touched. Sizes are chosen so that the page shows the
images at their natural size (the HTML never scales them down): every text is at least
:data:`MIN_TEXT_PX` pixels high on screen at 100 % zoom, and tick labels never overlap
(:func:`overlapping_labels` checks it; the tests use it).
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

from ..aggregators.result import Column
from .leaderboard import Leaderboard

__all__ = [
    "task_bars",
    "dataset_heatmap",
    "definitional_radar",
    "radar_columns",
    "task_bars_figure",
    "heatmap_figure",
    "radar_figure",
    "overlapping_labels",
    "MIN_TEXT_PX",
]

_DPI = 100
#: The smallest text any plot draws, in screen pixels at 100 % zoom (9 pt at 100 dpi = 12.5 px).
MIN_TEXT_PX = 12.0
_SMALL = 9  # points
_NORMAL = 10


def _data_uri(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(width: float, height: float, **kwargs: Any) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=_DPI, **kwargs)


def overlapping_labels(fig: Any) -> list[tuple[str, str]]:
    """Pairs of tick labels (same axis) whose drawn boxes intersect; empty when the figure is legible."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    clashes = []
    for ax in fig.axes:
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in labels if t.get_text() and t.get_visible()]
            for i, (name_a, a) in enumerate(boxes):
                for name_b, b in boxes[i + 1 :]:
                    if a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5:
                        clashes.append((name_a, name_b))
    return clashes


def task_bars_figure(board: Leaderboard) -> Any | None:
    """Grouped bars: one group per task type (operational sub-columns), one bar per encoder."""
    agg = board.aggregate("operational")
    if agg is None or not agg.sub_columns or "operational" in board.dropped:
        return None
    tasks, encoders = agg.sub_columns, board.encoders
    fig = _figure(1.5 + max(1.8 * len(tasks), 0.3 * len(tasks) * max(1, len(encoders))), 4.2)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(encoders))
    for i, enc in enumerate(encoders):
        xs = [t + (i - (len(encoders) - 1) / 2) * width for t in range(len(tasks))]
        ys = [(col.scores.get(enc) or 0.0) * 100 for col in tasks]
        ax.bar(xs, ys, width, label=enc)
        for x, col in zip(xs, tasks):
            if col.scores.get(enc) is None:  # a gap is shown as such, not as a zero score
                ax.text(x, 1, "n/a", ha="center", va="bottom", fontsize=_SMALL, rotation=90)
    ax.set_xticks(range(len(tasks)), [col.name.split("/", 1)[-1].replace("_", "\n") for col in tasks], fontsize=_NORMAL)
    ax.tick_params(axis="y", labelsize=_NORMAL)
    ax.set_ylabel("score x100", fontsize=_NORMAL)
    ax.set_ylim(0, 100)
    ax.set_title("Operational score per task type", fontsize=_NORMAL + 2)
    ax.legend(
        fontsize=_SMALL, ncols=min(len(encoders), 4), loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False
    )
    ax.grid(axis="y", alpha=0.3)
    return fig


_WRAP = 13  # characters per line of an encoder name above a heat-map column (about 1 inch at 10 pt)


def _wrap(name: str, width: int = _WRAP) -> str:
    """An encoder name broken after '-', '/', '_' or '.' into lines of at most ``width`` characters."""
    import re

    parts = re.findall(r"[^-/_.]+[-/_.]?", name) or [name]
    lines, line = [], ""
    for part in parts:
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    return "\n".join(lines)


#: chance levels of metrics whose chance level does not depend on the data (a record's own
#: ``chance_<metric>`` wins: order alignment computes its analytic one per dataset); other metrics
#: (MRR, probing accuracy, V-measure) are coloured from 0
CHANCE = {"auroc": 0.5, "roc_auc": 0.5}


def chance_of(board: Leaderboard, encoder: str, dataset: str, task: str, metric: str) -> float:
    """The chance level of ``metric`` for one result: the record's ``chance_<metric>``, else :data:`CHANCE`, else 0."""
    rec = board.table.get(encoder, dataset, task)
    own = rec.metrics.get(f"chance_{metric}") if rec is not None else None
    if isinstance(own, (int, float)) and not isinstance(own, bool) and 0 <= own < 1:
        return float(own)
    return CHANCE.get(metric, 0.0)


def above_chance(value: float, chance: float) -> float:
    """``value`` on a 0-100 scale where 0 is chance and 100 is perfect (below chance is 0), so a
    chance-level AUROC of 0.5 is as dark as a V-measure of 0, not a middling colour."""
    if chance >= 1:
        return 0.0
    return max(0.0, min(1.0, (value - chance) / (1.0 - chance))) * 100


def _above_chance_or_nan(value: float | None, chance: float) -> float:
    """:func:`above_chance`, NaN (an empty cell) for a missing value."""
    return math.nan if value is None else above_chance(value, chance)


def heatmap_figure(board: Leaderboard) -> Any | None:
    """(dataset, task) rows x encoder columns of the operational metric, every cell annotated.

    Rows are labelled ``dataset · task · metric``; a task with companion metrics (order alignment)
    shows the companion under the main value (``acc 100``), so a 0 next to the run's 1.0 is explained.
    Blank cells are missing results. The colour is the score relative to its metric's chance level
    (:func:`above_chance`; the chance level is in each row's label), the number is the score itself.
    """
    import numpy as np

    pairs = list(board.table.expected)
    encoders = board.encoders
    if not pairs or not encoders:
        return None
    cells = {(e, d, t): board.cell(e, d, t) for e in encoders for d, t in pairs}
    chance = {(e, d, t): chance_of(board, e, d, t, cells[(e, d, t)].metric) for e in encoders for d, t in pairs}
    grid = np.array(
        [[_above_chance_or_nan(cells[(e, d, t)].value, chance[(e, d, t)]) for e in encoders] for d, t in pairs]
    ).reshape(len(pairs), len(encoders))
    has_companion = any(c.companions for c in cells.values())
    row_h = 0.46 if has_companion else 0.32
    col_w = 1.05
    fig = _figure(1.8 + col_w * len(encoders), 1.3 + row_h * len(pairs))
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap="viridis", vmin=0, vmax=100)

    def row_label(d: str, t: str) -> str:
        metrics = sorted({cells[(e, d, t)].metric for e in encoders if cells[(e, d, t)].value is not None})
        short = {
            "distractor_accuracy": "distractor acc.",
            "accuracy": "acc.",
            "v_measure": "V",
            "auroc": "AUC",
            "mrr": "MRR",
        }
        levels = sorted({round(chance[(e, d, t)] * 100) for e in encoders if cells[(e, d, t)].value is not None})
        shown = f" (chance {'/'.join(str(x) for x in levels)})" if levels else ""
        return f"{d} · {t} · {'/'.join(short.get(m, m) for m in metrics) or '—'}{shown}"

    ax.set_yticks(range(len(pairs)), [row_label(d, t) for d, t in pairs], fontsize=_NORMAL)
    ax.xaxis.tick_top()
    names = [_wrap(e) for e in encoders]
    vertical = any(len(line) > _WRAP for name in names for line in name.split("\n"))
    ax.set_xticks(
        range(len(encoders)), encoders if vertical else names, fontsize=_NORMAL, rotation=90 if vertical else 0
    )
    lines = max(n.count("\n") + 1 for n in names)
    for r, (d, t) in enumerate(pairs):
        for c, e in enumerate(encoders):
            cell = cells[(e, d, t)]
            if cell.value is None:
                continue
            v = cell.value * 100
            text = f"{v:.0f}"
            if cell.companions:
                text += "\n" + " ".join(f"{'acc' if n == 'accuracy' else n} {x * 100:.0f}" for n, x in cell.companions)
            ax.text(
                c,
                r,
                text,
                ha="center",
                va="center",
                fontsize=_NORMAL if not cell.companions else _SMALL,
                color="white" if grid[r, c] < 55 else "black",
                linespacing=1.0,
            )
    bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    bar.set_label("above chance: 0 = chance (see row label), 100 = perfect", fontsize=_NORMAL)
    bar.ax.tick_params(labelsize=_SMALL)
    ax.set_title(
        "Per-dataset score (the operational metric; 'acc' = plain accuracy)", fontsize=_NORMAL + 2, pad=12 + 15 * lines
    )
    return fig


def radar_columns(board: Leaderboard) -> list[Column]:
    """The definitional axes: the six object-of-study columns (idiolect among them), linguistic features, content
    independence; only those that are columns of the report's tables (an aggregate that cannot be complete in this
    scope, :attr:`Leaderboard.dropped`, is in no table, so it is no axis either)."""
    shown = {agg.name: agg for agg in board.shown_aggregates()}
    axes: list[Column] = []
    objects = shown.get("objects-of-study")
    if objects is not None:
        axes += objects.sub_columns
    for name in ("linguistic-features", "content-independence"):
        agg = shown.get(name)
        if agg is not None:
            axes.append(agg)
    return [col for col in axes if any(v is not None for v in col.scores.values())]


def radar_figure(board: Leaderboard) -> Any | None:
    """Radar of the definitional categories per encoder (axes no encoder has are left out)."""
    import numpy as np

    axes = radar_columns(board)
    if len(axes) < 3:
        return None
    angles = np.linspace(0, 2 * np.pi, len(axes), endpoint=False).tolist()
    fig = _figure(7.0, 6.2)
    ax = fig.add_subplot(projection="polar")
    for enc in board.encoders:
        vals = [np.nan if (score := col.scores.get(enc)) is None else score * 100 for col in axes]
        ax.plot(angles + angles[:1], vals + vals[:1], marker="o", linewidth=1.5, label=enc)
        if not any(math.isnan(v) for v in vals):
            ax.fill(angles + angles[:1], vals + vals[:1], alpha=0.08)
    ax.set_xticks(
        angles, [col.label.replace(" ", "\n") if len(col.label) > 10 else col.label for col in axes], fontsize=_NORMAL
    )
    ax.tick_params(axis="y", labelsize=_SMALL)
    ax.tick_params(axis="x", pad=14)  # keep two-line labels off the outer circle
    ax.set_ylim(0, 100)
    ax.set_title("Definitional categories (x100)", pad=24, fontsize=_NORMAL + 2)
    ax.legend(fontsize=_SMALL, loc="upper left", bbox_to_anchor=(1.12, 1.05), frameon=False)
    return fig


def _uri(fig: Any | None) -> str | None:
    return None if fig is None else _data_uri(fig)


def task_bars(board: Leaderboard) -> str | None:
    return _uri(task_bars_figure(board))


def dataset_heatmap(board: Leaderboard) -> str | None:
    return _uri(heatmap_figure(board))


def definitional_radar(board: Leaderboard) -> str | None:
    return _uri(radar_figure(board))
