"""The contract a plugin's component must keep, as checks a plugin author calls in their own tests.

scikit-learn's ``check_estimator`` lesson: the rules every dataset, encoder and task type of steb follows are
written once, here, and run on any component, so a plugin finds out in its own test suite (not in a user's run)
that its loader returns the shape it declares, that its encoder is deterministic and batch-independent, or that
its task's main metric is missing. Exported by :mod:`steb_core.testing`; each check raises ``AssertionError``
naming the component and the rule, and returns what it built so a test can check more.
"""

from __future__ import annotations

import fnmatch
import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ._context import TaskContext
from ._errors import DatasetNotFoundError
from ._records import SHAPES, DatasetBundle, LabelledText, TextPair
from ._release_reads import ReleaseReads, recording_release_reads
from ._sources import DataSource
from ._specs import COLUMN_KINDS, DatasetSpec, EncoderSpec, LoadContext, TaskSpec

__all__ = [
    "check_dataset_spec",
    "check_declared_reads",
    "cut_to_declared",
    "undeclared_reads",
    "check_encoder",
    "check_task_spec",
    "CHECK_TEXTS",
]

#: texts the encoder and task checks use when given none: short and long, punctuation, digits, non-ASCII
CHECK_TEXTS = (
    "Hello there!",
    "The Court held that the appeal fails.",
    "lol see u at 8 :)",
    "Whereupon the parties, having conferred, agreed to adjourn.",
    "Ça va? Très bien, merci.",
    "no punctuation here at all",
    "Wait... what?!",
    "1, 2, 3 -- and then four.",
)


def _fail(what: str, rule: str) -> AssertionError:
    return AssertionError(f"{what}: {rule}")


def check_dataset_spec(
    spec: DatasetSpec, data_dir: str | Path | None = None, *, options: Mapping[str, Any] | None = None
) -> DatasetBundle:
    """Load ``spec`` as steb does and check what the loader returns; the bundle loaded.

    Rules: the loader returns a :class:`DatasetBundle` holding records of the shape of every task type the spec
    feeds (``tasks``: a built-in type's shape is known; a plugin's is not checked); loading twice gives the same
    records (the data fingerprint, which decides whether a stored result is reused); a dataset that needs data
    raises :class:`DatasetNotFoundError` naming the dataset, not another error, when its folder is missing; the task
    defaults the spec and the loaded bundle declare name options their task types read (a built-in type's options
    are known; a plugin's are not checked), with a value the task accepts where it lists them (the
    order-alignment rule).
    ``data_dir``: the dataset's folder (``ROOT/<name>``) or ``ROOT``.
    """
    what = f"dataset '{getattr(spec, 'name', spec)}'"
    if not isinstance(spec, DatasetSpec):
        raise _fail(what, f"is a {type(spec).__name__}, not a DatasetSpec")
    if spec.needs_data:
        with tempfile.TemporaryDirectory() as empty:
            try:
                spec.loader(LoadContext(spec.name, Path(empty) / spec.name, options=dict(options or {})))
            except DatasetNotFoundError as exc:
                if spec.name not in str(exc):
                    raise _fail(what, f"its missing-data error does not name the dataset: {exc}") from None
            except Exception as exc:  # the rule is about which error a missing folder raises (re-raised, named)
                raise _fail(
                    what,
                    f"with no data it raised {type(exc).__name__}: {exc} (expected DatasetNotFoundError; use "
                    "ctx.require_dir / ctx.require_file)",
                ) from exc
            else:
                raise _fail(what, "needs_data=True, yet it loaded from an empty folder (needs_data=False?)")
    folder = LoadContext.resolve_data_dir(spec.name, data_dir)

    def load() -> DatasetBundle:
        bundle = spec.loader(LoadContext(spec.name, folder, options=dict(options or {})))
        if not isinstance(bundle, DatasetBundle):
            raise _fail(what, f"the loader returned {type(bundle).__name__}, expected DatasetBundle")
        return bundle

    bundle = load()
    from .tasks import builtin_tasks

    shapes = {t.name: t.shape for t in builtin_tasks()}
    for task in spec.tasks:
        shape = shapes.get(task)
        if shape is not None and not bundle.get(shape):
            raise _fail(what, f"feeds task '{task}' but its loader returned no '{shape}' records")
    _check_task_defaults(what, spec.task_defaults, "spec")
    _check_task_defaults(what, bundle.task_defaults, "bundle")
    again = load()
    for shape in SHAPES:
        if bundle.get(shape) is not None and bundle.fingerprint(shape) != again.fingerprint(shape):
            raise _fail(what, f"two loads gave different '{shape}' records (seed every sample: ctx.seed)")
    return bundle


