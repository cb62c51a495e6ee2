"""STEB results in: the authors' results trees read as steb result records, marked with their origin.

Reads what ``scripts/download_results.sh`` unpacks (the canonical baselines, ``results/``) and the community's
``submitted_results/``: ``<dataset>/<model>/<episode>/<task>/metrics.json`` (:mod:`.layout`). Each file becomes a
:class:`~steb_core._results.ResultRecord` whose encoder is the model folder, whose metrics carry steb's names
(:data:`.names.METRIC_KEYS`; keys steb has no name for are kept under ``reference_other``), and which says where it
came from: ``encoder_info["origin"] == "steb-leaderboard"`` with the tree and the file, ``steb_protocol`` naming the
reference code, ``dataset_info["episode_config"]`` the episode folder.

Which file of a run is read follows the reference's scripts: the benchmark preset's episode size (1; retrieval
-1), and among several N of it the first folder in sorted order (``scripts/benchmark_clustering/discovery.py``
@14cd737e ``discover_scores``: "take first matching episode params"), unless ``episode_params`` names one
(their ``--episode-params``). Nothing is guessed: a file that cannot be mapped -- a dataset folder steb has no
dataset for, an unknown task folder, another episode size, a token-capped run (``tokens_<N>/``, which the
leaderboard scripts never read), invalid JSON, a missing or non-finite primary key -- is listed in
:attr:`TreeImport.unmapped` with its path and the reason. Files are read with a size cap and parsed as data only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import DataValidationError, StebError
from .._io import check_inside, parse_json
from .._results import ResultRecord, check_storable_name, non_finite_path
from .layout import LOGS_FOLDER, METRICS_FILE, parse_episode_folder, parse_tokens_folder
from .names import DEFAULT_EPISODE_SIZE, SHARE_BOUNDS, STEB_TASKS, MetricKey, metric_keys, primary_key, steb_dataset

__all__ = [
    "ORIGIN",
    "REFERENCE_PROTOCOL",
    "MAX_METRICS_BYTES",
    "PUBLISHED_SUFFIX",
    "Unmapped",
    "TreeImport",
    "read_tree",
    "read_trees",
    "is_imported",
    "record_from_metrics",
    "keep_apart",
    "keep_apart_in",
    "import_records",
    "shown_name",
]

#: ``encoder_info["origin"]`` of every imported record
ORIGIN = "steb-leaderboard"
#: ``steb_protocol`` of every imported record: the numbers were made by the authors' code, not by steb
REFERENCE_PROTOCOL = "STEB reference code (github.com/rrivera1849/STEB results tree)"
#: a metrics.json is a few hundred bytes; anything past this is not one
MAX_METRICS_BYTES = 8 * 2**20


@dataclass(frozen=True)
class Unmapped:
    """A file or folder of a tree that did not become a record, and why."""

    path: str
    reason: str

    def __post_init__(self) -> None:
        # a folder name that is not UTF-8 (read as lone surrogates) is shown escaped, so listing it cannot fail
        object.__setattr__(self, "path", shown_name(self.path))


def shown_name(name: str) -> str:
    """``name`` printable and writable as UTF-8: bytes a file system name held that are not UTF-8 (Python reads
    them as lone surrogates) as ``\\xff``, any other lone surrogate as ``\\udcxx``."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _name_problem(name: str, kind: str) -> str | None:
    """Why a folder name cannot name a steb model or dataset (the rule of registration), or None."""
    try:
        check_storable_name(name, kind)
    except ValueError as exc:
        return str(exc).replace(repr(name), repr(shown_name(name)))
    return None


@dataclass
class TreeImport:
    """The records read from one or several trees, what could not be mapped, and what an earlier tree shadowed."""

    roots: list[Path]
    records: list[ResultRecord] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)

    @property
    def models(self) -> list[str]:
        return sorted({r.encoder for r in self.records})

    def summary(self) -> str:
        return (
            f"{len(self.records)} result(s) of {len(self.models)} published model(s) from "
            f"{', '.join(str(r) for r in self.roots)}; {len(self.unmapped)} file(s)/folder(s) not mapped"
        )


