"""On-disk embedding cache keyed by encoder identity + long-text protocol + text hash.

Layout: ``CACHE_DIR/<key>/meta.json`` plus shards ``shard-<id>.npz`` holding ``keys`` (hex text hashes)
and either ``vectors`` (dense float32) or the CSR parts ``data``/``indices``/``indptr``/``shape``
(sparse encoders such as TF-IDF, which would not fit in memory densely). A shard is written atomically
(temp file + rename) and named after the hashes it holds, so a batch encoded twice (a retried worker,
a re-run after Ctrl-C) rewrites the same file instead of duplicating entries. Every finished batch is
on disk before the next one starts, so an interrupted run loses at most the batch in flight.
Distributed executors write the same shards.

Memory: the cache keeps only an index (text hash -> shard, row) in memory. :meth:`EmbeddingCache.get`
reads the shards a request needs, one at a time, and copies their rows into the one output matrix,
so a run's peak memory is set by the dataset being scored, not by everything ever cached.

Trust: a shard is validated when written and when read (no pickles, float32, 2-D, finite values, one
row per key, the cache's dimension, and a digest binding its rows to its keys; a shard without one is not
trusted). A bad shard is reported in :attr:`EmbeddingCache.problems`, moved aside and its texts are encoded
again; it is never used.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ._errors import DataValidationError
from ._io import atomic_write_bytes, atomic_write_text, check_zip_members, parse_json

__all__ = [
    "text_hash",
    "text_hashes",
    "collection_hash",
    "CachedCollections",
    "EmbeddingCache",
    "default_cache_dir",
    "cache_key",
    "write_shard",
    "shard_digest",
    "ShardError",
    "sweep_stale_temp_files",
    "is_sparse",
]

#: temp files of interrupted atomic writes older than this are swept when a cache folder is opened
STALE_TEMP_SECONDS = 15 * 60


class ShardError(ValueError):
    """A shard's content is not a valid set of embeddings (shape, dtype, non-finite values)."""


def text_hash(text: str) -> str:
    """128-bit content hash of a text (hex); the same text always maps to the same cache entry."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def text_hashes(texts: Iterable[str]) -> list[str]:
    return [text_hash(t) for t in texts]


def collection_hash(texts: Sequence[str]) -> str:
    """Cache key of a collection's own vector (multi-text encoders such as LUAR): its texts' hashes in
    order, hashed in a blake2b domain of its own, so it never equals a text's key."""
    h = hashlib.blake2b(digest_size=16, person=b"steb-collection")
    for text in texts:
        h.update(bytes.fromhex(text_hash(text)))
    return h.hexdigest()


