"""OneStopEnglish (Vajjala & Lucic, 2018): news articles rewritten at three reading levels.

Release layout (github.com/nishkalavallabhi/OneStopEnglishCorpus, CC BY-SA 4.0)::

    Texts-SeparatedByReadingLevel/Adv-Txt/<Title>-adv.txt
    Texts-SeparatedByReadingLevel/Int-Txt/Int-Txt/<Title>-int.txt   (UTF-8 with a BOM)
    Texts-SeparatedByReadingLevel/Int-Txt/<Title>-int.txt           (the same articles, first line "Intermediate")
    Texts-SeparatedByReadingLevel/Ele-Txt/<Title>-ele.txt

Two datasets read it, each a named construction (as MTEB versions a fixed task):

- ``OneStopEnglishCorpus`` -- the STEB reference's (``steb/steb_datasets/OneStopEnglishCorpus/loader.py``
  @7cca21e6 ``load_onestop_english_corpus``, config @9fe91f52; the older stored loader @ad8696e0 reads the CSV
  files, which fail on this release as they are not UTF-8): one sequence per **line index** of an article's three
  files, [advanced, intermediate, elementary], label ``complexity`` (:func:`read_onestop`), articles in sorted
  order. The intermediate files are the top-level ``Int-Txt/*.txt``, each starting with the release's header line
  "Intermediate", so the first triplet of every article pairs an advanced line with that header: the reading
  behind the authors' published figures (issue 45: their OneStop figures, function words and MiniLM alike, are
  this reading's: 2,088 triplets, function-word distractor accuracy 0.287), although the stored loader's code
  names ``Int-Txt/Int-Txt/`` (option ``int_folder=nested``: the same articles, UTF-8 with a BOM, no header line,
  2,117 triplets). The reference is defective -- the levels are not line-aligned (1 of 189 articles has equal line
  counts; the header line; index-paired lines share a median 18.5 % of their words) -- but it stays the default,
  because comparability with the published figures is the point of the benchmark.
- ``OneStopEnglishCorpus.v2`` -- the corrected construction: one sequence per *article*, its three whole texts
  [advanced, intermediate, elementary] (:func:`read_onestop_articles`), the intermediate text from
  ``Int-Txt/Int-Txt/`` (the UTF-8 files; a first line naming the level is dropped either way).
"""

from __future__ import annotations

from itertools import zip_longest
from pathlib import Path
from typing import Any

from steb_core import DataValidationError, LoadContext, ParallelItem, read_bytes, read_text, unique_keys

__all__ = ["read_onestop", "read_onestop_articles", "OBTAIN", "LAYOUT", "LEVELS", "onestop_level_files"]

#: (file suffix, folder, level name) in the reference's sequence order: most complex first
LEVELS = (("adv", "Adv-Txt", "advanced"), ("int", "Int-Txt", "intermediate"), ("ele", "Ele-Txt", "elementary"))
OBTAIN = "clone https://github.com/nishkalavallabhi/OneStopEnglishCorpus (CC BY-SA 4.0)"
LAYOUT = (
    "<data-dir>/OneStopEnglishCorpus/Texts-SeparatedByReadingLevel/{Adv-Txt,Int-Txt/Int-Txt,Ele-Txt}/"
    "<Title>-{adv,int,ele}.txt "
    "(Int-Txt/<Title>-int.txt when the nested folder is absent)"
)


def _base_name(name: str) -> str:
    """The reference's article key: the file name without ``-adv.txt``/``-int.txt``/``-ele.txt`` (any case), else
    without its extension."""
    lower = name.lower()
    for suffix in ("-adv.txt", "-int.txt", "-ele.txt"):
        if lower.endswith(suffix):
            return name[: -len(suffix)]
    return name.rsplit(".", 1)[0] if "." in name else name