def is_imported(record: ResultRecord) -> bool:
    """Whether ``record`` came from a STEB results tree (not from a steb run)."""
    return (record.encoder_info or {}).get("origin") == ORIGIN


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer past the float range (a 400-digit literal): no metric's value
        return None
    return number if math.isfinite(number) else None


def _too_large(value: Any, where: str = "") -> str | None:
    """The dotted path of the first integer inside ``value`` that no float can hold, or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            return where or "the document"
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _too_large(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def _check_range(key: MetricKey | None, name: str, value: float) -> None:
    why = key.out_of_range(value) if key is not None else _share_out_of_range(name, value)
    if why is not None:
        raise StebError(f"key '{name}': {why}; a value outside its metric's range is refused, never ranked")


def _share_out_of_range(name: str, value: float) -> str | None:
    low, high = SHARE_BOUNDS
    return None if low <= value <= high else f"{value!r} is outside the range of a share ([{low:g}, {high:g}])"


def record_from_metrics(
    data: Mapping[str, Any],
    *,
    model: str,
    dataset: str,
    task: str,
    episode: str,
    source: str,
    tree: str,
    meta: Mapping[str, Any] | None = None,
) -> ResultRecord:
    """One record from a parsed metrics.json; :class:`StebError` when its primary key is missing or not finite, or
    when a number of a metric (a key of :data:`.names.METRIC_KEYS`, a probing feature, a per-label order-alignment
    mean) lies outside that metric's range (:attr:`.names.MetricKey.bounds`)."""
    primary = primary_key(task)
    value = _number(data.get(primary.reference))
    if value is None:
        got = "missing" if primary.reference not in data else f"{data[primary.reference]!r}, not a finite number"
        raise StebError(f"key '{primary.reference}' (the task's primary metric) is {got}")
    for metric_key in metric_keys(task):
        number = _number(data.get(metric_key.reference))
        if number is not None:
            _check_range(metric_key, metric_key.reference, number)
    metrics: dict[str, Any] = {}
    known = {k.reference for k in metric_keys(task)}
    for metric_key in metric_keys(task):
        number = _number(data.get(metric_key.reference))
        if number is not None:
            metrics[metric_key.steb] = number
    other: dict[str, Any] = {}
    for key, raw in data.items():
        if key in known:
            continue
        if task == "order_alignment" and key == "_per_label" and isinstance(raw, dict):
            plain = {str(k): _number(v.get("acc_mean")) for k, v in raw.items() if isinstance(v, dict)}
            distractor = {str(k): _number(v.get("distractor_acc_mean")) for k, v in raw.items() if isinstance(v, dict)}
            for label, number in [*plain.items(), *distractor.items()]:
                if number is not None:
                    _check_range(None, f"_per_label.{label}", number)
            if plain and None not in plain.values() and None not in distractor.values() and len(plain) == len(raw):
                metrics["accuracy_by_style_type"] = plain
                metrics["distractor_accuracy_by_style_type"] = distractor
                continue
        if task == "probing" and _number(raw) is not None:
            _check_range(None, str(key), _number(raw))  # type: ignore[arg-type]
            metrics.setdefault("accuracy_by_feature", {})[str(key)] = _number(raw)
            continue
        if (
            non_finite_path(raw) is None
        ):  # kept as it is (e.g. submetrics); a NaN anywhere would make the record unwritable
            other[str(key)] = raw
    if other:
        metrics["reference_other"] = other
    return ResultRecord(
        encoder=model,
        dataset=dataset,
        task=task,
        main_metric=primary.steb,
        main_score=value,
        metrics=metrics,
        encoder_info={"origin": ORIGIN, "tree": tree, "model_folder": model},
        dataset_meta=dict(meta or {}),
        dataset_info={"episode_config": episode, "reference_file": source},
        protocol={"name": "reference", "source": "github.com/rrivera1849/STEB"},
        steb_protocol=REFERENCE_PROTOCOL,
    )


def _dirs(path: Path) -> list[Path]:
    return sorted(p for p in path.iterdir() if p.is_dir())


