"""CEECE, the 18th-century extension of the Corpus of Early English Correspondence: texts by 20-year period.

STEB reads parts 1 and 2 of the XML release on Zenodo (records 6411789 and 5887101) and uses paragraphs
(~15k from ~2.5k letters) labelled with the letter's 20-year period, 1680-1800. The licensed plain-text
release with COCOA headers stays an option (``--dataset-option release=cocoa``, whole letters).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

from steb_core import DataValidationError, LabelledText, LoadContext, read_bytes

from ..common import Loaded, family_dir, read_text_lenient
from .base import make_record, release_files

__all__ = ["twenty_year_period", "ceeces_xml", "ceeces_cocoa", "ceeces"]

_LETTER_HEADER = re.compile(r"^<Q\b[^>]*>", re.M)
_YEAR = re.compile(r"\b(1[5-8]\d\d)\b")
_MARKUP = re.compile(r"<[^>]*>|\{[^}]*\}|\^|\$")


def twenty_year_period(year: int, start: int = 1680, periods: int = 6) -> str | None:
    """STEB's six 20-year periods of the CEEC extension, 1680-1699 ... 1780-1799; the corpus ends in 1800 and
    STEB's span is 1680-1800, so a letter of the closing year joins the last period (labelled 1780-1799)."""
    end = start + 20 * periods
    k = (min(year, end - 1) if year == end else year) - start
    k //= 20
    return f"{start + 20 * k}-{start + 20 * k + 19}" if 0 <= k < periods else None


def ceeces_cocoa(ctx: LoadContext, obtain: str) -> Loaded:
    """CEEC(E) plain-text release (``--dataset-option release=cocoa``): letters introduced by a COCOA ``<Q ...>`` header
    whose code holds the year.

    The header ``<Q ... 1695 ...>`` opens a letter; the letter's text runs to the next header. Other
    COCOA lines (``<A ...>``, ``<L ...>``), editorial ``{...}`` comments and font markers are removed.
    """
    root = family_dir(ctx, None, obtain, "one .txt file per letter collection with <Q ...> letter headers")
    files = release_files(root, "**/*.txt", obtain)
    start = ctx.integer("first_year", 1680)
    stats: Counter[str] = Counter()
    out = []
    for f in files:
        text = read_text_lenient(f)
        heads = list(_LETTER_HEADER.finditer(text))
        if not heads:
            raise DataValidationError(
                "holds no <Q ...> letter header",
                path=f,
                field="<Q> header",
                expected="COCOA letter headers with the year",
            )
        for k, h in enumerate(heads):
            years = _YEAR.findall(h.group(0))
            if not years:
                raise DataValidationError(
                    f"header {h.group(0)!r} has no year", path=f, record=f"letter {k + 1}", field="<Q> header"
                )
            period = twenty_year_period(int(years[0]), start)
            if period is None:
                stats["outside_periods"] += 1
                continue
            body = text[h.end() : heads[k + 1].start() if k + 1 < len(heads) else len(text)]
            body = "\n".join(ln for ln in body.split("\n") if not ln.lstrip().startswith("<"))
            body = re.sub(r"[ \t]+", " ", _MARKUP.sub("", body)).strip()
            rec = make_record(body, period, f"{f.stem}:{k + 1}", f, f"letter {k + 1}", stats)
            if rec:
                out.append(rec)
    return out, {"root": str(root), "files": len(files), "periods_from": start, **stats}


# --------------------------------------------------------------------------------------------
# the XML release (Zenodo)
# --------------------------------------------------------------------------------------------
#: elements whose text is not the writer's: editorial notes, page furniture, headings added by editors
_NOT_LETTER_TEXT = {"note", "fw", "pb", "lb", "head", "bibl", "teiHeader", "comment", "gap"}
_LETTER_TAGS = {"letter"}
_YEAR_ATTRS = ("year", "date", "when", "notBefore", "from")


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _is_letter(elem: ET.Element) -> bool:
    name = _local(elem.tag)
    return name in _LETTER_TAGS or (name in ("div", "text", "TEI") and (elem.get("type") or "").lower() == "letter")


def _year_of(elem: ET.Element) -> int | None:
    """The letter's year: an attribute of the letter element, else the first ``date`` element inside it."""
    for attr in _YEAR_ATTRS:
        if (m := _YEAR.search(elem.get(attr) or "")) is not None:
            return int(m[1])
    for child in elem.iter():
        if _local(child.tag) == "date":
            for value in [child.get(a) or "" for a in _YEAR_ATTRS] + ["".join(child.itertext())]:
                if (m := _YEAR.search(value)) is not None:
                    return int(m[1])
    return None


