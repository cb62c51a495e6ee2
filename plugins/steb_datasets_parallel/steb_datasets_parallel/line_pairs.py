"""Corpora released as two (or more) line-aligned files: parallel Shakespeare, Twitter AAE/SAE, ASSET.

Each reader names its files by role; :func:`steb_datasets_parallel.aligned.read_aligned` checks them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from steb_core import DataValidationError, DatasetNotFoundError, LoadContext, read_lines, seeded_rng
from steb_core.hub import HUB_DATA_SUFFIXES, find_hub_location, load_hub_split
from steb_core.io import read_zip_member, release_file
from steb_core.parallel import ParallelItem

from .aligned import read_aligned
from .common import locate_file, option_flag

__all__ = ["read_shakespeare", "read_twitter_aae", "read_asset", "SHAKESPEARE", "TWITTER_AAE", "ASSET"]

SHAKESPEARE = {
    "obtain": "clone Xu et al.'s release https://github.com/cocoxu/Shakespeare (all 17 plays of data/align/plays/merged/ are "
              "read: 21,079 line pairs, 19,746 with a changed modern side); the smaller train/valid/test split of https://github.com/harsh19/Shakespearizing-Modern-English "
              "(data/{split}.{original,modern}.nltktok) is read with option split=train|valid|test",
    "layout": "<data-dir>/parallel_shakespeare/ holding the cocoxu/Shakespeare clone: data/align/plays_list and "
              "data/align/plays/merged/<play>_{original,modern}.snt.aligned, line-aligned; or (option split) "
              "[data/]{split}.original.nltktok and {split}.modern.nltktok",
}
#: Where a clone of Xu et al.'s release (cocoxu/Shakespeare) keeps the sentence-aligned plays and their list.
XU_MERGED = "data/align/plays/merged"
XU_PLAYS_LIST = "data/align/plays_list"
TWITTER_AAE = {
    "obtain": "the AAE tweets are NOT in https://github.com/sophiegroenwold/AAVE_SAE_dataset (it holds only the SAE side, "
              "sae_samples.txt, for Twitter's terms); download the EMNLP 2020 supplementary archive "
              "https://aclanthology.org/attachments/2020.emnlp-main.473.OptionalSupplementaryMaterial.zip (Groenwold et al. 2020) "
              "and put the zip, or what it unpacks to (EMNLP-AAVE-files/aave_samples.txt + sae_samples.txt), in <data-dir>/twitter_aave_sae/",
    "layout": "<data-dir>/twitter_aave_sae/ holding 2020.emnlp-main.473.OptionalSupplementaryMaterial.zip, or its unpacked "
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
    "layout": "<data-dir>/ASSET/[dataset/]asset.{valid,test}.orig and asset.{valid,test}.simp.0..9, line-aligned (the clone), "
              "or the hub copy's files (columns original, simplifications); validation and test are combined (2,359 sources)",
}
ASSET_HUB_ID = "facebook/asset"


def _in_root_or(root: Path, sub: str, name: str) -> list[str]:
    return [name, f"{sub}/{name}"]


def _xu_plays(root: Path, merged: Path) -> tuple[list[str], str]:
    """The plays of the release: its ``plays_list`` (17 plays) when present, else every ``*_original`` file in merged/."""
    listed = root / XU_PLAYS_LIST
    if listed.is_file():
        return [p.strip() for p in read_lines(listed) if p.strip()], XU_PLAYS_LIST
    return sorted(p.name[: -len("_original.snt.aligned")] for p in merged.glob("*_original.snt.aligned")), f"{XU_MERGED}/*_original.snt.aligned"


def _same_line(original: str, modern: str) -> bool:
    """True when the "modern" rewrite left the line as it was (case and spacing aside)."""
    return " ".join(original.split()).casefold() == " ".join(modern.split()).casefold()


def _changed_pairs(ctx: LoadContext, rows: list[dict[str, str]]) -> tuple[list[tuple[int, dict[str, str]]], int]:
    """(1-based line, row) of the pairs whose two sides differ, and how many unchanged pairs were dropped.

    STEB's loader skips a pair whose modern side equals the original ignoring case and spacing (1,333 of the
    release's 21,079 line pairs): such a pair has no style difference to order. Option ``keep_unchanged``
    keeps them.
    """
    numbered = list(enumerate(rows, start=1))
    if option_flag(ctx, "keep_unchanged", False):
        return numbered, 0
    kept = [(i, r) for i, r in numbered if not _same_line(r["original"], r["modern"])]
    return kept, len(numbered) - len(kept)


def _read_xu_clone(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """Every play of a cocoxu/Shakespeare clone (``<play>_original/_modern.snt.aligned``), or those named by
    the ``plays`` option (STEB's default population: all 17 plays, 21,079 line pairs, 19,746 once the unchanged
    ones are dropped)."""
    merged = root / XU_MERGED
    plays, listed_in = _xu_plays(root, merged)
    wanted = ctx.options.get("plays")
    if wanted:
        wanted_list = [w.strip() for w in (wanted.split(",") if isinstance(wanted, str) else wanted)]
        unknown = [w for w in wanted_list if w not in plays]
        if unknown:
            raise DataValidationError(f"names plays {unknown} the release does not have", path=merged, field="plays",
                                      expected=f"some of {plays}")
        plays = wanted_list
    items: list[ParallelItem] = []
    per_play: dict[str, int] = {}
    unchanged = 0
    for play in plays:
        files = {"original": merged / f"{play}_original.snt.aligned", "modern": merged / f"{play}_modern.snt.aligned"}
        for role, path in files.items():
            if not path.is_file():
                raise DataValidationError(f"is missing ({play} is listed in {listed_in})" if role == "original" else "has no modern counterpart",
                                          path=path if role == "original" else files["original"], field=role,
                                          expected=f"{path.name} in {XU_MERGED}")
        rows = read_aligned(files)
        kept, dropped = _changed_pairs(ctx, rows)
        per_play[play] = len(rows)
        unchanged += dropped
        items.extend(ParallelItem((r["original"], r["modern"]), id=f"{play}:{i}", style_type="shakespeare",
                                  source=str(files["original"])) for i, r in kept)
    return items, {"release": "cocoxu/Shakespeare clone", "plays": plays, "plays_from": listed_in,
                   "line_pairs_per_play": per_play, "unchanged_pairs_dropped": unchanged, "axis": ["original", "modern"]}


def read_shakespeare(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(original, modern) line pairs: the time axis runs from Shakespeare's text to its modern rewrite.

    Default (STEB §C): all 17 plays of Xu et al.'s release; in either release a pair whose modern side is the
    original unchanged (case and spacing aside) is dropped, as STEB's loader does. With option ``split`` (or when only harsh19's
    split files are present) one harsh19 split is read instead -- a subset of the same plays, so scores
    differ by population; the info names which release was read.
    """
    split = ctx.options.get("split")
    if split is None and (root / XU_MERGED).is_dir():
        return _read_xu_clone(ctx, root)
    split = str(split or "test")
    files = {role: locate_file(ctx, root, _in_root_or(root, "data", f"{split}.{role}.nltktok"), **SHAKESPEARE)
             for role in ("original", "modern")}
    kept, unchanged = _changed_pairs(ctx, read_aligned(files))
    items = [ParallelItem((r["original"], r["modern"]), id=f"{split}:{i}", style_type="shakespeare", source=str(files["original"]))
             for i, r in kept]
    return items, {"release": f"harsh19 {split} split (not STEB's default: all 17 plays of cocoxu/Shakespeare)", "split": split,
                   "unchanged_pairs_dropped": unchanged, "axis": ["original", "modern"]}


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
                    raise DataValidationError(f"holds {len(hits)} files named {name}", path=zip_path, field=role,
                                              expected=f"one {name} (in {AAE_FOLDER}/)")
                raw = read_zip_member(archive, hits[0], path=zip_path)  # capped: a zip bomb is refused, not unpacked
                try:
                    text = raw.decode("utf-8-sig")
                except UnicodeDecodeError as exc:
                    raise DataValidationError(f"member {hits[0]} is not UTF-8 ({exc.reason})", path=zip_path, field=role, expected="UTF-8 text") from None
                out[role] = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    except zipfile.BadZipFile as exc:
        raise DataValidationError(f"is not a readable zip archive ({exc})", path=zip_path, expected="the EMNLP 2020 supplementary zip") from None
    return out


