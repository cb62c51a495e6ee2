"""steb results out, as a STEB leaderboard submission: the authors' results tree plus the two lines to declare it.

:func:`export_tree` writes ``OUT/<dataset>/<short_name>/<episode>/<task>/metrics.json`` for one encoder's records
exactly as the reference's ``steb/core.py`` @18c49153 ``evaluate`` writes them (:mod:`.layout`), with the keys of
:data:`.names.METRIC_KEYS`: a key is written only when the record holds the same number (never estimated). A key
the reference writes that a record lacks (``eer`` and ``auc@...`` of a pair result scored by the grid rule or stored
before steb computed them, ``mean_rank`` and the recalls of retrieval's ``counted`` rule) is listed, with why, in
the returned :class:`ExportReport` and in ``OUT/steb-export-<short_name>.json``, a manifest beside the dataset
folders (the reference's scripts and ``scripts/validate_submission.py`` only look inside dataset folders).

Refused unless asked for (the export then says so in its report and manifest):

* records made under another STEB protocol version than this steb's (``steb_core._specs.STEB_PROTOCOL_VERSION``,
  read when the export runs), with the ``truncate`` long-text protocol (the reference puts a token-capped run in
  ``tokens_<N>/``, which its leaderboard scripts never read) or with ``sampling=random`` (``--sampling random``,
  ``--draws K``: other texts than the reference's first N per class): ``allow_other_protocol``;
* a partial suite (fewer (dataset, task) pairs than ``--suite steb`` has): ``allow_partial``;
* datasets, or (dataset, task) pairs, that are not STEB's (demo, STEL official quadruples, GYAFC, ...): written
  under steb's names with ``include_other``, else listed as skipped. The reference's scripts skip such folders.

The episode folder holds the N per class the run used (``1_200``); steb finds it in the record (``dataset_info``
key ``episode_config``, set by :mod:`.read` on import, or ``reference_n_per_class``, the N of the reference's
``DatasetLoader`` that :func:`steb_core.sample_classes` resolves for every loader taking the first N per class,
an int or a mapping task -> int when a bundle's tasks use different N), or from the metrics where the arithmetic is
exact (clustering: texts / clusters; all-to-all pairs: 2 * same-label pairs / texts + 1 for balanced classes), or
takes ``episodes`` from the caller (``--episode DATASET:TASK=1_N``); a record whose N is unknown is skipped and
listed, never given a made-up folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._benchmarks import STEB_BENCHMARK, STEB_MULTILINGUAL_BENCHMARK
from .._errors import StebError
from .._io import atomic_write_text, check_inside
from .._results import ResultRecord
from ..tasks.roc import ROC_NOTE
from .layout import check_short_name, metrics_path, metrics_text, parse_episode_folder
from .names import DEFAULT_EPISODE_SIZE, reference_dataset
from .task_export import TreeExport
from .task_export import export_number as _number

__all__ = [
    "MANIFEST_SCHEMA",
    "ExportItem",
    "Skipped",
    "ExportReport",
    "tree_exports",
    "reference_metrics",
    "episode_config",
    "export_tree",
    "submission_entry",
    "models_line",
    "parse_episode_option",
]

#: 2: "not_computed_by_steb" became "missing_keys" (steb computes every key now; a record may still lack some)
MANIFEST_SCHEMA = "steb.leaderboard-export/2"
STEB_SUITE = STEB_BENCHMARK.name


@dataclass(frozen=True)
class ExportItem:
    """One metrics.json written (or already there with the same content)."""

    dataset: str
    task: str
    path: str  # relative to the export folder
    keys: tuple[str, ...]
    missing: tuple[str, ...]  # reference keys the record has no number for (why: in notes)
    notes: tuple[str, ...] = ()
    unchanged: bool = False


@dataclass(frozen=True)
class Skipped:
    dataset: str
    task: str
    reason: str


@dataclass
class ExportReport:
    out: Path
    short_name: str
    encoder: str
    written: list[ExportItem] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: what the export was allowed to include, each with why (empty: a complete run under this steb's protocol)
    allowed: dict[str, str] = field(default_factory=dict)
    missing_pairs: list[tuple[str, str]] = field(default_factory=list)
    manifest: Path | None = None

    def missing_keys(self) -> dict[str, int]:
        """Reference key -> in how many written files the record had no number for it."""
        counts: dict[str, int] = {}
        for item in self.written:
            for key in item.missing:
                counts[key] = counts.get(key, 0) + 1
        return counts

    def to_manifest(self, steb_protocol: str, record_protocols: list[str]) -> dict[str, Any]:
        return {
            "schema": MANIFEST_SCHEMA,
            "short_name": self.short_name,
            "encoder": self.encoder,
            "steb_protocol": steb_protocol,
            "record_protocols": record_protocols,
            "allowed": dict(self.allowed),
            "missing_pairs": [list(p) for p in self.missing_pairs],
            "written": [
                {
                    "dataset": i.dataset,
                    "task": i.task,
                    "path": i.path,
                    "missing_keys": list(i.missing),
                    "notes": list(i.notes),
                }
                for i in self.written
            ],
            "skipped": [{"dataset": s.dataset, "task": s.task, "reason": s.reason} for s in self.skipped],
            "missing_keys": self.missing_keys(),
        }


def tree_exports(tasks: Iterable[Any] | None = None) -> dict[str, TreeExport]:
    """Task type -> its :class:`TreeExport`, from the task specs (default: the registered ones); a task type
    without one has no leaderboard folder."""
    if tasks is None:
        from .._plugins import get_manager

        tasks = list(get_manager().tasks())
    return {t.name: t.tree_export for t in tasks if isinstance(getattr(t, "tree_export", None), TreeExport)}


def _export_of(record: ResultRecord, export: TreeExport | None) -> TreeExport:
    found = export if export is not None else tree_exports().get(record.task)
    if found is None:
        raise StebError(f"task type '{record.task}' has no leaderboard export (its TaskSpec gives no tree_export)")
    return found


def reference_metrics(
    record: ResultRecord, export: TreeExport | None = None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The metrics.json content for ``record``, the reference keys it lacks, and notes.

    ``export``: the task type's :class:`TreeExport` (default: its registered spec's). Raises :class:`StebError` when
    the task's primary key (the one the leaderboard reads) has no number.
    """
    spec = _export_of(record, export)
    metrics = record.metrics
    missing: list[str] = []
    out, notes = spec.leading(metrics) if spec.leading is not None else ({}, [])
    out, notes = dict(out), list(notes)
    for key in spec.keys:
        value = next((_number(metrics[n]) for n in key.names() if _number(metrics.get(n)) is not None), None)
        if value is None:
            if key.primary:
                raise StebError(
                    f"no number for the leaderboard's metric '{key.reference}' (steb metric "
                    f"{' or '.join(repr(n) for n in key.names())})"
                )
            missing.append(key.reference)
            continue
        out[key.reference] = value
    if missing:
        notes.append(_why_missing(record, missing, spec))
    if spec.trailing is not None:
        out.update(spec.trailing(metrics))
    return out, missing, notes


