"""Hook specifications of steb (pluggy project name ``steb``).

Every hook receives a ``register`` callable instead of returning lists, so the core alone decides how
registration works: it records which plugin provided each component and refuses duplicate names.
A plugin module implements any subset::

    from steb_core import hookimpl, EncoderSpec

    @hookimpl
    def register_encoders(register):
        register(EncoderSpec(name="my-encoder", description="...", factory=MyEncoder))

The core's own tasks, aggregators, benchmarks and demo datasets are registered through these same hooks.

A module-level function whose name looks like a hook but is not one (``register_dataset``) is refused when its
plugin loads (pluggy's ``check_pending``, :mod:`steb_core._plugins`): the error names the plugin and the hook it
probably meant, instead of the plugin registering nothing without a word.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

from ._specs import (
    AggregatorSpec,
    BenchmarkSpec,
    DatasetSpec,
    EncoderSpec,
    ExecutorSpec,
    FeatureExtractorSpec,
    JudgementSetSpec,
    ScorerSpec,
    TaskSpec,
)

if TYPE_CHECKING:
    import typer

    from ._encoders import Encoder, SimilarityEncoder

PROJECT_NAME = "steb"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    """Register datasets: call ``register(DatasetSpec(...))`` once per dataset.

    Called when the catalogue is first needed (``steb list datasets``, ``steb run``). The spec's
    loader is only called when the dataset is evaluated, so registration must not read data.
    """


@hookspec
def register_encoders(register: Callable[[EncoderSpec], None]) -> None:
    """Register encoders: call ``register(EncoderSpec(...))`` once per named encoder configuration.

    The factory is only called when the encoder is used, so registration must not load weights.
    """


@hookspec
def register_tasks(register: Callable[[TaskSpec], None]) -> None:
    """Register evaluation task types: call ``register(TaskSpec(...))``.

    The core registers its six built-in task types here; a plugin may add a new one, which any
    dataset naming it in ``DatasetSpec.tasks`` then feeds.
    """


@hookspec
def register_aggregators(register: Callable[[AggregatorSpec], None]) -> None:
    """Register leaderboard aggregators: call ``register(AggregatorSpec(...))``."""


@hookspec
def register_scorers(register: Callable[[ScorerSpec], None]) -> None:
    """Register style-transfer scorers: call ``register(ScorerSpec(...))``."""


@hookspec
def register_judgement_sets(register: Callable[[JudgementSetSpec], None]) -> None:
    """Register human-judgement sets for ``steb meta-eval``: call ``register(JudgementSetSpec(...))`` once per set.

    The spec's loader is only called when the set is evaluated, so registration must not read data.
    """


@hookspec
def register_feature_extractors(register: Callable[[FeatureExtractorSpec], None]) -> None:
    """Register per-text linguistic feature extractors (probing): call ``register(FeatureExtractorSpec(...))``."""


@hookspec
def register_executors(register: Callable[[ExecutorSpec], None]) -> None:
    """Register executors (where encoding and evaluation run): call ``register(ExecutorSpec(...))``."""


@hookspec
def register_benchmarks(register: Callable[[BenchmarkSpec], None]) -> None:
    """Register benchmarks: call ``register(BenchmarkSpec(...))`` once per benchmark (its (dataset, task) pairs,
    clusters and citation as one object).

    ``steb run --suite NAME`` runs a registered benchmark's pairs before it looks for datasets tagged with ``NAME``;
    ``steb list benchmarks`` lists them. The core registers STEB (``steb``, ``steb-multilingual``) here. The
    datasets a benchmark names are registered through :func:`register_datasets` as usual, by any plugin.
    """


@hookspec
def register_commands(cli: typer.Typer) -> None:
    """Add sub-commands to the ``steb`` CLI; ``cli`` is the root ``typer.Typer`` application.

    Example: the stylometry plugin adds ``steb fit-tfidf``, the scorers plugin ``steb meta-eval``.
    """


@hookspec(firstresult=True)
def resolve_encoder(name: str, options: dict[str, Any]) -> Encoder | SimilarityEncoder | None:
    """Build an encoder for a name that no plugin registered, or return None to pass.

    Lets ``steb run --encoder path/to/model`` and ``steb.evaluate("org/model-id")`` work for any
    sentence-transformers checkpoint on disk or in the local hub cache without a named configuration.
    The first plugin that returns an object wins; the object must have ``encode(texts)`` and should
    have ``fingerprint()`` (see CONTRIBUTING, "Model identity").
    """
