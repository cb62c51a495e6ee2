"""steb-core: the plugin core of steb, a benchmark for how well representations capture linguistic style.

The public API is this module: what ``__all__`` lists, grouped below as in CONTRIBUTING ("The public API").
Plugins import only from here (``from steb_core import ...``; ``steb`` is the same API under a short name), so the
modules behind it can be split or renamed without breaking a plugin; ``tests/core/test_public_api.py`` checks
every plugin in the repository. Everything else (the run engine ``steb_core.run``, the CLI, the cache's and the
tasks' internals) is steb's own and may change between releases.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
from importlib.metadata import version as _dist_version
from typing import Any

from ._benchmarks import STEB_BENCHMARK, STEB_MULTILINGUAL_BENCHMARK
from ._bibliography import SHARED_BIBTEX
from ._cache import EmbeddingCache, cache_key, default_cache_dir, shard_digest, text_hash, text_hashes, write_shard
from ._context import TaskContext, VectorsUnavailable
from ._encoders import (
    Encoder,
    SimilarityEncoder,
    cosine_rows,
    encoder_fingerprint,
    encoder_name,
    encoder_scoring,
    l2_normalise,
    profile_cosine,
    to_float32_matrix,
)
from ._encoding_progress import report_encoded
from ._errors import (
    DatasetNotFoundError,
    DataValidationError,
    DuplicateComponentError,
    ModelNotFoundError,
    PluginError,
    StebError,
    UnknownComponentError,
    retry_may_help,
)
from ._executors import EncodeJob, EncoderRef, EncodingError, Executor, LocalExecutor, encode_batch, plan_batches
from ._hub import HUB_DATA_SUFFIXES, find_hub_location, hub_cache_snapshot, load_hub_split
from ._inmemory import dataset_from
from ._io import (
    REPLACED_BYTES_INFO,
    atomic_write_bytes,
    atomic_write_text,
    check_inside,
    decode_replacing,
    iter_jsonl,
    located,
    open_gzip,
    open_release,
    parse_json,
    read_bytes,
    read_json,
    read_lines,
    read_text,
    read_tsv,
    read_zip_member,
    reject_duplicate_keys,
    release_file,
    release_path,
    replaced_bytes_info,
    require_field,
    sample_per_class,
    seeded_rng,
    unique_keys,
)
from ._judgements import AspectRatings, JudgementTable, RatingScale, RowOrigin, judgement_table
from ._longtext import LongTextProtocol, encode_with_protocol, plan_chunks, pool_chunks, split_sentences
from ._parallel_corpora import (
    ParallelItem,
    construction_task_defaults,
    order_groups_from_options,
    order_groups_from_parallel,
    parse_budget,
)
from ._pickled_weights import refusing_unsafe_weights, unsafe_pickle_reason
from ._plugins import get_manager, new_manager, register_object, reset_manager
from ._records import (
    DatasetBundle,
    FeatureText,
    LabelledText,
    OrderGroup,
    RecordSequence,
    RetrievalSet,
    TextCollection,
    TextPair,
)
from ._results import ResultRecord, load_results
from ._sampling import AUTO as AUTO_PER_CLASS
from ._sampling import (
    REFERENCE_N_KEY,
    first_n_per_class,
    random_n_per_class,
    reference_per_class,
    sample_classes,
    sampling_mode,
)
from ._scores import Scorer, ScoreResult
from ._sources import SOURCE_KINDS, DataSource
from ._specs import (
    APPLICATIONS,
    CATEGORIES,
    COLUMN_KINDS,
    STEB_PAPER_BIBTEX,
    STEB_PROTOCOL_VERSION,
    TASK_TYPES,
    AggregatorSpec,
    Availability,
    BenchmarkSpec,
    DatasetSpec,
    EncoderSpec,
    ExecutorSpec,
    FeatureExtractorSpec,
    JudgementSetSpec,
    LoadContext,
    ScorerSpec,
    TaskSpec,
)
from ._tables import GenericLoader, generic_dataset, generic_loader, label_text, read_table
from ._weights import FetchedWeights, cached_weights, download_weights, hub_cache_dir
from .hookspecs import hookimpl
from .reference_tree.names import MetricKey
from .reference_tree.task_export import TreeExport
from .run import RunFailed, RunSummary, evaluate

try:
    __version__ = _dist_version("steb-core")
except _PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"

# Written out by hand (issue 40): a name joins the public API by being listed here, under its group's "# Title"
# comment; docs/api.md has one section per group, read from this list by steb_core/_apidoc.py.
__all__ = [
    # Running
    "evaluate",
    "RunSummary",
    "RunFailed",
    "get_datasets",
    "get_benchmarks",
    "get_encoders",
    "get_encoder",
    "get_scorer",
    "get_feature_extractor",
    "dataset_from",
    "load_results",
    "ResultRecord",
    "STEB_PROTOCOL_VERSION",
    "STEB_PAPER_BIBTEX",
    "SHARED_BIBTEX",
    # Plugins
    "hookimpl",
    "get_manager",
    "new_manager",
    "reset_manager",
    "register_object",
    # Specs (what plugins register)
    "DatasetSpec",
    "EncoderSpec",
    "TaskSpec",
    "AggregatorSpec",
    "ScorerSpec",
    "FeatureExtractorSpec",
    "ExecutorSpec",
    "BenchmarkSpec",
    "STEB_BENCHMARK",
    "STEB_MULTILINGUAL_BENCHMARK",
    "LoadContext",
    "Availability",
    "DataSource",
    "SOURCE_KINDS",
    "TASK_TYPES",
    "COLUMN_KINDS",
    "CATEGORIES",
    "APPLICATIONS",
    # Records (the typed data model)
    "LabelledText",
    "TextPair",
    "OrderGroup",
    "TextCollection",
    "RetrievalSet",
    "FeatureText",
    "DatasetBundle",
    "RecordSequence",
    # Errors
    "StebError",
    "DataValidationError",
    "DatasetNotFoundError",
    "ModelNotFoundError",
    "PluginError",
    "DuplicateComponentError",
    "UnknownComponentError",
    "EncodingError",
    "retry_may_help",
    # Dataset loaders: reading release files
    "read_text",
    "decode_replacing",
    "replaced_bytes_info",
    "REPLACED_BYTES_INFO",
    "read_lines",
    "read_json",
    "parse_json",
    "iter_jsonl",
    "read_tsv",
    "read_bytes",
    "open_release",
    "open_gzip",
    "read_zip_member",
    "release_file",
    "release_path",
    "check_inside",
    "require_field",
    "located",
    "reject_duplicate_keys",
    "unique_keys",
    "atomic_write_text",
    "atomic_write_bytes",
    # Dataset loaders: which records per class
    "sample_per_class",
    "seeded_rng",
    "sample_classes",
    "sampling_mode",
    "first_n_per_class",
    "random_n_per_class",
    "reference_per_class",
    "AUTO_PER_CLASS",
    "REFERENCE_N_KEY",
    # Dataset loaders: datasets from one table
    "generic_dataset",
    "generic_loader",
    "GenericLoader",
    "read_table",
    "label_text",
    # Dataset loaders: parallel corpora
    "ParallelItem",
    "order_groups_from_parallel",
    "construction_task_defaults",
    "order_groups_from_options",
    "parse_budget",
    # Hub releases and model weights
    "load_hub_split",
    "find_hub_location",
    "hub_cache_snapshot",
    "HUB_DATA_SUFFIXES",
    "hub_cache_dir",
    "cached_weights",
    "download_weights",
    "FetchedWeights",
    "refusing_unsafe_weights",
    "unsafe_pickle_reason",
    # Encoders
    "Encoder",
    "SimilarityEncoder",
    "encoder_name",
    "encoder_fingerprint",
    "encoder_scoring",
    "cosine_rows",
    "l2_normalise",
    "profile_cosine",
    "to_float32_matrix",
    "LongTextProtocol",
    "encode_with_protocol",
    "report_encoded",
    "split_sentences",
    "plan_chunks",
    "pool_chunks",
    # Task types
    "TaskContext",
    "VectorsUnavailable",
    "TreeExport",
    "MetricKey",
    # Style-transfer scorers
    "Scorer",
    "ScoreResult",
    # Human-judgement sets (meta-evaluation of style-transfer metrics)
    "JudgementSetSpec",
    "JudgementTable",
    "AspectRatings",
    "RatingScale",
    "RowOrigin",
    "judgement_table",
    # Executors and the embedding cache
    "Executor",
    "LocalExecutor",
    "EncodeJob",
    "EncoderRef",
    "encode_batch",
    "plan_batches",
    "EmbeddingCache",
    "default_cache_dir",
    "cache_key",
    "text_hash",
    "text_hashes",
    "shard_digest",
    "write_shard",
]


def get_datasets(
    *,
    suite: str | None = None,
    task: str | None = None,
    category: str | None = None,
    language: str | None = None,
    names: list[str] | None = None,
) -> list[DatasetSpec]:
    """Registered dataset specs, filtered like MTEB's ``get_tasks``: by suite, task type, category, language or names.

    An unknown suite, task type, category or language is an error with "did you mean" (a typo would
    otherwise select nothing); languages match as ISO 639-1 or 639-3 codes (``en`` or ``eng``). Each
    spec carries its metadata (tasks, languages, categories, citation, licence, how to obtain it) and
    can be passed to :func:`evaluate`.
    """
    from ._choices import check_values, language_codes  # only when asked
    from .run.selection import suite_selection

    manager = get_manager()
    everything = list(manager.datasets())
    task_types = {t.name for t in manager.tasks()} | {t for s in everything for t in s.tasks}
    check_values("task type", [task] if task else None, task_types)
    check_values("category", [category] if category else None, {c for s in everything for c in s.categories})
    wanted = language_codes(language) if language else set()
    known_languages = {code for s in everything for code in s.languages}
    if language and not any(language_codes(code) & wanted for code in known_languages):
        check_values("language", [language], known_languages, hint="ISO 639-1 or 639-3 codes, e.g. en or eng")
    in_suite = dict((spec.name, tasks) for spec, tasks in suite_selection(manager, suite)) if suite else {}
    specs = [spec for spec in everything if spec.name in in_suite] if suite else everything
    if names is not None:
        specs = [manager.datasets().get(n) for n in names]
    return [
        s
        for s in specs
        if (task is None or task in in_suite.get(s.name, s.tasks_for_suite(suite)))
        and (category is None or category in s.categories)
        and (language is None or any(language_codes(code) & wanted for code in s.languages))
    ]


def get_benchmarks() -> list[BenchmarkSpec]:
    """Registered benchmarks (the core's ``steb`` and ``steb-multilingual``, and any a plugin registers through
    ``register_benchmarks``); ``evaluate(suite=NAME)`` and ``steb run --suite NAME`` run one's (dataset, task) pairs."""
    return list(get_manager().benchmarks())


def get_encoders(*, family: str | None = None) -> list[EncoderSpec]:
    """Registered encoder specs (optionally of one family); build one with :func:`get_encoder`."""
    return [s for s in get_manager().encoders() if family is None or s.family == family]


def get_feature_extractor(name: str, **options: Any) -> Any:
    """Build a registered feature extractor (e.g. the stylometry plugin's LFTK features) by name."""
    return get_manager().feature_extractors().get(name).factory(**options)


def get_encoder(name: str, **options: Any) -> Any:
    """Build a registered encoder by name with options."""
    return get_manager().encoders().get(name).factory(**options)


def get_scorer(name: str, **options: Any) -> Scorer:
    """Build a registered style-transfer scorer by name with options."""
    return get_manager().scorers().get(name).factory(**options)