def _why_missing(record: ResultRecord, missing: list[str], spec: TreeExport) -> str:
    """Why ``record`` lacks the reference keys ``missing``: what the record says, else what its task knows of it."""
    keys = ", ".join(missing)
    said = record.metrics.get(ROC_NOTE)
    if isinstance(said, str):
        return f"{keys}: {said}"
    known = spec.why_missing(record.metrics) if spec.why_missing is not None else None
    if known:
        return f"{keys}: {known}"
    return (
        f"{keys}: not in the record (made before steb computed them, or imported without them); "
        "`steb run ... --overwrite` recomputes the result with them"
    )


def episode_config(
    record: ResultRecord, episodes: Mapping[tuple[str, str], str] | None = None, export: TreeExport | None = None
) -> tuple[str | None, str]:
    """The episode folder of ``record`` and where it came from, or (None, why it is unknown).

    A folder given for the record's (dataset, task) must be one the record's task can have (the preset's episode
    size) and, where the record states its own N or the metrics give it, that very folder: :class:`StebError`
    otherwise, naming both, so a typo never puts a result under another run's folder. A folder given for
    ``DATASET:*`` fills in only where the record does not know its N. ``export``: the task type's
    :class:`TreeExport` (default: its registered spec's).
    """
    own, source = _own_episode_config(record, _export_of(record, export))
    exact = (episodes or {}).get((record.dataset, record.task))
    given = exact or (episodes or {}).get((record.dataset, "*"))
    if not given:
        return own, source
    parsed = parse_episode_folder(given)
    expected = DEFAULT_EPISODE_SIZE.get(record.task)
    where = f"--episode {record.dataset}:{record.task if exact else '*'}={given}"
    if parsed is None or (expected is not None and parsed[0] != expected):
        if exact or own is None:
            raise StebError(
                f"{where}: {record.task}'s episode folder is {expected}_N (the benchmark preset's episode size)"
            )
        return own, source
    if own is not None and given != own:
        if exact:
            raise StebError(
                f"{where}: the result's own episode folder is {own} (from {source}); a result is written under "
                "its own folder only (drop the option)"
            )
        return own, source
    return given, ("given" if own is None else source)