def _paragraph_text(p: ET.Element) -> str:
    """A paragraph's words. Tagged files hold one ``<w>`` per token (``<pc>`` for punctuation): tokens are
    joined with spaces; plain paragraphs give their text; editorial elements are left out."""
    tokens = [("".join(t.itertext())) for t in p.iter() if _local(t.tag) in ("w", "pc")]
    if tokens:
        return re.sub(r"\s+", " ", " ".join(tokens)).strip()
    parts: list[str] = []

    def walk(e: ET.Element) -> None:
        if _local(e.tag) in _NOT_LETTER_TEXT:
            parts.append(e.tail or "")
            return
        parts.append(e.text or "")
        for c in e:
            walk(c)
        parts.append(e.tail or "")

    walk(p)
    parts[-1] = ""  # the paragraph's own tail is not its text
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _paragraphs(letter: ET.Element) -> list[ET.Element]:
    """The letter's outermost ``<p>`` elements, outside the TEI header."""
    found: list[ET.Element] = []

    def walk(e: ET.Element) -> None:
        name = _local(e.tag)
        if name == "teiHeader":
            return
        if name == "p":
            found.append(e)
            return
        for c in e:
            walk(c)

    walk(letter)
    return found


def _letters(tree: ET.Element) -> list[ET.Element]:
    """The outermost letter elements of a file; a file without any is one letter (a TEI file per letter)."""
    found: list[ET.Element] = []

    def walk(e: ET.Element) -> None:
        if _is_letter(e):
            found.append(e)
            return
        for c in e:
            walk(c)

    walk(tree)
    return found or [tree]


def ceeces_xml(ctx: LoadContext, obtain: str) -> Loaded:
    """The CEECE XML release (Zenodo 6411789 and 5887101, both unpacked into the dataset folder): paragraphs.

    ASSUMPTION (the files could not be inspected offline; the reader is written for the TEI-XML that the
    tagged CEECE (Saario and Saily 2020) describes, and refuses anything else with a located error): a letter
    is a ``<letter>`` element, or a ``div``/``text`` with ``type="letter"``, or else the whole file; its year
    is the first 4-digit year in its ``year``/``date``/``when`` attribute or in its first ``<date>``
    element; its paragraphs are its ``<p>`` elements (tokens in ``<w>``/``<pc>`` joined with spaces;
    ``note``, ``fw``, ``pb``, ``head`` and the TEI header left out). Label = the letter's 20-year period.
    """
    root = family_dir(
        ctx, None, obtain, "*.xml files of the two Zenodo records (letters with a year, paragraphs in <p>)"
    )
    files = release_files(root, "**/*.xml", obtain)
    start = ctx.integer("first_year", 1680)
    stats: Counter[str] = Counter()
    out: list[LabelledText] = []
    letters = 0
    for f in files:
        try:
            tree = ET.fromstring(read_bytes(f))
        except ET.ParseError as exc:
            raise DataValidationError(
                f"is not well-formed XML ({exc})", path=f, record=f"line {exc.position[0]}"
            ) from None
        for k, letter in enumerate(_letters(tree), start=1):
            where = f"letter {k}" + (
                f" ({letter.get('id') or letter.get('{http://www.w3.org/XML/1998/namespace}id')})"
                if letter.get("id") or letter.get("{http://www.w3.org/XML/1998/namespace}id")
                else ""
            )
            year = _year_of(letter)
            if year is None:
                raise DataValidationError(
                    "has no year",
                    path=f,
                    record=where,
                    field="year/date/when or <date>",
                    expected="the letter's year (1680-1800)",
                )
            period = twenty_year_period(year, start)
            if period is None:
                stats["outside_periods"] += 1
                continue
            paras = _paragraphs(letter)
            if not paras:
                stats["letters_without_paragraphs"] += 1
                continue
            letters += 1
            for i, p in enumerate(paras, start=1):
                if rec := make_record(
                    _paragraph_text(p), period, f"{f.stem}:{k}:{i}", f, f"{where} paragraph {i}", stats
                ):
                    out.append(rec)
    return out, {
        "root": str(root),
        "release": "zenodo-xml",
        "files": len(files),
        "letters": letters,
        "unit": "paragraph",
        "periods_from": start,
        **stats,
    }


def ceeces(ctx: LoadContext, obtain: str) -> Loaded:
    """STEB's ceeces: the Zenodo XML release (default) or ``--dataset-option release=cocoa`` (licensed plain text)."""
    if ctx.choice("release", ("xml", "cocoa")) == "xml":
        return ceeces_xml(ctx, obtain)
    return ceeces_cocoa(ctx, obtain)
