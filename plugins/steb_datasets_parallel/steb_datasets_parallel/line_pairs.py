"""Corpora released as two (or more) line-aligned files: parallel Shakespeare, Twitter AAE/SAE, ASSET.

Each reader names its files by role; :func:`steb_datasets_parallel.aligned.read_aligned` checks them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import LoadContext, seeded_rng
from steb_core.parallel import ParallelItem

from .aligned import read_aligned
from .common import locate_file

__all__ = ["read_shakespeare", "read_twitter_aae", "read_asset", "SHAKESPEARE", "TWITTER_AAE", "ASSET"]

SHAKESPEARE = {
    "obtain": "download data/{train,valid,test}.{original,modern}.nltktok from "
              "https://github.com/harsh19/Shakespearizing-Modern-English (Xu et al. 2012 play/modern pairs)",
    "layout": "<data-dir>/parallel_shakespeare/[data/]{split}.original.nltktok and {split}.modern.nltktok, line-aligned",
}
TWITTER_AAE = {
    "obtain": "download the AAVE/SAE tweet pairs of Groenwold et al. (2020), "
              "https://github.com/sophiegroenwold/AAVE_SAE_dataset",
    "layout": "<data-dir>/twitter_aave_sae/aave_samples.txt and sae_samples.txt, line-aligned "
              "(options aae_file / sae_file for other names)",
}
ASSET = {
    "obtain": "clone https://github.com/facebookresearch/asset (CC BY-NC 4.0)",
    "layout": "<data-dir>/ASSET/[dataset/]asset.{valid,test}.orig and asset.{valid,test}.simp.0..9, line-aligned",
}


def _in_root_or(root: Path, sub: str, name: str) -> list[str]:
    return [name, f"{sub}/{name}"]


def read_shakespeare(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(original, modern) line pairs: the time axis runs from Shakespeare's text to its modern rewrite."""
    split = str(ctx.options.get("split", "test"))
    files = {role: locate_file(ctx, root, _in_root_or(root, "data", f"{split}.{role}.nltktok"), **SHAKESPEARE)
             for role in ("original", "modern")}
    rows = read_aligned(files)
    items = [ParallelItem((r["original"], r["modern"]), id=f"{split}:{i}", style_type="shakespeare", source=str(files["original"]))
             for i, r in enumerate(rows, start=1)]
    return items, {"split": split, "axis": ["original", "modern"]}


def read_twitter_aae(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(AAE, SAE) tweet pairs: the AAE tweet and its Standard American English rewrite."""
    names = {"aae": str(ctx.options.get("aae_file", "aave_samples.txt")), "sae": str(ctx.options.get("sae_file", "sae_samples.txt"))}
    files = {role: locate_file(ctx, root, [name], **TWITTER_AAE) for role, name in names.items()}
    rows = read_aligned(files)
    items = [ParallelItem((r["aae"], r["sae"]), id=f"line {i}", style_type="aae-sae", source=str(files["aae"]))
             for i, r in enumerate(rows, start=1)]
    return items, {"axis": ["AAE", "SAE"], "files": {k: v.name for k, v in files.items()}}


def read_asset(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(source, one simplification) pairs; which of the 10 simplifications is drawn per line with the run seed."""
    split = str(ctx.options.get("split", "test"))
    orig = locate_file(ctx, root, _in_root_or(root, "dataset", f"asset.{split}.orig"), **ASSET)
    simps = sorted(orig.parent.glob(f"asset.{split}.simp.[0-9]*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
    if not simps:
        locate_file(ctx, root, [f"{orig.parent.relative_to(root)}/asset.{split}.simp.0"], **ASSET)
    rows = read_aligned({"orig": orig, **{p.name: p for p in simps}})
    rng = seeded_rng(ctx.seed, "asset-simplification", ctx.dataset)
    items = []
    chosen = []
    for i, r in enumerate(rows, start=1):
        k = rng.randrange(len(simps))
        chosen.append(k)
        items.append(ParallelItem((r["orig"], r[simps[k].name]), id=f"{split}:{i}:simp.{k}", style_type="simplification", source=str(orig)))
    return items, {"split": split, "axis": ["source", "simplification"], "simplification_files": len(simps),
                   "times_each_simplification_file_drawn": [chosen.count(k) for k in range(len(simps))]}
