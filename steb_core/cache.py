"""On-disk embedding cache keyed by encoder identity + long-text protocol + text hash.

Layout: ``CACHE_DIR/<key>/meta.json`` plus shards ``shard-<id>.npz`` holding ``keys`` (hex text hashes)
and ``vectors`` (float32). A shard is written atomically (temp file + rename) and named after the hashes
it holds, so a batch that is encoded twice (a retried worker, a re-run after Ctrl-C) rewrites the same
file instead of duplicating entries. Every finished batch is on disk before the next one starts, so an
interrupted run loses at most the batch in flight. Distributed executors write the same shards.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import warnings
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from .io import atomic_write_bytes, atomic_write_text

__all__ = ["text_hash", "text_hashes", "EmbeddingCache", "default_cache_dir", "cache_key"]


def text_hash(text: str) -> str:
    """128-bit content hash of a text (hex); the same text always maps to the same cache entry."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def text_hashes(texts: Iterable[str]) -> list[str]:
    return [text_hash(t) for t in texts]


def default_cache_dir() -> Path:
    """``$STEB_CACHE_DIR``, else ``~/.cache/steb/embeddings``."""
    env = os.environ.get("STEB_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "steb" / "embeddings"


def cache_key(encoder_fingerprint: str, protocol_key: str) -> str:
    return hashlib.sha256(f"{encoder_fingerprint}\n{protocol_key}".encode()).hexdigest()[:24]


class EmbeddingCache:
    """Embeddings of one (encoder, protocol); lookups by text hash, appends by atomic shard writes."""

    def __init__(self, root: str | Path, encoder_fingerprint: str, protocol_key: str) -> None:
        self.root = Path(root)
        self.key = cache_key(encoder_fingerprint, protocol_key)
        self.dir = self.root / self.key
        self.dir.mkdir(parents=True, exist_ok=True)
        meta = self.dir / "meta.json"
        if not meta.exists():
            atomic_write_text(meta, json.dumps({"encoder_fingerprint": encoder_fingerprint, "protocol": protocol_key}, indent=2))
        self._index: dict[str, tuple[int, int]] = {}
        self._shards: list[np.ndarray] = []
        self._seen_files: set[str] = set()
        self.refresh()

    # -- reading ---------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Load shards written since the last look (by this process or another worker)."""
        for path in sorted(self.dir.glob("shard-*.npz")):
            if path.name in self._seen_files:
                continue
            try:
                with np.load(path, allow_pickle=False) as data:
                    keys, vectors = data["keys"], data["vectors"]
            except Exception as exc:  # an unreadable shard is skipped, its texts are re-encoded
                warnings.warn(f"ignoring unreadable cache shard {path}: {exc}")
                continue
            self._seen_files.add(path.name)
            shard_id = len(self._shards)
            self._shards.append(vectors)
            for row, key in enumerate(keys.tolist()):
                self._index.setdefault(key, (shard_id, row))

    def __contains__(self, key: str) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self._index)

    def missing(self, keys: Sequence[str]) -> list[int]:
        """Positions in ``keys`` that have no cached vector."""
        return [i for i, k in enumerate(keys) if k not in self._index]

    def get(self, keys: Sequence[str]) -> np.ndarray:
        """Vectors for ``keys`` (all must be cached), row i for key i."""
        if not keys:
            dim = self._shards[0].shape[1] if self._shards else 0
            return np.zeros((0, dim), dtype=np.float32)
        first = self._shards[self._index[keys[0]][0]]
        out = np.empty((len(keys), first.shape[1]), dtype=np.float32)
        for i, key in enumerate(keys):
            shard, row = self._index[key]
            out[i] = self._shards[shard][row]
        return out

    def shard_files(self) -> list[Path]:
        return sorted(self.dir.glob("shard-*.npz"))

    # -- writing ---------------------------------------------------------------------------------
    def put(self, keys: Sequence[str], vectors: np.ndarray) -> Path:
        """Store one batch as a shard (atomically; idempotent for the same set of keys)."""
        path = write_shard(self.dir, keys, vectors)
        self.refresh()
        return path


def write_shard(cache_dir: str | Path, keys: Sequence[str], vectors: np.ndarray) -> Path:
    """Write one shard file into a cache folder; usable by workers that hold no :class:`EmbeddingCache`."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(keys):
        raise ValueError(f"shard needs one vector per key: {len(keys)} keys, vectors of shape {vectors.shape}")
    shard_id = hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:24]
    buffer = io.BytesIO()
    np.savez(buffer, keys=np.asarray(list(keys), dtype="<U32"), vectors=vectors)
    path = Path(cache_dir) / f"shard-{shard_id}.npz"
    atomic_write_bytes(path, buffer.getvalue())
    return path
