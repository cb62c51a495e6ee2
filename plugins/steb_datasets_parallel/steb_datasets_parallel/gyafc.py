"""GYAFC (Grammarly's Yahoo Answers Formality Corpus; Rao & Tetreault, 2018) in its release layout.

Release layout (``GYAFC_Corpus/``)::

    Entertainment_Music/ and Family_Relationships/
        train/  formal, informal                  line-aligned rewrites of each other
        tune/   formal, informal, formal.ref0..3, informal.ref0..3
        test/   formal, informal, formal.ref0..3, informal.ref0..3

In tune/test, ``informal`` and ``formal`` are two *separate* source sets: line i of ``formal.refK``
is the K-th human formal rewrite of line i of ``informal``, and line i of ``informal.refK`` the K-th
informal rewrite of line i of ``formal``.

Order alignment: every (informal, formal) rewrite pair is one parallel item on the axis
informal -> formal; the class is the domain. From tune/test both directions are used with reference
``ref`` (option, default 0). :func:`gyafc_transfer_set` exposes a split as (sources, references) for
the style-transfer scorers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from steb_core import DatasetNotFoundError, DataValidationError, LoadContext, ParallelItem

from .aligned import read_aligned

__all__ = ["GYAFC_DOMAINS", "TransferSet", "gyafc_transfer_set", "read_gyafc", "OBTAIN", "LAYOUT"]

GYAFC_DOMAINS = ("Entertainment_Music", "Family_Relationships")
SPLITS = ("train", "tune", "test")
OBTAIN = (
    "GYAFC is licensed: request it from Joel Tetreault (https://github.com/raosudha89/GYAFC-corpus) after "
    "obtaining the Yahoo Answers L6 corpus licence, and unpack GYAFC_Corpus"
)
LAYOUT = (
    "<data-dir>/GYAFC/GYAFC_Corpus/{Entertainment_Music,Family_Relationships}/{train,tune,test}/"
    "{formal,informal} plus tune/test {formal,informal}.ref0..3 (GYAFC_Corpus may also be the folder itself)"
)


class TransferSet(NamedTuple):
    """A style-transfer evaluation set: ``references[i]`` are the human rewrites of ``sources[i]``."""

    sources: list[str]
    references: list[tuple[str, ...]]


def _corpus_root(root: Path) -> Path:
    return root / "GYAFC_Corpus" if (root / "GYAFC_Corpus").is_dir() else root


def _split_dir(root: Path, domain: str, split: str) -> Path:
    if domain not in GYAFC_DOMAINS:
        raise ValueError(f"unknown GYAFC domain {domain!r}; choose {' or '.join(GYAFC_DOMAINS)}")
    if split not in SPLITS:
        raise ValueError(f"unknown GYAFC split {split!r}; choose {', '.join(SPLITS)}")
    folder = _corpus_root(Path(root)) / domain / split
    if not folder.is_dir():
        raise FileNotFoundError(f"GYAFC folder {folder} is missing. Obtain it: {OBTAIN}. Expected layout: {LAYOUT}")
    return folder


def _ref_files(folder: Path, target: str) -> list[Path]:
    refs = sorted(folder.glob(f"{target}.ref[0-9]*"), key=lambda p: int(p.name.rsplit("ref", 1)[1]))
    if not refs:
        raise FileNotFoundError(f"no {target}.ref0..3 files in {folder}. Expected layout: {LAYOUT}")
    return refs


def gyafc_transfer_set(
    root: str | Path, domain: str = "Entertainment_Music", direction: str = "informal_to_formal", split: str = "test"
) -> TransferSet:
    """GYAFC sources and their human references for one domain and transfer direction.

    ``direction`` is ``informal_to_formal`` (sources ``informal``, references ``formal.ref0..3``) or
    ``formal_to_informal``. ``root`` is the folder holding ``GYAFC_Corpus`` (or that folder itself).
    """
    if direction not in ("informal_to_formal", "formal_to_informal"):
        raise ValueError(f"unknown direction {direction!r}; choose informal_to_formal or formal_to_informal")
    if split == "train":
        raise ValueError("GYAFC's train split has no references; use split='tune' or 'test'")
    folder = _split_dir(Path(root), domain, split)
    source, target = ("informal", "formal") if direction == "informal_to_formal" else ("formal", "informal")
    refs = _ref_files(folder, target)
    rows = read_aligned({source: folder / source, **{p.name: p for p in refs}})
    return TransferSet([r[source] for r in rows], [tuple(r[p.name] for p in refs) for r in rows])


def read_gyafc(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """Parallel (informal, formal) items per domain from the split chosen by the ``split`` option (default test)."""
    split = str(ctx.options.get("split", "test"))
    ref = int(ctx.options.get("ref", 0))
    domains = ctx.names("domains", GYAFC_DOMAINS)
    items: list[ParallelItem] = []
    for domain in domains:
        try:
            folder = _split_dir(root, domain, split)
        except FileNotFoundError as exc:
            raise DatasetNotFoundError(f"dataset '{ctx.dataset}': {exc}") from None
        if split == "train":
            rows = read_aligned({"informal": folder / "informal", "formal": folder / "formal"})
            items += [
                ParallelItem(
                    (r["informal"], r["formal"]), id=f"{domain}/train:{i}", style_type=domain, source=str(folder)
                )
                for i, r in enumerate(rows, start=1)
            ]
            continue
        for source, target in (("informal", "formal"), ("formal", "informal")):
            ref_path = folder / f"{target}.ref{ref}"
            if not ref_path.is_file():
                raise DataValidationError(
                    f"reference file {ref_path.name} is missing",
                    path=ref_path,
                    field="ref",
                    expected=f"{target}.ref0..3 (option ref selects one)",
                )
            rows = read_aligned({source: folder / source, ref_path.name: ref_path})
            for i, r in enumerate(rows, start=1):
                pair = {source: r[source], target: r[ref_path.name]}
                items.append(
                    ParallelItem(
                        (pair["informal"], pair["formal"]),
                        id=f"{domain}/{split}/{source}:{i}",
                        style_type=domain,
                        source=str(folder / source),
                    )
                )
    return items, {"split": split, "ref": ref, "domains": list(domains), "axis": ["informal", "formal"]}
