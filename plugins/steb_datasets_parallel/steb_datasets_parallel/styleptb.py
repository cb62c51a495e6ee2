"""StylePTB (Lyu et al., 2021): fine-grained single-transformation rewrites of Penn Treebank sentences.

Release layout (github.com/lvyiwei1/StylePTB), either of:

- the repository as cloned: ``fulldata.h16`` at its root, triples of lines: a numbered code line
  (``TFU17``: a line whose first three characters are the transformation code), the source and the
  target. Its ``single_transform_checkout.py`` splits a code's ``n`` pairs (file order): the first
  ``n // 20`` (at least 1) ``valid``, the pairs before ``n // 10`` (at least 2) ``test``, the rest ``train``;
- after ``python single_transform_checkout.py CODE``: one folder per code with ``train.tsv``,
  ``valid.tsv``, ``test.tsv``; each line is ``source<TAB>target`` with no header.

Texts are PTB-tokenised and kept exactly as released.

STEB's reading (§C): the release's 21 transformation codes minus six -- the three antonym
replacements (NAR, AAR, VAR: they change meaning) and the three WordNet synonym replacements (NSR,
ASR, VSR: no consistent style) -- leaves the 15 of :data:`KEPT_TRANSFERS`; train, valid and test are
combined (option ``split`` reads one split, or a comma list). Table 15 has 14 classes x 50: the class
rule is a minimum class size, ``min_pairs`` distinct pairs (default: the per-class budget, 50), so a
transformation that cannot fill the budget is left out and named in the bundle info (in the release
that is PBF, PP back to front, with 7 pairs). Each pair is a parallel item on the axis (before, after
the transformation); the class is the code. Option ``transfers`` overrides the kept codes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import (
    AUTO_PER_CLASS,
    DatasetNotFoundError,
    DataValidationError,
    LoadContext,
    ParallelItem,
    parse_budget,
    read_lines,
)

__all__ = ["read_styleptb", "ALL_TRANSFERS", "KEPT_TRANSFERS", "DROPPED_TRANSFERS", "BUDGET", "OBTAIN", "LAYOUT"]

#: The 21 codes of the release (single_transform_checkout.py's list, in its order).
ALL_TRANSFERS = (
    "IAD",
    "AEM",
    "VEM",
    "NSR",
    "ASR",
    "VSR",
    "NAR",
    "VAR",
    "AAR",
    "ARR",
    "PPR",
    "SBR",
    "MFS",
    "LFS",
    "TFU",
    "TPA",
    "TPR",
    "PTA",
    "ATP",
    "PFB",
    "PBF",
)
#: Removed by STEB: antonym replacement changes meaning; WordNet synonym replacement has no consistent style.
DROPPED_TRANSFERS = {
    "NAR": "noun antonym replacement (changes meaning)",
    "AAR": "adjective antonym replacement (changes meaning)",
    "VAR": "verb antonym replacement (changes meaning)",
    "NSR": "noun synonym replacement (no consistent style)",
    "ASR": "adjective synonym replacement (no consistent style)",
    "VSR": "verb synonym replacement (no consistent style)",
}
KEPT_TRANSFERS = tuple(c for c in ALL_TRANSFERS if c not in DROPPED_TRANSFERS)
SPLITS = ("train", "valid", "test")
BUDGET = 50  # STEB Table 15: pairings per transformation
OBTAIN = (
    "clone https://github.com/lvyiwei1/StylePTB (CC BY 4.0; its fulldata.h16 is read directly; folders made by "
    "`python single_transform_checkout.py CODE` work too)"
)
LAYOUT = (
    "<data-dir>/StylePTB/fulldata.h16 (the clone), or <data-dir>/StylePTB/<CODE>/{train,valid,test}.tsv "
    "(source<TAB>target, no header); train, valid and test are combined"
)
FULLDATA = "fulldata.h16"


def _checkout_split(n: int, i: int) -> str:
    """The split of a code's ``i``-th pair (0-based) of ``n``, as single_transform_checkout.py assigns it."""
    valid, test = max(n // 20, 1), max(n // 10, 2)
    return "valid" if i < valid else ("test" if i < test else "train")


def _splits(ctx: LoadContext) -> tuple[str, ...]:
    value = str(ctx.options.get("split", "all")).strip().lower()
    chosen = SPLITS if value in ("all", "") else tuple(s.strip() for s in value.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SPLITS]
    if unknown:
        raise DataValidationError(
            f"option split names {unknown}", field="split", expected="all, or a comma list of train, valid, test"
        )
    return chosen


def read_fulldata(
    path: Path, codes: tuple[str, ...], splits: tuple[str, ...]
) -> tuple[dict[str, list[ParallelItem]], dict[str, int]]:
    """The pairs of ``codes`` in ``splits`` from the clone's ``fulldata.h16`` (the checkout script's rules), per
    code."""
    lines = read_lines(path, keep_empty=True)
    found: dict[str, list[tuple[int, str, str]]] = {c: [] for c in codes}
    for i, line in enumerate(lines):
        code = line[:3]
        if code in found and i + 2 < len(lines):
            found[code].append((i + 1, lines[i + 1], lines[i + 2]))
    items: dict[str, list[ParallelItem]] = {c: [] for c in codes}
    for code, pairs in found.items():
        for j, (lineno, source, target) in enumerate(pairs):
            split = _checkout_split(len(pairs), j)
            if split not in splits:
                continue
            for name, text, at in (("source", source, lineno + 1), ("target", target, lineno + 2)):
                if not text.strip():
                    raise DataValidationError(
                        "is empty",
                        path=path,
                        record=f"line {at} ({code} pair {j + 1})",
                        field=name,
                        expected="a sentence",
                    )
            items[code].append(
                ParallelItem((source, target), id=f"{code}/{split}:{j + 1}", style_type=code, source=str(path))
            )
    return items, {code: len(pairs) for code, pairs in found.items()}


def _read_checkout(root: Path, codes: tuple[str, ...], splits: tuple[str, ...]) -> dict[str, list[ParallelItem]]:
    """Pairs per code from checkout folders ``<CODE>/<split>.tsv`` (a code without any file is absent)."""
    items: dict[str, list[ParallelItem]] = {}
    for code in codes:
        for split in splits:
            path = root / code / f"{split}.tsv"
            if not path.is_file():
                continue
            found = items.setdefault(code, [])
            for i, line in enumerate(read_lines(path, keep_empty=True), start=1):
                if not line.strip():
                    continue
                fields = line.split("\t")
                if len(fields) != 2:
                    raise DataValidationError(
                        f"has {len(fields)} tab-separated fields",
                        path=path,
                        record=f"line {i}",
                        field="target" if len(fields) < 2 else "line",
                        expected="source<TAB>target",
                    )
                for name, text in zip(("source", "target"), fields):
                    if not text.strip():
                        raise DataValidationError(
                            "is empty", path=path, record=f"line {i}", field=name, expected="a sentence"
                        )
                found.append(ParallelItem(tuple(fields), id=f"{code}/{split}:{i}", style_type=code, source=str(path)))
    return items


def _min_pairs(ctx: LoadContext) -> int:
    """The minimum class size: option ``min_pairs``, else an integer ``per_class`` (2 when it is ``all``), else
    Table 15's budget (50). The reference's StylePTB loader is not in the index (only its config @907776ed), so
    steb keeps this reading of the paper's 14 x 50 for the reference construction's ``auto`` too."""
    if "min_pairs" in ctx.options:
        value = parse_budget(ctx.options, None, key="min_pairs")
        return value if isinstance(value, int) else 2
    value = parse_budget(ctx.options, BUDGET)
    return value if isinstance(value, int) else (BUDGET if value == AUTO_PER_CLASS else 2)


def read_styleptb(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    splits = _splits(ctx)
    transfers = ctx.names("transfers", KEPT_TRANSFERS)
    info: dict[str, Any] = {"splits": list(splits)}
    if not any((root / code).is_dir() for code in transfers) and (root / FULLDATA).is_file():
        per_code, available = read_fulldata(root / FULLDATA, transfers, splits)
        info.update({"read_from": FULLDATA, "pairs_per_transfer_all_splits": available})
    else:
        per_code = _read_checkout(root, transfers, splits)
        if not per_code:
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': no {FULLDATA} and no <CODE>/{{{','.join(splits)}}}.tsv for any of "
                f"{', '.join(transfers)} under {root}. Obtain it: {OBTAIN}. Expected layout: {LAYOUT}"
            )
        info["read_from"] = "checkout folders"
    minimum = _min_pairs(ctx)
    sizes = {code: len({item.texts for item in per_code.get(code, [])}) for code in transfers}  # distinct pairs
    kept = [c for c in transfers if sizes[c] >= minimum]
    below = {c: n for c, n in sizes.items() if 0 < n < minimum}
    if not kept:
        raise DatasetNotFoundError(
            f"dataset '{ctx.dataset}': no transformation under {root} has {minimum} or more distinct pairs "
            f"({sizes}); lower option min_pairs or read more splits"
        )
    info.update(
        {
            "pairs_per_transfer": sizes,
            "transfers": kept,
            "missing_transfers": [c for c in transfers if sizes[c] == 0],
            "left_out_below_min_pairs": below,
            "class_rule": f"a transformation with fewer than {minimum} distinct pairs over the read splits is left out "
            "(STEB Table 15: 14 classes x 50; the release's PBF has 7 pairs)",
            "dropped_by_steb": dict(DROPPED_TRANSFERS) if transfers == KEPT_TRANSFERS else {},
            "axis": ["source", "target"],
        }
    )
    return [item for code in kept for item in per_code[code]], info