def _check_task_defaults(what: str, declared: Mapping[str, Mapping[str, Any]], where: str) -> None:
    """Each declared default names an option its (built-in) task type reads; the order-alignment rule is a known one."""
    from .tasks import builtin_tasks
    from .tasks.order_alignment import SCORINGS

    options = {t.name: t.options for t in builtin_tasks()}
    for task, values in declared.items():
        for name, value in values.items():
            if task in options and options[task] and name not in options[task]:
                raise _fail(
                    what,
                    f"its {where} declares task default '{task}.{name}', an option task type '{task}' does not read "
                    f"(it reads: {', '.join(options[task])})",
                )
            if (task, name) == ("order_alignment", "scoring") and str(value).strip().lower() not in SCORINGS:
                raise _fail(
                    what, f"its {where} declares order_alignment.scoring={value!r}; expected {' or '.join(SCORINGS)}"
                )


def _declares(source: DataSource) -> bool:
    """Whether ``source`` says which files its loader reads: a git or hub source with ``files`` and nothing to
    unpack (what ``steb data get`` fetches then is exactly those paths; any other source's folder is whole)."""
    return source.kind in ("git", "hf") and bool(source.files) and not source.unpack


def _folder_of(spec: DatasetSpec, source: DataSource) -> str:
    return "/".join(p for p in (source.target or spec.name, source.subdir.strip("/")) if p)


def _under_declared(rel: str, patterns: tuple[str, ...], *, folder: bool) -> bool:
    """Whether ``rel`` (relative to the source's folder) is what ``steb data get`` fetches for ``patterns`` (the
    git fetch's own rule, :func:`steb_core.obtain.git.matches`), or, for a listed ``folder``, lies on the way to
    a declared path (``Data/`` for ``Data/STEL/*.tsv``)."""
    from .obtain.git import matches

    if rel == "" or matches(rel, patterns):
        return True
    if not folder:
        return False
    parts = rel.split("/")
    return any(
        len(p.strip("/").split("/")) > len(parts)
        and all(fnmatch.fnmatchcase(a, b) for a, b in zip(parts, p.strip("/").split("/")))
        for p in patterns
    )


def undeclared_reads(spec: DatasetSpec, reads: ReleaseReads) -> list[str]:
    """The paths (relative to the data root, a folder with a trailing ``/``) that the loader of ``spec`` opened or
    listed and that no declared entry of its sources covers, sorted.

    Judged: paths inside the folder of a source that declares its files (:func:`_declares`: a git or hub source
    with ``files``), and paths under the data root outside every source's folder. A source that declares no files
    (a Zenodo record, an archive, manual instructions) covers its whole folder; the data root and the folders
    above a release folder may be listed (the loader looks for its release)."""
    folders = [(_folder_of(spec, s), s) for s in spec.sources]
    out = []
    for rel, is_folder in [(r, False) for r in reads.opened] + [(r, True) for r in reads.listed]:
        if is_folder and any(f == rel or f.startswith(rel + "/") or rel == "" for f, _ in folders):
            continue
        owners = [(f, s) for f, s in folders if rel.startswith(f + "/")]
        if owners and any(not _declares(s) for _, s in owners):
            continue
        if any(_under_declared(rel[len(f) + 1 :], s.files, folder=is_folder) for f, s in owners):
            continue
        out.append(rel + ("/" if is_folder else ""))
    return sorted(set(out))


