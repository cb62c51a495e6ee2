"""Reading STEL's official task-instance TSVs and turning them into order-alignment groups.

STEL (Wegmann & Nguyen, 2021) instance: anchors A1, A2 are one content in two styles; alternatives S1
(``Alternative 1.1``) and S2 (``Alternative 1.2``) are another content in the same two styles;
``Correct Alternative`` is 1 when the order S1-S2 matches A1-A2 and 2 when S2-S1 does.

Variants (``variant`` option):

- ``quadruple`` (STEL's task): anchors (A1, A2), alternatives (S1, S2), answer (0, 1) for 1, (1, 0) for 2.
- ``triple``: STEL's triple setup, anchor (A1,) with alternatives (S1, S2); answer (index of A1's match,).
- ``triple-distractor``: the triple plus A2 as distractor (the task adds it to set B, so A1 must pick its
  style match over both the other alternative and the same-content A2).
- ``or-content``: STEL-or-Content (Wegmann et al., 2022, "Same Author or Just Same Topic?"). The
  original construction takes each STEL instance, keeps anchor A1 and the alternative with A1's style
  (S1 when ``Correct Alternative`` is 1, else S2), and replaces the other alternative with A2. So the
  choice is between "same style, other content" (correct) and "same content, other style" (A2). Here that
  is anchors (A1,), alternatives (S_match,), distractor A2: the task's *distractor accuracy* is exactly
  STEL-or-Content accuracy (its plain accuracy is trivially 1 with a single alternative).

Official instance order and ``ID`` are kept (files in sorted path order, rows in file order), so
per-instance predictions line up with STEL's own single-prediction files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from steb_core import DataValidationError, OrderGroup, located, read_tsv
from steb_core.io import check_inside
from steb_core.parallel import ParallelItem

__all__ = [
    "StelInstance",
    "STEL_COLUMNS",
    "STEL_REGISTER_TYPES",
    "STEL_FEATURE_DEFAULT_TYPES",
    "VARIANTS",
    "find_stel_files",
    "load_stel_instances",
    "stel_groups",
    "stel_parallel_items",
    "STYLE_TOKENS",
]

A1, A2, S1, S2 = "Anchor 1", "Anchor 2", "Alternative 1.1", "Alternative 1.2"
CORRECT, ID, STYLE, VOTES = "Correct Alternative", "ID", "style type", "# Votes out of 5 for Correct Alternative"
STEL_COLUMNS = (A1, A2, S1, S2, CORRECT, ID, STYLE)

#: STEL's two style *dimensions* (STEB's register category).
STEL_REGISTER_TYPES = ("formality", "simplicity")
#: STEL's *characteristics* used by default for STEL_feature: the two of the STEL paper plus emotives
#: (emoticon vs emoji), three classes as in STEB's catalogue. Further characteristic files of the
#: release (em-subj-pronoun, definite-abstract, ...) are added with the ``style_types`` option.
STEL_FEATURE_DEFAULT_TYPES = ("contraction", "nbr_substitution", "emotives")

VARIANTS = ("quadruple", "triple", "triple-distractor", "or-content")


@dataclass(frozen=True)
class StelInstance:
    """One row of a STEL TSV, with where it came from."""

    anchor1: str
    anchor2: str
    alternative1: str
    alternative2: str
    correct: int  # 1: S1-S2, 2: S2-S1
    id: str
    style_type: str
    votes: int | None
    path: str
    row: int


def find_stel_files(root: Path) -> list[Path]:
    """STEL instance files under ``root`` (flat, or the release's ``dimensions/`` and ``characteristics/``).

    Found by listing, so a file (or folder) that is a link leading outside ``root`` is refused with both
    paths rather than read; links that stay inside the release are followed.
    """
    files = sorted(p for p in root.rglob("*.tsv") if p.name.lstrip("_").startswith("quad"))
    for path in files:
        check_inside(path, root, what="release folder")
    return files


def _parse_row(row: dict[str, str], path: Path, i: int) -> StelInstance:
    record = f"row {i}" + (f" (ID {row.get(ID)})" if row.get(ID) else "")
    for column in (A1, A2, S1, S2, ID, STYLE):
        value = row.get(column)
        if value is None or not value.strip():
            raise DataValidationError("is empty", path=path, record=record, field=column, expected="a non-empty value")
    raw = (row.get(CORRECT) or "").strip()
    if raw not in ("1", "2", "1.0", "2.0"):
        raise DataValidationError(f"is {raw!r}", path=path, record=record, field=CORRECT, expected="1 (order S1-S2) or 2 (order S2-S1)")
    votes_raw = (row.get(VOTES) or "").strip()
    votes = int(float(votes_raw)) if votes_raw.replace(".", "", 1).isdigit() else None  # empty or '-' in releases
    return StelInstance(
        anchor1=row[A1], anchor2=row[A2], alternative1=row[S1], alternative2=row[S2], correct=int(float(raw)),
        id=row[ID].strip(), style_type=row[STYLE].strip(), votes=votes, path=str(path), row=i,
    )


def load_stel_instances(root: Path, style_types: Iterable[str] | None = None) -> tuple[list[StelInstance], dict[str, Any]]:
    """Every STEL instance under ``root`` whose style type is in ``style_types`` (all if None), in official order.

    An ID seen twice with identical sentences and answer (e.g. a 100-instance sample next to the full
    file that contains it) is kept once, the first time, and counted in the returned info; an ID repeated
    with other sentences or another answer is an error naming both places.
    """
    wanted = set(style_types) if style_types is not None else None
    files = find_stel_files(root)
    instances: list[StelInstance] = []
    seen: dict[str, StelInstance] = {}
    duplicates = 0
    used_files: list[str] = []
    for path in files:
        # one instance per line; the em-subj-pronoun file quotes each sentence with its final newline, and no
        # sentence holds one before its end, so a value that does swallowed the rows after it (issue 41)
        rows = read_tsv(path, required=STEL_COLUMNS, line_breaks="trailing")
        took = False
        for i, row in enumerate(rows, start=1):
            inst = _parse_row(row, path, i)
            if wanted is not None and inst.style_type not in wanted:
                continue
            if inst.id in seen:
                first = seen[inst.id]
                if _content(first) != _content(inst):  # issue 20: a conflicting duplicate never passes silently
                    raise DataValidationError(
                        f"conflicting ID {inst.id!r}: first at {first.path} row {first.row} with other sentences or answer",
                        path=path, record=f"row {i}", field=ID, expected="each ID once, or repeated with identical content",
                    )
                duplicates += 1
                continue
            seen[inst.id] = inst
            instances.append(inst)
            took = True
        if took:
            used_files.append(str(path.relative_to(root)))
    info = {"files": used_files, "duplicate_ids_skipped": duplicates, "instances": len(instances)}
    return instances, info


def _content(inst: StelInstance) -> tuple:
    return (inst.anchor1, inst.anchor2, inst.alternative1, inst.alternative2, inst.correct, inst.style_type)


def _group(inst: StelInstance, variant: str) -> OrderGroup:
    match_first = inst.correct == 1  # A1 has S1's style
    s_match = inst.alternative1 if match_first else inst.alternative2
    alternatives = (inst.alternative1, inst.alternative2)
    common = {"id": inst.id, "style_type": inst.style_type}
    if variant == "quadruple":
        return OrderGroup(anchors=(inst.anchor1, inst.anchor2), alternatives=alternatives, answer=(0, 1) if match_first else (1, 0), **common)
    if variant == "triple":
        return OrderGroup(anchors=(inst.anchor1,), alternatives=alternatives, answer=(0 if match_first else 1,), **common)
    if variant == "triple-distractor":
        return OrderGroup(anchors=(inst.anchor1,), alternatives=alternatives, answer=(0 if match_first else 1,), distractor=inst.anchor2, **common)
    if variant == "or-content":
        return OrderGroup(anchors=(inst.anchor1,), alternatives=(s_match,), answer=(0,), distractor=inst.anchor2, **common)
    raise DataValidationError(f"unknown variant {variant!r}", field="variant", expected=" or ".join(VARIANTS))


def stel_groups(instances: Iterable[StelInstance], variant: str = "quadruple") -> list[OrderGroup]:
    """Order groups for ``instances`` in the given variant (see the module docstring), order kept."""
    if variant not in VARIANTS:
        raise DataValidationError(f"unknown variant {variant!r}", field="variant", expected=" or ".join(VARIANTS))
    groups = []
    for inst in instances:
        with located(inst.path, f"row {inst.row} (ID {inst.id})"):
            groups.append(_group(inst, variant))
    return groups


# --- STEB construction: STEL's sentence pairs as parallel items -------------------------------------------

#: Style tokens of STEL's instance IDs per style type, (unmarked, marked): axis 0 -> axis 1 of a parallel item.
#: ``QQ_i-454-f-454_f-2482-i-2482--1`` names A1 (informal 454), A2 (formal 454), S1 (formal 2482), S2
#: (informal 2482); simplicity marks its simple side ``s``, ``s-t1`` .. ``s-t3`` (several simplifiers).
STYLE_TOKENS: dict[str, tuple[str, str]] = {
    "formality": (r"i", r"f"),
    "simplicity": (r"c", r"s(?:-t\d+)?"),
    "contraction": (r"wiki", r"ction"),
    "nbr_substitution": (r"norm", r"leet"),
    "emotives": (r"emote", r"emoji"),
    "em-subj-pronoun": (r"sae", r"em-subj-pronoun"),
}
_GENERIC_TOKEN = r"[A-Za-z](?:[A-Za-z-]*[A-Za-z])?"
_HALF = r"^(?P<x>{tok})-?(?P<n>\d+)-(?P<y>{tok})-?(?P<m>\d+)$"


def _half(text: str, style_type: str) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """``(token, number)`` of both sentences of one half of a STEL ID (``i-454-f-454``), or None."""
    tokens = STYLE_TOKENS.get(style_type)
    tok = "|".join(f"(?:{t})" for t in tokens) if tokens else _GENERIC_TOKEN
    m = re.match(_HALF.format(tok=tok), text)
    return ((m["x"], m["n"]), (m["y"], m["m"])) if m else None


def _axis_of(token: str, style_type: str, seen: dict[str, list[str]]) -> int | None:
    tokens = STYLE_TOKENS.get(style_type)
    if tokens:
        for axis, pattern in enumerate(tokens):
            if re.fullmatch(pattern, token):
                return axis
        return None
    order = seen.setdefault(style_type, [])  # unknown style type: first token seen is axis 0
    if token not in order:
        order.append(token)
    return order.index(token) if len(order) <= 2 else None


def stel_parallel_items(instances: Iterable[StelInstance]) -> tuple[list[ParallelItem], dict[str, Any]]:
    """STEL's sentence pairs as :class:`ParallelItem` ``(unmarked style, marked style)`` for the STEB construction.

    Each instance holds two pairs of one content in the two styles: (A1, A2) and (S1, S2). Which sentence
    has which style is read from the instance ``ID`` (see :data:`STYLE_TOKENS`) and checked against
    ``Correct Alternative``; a pair used by several instances becomes one item (first occurrence kept).
    """
    items: list[ParallelItem] = []
    keys: set[tuple[str, tuple]] = set()
    seen_tokens: dict[str, list[str]] = {}
    repeated = 0
    for inst in instances:
        record = f"row {inst.row} (ID {inst.id})"
        body = inst.id.removeprefix("QQ_").rsplit("--", 1)[0]
        halves = body.split("_")
        parsed = [_half(h, inst.style_type) for h in halves] if len(halves) == 2 else [None]
        if any(p is None for p in parsed):
            raise DataValidationError(
                f"cannot be read as two sentence pairs of style type {inst.style_type!r}", path=inst.path, record=record, field=ID,
                expected="QQ_<style>-<n>-<style>-<n>_<style>-<m>-<style>-<m>--<k> with the style tokens of STEL's release",
            )
        (a1, a2), (s1, s2) = parsed
        axes = [_axis_of(tok, inst.style_type, seen_tokens) for tok, _ in (a1, a2, s1, s2)]
        if None in axes or axes[0] == axes[1] or axes[2] == axes[3]:
            raise DataValidationError(
                f"names styles {[t for t, _ in (a1, a2, s1, s2)]}, not one sentence in each of two styles per pair",
                path=inst.path, record=record, field=ID, expected=f"two distinct style tokens of {inst.style_type!r} per pair",
            )
        if (axes[0] == axes[2]) != (inst.correct == 1):
            raise DataValidationError(
                f"says Anchor 1 is {a1[0]!r} and Alternative 1.1 is {s1[0]!r}, but Correct Alternative is {inst.correct}",
                path=inst.path, record=record, field=CORRECT, expected="the answer the ID's style tokens imply",
            )
        for (first, second), texts, part in (((a1, a2), (inst.anchor1, inst.anchor2), "anchors"),
                                             ((s1, s2), (inst.alternative1, inst.alternative2), "alternatives")):
            oriented = texts if _axis_of(first[0], inst.style_type, seen_tokens) == 0 else texts[::-1]
            key = (inst.style_type, tuple(sorted((first, second))))
            if key in keys:
                repeated += 1
                continue
            keys.add(key)
            items.append(ParallelItem(tuple(oriented), id=f"{inst.id}:{part}", style_type=inst.style_type, source=inst.path))
    axes_info = {t: list(STYLE_TOKENS.get(t, seen_tokens.get(t, []))) for t in sorted({i.style_type for i in items})}
    return items, {"sentence_pairs": len(items), "sentence_pairs_repeated_across_instances": repeated, "axis_tokens": axes_info}
