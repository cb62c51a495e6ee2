"""steb-core: the plugin core of steb, a benchmark for how well representations capture linguistic style.

Public API (plugins import only from here):

- hooks: :data:`hookimpl` and the hook specifications in :mod:`steb_core.hookspecs`;
- specs: :class:`DatasetSpec`, :class:`EncoderSpec`, :class:`TaskSpec`, :class:`AggregatorSpec`,
  :class:`ScorerSpec`, :class:`FeatureExtractorSpec`, :class:`ExecutorSpec`, :class:`LoadContext`;
- records: :class:`LabelledText`, :class:`TextPair`, :class:`OrderGroup`, :class:`TextCollection`,
  :class:`RetrievalSet`, :class:`FeatureText`, :class:`DatasetBundle`;
- errors: :class:`StebError`, :class:`DataValidationError`, :class:`DatasetNotFoundError`, ...;
- helpers for loaders (:mod:`steb_core.io`; which records per class: :mod:`steb_core.sampling`), encoders
  (:mod:`steb_core.encoders`), long texts
  (:mod:`steb_core.longtext`);
- running: :func:`evaluate`, :func:`get_manager`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version as _dist_version

from .cache import EmbeddingCache, cache_key, text_hash, write_shard
from .context import TaskContext, VectorsUnavailable
from .encoders import (
    Encoder,
    SimilarityEncoder,
    cosine_rows,
    encoder_fingerprint,
    encoder_name,
    l2_normalise,
    profile_cosine,
    to_float32_matrix,
)
from .errors import (
    DataValidationError,
    DatasetNotFoundError,
    DuplicateComponentError,
    ModelNotFoundError,
    PluginError,
    StebError,
    UnknownComponentError,
    retry_may_help,
)
from .executors import EncodeJob, EncoderRef, EncodingError, Executor, LocalExecutor, encode_batch, plan_batches
from .hookspecs import hookimpl, hookspec
from .io import (
    atomic_write_bytes,
    atomic_write_text,
    iter_jsonl,
    located,
    parse_json,
    read_json,
    read_lines,
    read_text,
    read_tsv,
    reject_duplicate_keys,
    require_field,
    sample_per_class,
    seeded_rng,
)
from .longtext import LongTextProtocol, encode_with_protocol, pool_chunks, split_sentences
from .parallel_corpora import ParallelItem, order_groups_from_parallel, parse_budget
from .sampling import first_n_per_class, random_n_per_class, reference_per_class, sample_classes, sampling_mode
from .scores import ScoreResult
from .weights import FetchedWeights, cached_weights, download_weights, hub_cache_dir
from .sources import SOURCE_KINDS, DataSource
from .plugins import get_manager, new_manager, register_object, reset_manager
from .records import (
    DatasetBundle,
    FeatureText,
    LabelledText,
    OrderGroup,
    RetrievalSet,
    TextCollection,
    TextPair,
)
from .specs import (
    APPLICATIONS,
    CATEGORIES,
    TASK_TYPES,
    AggregatorSpec,
    Availability,
    DatasetSpec,
    EncoderSpec,
    ExecutorSpec,
    FeatureExtractorSpec,
    LoadContext,
    ScorerSpec,
    TaskSpec,
)

try:
    __version__ = _dist_version("steb-core")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"


from .run import RunFailed, RunSummary, evaluate  # noqa: E402 - the real signature and docstring (help(steb.evaluate))
from .results import ResultRecord, load_results  # noqa: E402
from .inmemory import dataset_from  # noqa: E402
from .specs import STEB_PAPER_BIBTEX, STEB_PROTOCOL_VERSION  # noqa: E402
from .bibliography import SHARED_BIBTEX  # noqa: E402


def get_datasets(
    *, suite: str | None = None, task: str | None = None, category: str | None = None, language: str | None = None,
    names: list[str] | None = None,
) -> list[DatasetSpec]:
    """Registered dataset specs, filtered like MTEB's ``get_tasks``: by suite, task type, category, language or names.

    An unknown suite, task type, category or language is an error with "did you mean" (a typo would
    otherwise select nothing); languages match as ISO 639-1 or 639-3 codes (``en`` or ``eng``). Each
    spec carries its metadata (tasks, languages, categories, citation, licence, how to obtain it) and
    can be passed to :func:`evaluate`.
    """
    from .choices import check_values, language_codes
    from .run.selection import suite_members

    manager = get_manager()
    everything = list(manager.datasets())
    check_values("task type", [task] if task else None, {t.name for t in manager.tasks()} | {t for s in everything for t in s.tasks})
    check_values("category", [category] if category else None, {c for s in everything for c in s.categories})
    wanted = language_codes(language) if language else set()
    known_languages = {code for s in everything for code in s.languages}
    if language and not any(language_codes(code) & wanted for code in known_languages):
        check_values("language", [language], known_languages, hint="ISO 639-1 or 639-3 codes, e.g. en or eng")
    specs = suite_members(manager, suite) if suite else everything
    if names is not None:
        specs = [manager.datasets().get(n) for n in names]
    return [s for s in specs
            if (task is None or task in s.tasks_for_suite(suite))
            and (category is None or category in s.categories)
            and (language is None or any(language_codes(code) & wanted for code in s.languages))]


def get_encoders(*, family: str | None = None) -> list[EncoderSpec]:
    """Registered encoder specs (optionally of one family); build one with :func:`get_encoder`."""
    return [s for s in get_manager().encoders() if family is None or s.family == family]


def get_feature_extractor(name: str, **options):
    """Build a registered feature extractor (e.g. the stylometry plugin's LFTK features) by name."""
    return get_manager().feature_extractors().get(name).factory(**options)


def get_encoder(name: str, **options):
    """Build a registered encoder by name with options."""
    return get_manager().encoders().get(name).factory(**options)


def get_scorer(name: str, **options):
    """Build a registered style-transfer scorer by name with options."""
    return get_manager().scorers().get(name).factory(**options)


__all__ = [name for name in dir() if not name.startswith("_")]
