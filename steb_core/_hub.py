"""Hugging Face-hosted releases read offline, through the ``datasets`` library.

Several STEB corpora are published only on the Hugging Face hub (SynthSTEL, Corpus of Diverse Styles,
tweet_eval, ASSET's hub copy). steb never downloads at run time, so a user brings the data in one of
the three forms a hub download takes, and :func:`load_hub_split` reads any of them:

1. a ``Dataset.save_to_disk`` / ``DatasetDict.save_to_disk`` folder (``dataset_info.json`` +
   ``state.json`` + ``data-*.arrow``, or ``dataset_dict.json`` with one sub-folder per split);
2. the local hub cache that ``datasets.load_dataset(HUB_ID)`` or ``huggingface-cli download`` fill
   (``$HF_HUB_CACHE`` or ``~/.cache/huggingface/hub/datasets--OWNER--NAME/snapshots/<revision>/``);
3. the repository's files downloaded to a folder (``huggingface-cli download HUB_ID --repo-type dataset
   --local-dir DIR``): Parquet, JSON-lines, CSV or TSV data files, split named by file or folder
   (``data/train-00000-of-00001.parquet``, ``<config>/test/0000.parquet``, ``validation.jsonl`` ...).

The ``datasets`` package is imported only here and only when such a dataset is loaded (extra ``hub``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._containment import check_inside, release_file, release_path
from ._errors import DatasetNotFoundError, DataValidationError, StebError

__all__ = ["load_hub_split", "hub_cache_snapshot", "find_hub_location", "HUB_DATA_SUFFIXES"]

HUB_DATA_SUFFIXES = {
    ".parquet": "parquet",
    ".jsonl": "json",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "csv",
    ".arrow": "arrow",
}
_SPLIT_ALIASES = {"validation": ("validation", "valid", "val", "dev"), "test": ("test",), "train": ("train",)}


def _datasets() -> Any:
    try:
        import datasets  # heavy, optional
    except ImportError:
        raise StebError(
            "reading a Hugging Face release needs the 'datasets' package: pip install 'steb-core[hub]'"
        ) from None
    return datasets


def hub_cache_snapshot(hub_id: str, cache_dir: str | Path | None = None) -> Path | None:
    """The newest local snapshot folder of dataset ``hub_id`` in the hub cache, or None."""
    roots = [Path(cache_dir)] if cache_dir else []
    for env in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(env):
            roots.append(Path(os.environ[env]))
    if os.environ.get("HF_HOME"):
        roots.append(Path(os.environ["HF_HOME"]) / "hub")
    roots.append(Path.home() / ".cache" / "huggingface" / "hub")
    folder = "datasets--" + hub_id.replace("/", "--")
    for root in roots:
        repo = root / folder
        if not repo.is_dir():
            continue
        ref = repo / "refs" / "main"
        if ref.is_file():
            snap = repo / "snapshots" / ref.read_text(encoding="utf-8").strip()
            if snap.is_dir():
                return snap
        snaps = sorted((p for p in (repo / "snapshots").glob("*") if p.is_dir()), key=lambda p: p.stat().st_mtime)
        if snaps:
            return snaps[-1]
    return None


def find_hub_location(data_dir: Path | None, hub_id: str) -> Path | None:
    """Where a hub release is on this machine: ``data_dir`` if it holds one, else the hub cache."""
    if data_dir is not None and data_dir.is_dir():
        return data_dir
    return hub_cache_snapshot(hub_id)


def _release_root(location: Path) -> Path:
    """The folder a hub release's files must stay inside: the repository folder (``datasets--OWNER--NAME``) for a
    snapshot of the hub cache, whose files are links into its ``blobs/``; else the folder itself."""
    snapshots = location.parent
    if snapshots.name == "snapshots" and snapshots.parent.name.startswith("datasets--"):
        return snapshots.parent
    return location


def _check_saved_dataset(root: Path, release: Path) -> None:
    """Refuse a ``save_to_disk`` folder with a file (or link) leading outside ``release``, or a ``state.json``
    naming a data file outside its folder, before ``datasets`` opens anything (it follows links and names)."""
    from ._io import read_json  # io imports containment; hub is imported lazily

    for folder, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            entry = Path(folder) / name
            check_inside(entry, release, what="release folder")
            release_file(entry)
        if "state.json" in names:
            state_path = Path(folder) / "state.json"
            state = read_json(state_path)
            for i, item in enumerate(state.get("_data_files", []) if isinstance(state, dict) else []):
                filename = item.get("filename") if isinstance(item, dict) else None
                if not isinstance(filename, str):
                    raise DataValidationError(
                        f"is {filename!r}",
                        path=state_path,
                        record=f"_data_files[{i}]",
                        field="filename",
                        expected="the name of a data file in this folder",
                    )
                release_path(folder, filename, path=state_path, record=f"_data_files[{i}]", field="filename")


def _is_saved_dataset(folder: Path) -> bool:
    return (folder / "dataset_dict.json").is_file() or (
        (folder / "state.json").is_file() and (folder / "dataset_info.json").is_file()
    )


def _split_of(path: Path, root: Path) -> str | None:
    parts = [p.lower() for p in path.relative_to(root).with_suffix("").parts]
    for part in reversed(parts):  # the file name first, then its folders
        tokens = [part, *re.split(r"[-_.]", part)]
        for token in tokens:  # data/test-00000-of-00001, X-GENRE-test, validation
            for split, aliases in _SPLIT_ALIASES.items():
                if token in aliases:
                    return split
    return None


def _data_files(root: Path, config: str | None) -> dict[str, list[str]]:
    files: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*")):
        if (
            not path.is_file()
            or path.suffix.lower() not in HUB_DATA_SUFFIXES
            or any(p.startswith(".") for p in path.relative_to(root).parts)
        ):
            continue
        if path.name in ("dataset_info.json", "state.json", "dataset_dict.json", "dataset_infos.json"):
            continue
        rel = path.relative_to(root).parts
        if config is not None and len(rel) > 1 and config not in rel[:-1]:
            continue
        split = _split_of(path, root) or "train"
        files.setdefault(split, []).append(str(path))
    return files


def _read_data_files(paths: list[str], kind: str, line_breaks: str = "any") -> list[dict[str, Any]]:
    """Rows of hub data files, read with pyarrow (the ``datasets`` backend) so nothing is written to
    the Hugging Face cache: steb writes only to its output and cache folders.

    A CSV/TSV file is first streamed through steb's own reader (strict quoting, swallowed rows, and the
    ``line_breaks`` the release allows, see :func:`steb_core._io.read_delimited_rows`): pyarrow, like pandas,
    reads a quote opened on one row and closed two rows later as one value, silently.
    """
    import pyarrow  # installed with datasets

    if kind == "csv":
        from ._tables import read_table  # generic is not needed for the other formats

        for path in paths:
            for _ in read_table(path, "tsv" if path.lower().endswith(".tsv") else "csv", line_breaks=line_breaks):
                pass

    rows: list[dict[str, Any]] = []
    for path in paths:
        if kind == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        elif kind == "json":
            import pyarrow.json as pj

            table = pj.read_json(path)
        elif kind == "csv":
            import pyarrow.csv as pc

            table = pc.read_csv(
                path, parse_options=pc.ParseOptions(delimiter="\t" if path.lower().endswith(".tsv") else ",")
            )
        else:
            with pyarrow.memory_map(path) as source:
                table = pyarrow.ipc.open_stream(source).read_all()
        rows.extend(table.to_pylist())
    return rows


def load_hub_split(
    location: str | Path,
    hub_id: str,
    *,
    split: str | Iterable[str] = "train",
    config: str | None = None,
    dataset: str = "",
    line_breaks: str = "any",
) -> list[dict[str, Any]]:
    """Rows (dicts) of one or more splits of hub dataset ``hub_id`` stored at ``location``, offline.

    ``split`` may name several splits (ASSET: validation + test), which are concatenated in that
    order. Errors name the folder, what was found and how to obtain the data. ``line_breaks``: what a
    CSV/TSV data file of this release allows inside a value (``"none"`` for one record per line).
    """
    splits = [split] if isinstance(split, str) else list(split)
    root = Path(location)
    how = (
        f"download it once on a machine with network: `huggingface-cli download {hub_id} --repo-type dataset "
        f"--local-dir DIR` (or `datasets.load_dataset('{hub_id}').save_to_disk(DIR)`), then point --data-dir at DIR's "
        "parent"
    )
    if not root.is_dir():
        raise DatasetNotFoundError(f"dataset '{dataset or hub_id}': no folder {root}; {how}")
    rows: list[dict[str, Any]] = []
    release = _release_root(root)
    if _is_saved_dataset(root):
        ds = _datasets()
        _check_saved_dataset(root, release)
        loaded = ds.load_from_disk(str(root))
        for name in splits:
            if isinstance(loaded, ds.DatasetDict):
                if name not in loaded:
                    raise DatasetNotFoundError(
                        f"dataset '{dataset or hub_id}': saved folder {root} has splits {sorted(loaded)}, not '{name}'"
                    )
                part = loaded[name]
            else:
                part = loaded
            rows.extend(part.to_list())
        return rows
    files = _data_files(root, config)
    if not files:
        raise DatasetNotFoundError(
            f"dataset '{dataset or hub_id}': {root} holds neither a save_to_disk folder nor data files "
            f"({', '.join(sorted(HUB_DATA_SUFFIXES))}); {how}"
        )
    for name in splits:
        if name not in files:
            raise DatasetNotFoundError(
                f"dataset '{dataset or hub_id}': {root} has data files for splits {sorted(files)}, not '{name}'"
            )
        suffixes = {Path(f).suffix.lower() for f in files[name]}
        if len(suffixes) != 1:
            raise StebError(
                f"dataset '{dataset or hub_id}': split '{name}' mixes file types {sorted(suffixes)} in {root}"
            )
        for path in files[name]:  # a link out of the release (the cache's links into blobs/ stay inside) is refused
            check_inside(path, release, what="release folder")
            release_file(path)
        rows.extend(_read_data_files(files[name], HUB_DATA_SUFFIXES[suffixes.pop()], line_breaks))
    return rows