def read_tree(
    root: str | Path,
    *,
    episode_params: str | None = None,
    specs: Mapping[str, Any] | None = None,
    label: str | None = None,
    include_other: bool = False,
) -> TreeImport:
    """Read one results tree (see the module docstring). ``specs``: name -> DatasetSpec, copied into ``dataset_meta``;
    ``include_other``: read a dataset folder that is not STEB's as the steb dataset of that name (what ``steb export
    --include-other`` wrote), instead of listing it."""
    root = Path(root)
    if not root.is_dir():
        raise DataValidationError(
            "is not a folder",
            path=root,
            expected="a STEB results tree (<dataset>/<model>/<episode>/<task>/metrics.json)",
        )
    tree = label or str(root)
    out = TreeImport([root])
    meta_of = _meta_function(specs)
    for dataset_dir in _dirs(root):
        rel = dataset_dir.name
        if rel == LOGS_FOLDER:
            continue  # run logs (core.py _write_evaluation_log), not results
        dataset = steb_dataset(rel) or (rel if include_other else None)
        problem = _name_problem(rel, "dataset folder") if dataset is not None else None
        if problem is not None:
            out.unmapped.append(Unmapped(f"{rel}/", problem))
            continue
        if dataset is None:
            out.unmapped.append(
                Unmapped(f"{rel}/", "no steb dataset has this name (not one of STEB's datasets steb implements)")
            )
            continue
        for model_dir in _dirs(dataset_dir):
            problem = _name_problem(model_dir.name, "model folder")
            if problem is not None:
                out.unmapped.append(Unmapped(f"{rel}/{model_dir.name}/", problem))
                continue
            chosen: dict[str, tuple[str, Path]] = {}
            for ep_dir in _dirs(model_dir):
                where = f"{rel}/{model_dir.name}/{ep_dir.name}"
                parsed = parse_episode_folder(ep_dir.name)
                if parsed is None:
                    out.unmapped.append(Unmapped(f"{where}/", "not an episode folder (<size>_<n per class>)"))
                    continue
                for task_dir in _dirs(ep_dir):
                    path = f"{where}/{task_dir.name}"
                    task = STEB_TASKS.get(task_dir.name)
                    if task is None:
                        out.unmapped.append(Unmapped(f"{path}/", "unknown task folder"))
                        continue
                    if parsed[0] != DEFAULT_EPISODE_SIZE[task]:
                        why = f"episode size {parsed[0]}, not the benchmark preset's {DEFAULT_EPISODE_SIZE[task]}"
                        out.unmapped.append(Unmapped(f"{path}/", f"{why} for {task_dir.name}"))
                        continue
                    if episode_params is not None and ep_dir.name != episode_params:
                        why = f"not the episode folder asked for ({episode_params})"
                        out.unmapped.append(Unmapped(f"{path}/", why))
                        continue
                    if not (task_dir / METRICS_FILE).is_file():
                        capped = [d.name for d in _dirs(task_dir) if parse_tokens_folder(d.name) is not None]
                        reason = "no metrics.json"
                        if capped:
                            reason = (
                                f"only token-capped runs ({', '.join(capped)}), which the leaderboard "
                                "scripts do not read"
                            )
                        out.unmapped.append(Unmapped(f"{path}/", reason))
                        continue
                    if task in chosen:
                        why = f"another N of the same run is used: {chosen[task][0]} (the first in sorted order, "
                        out.unmapped.append(Unmapped(f"{path}/{METRICS_FILE}", why + "as discovery.py takes)"))
                        continue
                    chosen[task] = (ep_dir.name, task_dir / METRICS_FILE)
            for task, (episode, file) in sorted(chosen.items()):
                source = f"{rel}/{model_dir.name}/{episode}/{file.parent.name}/{METRICS_FILE}"
                try:
                    out.records.append(
                        _read_one(
                            root,
                            file,
                            model=model_dir.name,
                            dataset=dataset,
                            task=task,
                            episode=episode,
                            source=source,
                            tree=tree,
                            meta=meta_of(dataset),
                        )
                    )
                except StebError as exc:
                    out.unmapped.append(Unmapped(source, str(exc)))
    return out


def _read_one(root: Path, file: Path, **fields: Any) -> ResultRecord:
    check_inside(file, root, what="results tree")
    size = file.stat().st_size
    if size > MAX_METRICS_BYTES:
        raise StebError(f"{size} bytes, more than a metrics.json can be ({MAX_METRICS_BYTES} bytes)")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise StebError("not UTF-8 text") from None
    try:
        data = parse_json(text, path=file, expected="a metrics.json of the STEB reference code")
    except DataValidationError as exc:
        raise StebError(exc.reason) from None
    if not isinstance(data, dict):
        raise StebError(f"a JSON {type(data).__name__}, not an object of metrics")
    huge = _too_large(data)
    if huge is not None:
        raise StebError(f"key '{huge}' holds an integer too large for any float (not a metric's value)")
    return record_from_metrics(data, **fields)