def read_twitter_aae(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(AAE, SAE) tweet pairs: the AAE tweet and its Standard American English rewrite (Groenwold et al. 2020).

    The GitHub repository holds only ``sae_samples.txt``; the pairs come from the EMNLP 2020 supplementary
    archive, read as the zip itself or unpacked (``EMNLP-AAVE-files/``) or flat in the dataset folder.
    """
    names = {"aae": str(ctx.options.get("aae_file", "aave_samples.txt")), "sae": str(ctx.options.get("sae_file", "sae_samples.txt"))}
    for folder in (root / AAE_FOLDER, root):
        if all((folder / n).is_file() for n in names.values()):
            files = {role: folder / name for role, name in names.items()}
            rows = read_aligned(files)
            source, where = str(files["aae"]), str(folder.relative_to(root)) if folder != root else "."
            break
    else:
        archives = sorted(root.glob("*.zip"))
        zip_path = root / AAE_ARCHIVE if (root / AAE_ARCHIVE).is_file() else (archives[0] if len(archives) == 1 else None)
        if zip_path is None:
            if (root / names["sae"]).is_file() and not (root / names["aae"]).is_file():
                raise DatasetNotFoundError(
                    f"dataset '{ctx.dataset}': {root} holds only {names['sae']} -- the GitHub repository has only the SAE side. "
                    f"Obtain the pairs: {TWITTER_AAE['obtain']}")
            locate_file(ctx, root, [f"{AAE_FOLDER}/{names['aae']}", names["aae"], AAE_ARCHIVE], **TWITTER_AAE)
        columns = _aae_from_archive(zip_path, names)
        for role in columns:  # one text per line, a final newline allowed
            if columns[role] and columns[role][-1] == "":
                columns[role].pop()
        rows = _check_columns(columns, zip_path)
        source, where = str(zip_path), zip_path.name
    items = [ParallelItem((r["aae"], r["sae"]), id=f"line {i}", style_type="aae-sae", source=source)
             for i, r in enumerate(rows, start=1)]
    return items, {"axis": ["AAE", "SAE"], "read_from": where, "pairs": len(items)}


def _check_columns(columns: dict[str, list[str]], path: Path) -> list[dict[str, str]]:
    lengths = {role: len(lines) for role, lines in columns.items()}
    if len(set(lengths.values())) > 1:
        raise DataValidationError(f"sides have {lengths} lines", path=path, expected="line-aligned files of equal length")
    for role, lines in columns.items():
        for i, line in enumerate(lines, start=1):
            if not line.strip():
                raise DataValidationError("is an empty line", path=path, record=f"line {i}", field=role, expected="one text per line")
    n = next(iter(lengths.values()), 0)
    return [{role: columns[role][i] for role in columns} for i in range(n)]


def _asset_splits(ctx: LoadContext) -> tuple[str, ...]:
    value = str(ctx.options.get("split", "valid,test"))
    return tuple(s.strip() for s in value.split(",") if s.strip())


def read_asset(ctx: LoadContext, root: Path) -> tuple[list[ParallelItem], dict[str, Any]]:
    """(source, one simplification) pairs over validation + test (STEB, as the ASSET paper does: the test split
    alone has 359 sources, not 400); which of the 10 simplifications is drawn per source with the run seed."""
    splits = _asset_splits(ctx)
    rng = seeded_rng(ctx.seed, "asset-simplification", ctx.dataset)
    items: list[ParallelItem] = []
    chosen: list[int] = []
    per_split: dict[str, int] = {}
    clone = any((root / rel).is_file() for s in splits for rel in (f"asset.{s}.orig", f"dataset/asset.{s}.orig"))
    if not clone:
        location = find_hub_location(root, ASSET_HUB_ID)
        if location is not None and any(p.suffix.lower() in HUB_DATA_SUFFIXES for p in location.rglob("*") if p.is_file()):
            return _asset_from_hub(ctx, location, splits, rng)
    for split in splits:
        orig = locate_file(ctx, root, _in_root_or(root, "dataset", f"asset.{split}.orig"), **ASSET)
        simps = sorted(orig.parent.glob(f"asset.{split}.simp.[0-9]*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
        if not simps:
            locate_file(ctx, root, [f"{orig.parent.relative_to(root)}/asset.{split}.simp.0"], **ASSET)
        rows = read_aligned({"orig": orig, **{p.name: p for p in simps}})
        per_split[split] = len(rows)
        for i, r in enumerate(rows, start=1):
            k = rng.randrange(len(simps))
            chosen.append(k)
            items.append(ParallelItem((r["orig"], r[simps[k].name]), id=f"{split}:{i}:simp.{k}", style_type="simplification", source=str(orig)))
    return items, {"splits": list(splits), "sources_per_split": per_split, "axis": ["source", "simplification"],
                   "times_each_simplification_drawn": [chosen.count(k) for k in range(max(chosen, default=-1) + 1)]}


def _asset_from_hub(ctx: LoadContext, location: Path, splits: tuple[str, ...], rng) -> tuple[list[ParallelItem], dict[str, Any]]:
    items: list[ParallelItem] = []
    per_split: dict[str, int] = {}
    for split in splits:
        hub_split = "validation" if split in ("valid", "validation") else split
        rows = load_hub_split(location, ASSET_HUB_ID, split=hub_split, config="simplification", dataset=ctx.dataset)
        per_split[split] = len(rows)
        for i, row in enumerate(rows, start=1):
            original, simps = row.get("original"), row.get("simplifications")
            if not isinstance(original, str) or not original.strip():
                raise DataValidationError("is empty or missing", path=location, record=f"{hub_split} row {i}", field="original", expected="the source sentence")
            if not isinstance(simps, list) or not simps or not all(isinstance(t, str) and t.strip() for t in simps):
                raise DataValidationError("is not a list of texts", path=location, record=f"{hub_split} row {i}", field="simplifications",
                                          expected="the 10 simplifications")
            k = rng.randrange(len(simps))
            items.append(ParallelItem((original, simps[k]), id=f"{split}:{i}:simp.{k}", style_type="simplification", source=str(location)))
    return items, {"splits": list(splits), "sources_per_split": per_split, "axis": ["source", "simplification"], "release": f"hub {ASSET_HUB_ID}"}
