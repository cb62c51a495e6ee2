"""What a task sees while it runs: its records, and embeddings or similarities for their texts.

The runner builds a :class:`TaskContext` after every distinct text has been embedded once (from the
cache or the encoder), so a task never calls the encoder for vectors itself and never pays twice for
a text that occurs in several records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._encoders import SCORING_DEFAULTS, cosine_rows
from ._records import DatasetBundle
from ._specs import DEFAULT_SEED, DatasetSpec

__all__ = ["TaskContext", "VectorsUnavailable", "task_option"]


def task_option(options: Mapping[str, Any] | None, task: str, name: str, default: Any) -> Any:
    """A run option for one task: ``options["<task>.<name>"]`` or ``options[<task>][<name>]``, else ``default``.

    Lives beside the context (not among the task helpers) so that every task module, the kernels' device
    choice included, reads options one way without importing the helpers that dispatch to those kernels.
    """
    opts = options or {}
    key = f"{task}.{name}"
    if key in opts:
        return opts[key]
    nested = opts.get(task)
    if isinstance(nested, dict) and name in nested:
        return nested[name]
    return default


_MISSING = object()


class VectorsUnavailable(RuntimeError):
    """Raised by :meth:`TaskContext.embed` for similarity-only encoders (the runner skips such tasks)."""


@dataclass
class TaskContext:
    """Inputs of one (encoder, dataset, task) evaluation.

    ``data`` is the bundle's records for the task's shape (a list, or a :class:`RetrievalSet`).
    ``embed`` returns float32 vectors, row i for ``texts[i]``. ``similarity`` returns one score per
    aligned pair: the encoder's own ``similarity`` when it has one, else the cosine of the vectors.
    ``embed_collections`` returns one vector per collection: the encoder's own multi-text embedding
    when it offers one, else the mean of its texts' vectors.
    """

    dataset: DatasetSpec
    bundle: DatasetBundle
    data: Any
    seed: int = DEFAULT_SEED
    options: Mapping[str, Any] = field(default_factory=dict)
    embed_fn: Callable[[Sequence[str]], np.ndarray] | None = None
    similarity_fn: Callable[[Sequence[str], Sequence[str]], np.ndarray] | None = None
    collections_fn: Callable[[Sequence[Sequence[str]]], np.ndarray] | None = None
    progress: Callable[[str], Any] | None = None  # progress(description) -> tqdm-like context, optional
    #: BLAS/OpenMP threads the task may use (``--threads``); None = the task chooses from the work size.
    threads: int | None = None
    #: the torch device the encoder runs on ("cuda:0", ...; :func:`steb_core._encoders.encoder_device`),
    #: None when unknown or not torch: with option ``tasks.device=auto`` (the default) vector tasks run
    #: their heavy kernels there when it is a GPU (``steb_core.tasks._device``)
    device: str | None = None
    #: how the tasks compare the encoder's vectors (:func:`steb_core._encoders.encoder_scoring`): ``pair_score``
    #: (cosine / neg_l1) for the pair tasks, ``cluster_input`` (raw / abs) for k-means
    scoring: Mapping[str, str] = field(default_factory=lambda: dict(SCORING_DEFAULTS))

    def option(self, task: str, name: str, default: Any = None) -> Any:
        """The run option ``<task>.<name>``, else the dataset's task default, else ``default``.

        The run option flat or nested in :attr:`options`; the task default as :meth:`task_default` finds it.
        """
        return task_option(self.options, task, name, self.task_default(task, name, default))

    def task_default(self, task: str, name: str, default: Any = None) -> Any:
        """What the dataset declares for option ``<task>.<name>`` when the run gives none, else ``default``.

        The bundle's ``task_defaults`` (the load's own: a loader option that changes what the records are, e.g.
        another construction of the groups, may change the rule they are scored by) come before the spec's
        (:attr:`DatasetSpec.task_defaults`, the dataset's declaration). Why a dataset declares task defaults
        at all: some data is meant to be scored one way (STEB's order-alignment datasets by the reference's
        rule, STEL's instances by STEL's), and that is a fact about the data, not a run option to repeat.
        """
        for declared in (getattr(self.bundle, "task_defaults", None), getattr(self.dataset, "task_defaults", None)):
            value = task_option(declared, task, name, _MISSING)
            if value is not _MISSING:
                return value
        return default

    @property
    def has_vectors(self) -> bool:
        return self.embed_fn is not None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.embed_fn is None:
            raise VectorsUnavailable("this encoder only defines a pairwise similarity, not vectors")
        return self.embed_fn(texts)

    def similarity(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        if len(texts_a) != len(texts_b):
            raise ValueError(f"similarity needs aligned lists, got {len(texts_a)} and {len(texts_b)} texts")
        if self.similarity_fn is not None:
            return np.asarray(self.similarity_fn(texts_a, texts_b), dtype=np.float64)
        return cosine_rows(self.embed(texts_a), self.embed(texts_b)).astype(np.float64)

    def embed_collections(self, collections: Sequence[Sequence[str]]) -> np.ndarray:
        if self.collections_fn is not None:
            return self.collections_fn(collections)
        lengths = np.fromiter((len(c) for c in collections), dtype=np.int64, count=len(collections))
        flat = [t for c in collections for t in c]
        vectors = self.embed(flat)
        if hasattr(vectors, "tocsr"):  # sparse rows (TF-IDF): mean through a collection-membership matrix
            import scipy.sparse as sp

            owner = np.repeat(np.arange(len(collections)), lengths)
            weights = (1.0 / lengths[owner]).astype(np.float32)
            member = sp.csr_matrix((weights, (owner, np.arange(len(flat)))), shape=(len(collections), len(flat)))
            sparse_means: np.ndarray = (member @ vectors).tocsr().astype(np.float32)  # sparse in, sparse out
            return sparse_means
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        sums = np.add.reduceat(vectors, starts, axis=0) if len(flat) else np.zeros((0, vectors.shape[1]), np.float32)
        return (sums / lengths[:, None]).astype(np.float32)