def _meta_function(specs: Mapping[str, Any] | None) -> Callable[[str], dict[str, Any]]:
    if not specs:
        return lambda name: {}
    from ..run.stored import dataset_meta  # only when specs are given

    return lambda name: dataset_meta(specs[name]) if name in specs else {}


def read_trees(
    roots: Sequence[str | Path],
    *,
    episode_params: str | None = None,
    specs: Mapping[str, Any] | None = None,
    include_other: bool = False,
) -> TreeImport:
    """Several trees merged; on a (model, dataset, task) found twice the earlier tree wins, as the reference's
    ``results/`` wins over ``submitted_results/`` ("maintainer-owned numbers win"), and the later file is listed."""
    merged = TreeImport([])
    seen: dict[tuple[str, str, str], str] = {}
    for root in roots:
        part = read_tree(root, episode_params=episode_params, specs=specs, include_other=include_other)
        merged.roots += part.roots
        merged.unmapped += part.unmapped
        for rec in part.records:
            key = (rec.encoder, rec.dataset, rec.task)
            if key in seen:
                where = f"{root}/{rec.dataset_info['reference_file']}"
                merged.unmapped.append(Unmapped(where, f"shadowed by {seen[key]}"))
                continue
            seen[key] = f"{root}/{rec.dataset_info['reference_file']}"
            merged.records.append(rec)
    return merged


#: appended to a published model's name when a steb run in the same report has that encoder name
PUBLISHED_SUFFIX = " (published)"


def keep_apart(own: Iterable[ResultRecord], imported: Sequence[ResultRecord]) -> tuple[list[ResultRecord], list[str]]:
    """``imported`` with every model whose name a steb run in ``own`` also uses renamed ``NAME (published)``, so
    the two rows stay apart (your run of a published model beside the published numbers); and the renamed names."""
    from dataclasses import replace

    clash = {r.encoder for r in own} & {r.encoder for r in imported}
    if not clash:
        return list(imported), []
    out = [replace(r, encoder=r.encoder + PUBLISHED_SUFFIX) if r.encoder in clash else r for r in imported]
    return out, sorted(clash)


def keep_apart_in(folder: Path, imported: Sequence[ResultRecord]) -> tuple[list[ResultRecord], list[str]]:
    """:func:`keep_apart` against the results a steb run wrote into ``folder`` (imported ones there do not count)."""
    from .._results import load_results

    own = [r for r in load_results(folder) if not is_imported(r)] if folder.is_dir() else []
    return keep_apart(own, imported)


def import_records(folder: Path, records: Sequence[ResultRecord]) -> int:
    """Write imported ``records`` into ``folder``; how many earlier imported records they replaced.

    An imported record never replaces one a steb run computed: when one would (a computed encoder named
    ``NAME (published)``, or records not passed through :func:`keep_apart_in`), nothing is written and
    :class:`StebError` names both files.
    """
    from .._results import load_results, result_path

    existing = list(load_results(folder)) if folder.is_dir() else []
    computed = {(r.encoder, r.dataset, r.task) for r in existing if not is_imported(r)}
    clash = [r for r in records if (r.encoder, r.dataset, r.task) in computed]
    if clash:
        first = clash[0]
        raise StebError(
            f"{len(clash)} imported result(s) would replace results steb computed, e.g. the published "
            f"'{first.encoder}' {first.dataset}/{first.task} "
            f"({first.encoder_info.get('tree')}/{first.dataset_info.get('reference_file')}) over your "
            f"{result_path(folder, first.encoder, first.dataset, first.task)}: nothing imported; import into "
            "another folder (`steb report MINE --leaderboard TREE` reads a tree without writing it)"
        )
    before = {(r.encoder, r.dataset, r.task) for r in existing if is_imported(r)}
    for rec in records:
        rec.write(folder)
    return len(before & {(r.encoder, r.dataset, r.task) for r in records})
