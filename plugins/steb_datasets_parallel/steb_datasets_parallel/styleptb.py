"""StylePTB (Lyu et al., 2021): fine-grained single-transformation rewrites of Penn Treebank sentences.

Release layout (after the repository's ``single_transform_checkout.py CODE``): one folder per
three-letter transformation code with ``train.tsv``, ``valid.tsv``, ``test.tsv``; each line is
``source<TAB>target`` with no header. Texts are PTB-tokenised and kept exactly as released.

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
OBTAIN = "clone https://github.com/lvyiwei1/StylePTB and run `python single_transform_checkout.py CODE` for each code"
LAYOUT = "<data-dir>/StylePTB/<CODE>/{train,valid,test}.tsv (source<TAB>target per line, no header)"


def read_styleptb(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    split = str(ctx.options.get("split", "test"))
    transfers = option_list(ctx, "transfers", KEPT_TRANSFERS)
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