def onestop_level_files(
    ctx: LoadContext, root: Path, default_int_folder: str = "top"
) -> tuple[Path, dict[str, dict[str, Path]]]:
    """The folder holding the three level folders and, per level suffix, article key -> file.

    The intermediate level is read from ``Int-Txt/`` (``int_folder=top``, the reference's figures: each file starts
    with a line "Intermediate"; 2,088 line triplets on the release) or from ``Int-Txt/Int-Txt/``
    (``int_folder=nested``: UTF-8 with a BOM, no header line; 2,117 triplets); a release without the nested folder
    reads ``Int-Txt/`` either way. Two files giving one article key at one level are an error (the reference would
    keep whichever its listing gave last).
    """
    int_folder = str(ctx.options.get("int_folder", default_int_folder)).strip().lower()
    if int_folder not in ("nested", "top"):
        raise DataValidationError(f"option int_folder={int_folder!r}", field="int_folder", expected="nested or top")
    base = root / "Texts-SeparatedByReadingLevel" if (root / "Texts-SeparatedByReadingLevel").is_dir() else root
    out: dict[str, dict[str, Path]] = {}
    for suffix, folder, _ in LEVELS:
        directory = base / folder
        if suffix == "int" and int_folder == "nested" and (directory / folder).is_dir():
            directory = directory / folder
        if not directory.is_dir():
            ctx.require_file(str(directory.relative_to(root)), OBTAIN, LAYOUT)  # raises naming the folder
        out[suffix] = unique_keys(
            ((p.name, _base_name(p.name), p) for p in sorted(directory.glob("*.txt"))),
            path=directory,
            field="article",
            what="file",
        )
    return base, out


def _reference_lines(path: Path) -> list[str] | None:
    """The file's lines as the reference reads them (UTF-8 with an optional BOM, each line stripped), or None for a
    file that is not UTF-8: the reference then reads it as empty, so the article gives no sequence."""
    try:
        raw = read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    lines = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.strip() for line in lines]


def read_onestop(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """The reference's sequences: per article present at all three levels (keys sorted), per line index ``i`` of
    the three files (``zip_longest``), the sequence [adv line i, int line i, ele line i] when all three exist and are
    non-empty (the header line "Intermediate" is line 1 of every top-level Int file); label ``complexity`` (k = 3).
    On the release: 2,088 sequences from 189 articles, the first 200 from the first articles in sorted order."""
    _, files = onestop_level_files(ctx, root, "top")
    common = sorted(set(files["adv"]) & set(files["int"]) & set(files["ele"]))
    items: list[ParallelItem] = []
    not_utf8: list[str] = []
    for key in common:
        paths = [files[suffix][key] for suffix, _, _ in LEVELS]
        lines = [_reference_lines(p) for p in paths]
        not_utf8 += [p.name for p, ls in zip(paths, lines) if ls is None]
        for i, triple in enumerate(zip_longest(*(ls or [] for ls in lines)), start=1):
            if all(t for t in triple):  # None (a shorter file) or an empty line: no sequence at this index
                items.append(
                    ParallelItem(tuple(triple), id=f"{key}:{i}", style_type="complexity", source=str(paths[0]))
                )
    info = _articles_info(files, common, "line index (STEB reference)")
    return items, {**info, "files_not_utf8_read_as_empty": not_utf8, "sequences": len(items)}


def _articles_info(files: dict[str, dict[str, Path]], common: list[str], construction: str) -> dict[str, Any]:
    """What both constructions record: the construction, the level axis, the articles used and those lacking a level."""
    return {
        "construction": construction,
        "axis": [name for _, _, name in LEVELS],
        "articles": len(common),
        "articles_missing_a_level": sorted(set().union(*files.values()) - set(common)),
    }


def _read_article(path: Path, level_name: str, fallback: list[str]) -> str:
    """An article's text: UTF-8 (BOM dropped), else Windows-1252 (listed); a first line naming the level dropped."""
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
        raise DataValidationError(
            "holds no article text", path=path, record=path.stem, field="text", expected="the article"
        )
    return body


def read_onestop_articles(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """``OneStopEnglishCorpus.v2``: one sequence per article present at all three levels (keys sorted), its three
    whole texts [advanced, intermediate, elementary], label ``complexity``. A few release files are not UTF-8:
    they are decoded as Windows-1252 and listed in the info; a leading line naming the level is dropped."""
    _, files = onestop_level_files(ctx, root, "nested")
    common = sorted(set(files["adv"]) & set(files["int"]) & set(files["ele"]))
    fallback: list[str] = []
    items = [
        ParallelItem(
            tuple(_read_article(files[s][key], name, fallback) for s, _, name in LEVELS),
            id=key,
            style_type="complexity",
            source=str(files["adv"][key]),
        )
        for key in common
    ]
    return items, {**_articles_info(files, common, "one sequence per article (v2)"), "decoded_as_cp1252": fallback}
