"""Result records: one JSON file per (encoder, dataset, task), written atomically.

A record carries everything needed to cite or reproduce the number: the metrics, the encoder identity
(fingerprint, options, revision), the dataset version and sampling info, the long-text protocol, the
seed, library versions, timings and text counts, and a fingerprint of the loaded data with the version
of the plugin that provided it. ``run_key`` hashes the inputs that determine the result, the data
fingerprint among them; a re-run skips any (encoder, dataset, task) whose file already has the same
key (resume), and recomputes one whose data changed.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, distributions, version
from pathlib import Path
from typing import Any

from ._errors import DataValidationError
from ._io import atomic_write_text, check_inside, parse_json

__all__ = [
    "SCHEMA",
    "ResultRecord",
    "result_path",
    "legacy_result_path",
    "slug",
    "readable_slug",
    "check_storable_name",
    "load_results",
    "library_versions",
    "run_key",
    "non_finite_path",
]

SCHEMA = "steb.result/1"


#: names Windows cannot give a file or folder, whatever the extension (``CON``, ``con.txt``, ``LPT1``)
_WINDOWS_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"{p}{i}" for p in ("com", "lpt") for i in range(1, 10))})
#: a name whose readable form is longer than this gets it shortened and a hash (path components stop at 255 bytes)
_MAX_SLUG = 120
#: the hash of the exact name follows this character, which no name kept as it is can contain
_HASH_MARK = "~"


def readable_slug(name: str) -> str:
    """The readable, file-system-safe form of a name: ``/`` as ``__``, runs of other characters outside
    ``[A-Za-z0-9._+-]`` as ``_``, leading/trailing dots and underscores dropped (``unnamed`` when nothing is
    left). Not injective (``a b`` and ``a_b`` share it): :func:`slug` adds a hash where that matters."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", name.replace("/", "__")).strip("._") or "unnamed"


def slug(name: str) -> str:
    """The file-name form of a name, different for every two names (results of two datasets never share a file).

    A name that is already safe (its readable slug is the name itself, not a Windows-reserved word, not too
    long) is used as it is, so its results stay where earlier versions wrote them. Any other name gets its
    readable slug plus ``~`` and 12 hex digits of the sha256 of the exact name:
    ``sentence-transformers/all-MiniLM-L6-v2`` -> ``sentence-transformers__all-MiniLM-L6-v2~<hash>``.

    Why: the readable slug alone wrote ``a/b`` and ``a__b``, ``a b`` and ``a_b``, ``.x`` and ``x``, or two
    non-ASCII names (both ``unnamed``) into one file, so one dataset's result replaced the other's and reruns
    flip-flopped. A name kept as it is contains only ``[A-Za-z0-9._+-]``, never ``~``, so it cannot equal a
    hashed slug; two hashed slugs are equal only if their names' hashes are.
    """
    readable = readable_slug(name)
    if readable == name and readable.split(".", 1)[0].lower() not in _WINDOWS_RESERVED and len(readable) <= _MAX_SLUG:
        return readable
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{readable[:80]}{_HASH_MARK}{digest}"


