"""Corpora released as two (or more) line-aligned files: parallel Shakespeare, Twitter AAE/SAE, ASSET.

Each reader names its files by role; :func:`steb_datasets_parallel.aligned.read_aligned` checks them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from steb_core import (
    HUB_DATA_SUFFIXES,
    DatasetNotFoundError,
    DataValidationError,
    LoadContext,
    ParallelItem,
    find_hub_location,
    load_hub_split,
    read_lines,
    read_zip_member,
    release_file,
    seeded_rng,
)

from .aligned import read_aligned
from .common import locate_file

__all__ = [
    "read_shakespeare",
    "read_twitter_aae",
    "read_asset",
    "asset_simplification_index",
    "SHAKESPEARE",
    "TWITTER_AAE",
    "ASSET",
]

SHAKESPEARE = {
    "obtain": "clone Xu et al.'s release https://github.com/cocoxu/Shakespeare (all 17 plays of "
    "data/align/plays/merged/ are "
    "read: 21,079 line pairs, 19,746 with a changed modern side); the smaller train/valid/test split of "
    "https://github.com/harsh19/Shakespearizing-Modern-English "
    "(data/{split}.{original,modern}.nltktok) is read with option split=train|valid|test",
    "layout": "<data-dir>/parallel_shakespeare/ holding the cocoxu/Shakespeare clone: "
    "data/align/plays/merged/<play>_{original,modern}.snt.aligned, line-aligned; or (option split) "
    "[data/]{split}.original.nltktok and {split}.modern.nltktok",
}
#: Where a clone of Xu et al.'s release (cocoxu/Shakespeare) keeps the sentence-aligned plays.
XU_MERGED = "data/align/plays/merged"
TWITTER_AAE = {
    "obtain": "the AAE tweets are NOT in https://github.com/sophiegroenwold/AAVE_SAE_dataset (it holds only the SAE "
    "side, "
    "sae_samples.txt, for Twitter's terms); download the EMNLP 2020 supplementary archive "
    "https://aclanthology.org/attachments/2020.emnlp-main.473.OptionalSupplementaryMaterial.zip (Groenwold et al. "
    "2020) "
    "and put the zip, or what it unpacks to (EMNLP-AAVE-files/aave_samples.txt + sae_samples.txt), in "
    "<data-dir>/twitter_aave_sae/",
    "layout": "<data-dir>/twitter_aave_sae/ holding 2020.emnlp-main.473.OptionalSupplementaryMaterial.zip, or its "
    "unpacked "
    "EMNLP-AAVE-files/{aave,sae}_samples.txt (also accepted flat), line-aligned, 2,019 pairs "
    "(options aae_file / sae_file for other names)",
}
#: The supplementary archive of Groenwold et al. (2020) and the folder it unpacks to.
AAE_ARCHIVE = "2020.emnlp-main.473.OptionalSupplementaryMaterial.zip"
AAE_FOLDER = "EMNLP-AAVE-files"
ASSET = {
    "obtain": "clone https://github.com/facebookresearch/asset (CC BY-NC 4.0), or the hub copy facebook/asset (config "
    "simplification; huggingface-cli download facebook/asset --repo-type dataset --local-dir DIR, save_to_disk "
    "or the hub cache)",
    "layout": "<data-dir>/ASSET/[dataset/]asset.{valid,test}.orig and asset.{valid,test}.simp.0..9, line-aligned (the "
    "clone), "
    "or the hub copy's files (columns original, simplifications); validation and test are combined (2,359 sources)",
}
ASSET_HUB_ID = "facebook/asset"


def _in_root_or(root: Path, sub: str, name: str) -> list[str]:
    return [name, f"{sub}/{name}"]


def _xu_plays(merged: Path) -> list[str]:
    """The plays of a clone as the reference finds them: every ``*_original.snt.aligned`` of merged/, sorted by path
    (the 17 plays of ``data/align/plays_list``, in that list's alphabetical order)."""
    return [p.name[: -len("_original.snt.aligned")] for p in sorted(merged.glob("*_original.snt.aligned"))]


def _same_line(original: str, modern: str) -> bool:
    """True when the "modern" rewrite left the line as it was: the reference's ``_normalise`` (whitespace runs
    collapsed, ``str.lower``) gives the same string for both sides."""
    return " ".join(original.split()).lower() == " ".join(modern.split()).lower()


def _stripped_pairs(files: dict[str, Path]) -> list[tuple[int, str, str]]:
    """(1-based line, original, modern) of two line-aligned files, each line stripped; the files must have the same
    number of lines (an error naming both otherwise), blank lines are kept here and dropped by the caller."""
    original, modern = (read_lines(files[role], keep_empty=True) for role in ("original", "modern"))
    if len(original) != len(modern):
        raise DataValidationError(
            f"has {len(original)} lines but {files['modern'].name} has {len(modern)}",
            path=files["original"],
            field="original",
            expected="line-aligned files of equal length",
        )
    return [(i, o.strip(), m.strip()) for i, (o, m) in enumerate(zip(original, modern), start=1)]


def _kept_pairs(
    ctx: LoadContext, rows: list[tuple[int, str, str]]
) -> tuple[list[tuple[int, str, str]], dict[str, int]]:
    """The pairs the reference keeps and how many of each kind it drops: a pair with a blank side, and (unless
    option ``keep_unchanged``) a pair whose modern side equals the original (:func:`_same_line`; 1,333 of the
    release's 21,079 line pairs): such a pair has no style difference to order."""
    keep_unchanged = ctx.flag("keep_unchanged", False)
    kept, blank, unchanged = [], 0, 0
    for i, o, m in rows:
        if not o or not m:
            blank += 1
        elif not keep_unchanged and _same_line(o, m):
            unchanged += 1
        else:
            kept.append((i, o, m))
    return kept, {"blank_pairs_dropped": blank, "unchanged_pairs_dropped": unchanged}


def _read_xu_clone(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """A cocoxu/Shakespeare clone as the reference reads it (``steb/steb_datasets/parallel_shakespeare/loader.py``
    @7e3c0424 ``load_parallel_shakespeare_dataset``, config @88541806): the plays of :func:`_xu_plays` in sorted
    order (option ``plays`` picks some), line by line, [original, modern] (both stripped), label ``shakespeare``.
    On the release: 19,746 pairs; the first 200 are from antony-and-cleopatra."""
    merged = root / XU_MERGED
    plays = _xu_plays(merged)
    wanted = ctx.options.get("plays")
    if wanted:
        wanted_list = [w.strip() for w in (wanted.split(",") if isinstance(wanted, str) else wanted)]
        unknown = [w for w in wanted_list if w not in plays]
        if unknown:
            raise DataValidationError(
                f"names plays {unknown} the release does not have",
                path=merged,
                field="plays",
                expected=f"some of {plays}",
            )
        plays = [p for p in plays if p in wanted_list]
    items: list[ParallelItem] = []
    per_play: dict[str, int] = {}
    dropped = {"blank_pairs_dropped": 0, "unchanged_pairs_dropped": 0}
    for play in plays:
        files = {"original": merged / f"{play}_original.snt.aligned", "modern": merged / f"{play}_modern.snt.aligned"}
        if not files["modern"].is_file():
            raise DataValidationError(
                "has no modern counterpart",
                path=files["original"],
                field="modern",
                expected=f"{files['modern'].name} in {XU_MERGED}",
            )
        rows = _stripped_pairs(files)
        kept, counts = _kept_pairs(ctx, rows)
        per_play[play] = len(rows)
        dropped = {k: dropped[k] + counts[k] for k in dropped}
        items.extend(
            ParallelItem((o, m), id=f"{play}:{i}", style_type="shakespeare", source=str(files["original"]))
            for i, o, m in kept
        )
    return items, {
        "release": "cocoxu/Shakespeare clone",
        "plays": plays,
        "plays_from": f"{XU_MERGED}/*_original.snt.aligned (sorted)",
        "line_pairs_per_play": per_play,
        **dropped,
        "axis": ["original", "modern"],
    }


def read_shakespeare(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(original, modern) line pairs: the time axis runs from Shakespeare's text to its modern rewrite.

    Default (STEB §C and the reference loader, :func:`_read_xu_clone`): all 17 plays of Xu et al.'s release; in
    either release a pair with a blank side or whose modern side is the original unchanged (case and spacing
    aside) is dropped. With option ``split`` (or when only harsh19's split files are present) one harsh19 split
    is read instead -- a subset of the same plays, so scores differ by population; the info names the release.
    """
    split = ctx.options.get("split")
    if split is None and (root / XU_MERGED).is_dir():
        return _read_xu_clone(ctx, root)
    split = str(split or "test")
    files = {
        role: locate_file(ctx, root, _in_root_or(root, "data", f"{split}.{role}.nltktok"), **SHAKESPEARE)
        for role in ("original", "modern")
    }
    kept, dropped = _kept_pairs(ctx, _stripped_pairs(files))
    items = [
        ParallelItem((o, m), id=f"{split}:{i}", style_type="shakespeare", source=str(files["original"]))
        for i, o, m in kept
    ]
    return items, {
        "release": f"harsh19 {split} split (not STEB's default: all 17 plays of cocoxu/Shakespeare)",
        "split": split,
        **dropped,
        "axis": ["original", "modern"],
    }


def _aae_from_archive(zip_path: Path, names: dict[str, str]) -> dict[str, list[str]]:
    """Both sides read straight from the supplementary zip (``__MACOSX/`` resource forks skipped)."""
    import zipfile

    out: dict[str, list[str]] = {}
    try:
        with zipfile.ZipFile(release_file(zip_path)) as archive:
            members = [m for m in archive.namelist() if "__MACOSX" not in m]
            for role, name in names.items():
                hits = [m for m in members if m.rsplit("/", 1)[-1] == name]
                if len(hits) != 1:
                    raise DataValidationError(
                        f"holds {len(hits)} files named {name}",
                        path=zip_path,
                        field=role,
                        expected=f"one {name} (in {AAE_FOLDER}/)",
                    )
                raw = read_zip_member(archive, hits[0], path=zip_path)  # capped: a zip bomb is refused, not unpacked
                try:
                    text = raw.decode("utf-8-sig")
                except UnicodeDecodeError as exc:
                    raise DataValidationError(
                        f"member {hits[0]} is not UTF-8 ({exc.reason})",
                        path=zip_path,
                        field=role,
                        expected="UTF-8 text",
                    ) from None
                out[role] = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    except zipfile.BadZipFile as exc:
        raise DataValidationError(
            f"is not a readable zip archive ({exc})", path=zip_path, expected="the EMNLP 2020 supplementary zip"
        ) from None
    return out


def read_twitter_aae(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(AAE, SAE) tweet pairs: the AAE tweet and its Standard American English rewrite (Groenwold et al. 2020).

    The GitHub repository holds only ``sae_samples.txt``; the pairs come from the EMNLP 2020 supplementary
    archive, read as the zip itself or unpacked (``EMNLP-AAVE-files/``) or flat in the dataset folder.
    """
    names = {
        "aae": str(ctx.options.get("aae_file", "aave_samples.txt")),
        "sae": str(ctx.options.get("sae_file", "sae_samples.txt")),
    }
    for folder in (root / AAE_FOLDER, root):
        if all((folder / n).is_file() for n in names.values()):
            files = {role: folder / name for role, name in names.items()}
            rows = read_aligned(files)
            source, where = str(files["aae"]), str(folder.relative_to(root)) if folder != root else "."
            break
    else:
        archives = sorted(root.glob("*.zip"))
        zip_path = (
            root / AAE_ARCHIVE if (root / AAE_ARCHIVE).is_file() else (archives[0] if len(archives) == 1 else None)
        )
        if zip_path is None:
            if (root / names["sae"]).is_file() and not (root / names["aae"]).is_file():
                raise DatasetNotFoundError(
                    f"dataset '{ctx.dataset}': {root} holds only {names['sae']} -- the GitHub repository has only the "
                    "SAE side. "
                    f"Obtain the pairs: {TWITTER_AAE['obtain']}"
                )
            found = locate_file(ctx, root, [f"{AAE_FOLDER}/{names['aae']}", names["aae"], AAE_ARCHIVE], **TWITTER_AAE)
            raise DatasetNotFoundError(
                f"dataset '{ctx.dataset}': {found} is not where steb reads the release; "
                f"expected layout: {TWITTER_AAE['layout']}"
            )  # (locate_file raised if nothing is there)
        columns = _aae_from_archive(zip_path, names)
        for role in columns:  # one text per line, a final newline allowed
            if columns[role] and columns[role][-1] == "":
                columns[role].pop()
        rows = _check_columns(columns, zip_path)
        source, where = str(zip_path), zip_path.name
    items = [
        ParallelItem((r["aae"], r["sae"]), id=f"line {i}", style_type="aae-sae", source=source)
        for i, r in enumerate(rows, start=1)
    ]
    return items, {"axis": ["AAE", "SAE"], "read_from": where, "pairs": len(items)}


def _check_columns(columns: dict[str, list[str]], path: Path) -> list[dict[str, str]]:
    lengths = {role: len(lines) for role, lines in columns.items()}
    if len(set(lengths.values())) > 1:
        raise DataValidationError(
            f"sides have {lengths} lines", path=path, expected="line-aligned files of equal length"
        )
    for role, lines in columns.items():
        for i, line in enumerate(lines, start=1):
            if not line.strip():
                raise DataValidationError(
                    "is an empty line", path=path, record=f"line {i}", field=role, expected="one text per line"
                )
    n = next(iter(lengths.values()), 0)
    return [{role: columns[role][i] for role in columns} for i in range(n)]


def _asset_splits(ctx: LoadContext) -> tuple[str, ...]:
    value = str(ctx.options.get("split", "valid,test"))
    return tuple(s.strip() for s in value.split(",") if s.strip())


#: which simplification of a row: ``sha256`` (the reference: int(sha256(original)) mod 10) or ``random`` (steb's earlier
#: seeded draw, salted by the dataset name)
SIMPLIFICATION_CHOICES = ("sha256", "random")


def asset_simplification_index(original: str, n: int) -> int:
    """The reference's choice among a row's ``n`` simplifications: int(sha256(original as UTF-8), 16) mod n.

    ``steb/steb_datasets/ASSET/loader.py`` @29e74df9 ``asset_record_handler`` (two stored docstrings, same rule).
    """
    return int(hashlib.sha256(original.encode("utf-8")).hexdigest(), 16) % n


def _asset_chooser(ctx: LoadContext) -> tuple[str, Callable[[str, int], int]]:
    """``k = choose(original, n)`` for the ``simplification`` option (default ``sha256``, the reference)."""
    choice = str(ctx.options.get("simplification", "sha256")).strip().lower()
    if choice not in SIMPLIFICATION_CHOICES:
        raise DataValidationError(
            f"option simplification={choice!r}", field="simplification", expected=" or ".join(SIMPLIFICATION_CHOICES)
        )
    if choice == "sha256":
        return choice, asset_simplification_index
    rng = seeded_rng(ctx.seed, "asset-simplification", ctx.dataset)
    return choice, lambda original, n: rng.randrange(n)


def _asset_item(
    original: str, simplifications: list[str], choose: Callable[[str, int], int], split: str, i: int, source: str
) -> ParallelItem | None:
    """One reference sequence [simplification, original] (both stripped), label ``simple``; None when the chosen
    simplification is blank (the reference's handler skips such a row; the release has none)."""
    k = choose(original, len(simplifications))
    simple = simplifications[k].strip()
    if not simple:
        return None
    return ParallelItem((simple, original.strip()), id=f"{split}:{i}:simp.{k}", style_type="simple", source=source)


def read_asset(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """ASSET as the STEB reference reads it: one sequence per row, [simplification, original], label ``simple``.

    The reference (``steb/steb_datasets/ASSET/config.json`` @5b0858f7 = @a86611be, ``loader.py`` @29e74df9
    ``asset_record_handler``) reads Hugging Face ``facebook/asset``, config ``simplification``, split
    ``validation+test``: validation rows 0..1999, then test rows 0..358; of each row's ten simplifications it
    takes number int(sha256(original)) mod 10 (:func:`asset_simplification_index`), so nothing is random, and
    orders the sequence simple -> complex. The GitHub release files hold the same rows
    (``dataset/asset.{valid,test}.orig`` and ``.simp.0..9``, line i = row i); lines are stripped as the hub's
    rows are. With the reference's first-N rule the 200 sequences evaluated are validation rows 0-199.

    Options: ``split`` (default ``valid,test``), ``simplification=random`` (steb's earlier seeded draw of one
    simplification per row, salted by the dataset name).
    """
    splits = _asset_splits(ctx)
    mode, choose = _asset_chooser(ctx)
    items: list[ParallelItem] = []
    per_split: dict[str, int] = {}
    skipped = 0
    clone = any((root / rel).is_file() for s in splits for rel in (f"asset.{s}.orig", f"dataset/asset.{s}.orig"))
    if not clone:
        location = find_hub_location(root, ASSET_HUB_ID)
        if location is not None and any(
            p.suffix.lower() in HUB_DATA_SUFFIXES for p in location.rglob("*") if p.is_file()
        ):
            return _asset_from_hub(ctx, location, splits, mode, choose)
    for split in splits:
        orig = locate_file(ctx, root, _in_root_or(root, "dataset", f"asset.{split}.orig"), **ASSET)
        simps = sorted(orig.parent.glob(f"asset.{split}.simp.[0-9]*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
        if not simps:
            locate_file(ctx, root, [f"{orig.parent.relative_to(root)}/asset.{split}.simp.0"], **ASSET)
        rows = read_aligned({"orig": orig, **{p.name: p for p in simps}})
        per_split[split] = len(rows)
        for i, r in enumerate(rows, start=1):
            item = _asset_item(r["orig"].strip(), [r[p.name] for p in simps], choose, split, i, str(orig))
            if item is None:
                skipped += 1
            else:
                items.append(item)
    return items, {
        "splits": list(splits),
        "sources_per_split": per_split,
        "axis": ["simplification", "original"],
        "simplification_choice": mode,
        "rows_with_blank_simplification": skipped,
    }


def _asset_from_hub(
    ctx: LoadContext, location: Path, splits: tuple[str, ...], mode: str, choose: Callable[[str, int], int]
) -> tuple[list[ParallelItem], dict[str, Any]]:
    items: list[ParallelItem] = []
    per_split: dict[str, int] = {}
    skipped = 0
    for split in splits:
        hub_split = "validation" if split in ("valid", "validation") else split
        rows = load_hub_split(location, ASSET_HUB_ID, split=hub_split, config="simplification", dataset=ctx.dataset)
        per_split[split] = len(rows)
        for i, row in enumerate(rows, start=1):
            original, simps = row.get("original"), row.get("simplifications")
            if not isinstance(original, str) or not original.strip():
                raise DataValidationError(
                    "is empty or missing",
                    path=location,
                    record=f"{hub_split} row {i}",
                    field="original",
                    expected="the source sentence",
                )
            if not isinstance(simps, list) or not simps or not all(isinstance(t, str) for t in simps):
                raise DataValidationError(
                    "is not a list of texts",
                    path=location,
                    record=f"{hub_split} row {i}",
                    field="simplifications",
                    expected="the 10 simplifications",
                )
            item = _asset_item(original, simps, choose, split, i, str(location))
            if item is None:
                skipped += 1
            else:
                items.append(item)
    return items, {
        "splits": list(splits),
        "sources_per_split": per_split,
        "axis": ["simplification", "original"],
        "release": f"hub {ASSET_HUB_ID}",
        "simplification_choice": mode,
        "rows_with_blank_simplification": skipped,
    }