def default_cache_dir() -> Path:
    """``$STEB_CACHE_DIR``, else ``~/.cache/steb/embeddings``."""
    env = os.environ.get("STEB_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "steb" / "embeddings"


def cache_key(encoder_fingerprint: str, protocol_key: str) -> str:
    return hashlib.sha256(f"{encoder_fingerprint}\n{protocol_key}".encode()).hexdigest()[:24]


def is_sparse(value: Any) -> bool:
    """True for scipy.sparse matrices (checked without importing scipy.sparse)."""
    return hasattr(value, "tocsr") and hasattr(value, "nnz")


def sweep_stale_temp_files(
    folder: str | Path, max_age: float = STALE_TEMP_SECONDS, *, recursive: bool = False
) -> list[Path]:
    """Delete temp files (``.NAME.*.tmp``) that interrupted atomic writes left behind in ``folder``.

    A SIGKILL between creating the temp file and renaming it leaves the temp file forever; only files
    older than ``max_age`` seconds are removed, so a write in flight in another process is untouched.
    ``recursive`` sweeps sub-folders too (results live in ``OUTPUT/<encoder>/<dataset>/``).
    """
    removed: list[Path] = []
    now = time.time()
    try:
        candidates = list(Path(folder).rglob(".*.tmp") if recursive else Path(folder).glob(".*.tmp"))
    except OSError:
        return removed
    for path in candidates:
        try:
            if now - path.stat().st_mtime > max_age:
                path.unlink()
                removed.append(path)
        except OSError:
            continue
    return removed


def _shard_layout(path: Path) -> tuple[int, bool] | None:
    """(dimension, sparse) of a shard read from its array headers only, or None when it cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "vectors.npy" in names:
                with archive.open("vectors.npy") as member:
                    version = np.lib.format.read_magic(member)
                    if version not in ((1, 0), (2, 0)):
                        return None
                    read_header = (
                        np.lib.format.read_array_header_1_0
                        if version == (1, 0)
                        else np.lib.format.read_array_header_2_0
                    )
                    shape, _, _ = read_header(member)  # the header only, not the vectors
                return (int(shape[1]), False) if len(shape) == 2 else None
            if "shape.npy" in names:
                with archive.open("shape.npy") as member:
                    shape_array = np.lib.format.read_array(member, allow_pickle=False)
                return (int(shape_array[1]), True) if shape_array.shape == (2,) else None
    except Exception:  # noqa: BLE001 - an unreadable shard is judged (and set aside) when it is indexed
        return None
    return None


@dataclass(frozen=True)
class _Shard:
    path: Path
    rows: int


def _check_dense(vectors: Any, n_keys: int, dim: int | None, where: str) -> np.ndarray:
    if not isinstance(vectors, np.ndarray) or vectors.dtype != np.float32:
        raise ShardError(
            f"{where}: vectors have dtype {getattr(vectors, 'dtype', type(vectors).__name__)}, expected float32"
        )
    if vectors.ndim != 2 or vectors.shape[0] != n_keys:
        raise ShardError(f"{where}: vectors of shape {vectors.shape} for {n_keys} keys, expected ({n_keys}, d)")
    if dim is not None and vectors.shape[1] != dim:
        raise ShardError(f"{where}: vectors have dimension {vectors.shape[1]}, this cache holds dimension {dim}")
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        raise ShardError(f"{where}: row {int(np.flatnonzero(~finite)[0])} has NaN or infinite values")
    return vectors


def _check_csr_parts(
    data: np.ndarray,
    indices: np.ndarray,
    indptr: np.ndarray,
    shape: tuple[int, ...],
    n_keys: int,
    dim: int | None,
    where: str,
) -> None:
    if data.dtype != np.float32:
        raise ShardError(f"{where}: sparse values have dtype {data.dtype}, expected float32")
    if (
        shape[0] != n_keys
        or indptr.shape != (n_keys + 1,)
        or indptr[0] != 0
        or indptr[-1] != len(data)
        or len(indices) != len(data)
    ):
        raise ShardError(f"{where}: sparse parts do not describe {n_keys} rows")
    if np.any(np.diff(indptr) < 0) or (len(indices) and (indices.min() < 0 or indices.max() >= shape[1])):
        raise ShardError(f"{where}: sparse index arrays are inconsistent")
    if dim is not None and shape[1] != dim:
        raise ShardError(f"{where}: vectors have dimension {shape[1]}, this cache holds dimension {dim}")
    if not np.isfinite(data).all():
        raise ShardError(f"{where}: sparse values contain NaN or infinite values")


def _check_digest(stored: str | None, keys: np.ndarray, parts: dict[str, np.ndarray], where: str) -> None:
    """Refuse a shard whose rows do not match its keys, or that carries no digest to tell.

    Why a missing digest is refused too: dropping it is the easiest edit to make after reordering the rows
    (a shard rewritten by another tool has none), and every other check would pass. Shards of steb
    versions before the digest are recomputed once, with a note like any invalid shard.
    """
    if stored is None:
        raise ShardError(
            f"{where}: has no digest binding its rows to its keys (written by another tool or edited), "
            "so its rows cannot be trusted"
        )
    if stored != shard_digest(keys, parts):
        raise ShardError(
            f"{where}: its rows do not match its keys (the digest written with the shard differs: rows reordered or "
            "edited)"
        )


class EmbeddingCache:
    """Embeddings of one (encoder, protocol); lookups by text hash, appends by atomic shard writes."""

    def __init__(
        self, root: str | Path, encoder_fingerprint: str, protocol_key: str, evidence: dict[str, Any] | None = None
    ) -> None:
        self.root = Path(root)
        self.key = cache_key(encoder_fingerprint, protocol_key)
        self.dir = self.root / self.key
        self.dir.mkdir(parents=True, exist_ok=True)
        sweep_stale_temp_files(self.dir)
        self._meta_path = self.dir / "meta.json"
        #: shards found invalid and set aside (path, reason), and a meta.json corrected; their texts count as not cached
        self.problems: list[tuple[Path, str]] = []
        self.meta: dict[str, Any] = self._read_meta()
        stored = dict(self.meta)
        if not self.meta:
            self.meta = {"encoder_fingerprint": encoder_fingerprint, "protocol": protocol_key}
            if evidence:
                self.meta["identity"] = evidence
        self._check_layout_against_shards()
        if self.meta != stored:  # written only when new or corrected, so concurrent openers do not undo each other
            atomic_write_text(self._meta_path, json.dumps(self.meta, indent=2, default=str))
        self._index: dict[str, tuple[int, int]] = {}
        self._shards: list[_Shard] = []
        self._seen_files: set[str] = set()
        self.refresh()

    def _read_meta(self) -> dict[str, Any]:
        """meta.json when it is a valid description of this cache, else {} with a problem naming why.

        Why: meta.json is only a summary (the encoder, the dimension); the shards are the data. A meta.json
        that is a list, has a ``dim`` that is not a positive integer, or cannot be parsed used to end every
        run; now it is rebuilt (the dimension is taken from the shards) and the rebuild is reported.
        """
        if not self._meta_path.exists():
            return {}
        try:
            meta = parse_json(
                self._meta_path.read_text(encoding="utf-8"), path=self._meta_path, expected="a cache meta.json object"
            )
            if not isinstance(meta, dict):
                raise DataValidationError(
                    f"is a JSON {type(meta).__name__}", path=self._meta_path, expected="a JSON object"
                )
            dim = meta.get("dim")
            if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int) or dim < 1):
                raise DataValidationError(
                    f"is {dim!r}", path=self._meta_path, field="dim", expected="a positive integer or null"
                )
            if meta.get("sparse") is not None and not isinstance(meta["sparse"], bool):
                raise DataValidationError(
                    f"is {meta['sparse']!r}", path=self._meta_path, field="sparse", expected="true, false or null"
                )
        except (DataValidationError, UnicodeDecodeError, OSError) as exc:
            self.problems.append((self._meta_path, f"{exc}; rebuilt from the shards"))
            return {}
        return meta

    def _check_layout_against_shards(self) -> None:
        """Take the dimension from the shards when meta.json's disagrees with every shard.

        Why: before, a meta.json saying ``"dim": 5`` made every valid 6-dimensional shard look bad; they
        were set aside as ``.bad`` and every later run failed. A shard is condemned for its dimension only
        when meta.json's dimension is that of some shard; otherwise meta.json is what is wrong.
        """
        layouts: dict[tuple[int, bool], int] = {}
        for path in sorted(self.dir.glob("shard-*.npz")):
            layout = _shard_layout(path)
            if layout is not None:
                layouts[layout] = layouts.get(layout, 0) + 1
        if not layouts:
            return
        stated = self.meta.get("dim")
        if stated is not None and any(dim == stated for dim, _ in layouts):
            return
        (dim, sparse), count = max(layouts.items(), key=lambda item: item[1])
        if stated is not None:
            self.problems.append(
                (
                    self._meta_path,
                    f"says dimension {stated}, but no shard has it ({count} shard(s) have dimension {dim}); "
                    f"meta.json corrected to {dim}, no shard set aside",
                )
            )
        self.meta.update(dim=dim, sparse=sparse)

    @property
    def dim(self) -> int | None:
        value = self.meta.get("dim")
        return int(value) if value is not None else None

    @property
    def sparse(self) -> bool | None:
        value = self.meta.get("sparse")
        return bool(value) if value is not None else None

    def _set_layout(self, dim: int, sparse: bool) -> None:
        if self.meta.get("dim") is None:
            self.meta.update(dim=int(dim), sparse=bool(sparse))
            atomic_write_text(self._meta_path, json.dumps(self.meta, indent=2, default=str))

    # -- reading ---------------------------------------------------------------------------------
    def _quarantine(self, path: Path, reason: str) -> None:
        self.problems.append((path, reason))
        try:
            path.replace(path.with_name(path.name + ".bad"))
        except OSError:
            pass

    def refresh(self) -> None:
        """Index shards written since the last look (by this process or another worker); keys only."""
        for path in sorted(self.dir.glob("shard-*.npz")):
            if path.name in self._seen_files:
                continue
            try:
                check_zip_members(path)  # a member declaring more than the decompression cap: set aside, never inflated
                with np.load(path, allow_pickle=False) as data:
                    keys = data["keys"]
                    if keys.ndim != 1:
                        raise ShardError(f"{path.name}: keys are not a list")
            except Exception as exc:  # noqa: BLE001 - unreadable, pickled or truncated: set aside, its texts are re-encoded
                self._quarantine(path, f"unreadable: {type(exc).__name__}: {exc}")
                continue
            self._seen_files.add(path.name)
            shard_id = len(self._shards)
            self._shards.append(_Shard(path, len(keys)))
            for row, key in enumerate(keys.tolist()):
                self._index.setdefault(key, (shard_id, row))

    def __contains__(self, key: str) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self._index)

    def missing(self, keys: Sequence[str]) -> list[int]:
        """Positions in ``keys`` that have no cached vector."""
        return [i for i, k in enumerate(keys) if k not in self._index]

    def _read_shard(self, shard: _Shard) -> Any:
        """A validated shard's vectors (dense array or CSR matrix); ShardError when invalid."""
        where = shard.path.name
        try:
            check_zip_members(shard.path)
        except (DataValidationError, OSError, zipfile.BadZipFile) as exc:
            raise ShardError(f"{where}: {exc}") from None
        with np.load(shard.path, allow_pickle=False) as data:
            names = set(data.files)
            keys = data["keys"]
            n = len(keys)
            stored_digest = str(data["digest"]) if "digest" in names else None  # refused by _check_digest
            if "vectors" in names:
                vectors = _check_dense(data["vectors"], n, self.dim, where)
                _check_digest(stored_digest, keys, {"vectors": vectors}, where)
                self._set_layout(vectors.shape[1], False)
                return vectors
            if not {"data", "indices", "indptr", "shape"} <= names:
                raise ShardError(f"{where}: holds {sorted(names)}, expected vectors or CSR parts")
            arrays = {name: data[name] for name in ("data", "indices", "indptr", "shape")}
            parts = arrays["data"], arrays["indices"], arrays["indptr"], tuple(int(x) for x in arrays["shape"])
        _check_digest(stored_digest, keys, arrays, where)
        _check_csr_parts(*parts, n_keys=n, dim=self.dim, where=where)
        import scipy.sparse as sp  # only sparse encoders need it

        self._set_layout(parts[3][1], True)
        return sp.csr_matrix((parts[0], parts[1], parts[2]), shape=parts[3])

    def get(self, keys: Sequence[str]) -> Any:
        """Vectors for ``keys``, row i for key i: a float32 array, or a CSR matrix for sparse encoders.

        Raises :class:`ShardError` after setting aside any shard that fails validation (the caller
        re-encodes the texts it held and asks again).
        """
        rows_by_shard: dict[int, list[tuple[int, int]]] = {}
        for i, key in enumerate(keys):
            shard, row = self._index[key]
            rows_by_shard.setdefault(shard, []).append((i, row))
        out: Any = None
        sparse_parts: list[tuple[np.ndarray, Any]] = []
        bad: list[str] = []
        for shard_id, pairs in rows_by_shard.items():
            held = self._shards[shard_id]
            try:
                vectors = self._read_shard(held)
            except Exception as exc:  # noqa: BLE001 - an unreadable shard is dropped, its texts re-encoded
                bad.append(f"{held.path.name}: {exc}")
                self._drop_shard(shard_id, str(exc))
                continue
            positions = np.fromiter((p for p, _ in pairs), dtype=np.int64, count=len(pairs))
            rows = np.fromiter((r for _, r in pairs), dtype=np.int64, count=len(pairs))
            if is_sparse(vectors):
                sparse_parts.append((positions, vectors[rows]))
                continue
            if out is None:
                out = np.empty((len(keys), vectors.shape[1]), dtype=np.float32)
            out[positions] = vectors[rows]
        if bad:
            raise ShardError("invalid cache shard(s) set aside and to be recomputed: " + "; ".join(bad))
        if sparse_parts:
            import scipy.sparse as sp

            order = np.concatenate([p for p, _ in sparse_parts])
            stacked = sp.vstack([m for _, m in sparse_parts], format="csr")
            inverse = np.empty_like(order)
            inverse[order] = np.arange(len(order))
            return stacked[inverse].astype(np.float32)
        if out is None:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        return out

    def _drop_shard(self, shard_id: int, reason: str) -> None:
        shard = self._shards[shard_id]
        self._index = {k: v for k, v in self._index.items() if v[0] != shard_id}
        self._seen_files.discard(shard.path.name)  # a re-encoded batch rewrites the same shard name
        self._quarantine(shard.path, reason)

    def shard_files(self) -> list[Path]:
        return sorted(self.dir.glob("shard-*.npz"))

    # -- writing ---------------------------------------------------------------------------------
    def put(self, keys: Sequence[str], vectors: Any) -> Path:
        """Store one batch as a shard (validated, atomically; idempotent for the same set of keys)."""
        if self.dim is not None and not self._shards and len(vectors.shape) == 2 and vectors.shape[1] != self.dim:
            # no shard backs meta.json's dimension (all were removed): the encoder's own dimension wins
            self.problems.append(
                (
                    self._meta_path,
                    f"says dimension {self.dim}, but no shard has it and the encoder gives "
                    f"{vectors.shape[1]}; meta.json corrected",
                )
            )
            self.meta.update(dim=None, sparse=None)
        try:
            path = write_shard(self.dir, keys, vectors, dim=self.dim)
        except ShardError as exc:
            raise ShardError(f"{exc} (cache folder {self.dir}, dimension from {self._meta_path.name})") from None
        self._set_layout(vectors.shape[1], is_sparse(vectors))
        self.refresh()
        return path


def shard_digest(keys: np.ndarray, parts: dict[str, np.ndarray]) -> str:
    """sha256 binding a shard's keys to its rows, in order: the keys, then each array by name.

    Why: the keys and the vectors are separate arrays; a tool that reorders one of them (a sort, a
    merge of shards) would give every text another text's vector, and every check on shapes and
    values would still pass. A shard whose digest does not match is set aside and re-encoded.
    """
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(keys, dtype="<U32").tobytes())
    for name in sorted(parts):
        array = np.ascontiguousarray(parts[name])
        digest.update(f"\0{name}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def write_shard(cache_dir: str | Path, keys: Sequence[str], vectors: Any, *, dim: int | None = None) -> Path:
    """Write one validated shard into a cache folder; usable by workers that hold no :class:`EmbeddingCache`.

    Refuses (``ShardError``) vectors that are not finite, not 2-D, not one row per key, or (when
    ``dim`` is given) of another dimension, so no executor can put NaN vectors into a cache.
    """
    shard_id = hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:24]
    buffer = io.BytesIO()
    key_array = np.asarray(list(keys), dtype="<U32")
    if is_sparse(vectors):
        csr = vectors.tocsr().astype(np.float32)
        csr.sum_duplicates()
        _check_csr_parts(csr.data, csr.indices, csr.indptr, csr.shape, len(keys), dim, "new shard")
        parts = {
            "data": csr.data,
            "indices": csr.indices.astype(np.int64),
            "indptr": csr.indptr.astype(np.int64),
            "shape": np.asarray(csr.shape, dtype=np.int64),
        }
    else:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        _check_dense(vectors, len(keys), dim, "new shard")
        parts = {"vectors": vectors}
    np.savez(buffer, keys=key_array, digest=np.asarray(shard_digest(key_array, parts)), **parts)
    path = Path(cache_dir) / f"shard-{shard_id}.npz"
    atomic_write_bytes(path, buffer.getvalue())
    return path


class CachedCollections:
    """An encoder's ``encode_collections`` behind the run's embedding cache.

    Each distinct collection is encoded once and stored next to the text vectors of the same model
    and protocol, so a later run (another output folder, a resumed run) reads it back instead of
    encoding it again. Collection vectors the cache cannot hold (another dimension than the text
    vectors) are passed through uncached.
    """

    def __init__(self, encode_collections: Any, cache: EmbeddingCache) -> None:
        self.encode_collections = encode_collections
        self.cache = cache
        self.cacheable = True

    def __call__(self, collections: Sequence[Sequence[str]]) -> Any:
        if not self.cacheable:
            return self.encode_collections(collections)
        keys = [collection_hash(c) for c in collections]
        todo: dict[str, Sequence[str]] = {}
        for i in self.cache.missing(keys):
            todo.setdefault(keys[i], collections[i])
        if todo:
            vectors = self.encode_collections(list(todo.values()))
            try:
                self.cache.put(list(todo), vectors)
            except ShardError:
                self.cacheable = False
                return self.encode_collections(collections)
        return self.cache.get(keys)