def check_storable_name(name: Any, kind: str) -> None:
    """Refuse a component name that results cannot carry: not a string, empty or only spaces, spaces around it,
    a control character (a line break in a name breaks every listing and report), a lone surrogate (not
    UTF-8: the result file could not be written), or longer than 200 characters. Raises ``ValueError``;
    called when a dataset, task or encoder spec is made, so the plugin's registration fails, not a run."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{kind} name {name!r} is empty or not a string; results are stored under the name")
    problems = []
    if name != name.strip():
        problems.append("spaces at its start or end")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        problems.append("a control character (a line break, tab or NUL)")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        problems.append("a character that is not valid Unicode (a lone surrogate)")
    if len(name) > 200:
        problems.append(f"{len(name)} characters (at most 200)")
    if problems:
        raise ValueError(f"{kind} name {name!r} cannot be stored: it has {' and '.join(problems)}")


@dataclass
class ResultRecord:
    encoder: str
    dataset: str
    task: str
    main_metric: str
    main_score: float | None
    metrics: dict[str, Any]
    encoder_fingerprint: str = ""
    encoder_info: dict[str, Any] = field(default_factory=dict)
    encoder_family: str = ""
    dataset_version: str = "1"
    dataset_meta: dict[str, Any] = field(default_factory=dict)
    dataset_info: dict[str, Any] = field(default_factory=dict)
    task_version: str = "1"
    protocol: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    run_key: str = ""
    created: str = ""
    schema: str = SCHEMA
    #: what the encoder is (name/path, revision, weights/tokenizer/probe hashes; see encoders.identify)
    encoder_identity: dict[str, Any] = field(default_factory=dict)
    #: which STEB protocol version the construction and scores follow (steb_core._specs.STEB_PROTOCOL_VERSION)
    steb_protocol: str = ""
    #: metrics shown next to the main score wherever it appears, e.g. {"accuracy": 1.0} next to the distractor accuracy
    companions: dict[str, Any] = field(default_factory=dict)
    #: content hash of the records the task saw (``DatasetBundle.fingerprint``): a result is reused only
    #: for the same data, and ``steb report`` flags encoders compared on different data
    data_fingerprint: str = ""
    #: the plugin that provided the dataset and its distribution version ('' when unknown or in-memory)
    dataset_provider: str = ""
    dataset_provider_version: str = ""
    #: sha256 of the record's content (all fields but this one): a hand-edited result is not reused
    content_hash: str = ""

    def compute_hash(self) -> str:
        data = asdict(self)
        data.pop("content_hash", None)
        return hashlib.sha256(
            json.dumps(data, sort_keys=True, default=_json_default, allow_nan=False).encode()
        ).hexdigest()

    def verified(self) -> bool:
        """True when the stored content hash matches the content (records without one are not verified)."""
        try:
            return bool(self.content_hash) and self.content_hash == self.compute_hash()
        except (TypeError, ValueError):  # content JSON cannot hold (NaN, an object): not what steb wrote
            return False

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=False, default=_json_default, allow_nan=False)

    def write(self, output_dir: str | Path) -> Path:
        if not self.created:
            self.created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        # normalise through JSON first so the hash is of exactly what a reader will load
        normalised = ResultRecord.from_dict(
            json.loads(json.dumps(asdict(self), default=_json_default, allow_nan=False))
        )
        self.content_hash = normalised.compute_hash()
        path = result_path(output_dir, self.encoder, self.dataset, self.task)
        check_inside(path, output_dir, what="output folder")  # never write through a link leading elsewhere
        atomic_write_text(path, self.to_json() + "\n")
        return path

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, path: str | Path | None = None) -> ResultRecord:
        if data.get("schema") != SCHEMA:
            raise DataValidationError(f"schema is {data.get('schema')!r}", path=path, field="schema", expected=SCHEMA)
        known = {f for f in cls.__dataclass_fields__}
        missing = [f for f in ("encoder", "dataset", "task", "main_metric", "main_score", "metrics") if f not in data]
        if missing:
            raise DataValidationError("is missing", path=path, field=missing[0], expected="a steb result record")
        _check_stored_types(data, path)
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def read(cls, path: str | Path) -> ResultRecord:
        data = parse_json(Path(path).read_text(encoding="utf-8"), path=path, expected="a steb result record")
        if not isinstance(data, dict):
            raise DataValidationError(f"is a JSON {type(data).__name__}", path=path, expected="a steb result record")
        return cls.from_dict(data, path=path)


#: the type each stored field must have; a record from disk is checked against it before it is used
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "encoder": (str,),
    "dataset": (str,),
    "task": (str,),
    "main_metric": (str,),
    "metrics": (dict,),
    "encoder_fingerprint": (str,),
    "encoder_info": (dict,),
    "encoder_family": (str,),
    "dataset_version": (str, int),
    "dataset_meta": (dict,),
    "dataset_info": (dict,),
    "task_version": (str, int),
    "protocol": (dict,),
    "seed": (int,),
    "counts": (dict,),
    "timings": (dict,),
    "versions": (dict,),
    "run_key": (str,),
    "created": (str,),
    "encoder_identity": (dict,),
    "steb_protocol": (str,),
    "companions": (dict,),
    "data_fingerprint": (str,),
    "dataset_provider": (str,),
    "dataset_provider_version": (str,),
    "content_hash": (str,),
}


def _check_stored_types(data: dict[str, Any], path: str | Path | None) -> None:
    """Refuse a stored record whose fields have the wrong type or hold NaN/infinity, naming the field.

    Why: steb writes results with ``allow_nan=False``, so a NaN in a stored record was put there by hand
    or by another tool; left in, it failed every later ``steb run`` on that folder (the content hash
    cannot be computed) and ``metrics`` as a list broke the report. Such a record is refused here, and
    ``steb run`` recomputes it with a note naming the file.
    """
    for name, types in _FIELD_TYPES.items():
        if name in data and (not isinstance(data[name], types) or isinstance(data[name], bool)):
            raise DataValidationError(
                f"has type {type(data[name]).__name__} (value {str(data[name])[:60]!r})",
                path=path,
                field=name,
                expected=f"a {' or '.join(t.__name__ for t in types)} in a steb result record",
            )
    score = data["main_score"]
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise DataValidationError(
            f"has type {type(score).__name__} (value {str(score)[:60]!r})",
            path=path,
            field="main_score",
            expected="a number or null",
        )
    where = non_finite_path(data)
    if where is not None:
        raise DataValidationError(
            "is NaN or infinite",
            path=path,
            field=where,
            expected="finite numbers (steb never writes NaN; a missing score is null)",
        )


def non_finite_path(value: Any, where: str = "") -> str | None:
    """The dotted path of the first NaN/infinite float inside ``value``, or None."""
    if isinstance(value, float):
        return where if value != value or value in (float("inf"), float("-inf")) else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = non_finite_path(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (set, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in a result")


def result_path(output_dir: str | Path, encoder: str, dataset: str, task: str) -> Path:
    """``OUTPUT/<encoder>/<dataset>/<task>.json``, each part by :func:`slug` (one file per (encoder, dataset, task))."""
    return Path(output_dir) / slug(encoder) / slug(dataset) / f"{slug(task)}.json"


def legacy_result_path(output_dir: str | Path, encoder: str, dataset: str, task: str) -> Path:
    """Where steb before issue 41 wrote this result (readable slugs only); the runner moves a record found there
    for exactly these names to :func:`result_path`, so results of renamed paths are reused, not recomputed."""
    return Path(output_dir) / readable_slug(encoder) / readable_slug(dataset) / f"{readable_slug(task)}.json"


def load_results(output_dir: str | Path, *, verify: bool = True) -> Iterator[ResultRecord]:
    """Every result record under ``output_dir`` (temp files of interrupted writes are ignored).

    ``verify`` refuses a record whose content hash does not match its content, as ``steb run`` does
    before reusing one: a number edited by hand (or by another tool) must not reach a leaderboard.
    """
    root = Path(output_dir)
    if not root.is_dir():
        raise DataValidationError(
            "results folder does not exist", path=root, expected="the --output folder of `steb run`"
        )
    for path in sorted(root.rglob("*.json")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):  # temp files; .draws/ (steb_core._draws)
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise DataValidationError("is not valid UTF-8", path=path, expected="a steb result record") from None
        data = parse_json(text, path=path, expected="a steb result record")  # a key twice is refused, not the last kept
        if isinstance(data, dict) and data.get("schema") == SCHEMA:
            record = ResultRecord.from_dict(data, path=path)
            if verify and not record.verified():
                raise DataValidationError(
                    "does not match its content hash (edited by hand, or written by another tool)"
                    if record.content_hash
                    else "has no content hash",
                    path=path,
                    field="content_hash",
                    expected="a record as `steb run` wrote it (run it again to recompute this result, or remove the "
                    "file)",
                )
            yield record


def run_key(**parts: Any) -> str:
    """Hash of the inputs that determine a result; equal keys mean the stored result can be reused."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:24]


_TRACKED = ("steb-core", "numpy", "scipy", "scikit-learn", "torch", "transformers", "sentence-transformers", "spacy")


def library_versions(extra_distributions: tuple[str, ...] = ()) -> dict[str, str]:
    """Versions of Python, the libraries that affect numbers, and every installed steb plugin distribution."""
    out = {"python": platform.python_version()}
    names = list(_TRACKED) + list(extra_distributions)
    for dist in distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name.startswith("steb-") and name not in names:
            names.append(name)
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out
