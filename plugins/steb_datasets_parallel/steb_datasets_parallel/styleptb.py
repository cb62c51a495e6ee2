"""StylePTB (Lyu et al., 2021): fine-grained single-transformation rewrites of Penn Treebank sentences.

Release layout, either of:

- the repository as cloned: ``fulldata.h16`` at its root, triples of lines: a numbered code line
  (``TFU17``: a line whose first three characters are the transformation code), the source and the target. The split is made exactly as
  the repository's ``single_transform_checkout.py`` makes it: of a code's ``n`` pairs (file order), the
  first ``n // 20`` (at least 1) are ``valid``, the pairs before ``n // 10`` (at least 2) ``test``, the
  rest ``train``;
- after ``python single_transform_checkout.py CODE``: one folder per code with ``train.tsv``,
  ``valid.tsv``, ``test.tsv``; each line is ``source<TAB>target`` with no header.

Texts are PTB-tokenised and kept exactly as released.

Each line is a parallel item on the axis (before, after the transformation); the class is the code.
Kept by default: the 15 transformations that change form but not meaning -- tense (TFU, TPA, TPR),
voice (ATP, PTA), PP position (PFB, PBF), emphasis (AEM, VEM), synonyms (NSR, ASR, VSR, LFS, MFS) and
ADJ/ADV removal (ARR); dropped: antonyms (NAR, AAR, VAR), information addition (IAD) and
substatement / PP removal (SBR, PPR), which change content. Option ``transfers`` overrides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import DataValidationError, DatasetNotFoundError, LoadContext, read_lines
from steb_core.parallel import ParallelItem

from .common import option_list

__all__ = ["read_styleptb", "KEPT_TRANSFERS", "OBTAIN", "LAYOUT"]

KEPT_TRANSFERS = ("TFU", "TPA", "TPR", "ATP", "PTA", "PFB", "PBF", "AEM", "VEM", "NSR", "ASR", "VSR", "LFS", "MFS", "ARR")
OBTAIN = ("clone https://github.com/lvyiwei1/StylePTB (its fulldata.h16 is read directly; folders made by "
          "`python single_transform_checkout.py CODE` work too)")
LAYOUT = "<data-dir>/StylePTB/fulldata.h16 (the clone), or <data-dir>/StylePTB/<CODE>/{train,valid,test}.tsv (source<TAB>target, no header)"
FULLDATA = "fulldata.h16"


def _checkout_split(n: int, i: int) -> str:
    """The split of a code's ``i``-th pair (0-based) of ``n``, as single_transform_checkout.py assigns it."""
    valid, test = max(n // 20, 1), max(n // 10, 2)
    return "valid" if i < valid else ("test" if i < test else "train")


def read_fulldata(path: Path, codes: tuple[str, ...], split: str) -> tuple[list[ParallelItem], dict[str, int]]:
    """The pairs of ``codes`` in ``split`` from the clone's ``fulldata.h16`` (the checkout script's rules)."""
    lines = read_lines(path, keep_empty=True)
    found: dict[str, list[tuple[int, str, str]]] = {c: [] for c in codes}
    for i, line in enumerate(lines):
        code = line[:3]
        if code in found and i + 2 < len(lines):
            found[code].append((i + 1, lines[i + 1], lines[i + 2]))
    items: list[ParallelItem] = []
    for code, pairs in found.items():
        for j, (lineno, source, target) in enumerate(pairs):
            if _checkout_split(len(pairs), j) != split:
                continue
            for name, text, at in (("source", source, lineno + 1), ("target", target, lineno + 2)):
                if not text.strip():
                    raise DataValidationError("is empty", path=path, record=f"line {at} ({code} pair {j + 1})", field=name, expected="a sentence")
            items.append(ParallelItem((source, target), id=f"{code}/{split}:{j + 1}", style_type=code, source=str(path)))
    return items, {code: len(pairs) for code, pairs in found.items()}


def read_styleptb(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    split = str(ctx.options.get("split", "test"))
    transfers = option_list(ctx, "transfers", KEPT_TRANSFERS)
    if not any((root / code).is_dir() for code in transfers) and (root / FULLDATA).is_file():
        items, available = read_fulldata(root / FULLDATA, transfers, split)
        missing = [c for c in transfers if not available[c]]
        return items, {"split": split, "read_from": FULLDATA, "pairs_per_transfer_all_splits": available,
                       "transfers": [t for t in transfers if t not in missing], "missing_transfers": missing,
                       "axis": ["source", "target"]}
    items: list[ParallelItem] = []
    missing = []
    for code in transfers:
        path = root / code / f"{split}.tsv"
        if not path.is_file():
            missing.append(code)
            continue
        for i, line in enumerate(read_lines(path, keep_empty=True), start=1):
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) != 2:
                raise DataValidationError(f"has {len(fields)} tab-separated fields", path=path, record=f"line {i}",
                                          field="target" if len(fields) < 2 else "line", expected="source<TAB>target")
            for name, text in zip(("source", "target"), fields):
                if not text.strip():
                    raise DataValidationError("is empty", path=path, record=f"line {i}", field=name, expected="a sentence")
            items.append(ParallelItem(tuple(fields), id=f"{code}/{split}:{i}", style_type=code, source=str(path)))
    if missing and len(missing) == len(transfers):
        raise DatasetNotFoundError(f"dataset '{ctx.dataset}': no {split}.tsv for any of {', '.join(transfers)} under {root}. "
                                   f"Obtain it: {OBTAIN}. Expected layout: {LAYOUT}")
    return items, {"split": split, "transfers": [t for t in transfers if t not in missing], "missing_transfers": missing,
                   "axis": ["source", "target"]}
