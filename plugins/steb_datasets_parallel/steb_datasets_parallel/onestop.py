"""OneStopEnglish (Vajjala & Lucic, 2018): news articles rewritten at three reading levels.

Release layout (github.com/nishkalavallabhi/OneStopEnglishCorpus, CC BY-SA 4.0)::

    Texts-SeparatedByReadingLevel/Ele-Txt/<Title>-ele.txt
    Texts-SeparatedByReadingLevel/Int-Txt/<Title>-int.txt
    Texts-SeparatedByReadingLevel/Adv-Txt/<Title>-adv.txt

An article present at all three levels is one parallel item on the axis elementary -> intermediate ->
advanced, so groups are 3-element ordered sets. The release starts many files with a line naming the
level ("Intermediate"); that line is dropped. A few release files are not UTF-8: they are decoded as
Windows-1252 and listed in the info. Articles missing a level are listed, not silently lost.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from steb_core import DataValidationError, LoadContext, read_text
from steb_core.io import read_bytes, unique_keys
from steb_core.parallel import ParallelItem

__all__ = ["read_onestop", "OBTAIN", "LAYOUT", "LEVELS"]

LEVELS = (("ele", "Ele-Txt", "elementary"), ("int", "Int-Txt", "intermediate"), ("adv", "Adv-Txt", "advanced"))
OBTAIN = "clone https://github.com/nishkalavallabhi/OneStopEnglishCorpus (CC BY-SA 4.0)"
LAYOUT = "<data-dir>/OneStopEnglishCorpus/Texts-SeparatedByReadingLevel/{Ele-Txt,Int-Txt,Adv-Txt}/<Title>-{ele,int,adv}.txt"


def _read_article(path: Path, level_name: str, fallback: list[str]) -> str:
    try:
        text = read_text(path)
    except DataValidationError:
        text = read_bytes(path).decode("cp1252", errors="strict").replace("\r\n", "\n").replace("\r", "\n")
        fallback.append(path.name)
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].strip().lower() == level_name:
        lines.pop(0)
    body = "\n".join(lines).strip()
    if not body:
        raise DataValidationError("holds no article text", path=path, record=path.stem, field="text", expected="the article")
    return body


def read_onestop(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    base = root / "Texts-SeparatedByReadingLevel" if (root / "Texts-SeparatedByReadingLevel").is_dir() else root
    by_title: dict[str, dict[str, Path]] = {}
    for suffix, folder, _ in LEVELS:
        directory = base / folder
        if not directory.is_dir():
            ctx.require_file(str(directory.relative_to(root)), OBTAIN, LAYOUT)  # raises naming the folder
        # two files naming one article at one level (e.g. "X-int.txt" and "X_int.txt") are an error, not an overwrite
        titles = unique_keys(((path.name, re.sub(rf"[-_ ]{suffix}$", "", path.stem, flags=re.IGNORECASE).strip(), path)
                              for path in sorted(directory.glob("*.txt"))), path=directory, field="title", what="file")
        for title, path in titles.items():
            by_title.setdefault(title, {})[suffix] = path
    fallback: list[str] = []
    items, incomplete = [], []
    for title in sorted(by_title):
        paths = by_title[title]
        if len(paths) < len(LEVELS):
            incomplete.append(title)
            continue
        texts = tuple(_read_article(paths[s], name, fallback) for s, _, name in LEVELS)
        items.append(ParallelItem(texts, id=title, style_type="reading-level", source=str(paths["ele"])))
    return items, {"axis": [name for _, _, name in LEVELS], "articles": len(items),
                   "articles_missing_a_level": incomplete, "decoded_as_cp1252": fallback}
