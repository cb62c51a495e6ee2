"""Component specifications: what a plugin hands to ``register(...)`` in each hook.

Specs are metadata as data (MTEB's lesson): listings, filters, catalogue pages and the aggregators'
column maps are generated from them, never written by hand. Each spec holds a *factory* or *loader*
rather than a built object so that listing components never loads a model or reads a corpus.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ._containment import ScopedLoader
from ._errors import DatasetNotFoundError, DataValidationError
from ._option_values import as_choice, as_flag, as_integer, as_names
from ._records import SHAPES, DatasetBundle
from ._results import check_storable_name
from ._sources import DataSource

if TYPE_CHECKING:
    from ._executors import Executor
    from ._judgements import JudgementTable
    from ._scores import Scorer

__all__ = [
    "JudgementSetSpec",
    "CATEGORIES",
    "APPLICATIONS",
    "TASK_TYPES",
    "COLUMN_KINDS",
    "STEB_PROTOCOL_VERSION",
    "DEFAULT_SEED",
    "STEB_PAPER_BIBTEX",
    "LoadContext",
    "DatasetSpec",
    "EncoderSpec",
    "Availability",
    "TaskSpec",
    "AggregatorSpec",
    "ScorerSpec",
    "FeatureExtractorSpec",
    "ExecutorSpec",
    "BenchmarkSpec",
]

#: Definitional-score categories (STEB): objects of study, linguistic features, authorship/AI detection.
CATEGORIES = (
    "genre",
    "register",
    "time",
    "demographics",
    "dialect",
    "idiolect",
    "linguistic-feature",
    "ai-detection",
)

#: Application tags used by the per-application aggregators.
APPLICATIONS = (
    "ATD",  # AI-text detection
    "ATD-adversarial",
    "AV",  # authorship verification
    "AV-easy",
    "AV-medium",
    "AV-hard",
    "AR",  # authorship retrieval
    "multilingual",
)

#: The version of the STEB protocol (constructions, budgets, aggregates) steb implements; stored in
#: every result record and printed in reports. See README, "STEB protocol version". History:
#: "STEB-2026.06 (arXiv:2606.31741v1)" -- the paper as steb read it (seeded samples, Table 15's budgets);
#: "STEB-2026.06-ref1 ..." -- the paper plus the rules of the authors' reference code (issue 37: the first
#: N texts per class, the reference's order-alignment instances and scoring, float32 pair scores, k-means
#: random_state 42, LFTK scoring modes, seed 42); "STEB-2026.06-ref2 ..." -- plus the reference's model classes
#: (issue 45: every paper model embedded as the reference's get_model routes it -- plain mean pooling, not
#: normalised, the tokenizer's limit, spaCy sentence chunks, batches of 32 in dataset order; causal LMs its
#: last-token rule -- and OneStopEnglishCorpus's intermediate files with their header line). Results of an older
#: version are recomputed, with a note (stored neural results of ref1 were made by the model-card pipelines).
STEB_PROTOCOL_VERSION = "STEB-2026.06-ref2 (arXiv:2606.31741v1 + reference code github.com/rrivera1849/STEB)"

#: The run seed when none is given: the STEB reference's (``steb/core.py`` @18c49153 ``evaluate(seed=42)``,
#: ``steb/cli/run.py`` @1744b3b1 ``--seed`` default 42). It draws ``sampling=random`` samples; the default
#: first-N sample draws nothing.
DEFAULT_SEED = 42
#: the value type an option reader returns
T = TypeVar("T")

#: BibTeX of the STEB paper, the protocol's source: one entry under one key (``steb2026``) that the core's
#: ``steb cite`` and every plugin citing the paper for a dataset it introduces share, so the entry printed
#: never depends on which plugin was met first.
STEB_PAPER_BIBTEX = """@misc{steb2026,
  author = {Rivera Soto, Rafael and Wegmann, Anna and Aggazzotti, Cristina},
  title = {{STEB}: Style Text Embedding Benchmark},
  year = {2026},
  howpublished = {arXiv preprint arXiv:2606.31741},
  eprint = {2606.31741},
  archiveprefix = {arXiv},
  url = {https://arxiv.org/abs/2606.31741},
}"""

#: The built-in task type names (plugins may register more).
TASK_TYPES = ("clustering", "pair_all", "pair_predefined", "order_alignment", "retrieval", "probing")

#: The kinds of aggregate column a task's results feed (:meth:`TaskSpec.column_metric`): ``operational`` (the
#: operational score and the leaderboard's per-dataset cells), ``definitional`` (the object-of-study, feature and
#: application columns), ``strict`` (a STEB dataset's entry in the reference clusters: the metric the STEB
#: authors' scripts read) and ``content-independence`` (that column; only task types that declare it feed it).
COLUMN_KINDS = ("operational", "definitional", "strict", "content-independence")


@dataclass(frozen=True)
class LoadContext:
    """What a dataset loader gets: where the data is, the seed, and user options.

    A loader reads its options through :meth:`flag`, :meth:`choice`, :meth:`names`, :meth:`integer` (one reading
    of each kind of value for every plugin, refusing what it cannot read) or :meth:`option` for a value of its own.

    ``data_dir`` is the folder for *this* dataset: ``--data-dir ROOT`` or ``$STEB_DATA_DIR`` joined with
    the dataset name, unless the user pointed at the dataset folder itself.
    """

    dataset: str
    data_dir: Path | None
    seed: int = DEFAULT_SEED
    options: Mapping[str, Any] = field(default_factory=dict)

    def option(self, key: str, default: Any = None) -> Any:
        """The user's ``--dataset-option key=value`` as given, else ``default`` (read through the run's record of
        which options a loader asks for, so an option no loader reads is an error, not silently ignored)."""
        return (self.options or {}).get(key, default)

    def flag(self, key: str, default: bool) -> bool:
        """Option ``key`` as a boolean (:func:`steb_core._option_values.as_flag`: true/false, yes/no, on/off, 1/0);
        ``maybe`` is an error naming the dataset and the option, not true."""
        return self._read(key, default, lambda value: as_flag(key, value))

    def choice(self, key: str, choices: Sequence[str], default: str | None = None) -> str:
        """Option ``key`` as one of ``choices`` (case-insensitive), else ``default`` (the first choice when None)."""
        return self._read(key, choices[0] if default is None else default, lambda value: as_choice(key, value, choices))

    def names(self, key: str, default: Sequence[str] = ()) -> tuple[str, ...]:
        """Option ``key`` as names (``a,b`` or a list of strings), else ``default``."""
        return self._read(key, tuple(default), lambda value: as_names(key, value))

    def integer(self, key: str, default: int, minimum: int | None = None) -> int:
        """Option ``key`` as a whole number of at least ``minimum``, else ``default``."""
        return self._read(key, default, lambda value: as_integer(key, value, minimum))

    def _read(self, key: str, default: T, rule: Callable[[Any], T]) -> T:
        value = self.option(key, None)
        if value is None:
            return default
        try:
            return rule(value)
        except DataValidationError as exc:
            raise DataValidationError(f"dataset '{self.dataset}': {exc.reason}", expected=exc.expected) from None

    def require_dir(self, obtain: str, layout: str = "") -> Path:
        """The dataset folder, or a :class:`DatasetNotFoundError` that says what to download and where."""
        if self.data_dir is None or not self.data_dir.is_dir():
            where = str(self.data_dir) if self.data_dir is not None else f"$STEB_DATA_DIR/{self.dataset}"
            msg = f"dataset '{self.dataset}': no data at {where}. Obtain it: {obtain}"
            if layout:
                msg += f". Expected layout: {layout}"
            msg += f". Then pass --data-dir ROOT (with ROOT/{self.dataset}/) or set STEB_DATA_DIR."
            raise DatasetNotFoundError(msg)
        return self.data_dir

    def require_file(self, relative: str, obtain: str, layout: str = "") -> Path:
        """A file inside the dataset folder, or an error naming it and the archive it comes from."""
        root = self.require_dir(obtain, layout)
        path = root / relative
        if not path.is_file():
            msg = f"dataset '{self.dataset}': missing file {path}. Obtain it: {obtain}"
            if layout:
                msg += f". Expected layout: {layout}"
            raise DatasetNotFoundError(msg)
        return path

    def release_dir(self, folder: str, obtain: str, layout: str = "") -> Path:
        """The dataset folder, or a sibling ``ROOT/<folder>`` holding a release that serves several datasets.

        One release often feeds several datasets (STEL_register, STEL_feature and STEL-or-Content all
        read one STEL folder); users keep it once as ``ROOT/STEL`` instead of once per dataset name.
        """
        if self.data_dir is not None and not self.data_dir.is_dir() and self.data_dir.parent.is_dir():
            wanted = folder.lower()  # releases unpack as STEL/, stel/, ... depending on the archive
            for sibling in sorted(self.data_dir.parent.iterdir()):
                if sibling.is_dir() and sibling.name.lower() == wanted:
                    return sibling
        return self.require_dir(obtain, layout)

    @staticmethod
    def resolve_data_dir(dataset: str, data_dir: str | Path | None) -> Path | None:
        """Where dataset ``dataset`` lives, from ``--data-dir`` or ``$STEB_DATA_DIR`` (None if neither is set)."""
        root = (
            Path(data_dir)
            if data_dir
            else (Path(os.environ["STEB_DATA_DIR"]) if os.environ.get("STEB_DATA_DIR") else None)
        )
        if root is None:
            return None
        if (root / dataset).is_dir():
            return root / dataset
        if root.is_dir() and root.name == dataset:
            return root
        return root / dataset


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset and how to build its task records.

    ``tasks`` names the task types it feeds (see :data:`TASK_TYPES`); ``categories`` feed the
    definitional score, ``applications`` the per-application scores, ``content_independence`` marks
    order-alignment datasets whose distractor accuracy feeds the content-independence column.
    """

    name: str
    description: str
    tasks: tuple[str, ...]
    loader: Callable[[LoadContext], DatasetBundle]
    languages: tuple[str, ...] = ("en",)
    categories: tuple[str, ...] = ()
    applications: tuple[str, ...] = ()
    content_independence: bool = False
    suites: tuple[str, ...] = ()
    citation: str = ""
    license: str = ""
    obtain: str = ""
    homepage: str = ""
    size: str = ""
    needs_data: bool = True
    version: str = "1"
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: suite -> the task types this dataset contributes to that suite (default: all of ``tasks``).
    #: STEB's catalogue fixes which (dataset, task) pairs belong to ``steb``; a dataset may feed
    #: further tasks outside the suite (e.g. PAN24 as all-to-all).
    suite_tasks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: task -> what the catalogue promises for it, e.g. ``{"clustering": {"classes": 8, "per_class": 200,
    #: "texts": 1600}}`` (STEB Table 15); ``steb data check`` compares a load against it.
    expected: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    #: the pinned public release(s) ``steb data get`` fetches into the layout ``loader`` reads; empty for
    #: built-in data and for datasets with no known source yet (see :class:`steb_core.DataSource`)
    sources: tuple[DataSource, ...] = ()
    #: task -> option -> the value that task uses on this dataset when the run gives none, e.g.
    #: ``{"order_alignment": {"scoring": "steb-reference"}}``: how the data is meant to be scored is a fact of the
    #: dataset, declared here (issue 48), not a run option to repeat nor a string in its ``info``. A run's
    #: ``--task-option`` overrides it, a loaded bundle's ``task_defaults`` refine it
    #: (:meth:`steb_core.TaskContext.task_default`). Not part of the run key: changing one changes the results,
    #: so bump ``version`` with it.
    task_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def tasks_for_suite(self, suite: str | None) -> tuple[str, ...]:
        """The task types this dataset runs when selected through ``suite`` (all tasks when None)."""
        if suite is None or suite not in self.suites:
            return self.tasks
        return tuple(self.suite_tasks.get(suite, self.tasks))

    def __post_init__(self) -> None:
        if not isinstance(self.loader, ScopedLoader):  # every read of the loader checked against its release (issue 41)
            object.__setattr__(self, "loader", ScopedLoader(self.loader))
        if isinstance(self.sources, DataSource):
            object.__setattr__(self, "sources", (self.sources,))
        else:
            object.__setattr__(self, "sources", tuple(self.sources))
        for attr in ("tasks", "languages", "categories", "applications", "suites"):
            value = getattr(self, attr)
            if isinstance(value, str):
                object.__setattr__(self, attr, (value,))
            else:
                object.__setattr__(self, attr, tuple(value))
        if not self.name:
            raise ValueError("DatasetSpec needs a name")
        check_storable_name(self.name, "dataset")  # its results are stored under it (issue 41)
        if not self.tasks:
            raise ValueError(f"dataset '{self.name}' feeds no task type")
        unknown = [c for c in self.categories if c not in CATEGORIES]
        if unknown:
            raise ValueError(f"dataset '{self.name}': unknown categories {unknown}; known: {', '.join(CATEGORIES)}")
        object.__setattr__(
            self,
            "suite_tasks",
            {k: ((v,) if isinstance(v, str) else tuple(v)) for k, v in dict(self.suite_tasks).items()},
        )
        for suite, names in self.suite_tasks.items():
            bad = [t for t in names if t not in self.tasks]
            if bad:
                raise ValueError(f"dataset '{self.name}': suite '{suite}' names tasks {bad} the dataset does not feed")
        object.__setattr__(self, "task_defaults", _check_task_defaults(self.task_defaults, self.tasks, self.name))


def _check_task_defaults(
    defaults: Mapping[str, Mapping[str, Any]], tasks: Sequence[str], where: str
) -> dict[str, dict[str, Any]]:
    """``defaults`` (task -> option -> value) as plain dicts, each task one of ``tasks``; else a ValueError naming
    ``where`` (the dataset), the task or option and what was expected."""
    if not isinstance(defaults, Mapping):
        raise ValueError(f"dataset '{where}': task_defaults must map task -> {{option: value}}, got {defaults!r}")
    out: dict[str, dict[str, Any]] = {}
    for task, options in defaults.items():
        if task not in tasks:
            raise ValueError(
                f"dataset '{where}': task_defaults names task '{task}', which the dataset does not feed "
                f"(its tasks: {', '.join(tasks)})"
            )
        if not isinstance(options, Mapping) or not all(isinstance(k, str) and k for k in options):
            raise ValueError(
                f"dataset '{where}': task_defaults['{task}'] must map option names to values, got {options!r}"
            )
        out[str(task)] = dict(options)
    return out


@dataclass(frozen=True)
class EncoderSpec:
    """An encoder family member: ``factory(**options)`` builds an object with ``encode(texts)``.

    ``similarity_only`` marks methods that only define a pairwise ``similarity`` (edit distance,
    STEL's simple baselines); tasks that need vectors skip them.
    """

    name: str
    description: str
    factory: Callable[..., Any]
    family: str = "other"
    max_length: int | None = None
    similarity_only: bool = False
    requires: str = ""
    options_help: Mapping[str, str] = field(default_factory=dict)
    #: the Hugging Face model repository holding this configuration's weights ("" = none): ``steb models
    #: get NAME`` and ``steb run --download`` fetch it; ``steb list encoders`` looks for it in the cache
    hub_id: str = ""
    #: the pinned revision of ``hub_id`` (a commit); "" = the hub's ``main`` (the download records the commit)
    revision: str = ""
    #: Python modules the encoder imports when it runs (checked with ``importlib.util.find_spec``, never imported)
    modules: tuple[str, ...] = ()
    #: what installs ``modules`` (shown when one is missing), e.g. ``pip install steb-models-neural``
    install: str = ""
    #: a further readiness check run by :meth:`availability`: returns None when fine, else an
    #: :class:`Availability` saying why not (a spaCy model package, a user-supplied checkpoint)
    check: Callable[[], Availability | None] | None = None
    #: BibTeX of the method or model (one entry per work; ``steb cite`` prints it for results of this encoder)
    citation: str = ""

    def __post_init__(self) -> None:
        check_storable_name(self.name, "encoder")
        object.__setattr__(self, "modules", (self.modules,) if isinstance(self.modules, str) else tuple(self.modules))

    def availability(self) -> Availability:
        """Whether this encoder can run on this machine now, from the spec's declared needs (cheap: nothing
        heavy is imported and no network is used): its modules importable, its custom check passing, and
        the weights of ``hub_id`` (at ``revision``) in the local Hugging Face cache."""
        import importlib.util

        missing = []
        for module in self.modules:
            try:
                found = importlib.util.find_spec(module) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                missing.append(module)
        if missing:
            return Availability("no", f"needs {', '.join(missing)}" + (f" ({self.install})" if self.install else ""))
        if self.check is not None:
            verdict = self.check()
            if verdict is not None:
                return verdict
        if self.hub_id:
            from ._weights import cached_weights, fetch_command

            if cached_weights(self.hub_id, self.revision) is None:
                at = f" at {self.revision[:12]}" if self.revision else ""
                return Availability(
                    "no", f"weights of {self.hub_id}{at} not in the HF cache: {fetch_command(self.name)}"
                )
        return Availability("yes")


@dataclass(frozen=True)
class Availability:
    """Can an encoder run here now: ``state`` is "yes", "no" or "needs model=" (a generic loader that runs
    whatever model path it is given); ``why`` says what is missing and the command that fixes it."""

    state: str
    why: str = ""

    @property
    def ready(self) -> bool:
        return self.state == "yes"


@dataclass(frozen=True)
class TaskSpec:
    """A task type: reads one record shape from a bundle and computes metrics from embeddings.

    ``run(ctx)`` gets a :class:`steb_core.tasks.TaskContext` and returns a dict of metrics (numbers,
    or nested dicts of numbers for per-category breakdowns) that must include ``main_metric``.
    ``needs_vectors`` is False for tasks that can work from pairwise similarities alone.
    """

    name: str
    description: str
    shape: str
    main_metric: str
    run: Callable[[Any], Mapping[str, Any]]
    needs_vectors: bool = True
    version: str = "1"
    #: metrics used as the main score, in order, when ``main_metric`` is absent from a result (e.g. order
    #: alignment's ``distractor_accuracy`` falls back to ``accuracy`` for data without distractors).
    fallback_metrics: tuple[str, ...] = ()
    #: metrics shown next to the main score wherever a task's score appears (labelled), e.g. the plain
    #: accuracy next to the distractor accuracy.
    companion_metrics: tuple[str, ...] = ()
    #: accepts sparse (scipy.sparse CSR) vectors from ``TaskContext.embed``; others get dense rows.
    accepts_sparse: bool = False
    #: ``extra_texts(data, options) -> texts`` the task embeds besides its records' own texts (the runner
    #: encodes them with the rest), e.g. retrieval's collections joined into one text each
    extra_texts: Callable[[Any, Mapping[str, Any]], Iterable[str]] | None = None
    #: the run options ``<name>.<option>`` the task reads (``TaskContext.option``): a run giving another
    #: ``<name>.<x>`` is refused before anything is loaded (:mod:`steb_core.run.option_use`); empty: any name
    options: tuple[str, ...] = ()
    #: the metric each kind of aggregate column reads from this task's results (:data:`COLUMN_KINDS`); a kind
    #: not given reads :meth:`column_metric`'s default. A tuple is "the first present": order alignment's
    #: definitional columns read ``("accuracy", "distractor_accuracy")``; a task that gives
    #: ``"content-independence"`` feeds that column. The aggregators and the leaderboard take their metric maps
    #: from the registered specs, so a plugin's task type joins every column as a built-in does.
    column_metrics: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    #: scoring costs little per text next to reading or encoding it (one cosine per pair, a few per group):
    #: the run orders such datasets last (:func:`steb_core.run.order.execution_order`)
    cheap_to_score: bool = False
    #: a dataset of this task's ``shape`` built by ``steb.dataset_from`` without ``tasks=`` feeds this task
    default_for_shape: bool = False
    #: modules ``run`` imports when it runs (kept out of start-up, e.g. scikit-learn: 1.4 s here); the runner
    #: imports them in a background thread while the run's first dataset loads, so scoring never waits on
    #: them. A speed hint only: a module that fails to import there fails where ``run`` imports it
    warm_imports: tuple[str, ...] = ()
    #: how a result of this task is written to the STEB leaderboard's results tree (``steb export``): a
    #: :class:`steb_core.reference_tree.task_export.TreeExport`; None: the task has no leaderboard folder and its
    #: results are listed as skipped
    tree_export: Any = None

    def column_metric(self, kind: str) -> str | tuple[str, ...] | None:
        """The metric (or "first present" tuple) the aggregate columns of ``kind`` read from this task's results.

        Defaults: ``strict`` reads the main metric alone; ``operational`` and ``definitional`` read the main
        metric, else its fallbacks; ``content-independence`` is None (the task does not feed that column).
        """
        if kind not in COLUMN_KINDS:
            raise ValueError(f"unknown column kind {kind!r}; known: {', '.join(COLUMN_KINDS)}")
        if kind in self.column_metrics:
            return self.column_metrics[kind]
        if kind == "content-independence":
            return None
        if kind == "strict" or not self.fallback_metrics:
            return self.main_metric
        return (self.main_metric, *self.fallback_metrics)

    def shown_metrics(self) -> tuple[str, ...]:
        """The metrics a report shows, labelled, next to whichever is a result's main score: the main metric,
        its fallbacks and the companions (a report leaves out the one that is the main score)."""
        return tuple(dict.fromkeys((self.main_metric, *self.fallback_metrics, *self.companion_metrics)))

    def main_metric_of(self, metrics: Mapping[str, Any]) -> str:
        """The metric that is this result's main score: ``main_metric``, else the first fallback present."""
        for name in (self.main_metric, *self.fallback_metrics):
            if metrics.get(name) is not None:
                return name
        return self.main_metric

    def __post_init__(self) -> None:
        check_storable_name(self.name, "task")
        object.__setattr__(self, "fallback_metrics", tuple(self.fallback_metrics))
        object.__setattr__(self, "companion_metrics", tuple(self.companion_metrics))
        object.__setattr__(self, "options", tuple(self.options))
        object.__setattr__(self, "column_metrics", dict(self.column_metrics))
        unknown = sorted(set(self.column_metrics) - set(COLUMN_KINDS))
        if unknown:
            raise ValueError(f"task '{self.name}': unknown column kinds {unknown}; known: {', '.join(COLUMN_KINDS)}")
        if self.shape not in SHAPES:
            raise ValueError(f"task '{self.name}': unknown shape '{self.shape}'; known: {', '.join(SHAPES)}")


@dataclass(frozen=True)
class AggregatorSpec:
    """Turns stored results into leaderboard columns: ``aggregate(results, datasets) -> AggregateResult``."""

    name: str
    description: str
    aggregate: Callable[..., Any]
    order: int = 100  # column order in reports


@dataclass(frozen=True)
class ScorerSpec:
    """A style-transfer metric: ``factory(**options)`` builds a :class:`~steb_core.Scorer` (``name``, ``score(...)``).

    ``aspect`` is one of content, style, fluency, overall, judge. ``higher_is_better`` tells the
    meta-evaluation to report absolute correlations for lower-is-better metrics such as perplexity.
    """

    name: str
    description: str
    factory: Callable[..., Scorer]
    aspect: str = "content"
    higher_is_better: bool = True
    requires: str = ""


@dataclass(frozen=True)
class JudgementSetSpec:
    """A human-judgement set for the meta-evaluation of style-transfer metrics (``steb meta-eval --set NAME``).

    ``loader(folder)`` reads the release as a user gets it (the folder ``steb data get`` fills: ``folder`` under
    the data root, or the path given with ``--data``) and returns a :class:`~steb_core.JudgementTable`: item id,
    source, output, references, system, subset and per aspect each annotator's ratings on their scale.
    ``sources`` are what ``steb data get --judgement-set NAME`` fetches; ``protocols`` the meta-evaluation
    protocols the set was published with (the first is the default); ``aspects`` the aspects it rates.
    Registration must not read data: the loader runs only when the set is evaluated.
    """

    name: str
    description: str
    loader: Callable[[Path], JudgementTable]
    citation: str = ""
    license: str = ""
    obtain: str = ""
    homepage: str = ""
    folder: str = ""
    sources: tuple[DataSource, ...] = ()
    aspects: tuple[str, ...] = ()
    protocols: tuple[str, ...] = ("pauli2025",)
    size: str = ""
    version: str = "1"
    needs_data: bool = True

    def __post_init__(self) -> None:
        check_storable_name(self.name, "judgement set")

    def data_folder(self, root: Path | None) -> Path | None:
        """Where the release lies under the data root (``folder``, else the set's name)."""
        return None if root is None else Path(root) / (self.folder or self.name)


@dataclass(frozen=True)
class FeatureExtractorSpec:
    """Numeric linguistic features per text (e.g. LFTK), used to build probing datasets.

    ``factory(**options)`` builds an object with ``feature_names: list[str]`` and
    ``extract(texts: list[str]) -> np.ndarray`` of shape (n, len(feature_names)).
    """

    name: str
    description: str
    factory: Callable[..., Any]


@dataclass(frozen=True)
class ExecutorSpec:
    """Where encoding and evaluation run: ``factory(**options)`` builds a :class:`steb_core._executors.Executor`."""

    name: str
    description: str
    factory: Callable[..., Executor]


@dataclass(frozen=True)
class BenchmarkSpec:
    """A benchmark as one object: its name, version, the (dataset, task) pairs it scores, its clusters, its citation.

    ``steb run --suite NAME`` runs a registered benchmark's ``pairs`` (each dataset with exactly the tasks the
    benchmark lists for it) before it looks for datasets tagged ``suites=(NAME,)``; MTEB's ``Benchmark`` object
    (name, tasks, citation) is the model. ``clusters`` maps a cluster name to its entries, one dataset each, in
    the STEB authors' ``scripts/dataset_clusters.yaml`` syntax: ``NAME [--oa_variant acc|distractor]
    [--oa_only]`` (parsed by :func:`steb_core.aggregators.reference_clusters.parse_entry`); a cluster may name
    datasets outside ``pairs`` (the authors' file keeps clusters steb has no dataset for). The built-in aggregators
    read the clusters of STEB's object (:data:`steb_core.STEB_BENCHMARK`: the definitional and application columns);
    another benchmark's clusters are carried and listed, and no built-in aggregator makes columns of them yet (an
    aggregator a plugin registers can, from ``get_benchmarks()``). ``version`` changes
    whenever the pairs or clusters do, so two leaderboards of one benchmark name compare like with like.
    """

    name: str
    version: str
    pairs: tuple[tuple[str, str], ...]
    description: str = ""
    clusters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    citation: str = ""
    homepage: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("BenchmarkSpec needs a name")
        check_storable_name(self.name, "benchmark")
        if not self.version:
            raise ValueError(f"benchmark '{self.name}' needs a version")
        pairs = tuple(tuple(p) for p in self.pairs)
        bad = [p for p in pairs if len(p) != 2 or not all(isinstance(x, str) and x for x in p)]
        if bad:
            raise ValueError(
                f"benchmark '{self.name}': pairs must be (dataset, task) pairs of two names; got {bad[:3]}"
            )
        if not pairs:
            raise ValueError(f"benchmark '{self.name}' has no (dataset, task) pairs")
        twice = sorted(p for p, n in Counter(pairs).items() if n > 1)
        if twice:
            raise ValueError(f"benchmark '{self.name}' lists these (dataset, task) pairs twice: {twice}")
        object.__setattr__(self, "pairs", pairs)
        clusters = {k: ((v,) if isinstance(v, str) else tuple(v)) for k, v in dict(self.clusters).items()}
        empty = sorted(k for k, v in clusters.items() if not v)
        if empty:
            raise ValueError(f"benchmark '{self.name}': clusters {empty} have no entries")
        object.__setattr__(self, "clusters", clusters)

    @property
    def datasets(self) -> tuple[str, ...]:
        """The benchmark's dataset names, each once, in the order of ``pairs``."""
        return tuple(dict.fromkeys(d for d, _ in self.pairs))

    def tasks_of(self, dataset: str) -> tuple[str, ...]:
        """The task types the benchmark scores ``dataset`` on, in the order of ``pairs`` (empty: not a member)."""
        return tuple(t for d, t in self.pairs if d == dataset)
