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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steb_core import DataValidationError, OrderGroup, ParallelItem, check_inside, located, read_tsv

__all__ = [
    "StelInstance",
    "STEL_COLUMNS",
    "STEL_REGISTER_TYPES",
    "STEL_FEATURE_DEFAULT_TYPES",
    "VARIANTS",
    "find_stel_files",
    "load_stel_instances",
    "stel_groups",
    "stel_reference_items",
    "REFERENCE_GROUPS",
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
        raise DataValidationError(
            f"is {raw!r}", path=path, record=record, field=CORRECT, expected="1 (order S1-S2) or 2 (order S2-S1)"
        )
    votes_raw = (row.get(VOTES) or "").strip()
    votes = int(float(votes_raw)) if votes_raw.replace(".", "", 1).isdigit() else None  # empty or '-' in releases
    return StelInstance(
        anchor1=row[A1],
        anchor2=row[A2],
        alternative1=row[S1],
        alternative2=row[S2],
        correct=int(float(raw)),
        id=row[ID].strip(),
        style_type=row[STYLE].strip(),
        votes=votes,
        path=str(path),
        row=i,
    )


def load_stel_instances(
    root: Path, style_types: Iterable[str] | None = None
) -> tuple[list[StelInstance], dict[str, Any]]:
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
                        f"conflicting ID {inst.id!r}: first at {first.path} row {first.row} with other sentences or "
                        "answer",
                        path=path,
                        record=f"row {i}",
                        field=ID,
                        expected="each ID once, or repeated with identical content",
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


def _content(inst: StelInstance) -> tuple[str, str, str, str, int, str]:
    return (inst.anchor1, inst.anchor2, inst.alternative1, inst.alternative2, inst.correct, inst.style_type)


def _group(inst: StelInstance, variant: str) -> OrderGroup:
    match_first = inst.correct == 1  # A1 has S1's style
    s_match = inst.alternative1 if match_first else inst.alternative2
    alternatives = (inst.alternative1, inst.alternative2)
    common: dict[str, Any] = {"id": inst.id, "style_type": inst.style_type}
    if variant == "quadruple":
        return OrderGroup(
            anchors=(inst.anchor1, inst.anchor2),
            alternatives=alternatives,
            answer=(0, 1) if match_first else (1, 0),
            **common,
        )
    if variant == "triple":
        return OrderGroup(
            anchors=(inst.anchor1,), alternatives=alternatives, answer=(0 if match_first else 1,), **common
        )
    if variant == "triple-distractor":
        return OrderGroup(
            anchors=(inst.anchor1,),
            alternatives=alternatives,
            answer=(0 if match_first else 1,),
            distractor=inst.anchor2,
            **common,
        )
    if variant == "or-content":
        return OrderGroup(
            anchors=(inst.anchor1,), alternatives=(s_match,), answer=(0,), distractor=inst.anchor2, **common
        )
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


# --- STEB reference: the sentence pairs as ``steb/loaders/stel.py`` reads them -------------------------------------
#
# github.com/rrivera1849/STEB ``steb/loaders/stel.py`` @4defec1c ``load_stel`` (configs STEL_feature @60e5fc59,
# STEL_register @4defec1c). Each row of every ``*.tsv`` of ``characteristics/`` and ``dimensions/`` gives up to two
# sequences [more-style, less-style] -- the anchor pair and the alternative pair -- whose order is read from the
# instance ID ``QQ_<anchor ids>_<alternative ids>--<n>``; a (more, less) pair already seen for the style type is
# dropped; label = the style type. Re-implemented from that description (same decisions, steb's own code).

#: STEB's two STEL subsets, by the last component of the reference's data_dir (STEL/feature, STEL/register)
REFERENCE_GROUPS = {
    "register": frozenset({"formality", "simplicity"}),
    "feature": frozenset({"contraction", "emotives", "nbr_substitution"}),
}


def _position(component: str, style_type: str) -> int | None:
    """0 when an ID component names the more-style sentence, 1 the less-style one, None when it names neither:
    formal ``f-`` / informal ``i-``; simple ``s-`` / complex ``c-`` or ``x-``; contracted ``...ction-`` / ``wiki-``;
    emoticon ``emote`` / ``emoji``; (nbr_)substitution ``leet-`` / ``norm-``."""
    c = component.lower().strip()
    more_less = {
        "formality": (("f-",), ("i-",)),
        "simplicity": (("s-",), ("x-", "c-")),
        "emotives": (("emote",), ("emoji",)),
    }
    if style_type in more_less:
        more, less = more_less[style_type]
        return 0 if c.startswith(more) else (1 if c.startswith(less) else None)
    if style_type == "contraction":
        if "ction-" in c:
            return 0 if re.search(r"ction-(.+)", c) else None
        return 1 if c.startswith("wiki-") else None
    if "substitution" in style_type:
        return 0 if c.startswith("leet-") else (1 if c.startswith("norm-") else None)
    return None


def _components(ids: str, style_type: str) -> list[str]:
    """The two sentence components of one half of an ID (``i-454-f-454`` -> ``i-454``, ``f-454``) as the reference
    cuts them: at the style prefixes, by ``-`` (emotives: at the first ``emote`` and ``emoji``; contraction: at
    ``ction-`` and ``wiki-``). Any other count than two means the half gives no sequence."""
    ids = ids.lower().strip()
    if style_type == "contraction":
        if "ction-" not in ids or "wiki-" not in ids:
            return []
        c, w = ids.find("ction-"), ids.find("wiki-")
        return [ids[c:w].rstrip("-"), ids[w:]] if c < w else [ids[w:c].rstrip("-"), ids[c:]]
    if style_type == "emotives":
        starts = sorted((i, p) for p in ("emote", "emoji") if (i := ids.find(p)) >= 0)
        ends = [i for i, _ in starts[1:]] + [len(ids)]
        return [ids[i:end].strip("-").strip("_") for (i, _), end in zip(starts, ends)]
    prefixes = {"formality": ("i", "f"), "simplicity": ("s", "c", "x")}.get(style_type)
    if prefixes is None and "substitution" in style_type:
        prefixes = ("leet", "norm")
    if prefixes is None:
        return []
    components: list[list[str]] = []
    for part in (p.strip() for p in ids.split("-")):
        if not part:
            continue
        if part.startswith(prefixes) or not components:
            components.append([part])
        else:
            components[-1].append(part)
    return ["-".join(c) for c in components]


def _oriented(texts: tuple[str, str], ids: str, style_type: str) -> tuple[str, str] | None:
    """``texts`` (first, second of an ID half) as (more-style, less-style), or None when the half cannot be read.
    The reference decides by the first component alone: more-style first iff it is position 0."""
    comps = _components(ids, style_type)
    if len(comps) != 2:
        return None
    first, second = (_position(c, style_type) for c in comps)
    if first is None or second is None:
        return None
    return texts if first == 0 else (texts[1], texts[0])


def stel_reference_items(root: Path, group: str) -> tuple[list[ParallelItem], dict[str, Any]]:
    """STEL's sentence pairs for STEB's ``group`` (``feature`` or ``register``) as the STEB reference reads them.

    Files: every ``*.tsv`` of ``characteristics/`` then ``dimensions/`` under ``Data/STEL`` (or ``root`` itself; a
    folder with neither subfolder is read flat);
    the reference lists them with ``os.listdir``, whose order depends on the file system: steb sorts the names
    (each style type lives in one file, so this only orders the labels: contraction, emotives, nbr_substitution;
    formality, simplicity). Rows of other style types (``em-subj-pronoun``, the other group) are not read. Where
    steb is stricter than the reference (which skips such rows silently; the release has none): a blank sentence
    or ID, or an ID half that does not name one sentence of each side, is an error naming file, row and column.
    A pair seen before for the style type counts only against that type, as in the reference. Order alignment
    pools its pairs over the labels, so the label order does not change a score.
    """
    wanted = REFERENCE_GROUPS[group]
    base = root / "Data" / "STEL" if (root / "Data" / "STEL").exists() else root
    subs = [base / sub for sub in ("characteristics", "dimensions") if (base / sub).is_dir()] or [
        base
    ]  # or a flat folder
    files = [f for sub in subs for f in sorted(sub.glob("*.tsv"), key=lambda p: p.name) if f.is_file()]
    for path in files:
        check_inside(path, root, what="release folder")
    items: list[ParallelItem] = []
    seen: dict[str, set[tuple[str, str]]] = {}
    repeated = 0
    used: list[str] = []
    for path in files:
        took = False
        for i, row in enumerate(read_tsv(path, required=(A1, A2, S1, S2, ID, STYLE)), start=1):
            style = (row.get(STYLE) or "").strip().lower()
            if style not in wanted:  # other style types (em-subj-pronoun, the other group) are not read
                continue
            a1, a2, s1, s2, qid = ((row.get(c) or "").strip() for c in (A1, A2, S1, S2, ID))
            record = f"row {i}" + (f" (ID {qid})" if qid else "")
            for column, value in zip((A1, A2, S1, S2, ID), (a1, a2, s1, s2, qid)):
                if not value:  # the reference skips such a row silently; the release has none
                    raise DataValidationError(
                        "is empty", path=path, record=record, field=column, expected="a non-empty value"
                    )
            m = re.match(r"QQ_([^_]+)_([^_]+)", qid)
            halves = [((a1, a2), m[1], "anchors"), ((s1, s2), m[2], "alternatives")] if m else []
            for texts, ids, part in halves:
                pair = _oriented(texts, ids, style)
                if pair is None:
                    raise DataValidationError(
                        f"half {ids!r} does not name one more-{style} and one less-{style} sentence",
                        path=path,
                        record=record,
                        field=ID,
                        expected=f"QQ_<ids>_<ids>--<n> with the style prefixes of {style}",
                    )
                if pair in seen.setdefault(style, set()):
                    repeated += 1
                    continue
                seen[style].add(pair)
                items.append(ParallelItem(pair, id=f"{qid}:{part}", style_type=style, source=str(path)))
                took = True
            if m is None:
                raise DataValidationError(
                    "is not of the form QQ_<anchor ids>_<alternative ids>",
                    path=path,
                    record=record,
                    field=ID,
                    expected="a STEL instance ID",
                )
        if took:
            used.append(str(path.relative_to(root)))
    return items, {
        "files": used,
        "file_order": "sorted names",
        "sentence_pairs": len(items),
        "sentence_pairs_repeated": repeated,
        "axis": ["more of the style", "less of the style"],
    }