def _own_episode_config(record: ResultRecord, spec: TreeExport) -> tuple[str | None, str]:
    """The episode folder ``record`` itself says (its task's fixed one, its dataset_info, or exact arithmetic)."""
    if spec.fixed_episode is not None:
        return spec.fixed_episode, "the preset's fixed value"
    info = record.dataset_info or {}
    stated = info.get("episode_config")
    if isinstance(stated, str) and parse_episode_folder(stated):
        return stated, "the record"
    n = info.get("reference_n_per_class")
    if isinstance(n, Mapping):  # a bundle whose tasks use different N (corpus-of-diverse-styles' order_per_class)
        n = n.get(record.task)
    if isinstance(n, int) and not isinstance(n, bool) and n > 0:
        return f"1_{n}", "the record"
    derived = spec.episode(record.metrics) if spec.episode is not None else None
    if derived is not None:
        return derived
    return None, (
        "the N per class of the run is not in the record (dataset_info 'episode_config' or "
        f"'reference_n_per_class'): pass --episode {record.dataset}:{record.task}=1_N"
    )


#: the largest N per class an ``--episode`` option may give (STEB's largest is a few thousand)
MAX_EPISODE_N = 1_000_000

_EPISODE_OPTION = re.compile(r"([^:=\s]+):([^:=\s]+)=(-?[0-9]+)_([0-9]+)")


def parse_episode_option(values: Iterable[str]) -> dict[tuple[str, str], str]:
    """``DATASET:TASK=1_200`` (TASK may be ``*``) -> {(dataset, task): episode folder}.

    The folder is checked as a folder of the reference's benchmark preset can be: episode size 1 (-1: retrieval's
    one episode), N per class from 1 to :data:`MAX_EPISODE_N`, written without leading zeros.
    """
    out: dict[tuple[str, str], str] = {}
    for value in values:
        match = _EPISODE_OPTION.fullmatch(value.strip())
        if not match:
            raise StebError(f"--episode {value!r}: expected DATASET:TASK=SIZE_N, e.g. ASSET:order_alignment=1_200")
        size, n = int(match.group(3)), int(match.group(4))
        folder = f"{match.group(3)}_{match.group(4)}"
        if size not in (1, -1) or not 1 <= n <= MAX_EPISODE_N or folder != f"{size}_{n}":
            raise StebError(
                f"--episode {value!r}: the episode folder is 1_N (-1_1 for retrieval) with N per class from 1 to "
                f"{MAX_EPISODE_N} written without leading zeros"
            )
        out[(match.group(1), match.group(2))] = folder
    return out


def _tokens(record: ResultRecord) -> int | None:
    protocol = record.protocol or {}
    if protocol.get("name") == "truncate":
        limit = protocol.get("max_length")
        return int(limit) if isinstance(limit, int) and limit > 0 else None
    return None