def cut_to_declared(spec: DatasetSpec, data_root: str | Path) -> list[str]:
    """Remove from ``data_root`` every file that ``steb data get`` would not fetch for ``spec``, then the folders
    left empty (git keeps no empty folder); the files removed (relative, with ``/``), sorted. A fixture written as a
    full clone (a README, files of models the loader skips, another tool's output) becomes the release as
    ``data get`` leaves it, the one :func:`check_declared_reads` is about."""
    root = Path(data_root)
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}
    removed = undeclared_reads(spec, ReleaseReads(root, opened=files))
    for rel in removed:
        (root / rel).unlink()
    for folder in sorted((p for p in root.rglob("*") if p.is_dir() and not p.is_symlink()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    return removed


def check_declared_reads(
    spec: DatasetSpec, data_root: str | Path, *, options: Mapping[str, Any] | None = None
) -> ReleaseReads:
    """Run the loader of ``spec`` on the releases under ``data_root`` (the folder holding them side by side, as
    ``steb data get`` lays them out) while recording, from every thread, what it opens and lists there
    (:func:`steb_core._release_reads.recording_release_reads`); what it read.

    Rule: the loader reads no file, and lists no folder, that its sources do not declare
    (:func:`undeclared_reads`): what a source's ``files`` name is what ``steb data get`` fetches and
    ``steb data check`` checks, so a read of anything else works on a full clone and fails after ``data get``.
    Checked even when the loader raises (a placeholder release it refuses, a file it did not find): the
    undeclared read is then the error, chained to the loader's; with every read declared, the loader's own error
    is raised again for the caller to judge."""
    what = f"dataset '{getattr(spec, 'name', spec)}'"
    if not isinstance(spec, DatasetSpec):
        raise _fail(what, f"is a {type(spec).__name__}, not a DatasetSpec")
    if not spec.sources:
        raise ValueError(f"check_declared_reads: {what} has no sources=, so nothing says what its loader may read")
    root = Path(data_root)
    ctx = LoadContext(spec.name, LoadContext.resolve_data_dir(spec.name, root), options=dict(options or {}))
    error: BaseException | None = None
    with recording_release_reads(root) as reads:
        try:
            spec.loader(ctx)
        except Exception as exc:  # noqa: BLE001 - re-raised below, after the reads are judged
            error = exc
    undeclared = undeclared_reads(spec, reads)
    if undeclared:
        declared = [f"{_folder_of(spec, s)}/{p}" for s in spec.sources if _declares(s) for p in s.files]
        shown = ", ".join(declared[:8]) + (f", ... ({len(declared)} entries)" if len(declared) > 8 else "")
        raise _fail(
            what,
            f"its loader read {', '.join(undeclared)} under {root}, which no source declares (`steb data get` "
            f"fetches only {shown or 'the folders of its sources'}; add the path to the source's files=)",
        ) from error
    if error is not None:
        raise error
    return reads


def _build(encoder: Any, options: Mapping[str, Any] | None) -> tuple[str, Any, bool]:
    if isinstance(encoder, EncoderSpec):
        return f"encoder '{encoder.name}'", encoder.factory(**dict(options or {})), encoder.similarity_only
    name = getattr(encoder, "name", type(encoder).__name__)
    return f"encoder '{name}'", encoder, not hasattr(encoder, "encode") and hasattr(encoder, "similarity")


def check_encoder(encoder: Any, texts: Sequence[str] = CHECK_TEXTS, *, options: Mapping[str, Any] | None = None) -> Any:
    """Build ``encoder`` (an :class:`EncoderSpec`, with ``options``; or an object) and check how it encodes; the
    encoder built.

    Rules: ``encode(texts)`` gives one finite row per text, the same width for every batch; two calls give the same
    vectors (steb caches them); a text's vector does not depend on the batch it is in (to float32 resolution:
    steb's batches differ from run to run of a selection); ``fingerprint()``, when there is one, is a non-empty
    string that does not change between calls. A similarity-only encoder: ``similarity(a, b)`` gives one finite
    score per pair, the same on a second call.
    """
    what, built, similarity_only = _build(encoder, options)
    texts = list(texts)
    if len(texts) < 3:
        raise ValueError("check_encoder needs 3 or more texts")
    fingerprint = getattr(built, "fingerprint", None)
    if callable(fingerprint):
        first = fingerprint()
        if not isinstance(first, str) or not first or fingerprint() != first:
            raise _fail(what, f"fingerprint() must be a non-empty string that does not change (got {first!r})")
    if similarity_only:
        a, b = texts[:-1], texts[1:]
        scores = np.asarray(built.similarity(a, b), dtype=np.float64)
        if scores.shape != (len(a),) or not np.all(np.isfinite(scores)):
            raise _fail(what, f"similarity(a, b) of {len(a)} pairs gave shape {scores.shape} or non-finite scores")
        if not np.array_equal(scores, np.asarray(built.similarity(a, b), dtype=np.float64)):
            raise _fail(what, "two calls of similarity() gave different scores")
        return built

    def encode(batch: list[str]) -> np.ndarray:
        out = built.encode(batch)
        dense = out.toarray() if hasattr(out, "toarray") else np.asarray(out)
        if dense.ndim != 2 or dense.shape[0] != len(batch):
            raise _fail(what, f"encode() of {len(batch)} texts gave shape {dense.shape}, expected ({len(batch)}, d)")
        if not np.all(np.isfinite(dense)):
            raise _fail(what, "encode() gave NaN or infinite values")
        return dense.astype(np.float64)

    full = encode(texts)
    if not np.array_equal(full, encode(texts)):
        raise _fail(what, "two calls of encode() on the same texts gave different vectors")
    half = len(texts) // 2
    parts = np.vstack([encode(texts[half:]), encode(texts[:half])])
    parts = np.vstack([parts[len(texts) - half :], parts[: len(texts) - half]])
    if parts.shape != full.shape:
        raise _fail(what, f"batches gave {parts.shape[1]} columns, the whole list {full.shape[1]}")
    scale = max(float(np.abs(full).max()), 1.0)
    if not np.allclose(parts, full, rtol=0, atol=scale * 8 * float(np.finfo(np.float32).eps)):
        raise _fail(what, "a text's vector depends on the batch it is encoded in (padding? batch statistics?)")
    return built


def _check_records(shape: str) -> Any:
    if shape == "labelled_texts":
        return [LabelledText(t, str(i % 2), id=str(i)) for i, t in enumerate(CHECK_TEXTS)]
    if shape == "pairs":
        return [TextPair(a, b, i % 2 == 0, id=str(i)) for i, (a, b) in enumerate(zip(CHECK_TEXTS, CHECK_TEXTS[1:]))]
    return None


def _features(texts: Sequence[str]) -> np.ndarray:
    """A deterministic, batch-independent embedding for the task check: character-class counts per text."""
    rows = [
        [len(t), sum(c.isupper() for c in t), sum(not c.isalnum() and not c.isspace() for c in t), t.count(" ") + 1.0]
        for t in texts
    ]
    return np.asarray(rows, dtype=np.float32)


def check_task_spec(
    spec: TaskSpec,
    bundle: DatasetBundle | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int = 42,
) -> Mapping[str, Any]:
    """Run ``spec`` on ``bundle`` (default: a small set of records for the ``labelled_texts`` and ``pairs`` shapes;
    other shapes need one) with a deterministic embedding, and check its metrics; the metrics.

    Rules: the spec's column metrics name known column kinds; ``run(ctx)`` returns a mapping holding a finite
    number for ``main_metric`` (or a fallback), with string keys; the metrics the operational and definitional
    columns read are among the results, and so is the primary key of its ``tree_export`` when the main metric is;
    two runs with the same seed give the same metrics (a stored result is reused only when it would be computed
    again the same).
    """
    what = f"task type '{getattr(spec, 'name', spec)}'"
    if not isinstance(spec, TaskSpec):
        raise _fail(what, f"is a {type(spec).__name__}, not a TaskSpec")
    unknown = sorted(set(spec.column_metrics) - set(COLUMN_KINDS))
    if unknown:
        raise _fail(what, f"column_metrics names unknown kinds {unknown}")
    if bundle is None:
        records = _check_records(spec.shape)
        if records is None:
            raise ValueError(f"check_task_spec: give a DatasetBundle with '{spec.shape}' records for {what}")
        bundle = DatasetBundle(**{spec.shape: records})
    data = bundle.get(spec.shape)
    if not data:
        raise ValueError(f"check_task_spec: the bundle holds no '{spec.shape}' records for {what}")
    dataset = DatasetSpec("contract_check", "check_task_spec's records", (spec.name,), lambda ctx: bundle)

    def run() -> Mapping[str, Any]:
        ctx = TaskContext(dataset, bundle, data, seed=seed, options=dict(options or {}), embed_fn=_features)
        out = spec.run(ctx)
        if not isinstance(out, Mapping) or not all(isinstance(k, str) for k in out):
            raise _fail(what, f"run(ctx) returned {type(out).__name__}, expected a mapping with string keys")
        return out

    metrics = run()
    main = spec.main_metric_of(metrics)
    value = metrics.get(main)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(what, f"its main metric '{main}' is {value!r}, expected a finite number")
    for kind in ("operational", "definitional"):  # the strict and content-independence metrics may be absent
        metric = spec.column_metric(kind)  # (order alignment on data without distractors has no distractor accuracy)
        names = metric if isinstance(metric, tuple) else (metric,) if metric else ()
        if names and not any(n in metrics for n in names):
            raise _fail(what, f"the {kind} columns read {' or '.join(names)}, which run(ctx) does not return")
    export = spec.tree_export
    if export is not None and main == spec.main_metric:
        primary = next(k for k in export.keys if k.primary)
        if not any(n in metrics for n in primary.names()):
            raise _fail(what, f"its tree export's primary key '{primary.reference}' has no metric in run(ctx)")
    if run() != metrics:
        raise _fail(what, "two runs with the same seed and embeddings gave different metrics")
    return metrics
