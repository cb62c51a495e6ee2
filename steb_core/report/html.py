"""A self-contained HTML page: the Markdown report rendered to HTML, plus the plots inlined as data URIs.

Nothing is fetched when the page is opened (no scripts, fonts or images from elsewhere), so the file
can be mailed or archived next to the results. Plots are shown at their natural size (wide ones
scroll sideways) so their text stays as large as it was drawn.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from markdown_it import MarkdownIt

from .leaderboard import Leaderboard
from .markdown import markdown_sections, report_header
from .plots import dataset_heatmap, definitional_radar, task_bars

__all__ = ["render_html"]

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1300px; color: #222;
       padding: 0 1em; }
h1 { margin-bottom: .2em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 14px; margin: .6em 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f3f5f7; } td:first-child, th:first-child { text-align: left; }
tbody tr:nth-child(even) { background: #fafafa; }
td strong { background: #d9f2d9; color: #135213; padding: 0 3px; border-radius: 3px; }
td em { font-style: normal; text-decoration: underline; text-decoration-thickness: 2px; }
.plots figure { margin: 1em 0; overflow-x: auto; }
.plots img { max-width: none; border: 1px solid #eee; display: block; }
figcaption { color: #555; font-size: 14px; }
.scroll { overflow-x: auto; } code { background: #f3f3f3; padding: 0 3px; }
"""


def _plots_section(board: Leaderboard) -> str:
    figures = [
        ("Per-task scores", task_bars(board)),
        ("Model x dataset heat map", dataset_heatmap(board)),
        ("Definitional categories", definitional_radar(board)),
    ]
    parts = ['<section class="plots"><h2>Plots' + (f" — {html.escape(board.title)}" if board.suite else "") + "</h2>"]
    for caption, uri in figures:
        if uri is None:
            parts.append(f'<p class="no-plot"><em>{html.escape(caption)}: not enough data to plot.</em></p>')
        else:
            parts.append(
                f'<figure><img alt="{html.escape(caption)}" '
                f'src="{uri}"><figcaption>{html.escape(caption)}</figcaption></figure>'
            )
    parts.append("</section>")
    return "\n".join(parts)


def render_html(boards: Leaderboard | Sequence[Leaderboard], data_notes: Sequence[str] = ()) -> str:
    """The page; ``data_notes`` (encoders compared on different data, see :mod:`.provenance`) come right after the
    header."""
    boards = [boards] if isinstance(boards, Leaderboard) else list(boards)
    several = len(boards) > 1
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    body = [md.render(report_header(boards))]
    if data_notes:
        body.append(md.render("## Data provenance\n\n" + "".join(f"- {n}\n" for n in data_notes)))
    for board in boards:
        sections = markdown_sections(board, several)
        body += [f'<div class="scroll">{md.render(sections[0])}</div>', _plots_section(board)]
        body += [f'<div class="scroll">{md.render(s)}</div>' for s in sections[1:]]
    page = _link_missing_inputs("\n".join(body))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>steb report</title>\n<style>{_CSS}</style>\n</head>\n<body>\n" + page + "\n</body>\n</html>\n"
    )


def _link_missing_inputs(page: str) -> str:
    """The header's pointer to *Missing inputs* becomes a link to that section's heading, and only when the
    heading is on the page (a pointer to nothing sends readers searching)."""
    heading = re.search(r"<h([23])>Missing inputs", page)
    if heading is None:
        return page.replace(" (see <em>Missing inputs</em> below)", "")
    page = page[: heading.start()] + f'<h{heading.group(1)} id="missing-inputs">Missing inputs' + page[heading.end() :]
    return page.replace(
        "see <em>Missing inputs</em> below", 'see <a href="#missing-inputs"><em>Missing inputs</em></a> below', 1
    )