def export_tree(
    records: Iterable[ResultRecord],
    out: str | Path,
    short_name: str,
    *,
    encoder: str | None = None,
    episodes: Mapping[tuple[str, str], str] | None = None,
    allow_partial: bool = False,
    allow_other_protocol: bool = False,
    include_other: bool = False,
    overwrite: bool = False,
    steb_protocol: str | None = None,
    tasks: Iterable[Any] | None = None,
) -> ExportReport:
    """Write one encoder's records as the reference's results tree under ``out`` (see the module docstring).

    Which (dataset, task) pairs are STEB's, and so what a complete export holds, is the STEB benchmark object's
    (:data:`steb_core._benchmarks.STEB_BENCHMARK`, with ``STEB_MULTILINGUAL_BENCHMARK``'s pairs also written), not the
    installed plugins' tags: an export made where a dataset plugin is missing still counts all 121. ``tasks``: the
    task specs, whose ``tree_export`` says where and how each task type's results are written (default: the
    registered ones; a task type without one is skipped). Nothing is written when a check fails: every target is
    checked before the first file is written.
    """
    from .. import _specs as specs_module  # read at call time: a protocol bump must reach the check

    current = steb_protocol or specs_module.STEB_PROTOCOL_VERSION
    why = check_short_name(short_name)
    if why is not None:
        raise StebError(f"--short-name {short_name!r} {why}")
    from .read import is_imported

    everything = list(records)
    # a figure read from a published tree (``steb import``) is the authors', never exported as the user's
    imported = sorted({r.encoder for r in everything if is_imported(r)})
    records = [r for r in everything if not is_imported(r)]
    encoders = sorted({r.encoder for r in records})
    if encoder is not None and encoder in imported and encoder not in encoders:
        raise StebError(
            f"the results of '{encoder}' were imported from a published STEB results tree (`steb import`), not "
            "computed by steb: only results your own `steb run` made are exported as a submission"
        )
    if not records and imported:
        raise StebError(
            f"every result here was imported from a published STEB results tree ({', '.join(imported)}), none "
            "computed by steb: only results your own `steb run` made are exported as a submission"
        )
    if encoder is not None:
        records = [r for r in records if r.encoder == encoder]
        if not records:
            raise StebError(f"no results of encoder '{encoder}' (encoders here: {', '.join(encoders) or 'none'})")
    elif len(encoders) > 1:
        raise StebError(f"the results hold {len(encoders)} encoders ({', '.join(encoders)}): choose one with --encoder")
    if not records:
        raise StebError("no result records to export")
    name = records[0].encoder
    report = ExportReport(Path(out), short_name, name)

    other = sorted({r.steb_protocol or "unknown" for r in records} - {current})
    truncated = sorted({f"{r.dataset}/{r.task}" for r in records if (r.protocol or {}).get("name") == "truncate"})
    drawn = sorted({f"{r.dataset}/{r.task}" for r in records if (r.dataset_info or {}).get("sampling") == "random"})
    problems = []
    if other:
        problems.append(f"made under STEB protocol {', '.join(other)}, not this steb's {current}")
    if truncated:
        problems.append(
            f"the 'truncate' long-text protocol ({len(truncated)} results; the reference puts a "
            "token-capped run in tokens_<N>/, which its leaderboard scripts do not read)"
        )
    if drawn:
        problems.append(
            f"sampling=random ({len(drawn)} results, e.g. {drawn[0]}: texts drawn with a seed, not the "
            "reference's first N per class)"
        )
    if problems and not allow_other_protocol:
        raise StebError(
            "results " + "; ".join(problems) + ": export them anyway with --allow-other-protocol "
            "(the export then says so)"
        )
    if problems:
        report.allowed["other_protocol"] = "; ".join(problems)

    suite = set(STEB_BENCHMARK.pairs)
    known = suite | set(STEB_MULTILINGUAL_BENCHMARK.pairs)
    have = {(r.dataset, r.task) for r in records}
    report.missing_pairs = sorted(suite - have)
    if report.missing_pairs and not allow_partial:
        raise StebError(
            f"partial suite: {len(have & suite)} of {len(suite)} (dataset, task) pairs of --suite {STEB_SUITE} have "
            f"results (missing e.g. {', '.join(f'{d}/{t}' for d, t in report.missing_pairs[:5])}): export anyway with "
            "--allow-partial "
            "(the export then says so; the leaderboard scripts drop, for every model, a dataset that one model lacks)"
        )
    if report.missing_pairs:
        report.allowed["partial"] = f"{len(have & suite)} of {len(suite)} (dataset, task) pairs of --suite {STEB_SUITE}"

    exports = tree_exports(tasks)
    plan: list[tuple[ResultRecord, Path, str, list[str], list[str]]] = []
    for rec in sorted(records, key=lambda r: (r.dataset, r.task)):
        folder = reference_dataset(rec.dataset)
        steb_pair = (rec.dataset, rec.task) in known
        task_export = exports.get(rec.task)
        if task_export is None:
            report.skipped.append(
                Skipped(
                    rec.dataset, rec.task, "a task type with no leaderboard export (its TaskSpec gives no tree_export)"
                )
            )
            continue
        if folder is None or not steb_pair:
            what = "not a STEB dataset" if folder is None else "not one of this STEB dataset's tasks"
            if not include_other:
                report.skipped.append(
                    Skipped(
                        rec.dataset,
                        rec.task,
                        f"{what} (written with --include-other; the reference's scripts skip such folders)",
                    )
                )
                continue
            report.allowed["other"] = (
                "datasets or tasks that are not STEB's, under steb's names (the reference's scripts skip them)"
            )
            folder = rec.dataset
        episode, source = episode_config(rec, episodes, task_export)
        if episode is None:
            report.skipped.append(Skipped(rec.dataset, rec.task, source))
            continue
        try:
            metrics, missing, notes = reference_metrics(rec, task_export)
        except StebError as exc:
            report.skipped.append(Skipped(rec.dataset, rec.task, str(exc)))
            continue
        if source not in ("the preset's fixed value", "the record"):
            notes.append(f"episode folder {episode} from {source}")
        path = metrics_path(report.out, folder, short_name, episode, task_export.folder, _tokens(rec))
        plan.append((rec, path, metrics_text(metrics), missing, notes))
    if not plan:
        raise StebError(
            "nothing to export: " + "; ".join(f"{s.dataset}/{s.task}: {s.reason}" for s in report.skipped[:5])
        )

    clashes = []
    for _, path, text, _, _ in plan:
        check_inside(path, report.out, what="export folder")
        if path.exists() and path.read_text(encoding="utf-8") != text and not overwrite:
            clashes.append(str(path))
    if clashes:
        raise StebError(
            f"{len(clashes)} metrics.json already exist with other numbers (e.g. {clashes[0]}): nothing "
            "written; pass --overwrite to replace them, or export to another folder"
        )
    for rec, path, text, missing, notes in plan:
        unchanged = path.exists() and path.read_text(encoding="utf-8") == text
        if not unchanged:
            path.parent.mkdir(parents=True, exist_ok=True)
            check_inside(path, report.out, what="export folder")
            atomic_write_text(path, text)
        report.written.append(
            ExportItem(
                rec.dataset,
                rec.task,
                path.relative_to(report.out).as_posix(),
                tuple(json.loads(text)),
                tuple(missing),
                tuple(notes),
                unchanged,
            )
        )
    protocols = sorted({r.steb_protocol or "unknown" for r in records})
    report.manifest = report.out / f"steb-export-{short_name}.json"
    atomic_write_text(report.manifest, json.dumps(report.to_manifest(current, protocols), indent=2) + "\n")
    return report


def _yaml_string(value: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax is valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def submission_entry(short_name: str, hf_id: str, run_command: str, contributor: str) -> str:
    """The ``SUBMISSIONS.yaml`` entry (SUBMISSION.md: four required keys, non-empty strings)."""
    return "\n".join(
        [
            f"- short_name: {_yaml_string(short_name)}",
            f"  hf_id: {_yaml_string(hf_id)}",
            f"  run_command: {_yaml_string(run_command)}",
            f"  contributor: {_yaml_string(contributor)}",
        ]
    )


def models_line(short_name: str, hf_id: str) -> str:
    """The ``scripts/models_all.txt`` line: ``org/short_name`` (the scripts keep the part after the last ``/`` as the
    model folder name, so it must be the short name), or the bare short name for a model without an org."""
    org = hf_id.rsplit("/", 1)[0] if "/" in hf_id else ""
    return f"{org}/{short_name}" if org else short_name
