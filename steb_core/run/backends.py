"""The embedding cache and the executor of one run: opened when the first dataset with work is loaded, closed
at the end (a run that reuses every result starts no executor, e.g. no Ray cluster)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .._cache import EmbeddingCache
from .._errors import StebError
from .._executors import Executor, LocalExecutor
from .._plugins import StebPlugins
from .encoder_setup import RunEncoder, check_options_accepted
from .settings import RunSettings

__all__ = ["Backends"]


class Backends:
    """The run's cache (None until opened, and for similarity-only encoders) and executor (None until opened)."""

    def __init__(self, plugins: StebPlugins, settings: RunSettings, encoder: RunEncoder) -> None:
        self.plugins, self.settings, self.encoder = plugins, settings, encoder
        self.cache: EmbeddingCache | None = None
        self.executor: Executor | None = None
        self._scratch: Path | None = None  # an unidentified encoder's cache, removed by close()

    def open(self) -> None:
        """Open the executor and (for an encoder with vectors) the cache, unless they are open."""
        if self.executor is None:
            self.executor = self._make_executor()
        if self.encoder.vectors_ok and self.cache is None:
            self.cache = self._make_cache()

    def _make_cache(self) -> EmbeddingCache:
        root = self.settings.cache_root()
        if self.encoder.identity.fingerprint is None:  # never written where another run could find it
            self._scratch = root = Path(tempfile.mkdtemp(prefix="steb-unidentified-"))
        return EmbeddingCache(
            root, self.encoder.fingerprint, self.settings.protocol.key(), evidence=self.encoder.identity.evidence
        )

    def _make_executor(self) -> Executor:
        executor = self.settings.executor
        if not isinstance(executor, str):
            return executor
        options = dict(self.settings.executor_options)
        if executor == "local":
            if options:
                raise StebError(
                    f"the local executor takes no options, got {', '.join(sorted(options))} (--executor-option is "
                    "for a registered executor such as --executor ray)"
                )
            return LocalExecutor()
        factory = self.plugins.executors().get(executor).factory
        check_options_accepted(f"executor '{executor}'", factory, options)
        built: Executor = factory(**options)
        return built

    def close(self) -> list[str]:
        """Close the executor and remove an unidentified encoder's scratch cache; the notes on the cache's
        problems (invalid shards set aside, an unreadable ``meta.json``) for the summary."""
        if self.executor is not None:
            self.executor.close()
        notes = []
        if self.cache is not None:
            notes = [
                f"cache shard {p} was invalid ({why}); set aside and recomputed"
                if p.name != "meta.json"
                else f"cache {p}: {why}"
                for p, why in self.cache.problems
            ]
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
        return notes
