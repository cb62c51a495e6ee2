"""What a model *is*, read from its files without loading it: content hashes, token limits, pooling.

An encoder's cache identity must not cost a model load (a warm run does no model work), yet it must
change whenever the vectors could: other weights, another tokenizer or config, other options. So the
fingerprint hashes the files themselves. Hashing gigabytes on every run would be slow, so hashes are
memoised by (absolute path, size, mtime_ns) in ``<embedding cache>/file-hashes.json``; files in the Hugging
Face hub cache are symlinks to blobs named by their SHA-256 (Git LFS object ids), which we read for free.

Nothing here imports torch or transformers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from steb_core import parse_json

__all__ = [
    "file_sha256",
    "hash_files",
    "model_files",
    "folder_evidence",
    "content_revision",
    "read_json",
    "token_limit_from_files",
    "sentence_transformer_limit_from_files",
    "memo_path",
]

_SKIP_DIRS = {"onnx", "openvino", "coreml", "tf", "flax", ".git", ".cache", ".huggingface", "__pycache__"}
_SKIP_SUFFIXES = {
    ".md",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".onnx",
    ".onnx_data",
    ".h5",
    ".msgpack",
    ".ot",
    ".tflite",
    ".mlmodel",
    ".gguf",
    ".lock",
    ".metadata",
    ".pdf",
}
_SKIP_NAMES = {".gitattributes", "LICENSE", "LICENSE.txt", "NOTICE", "USE_POLICY.md"}
_WEIGHT_SUFFIXES = {".safetensors", ".bin", ".pt", ".pth"}
_TOKENIZER_NAMES = {
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
    "chat_template.jinja",
    "chat_template.json",
}
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_UNBOUNDED = 1_000_000  # tokenizers without a limit report ~1e30
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert")  # position ids start at padding_idx + 1
_CHUNK = 1 << 22

_lock = threading.Lock()
_memos: dict[Path, dict[str, Any]] = {}


# -- memoised file hashes ------------------------------------------------------------------------
def memo_path() -> Path:
    """``<embedding cache dir>/file-hashes.json`` (honours STEB_CACHE_DIR).

    Inside the cache folder itself, never beside it: a user who names ``STEB_CACHE_DIR=X`` has named X,
    not X's parent, and nothing is written outside the folders a user named.
    """
    from steb_core import default_cache_dir

    return default_cache_dir() / "file-hashes.json"


def _load_memo(path: Path) -> dict[str, Any]:
    memo = _memos.get(path)
    if memo is None:
        try:
            data = parse_json(path.read_text(encoding="utf-8"), path=path)
            memo = data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            memo = {}
        _memos[path] = memo
    return memo


def _save_memo(path: Path, new: Mapping[str, Any]) -> None:
    """Merge ``new`` into the file on disk (another process may have added entries) and write atomically."""
    from steb_core import atomic_write_text

    try:
        on_disk = parse_json(path.read_text(encoding="utf-8"), path=path)
        if not isinstance(on_disk, dict):
            on_disk = {}
    except (OSError, ValueError):
        on_disk = {}
    on_disk.update(new)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(on_disk, indent=0, sort_keys=True))
    except OSError:  # a read-only cache only costs re-hashing next time
        pass
    _memos[path] = on_disk


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _lfs_oid(path: Path) -> str | None:
    """A hub-cache file is a symlink to ``blobs/<sha256>``: that name *is* the content hash (LFS files)."""
    if not path.is_symlink():
        return None
    target = Path(os.path.realpath(path))
    if target.parent.name == "blobs" and _HEX64.match(target.name):
        return target.name
    return None


def hash_files(paths: Iterable[Path]) -> dict[Path, str]:
    """SHA-256 of each file (hex), from the memo when size and mtime are unchanged; one memo write."""
    out: dict[Path, str] = {}
    with _lock:
        memo_file = memo_path()
        memo = _load_memo(memo_file)
        fresh: dict[str, Any] = {}
        for path in paths:
            oid = _lfs_oid(path)
            if oid is not None:
                out[path] = oid
                continue
            real = Path(os.path.realpath(path))
            stat = real.stat()
            key = str(real)
            entry = memo.get(key)
            if (
                isinstance(entry, dict)
                and entry.get("size") == stat.st_size
                and entry.get("mtime_ns") == stat.st_mtime_ns
            ):
                out[path] = str(entry["sha256"])
                continue
            value = _sha256_of(real)
            fresh[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": value}
            out[path] = value
        if fresh:
            _save_memo(memo_file, fresh)
    return out


def file_sha256(path: str | os.PathLike[str]) -> str:
    return hash_files([Path(path)])[Path(path)]


# -- which files make a model, and their evidence ------------------------------------------------
def model_files(folder: Path) -> list[Path]:
    """Files that can change what the model computes: configs, tokenizer, weights, modules and code.

    Exports for other runtimes (ONNX, OpenVINO, TF, Flax, GGUF), READMEs and images are left out, so
    they neither cost hashing nor change the identity.
    """
    files = []
    for root, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(names):
            if name in _SKIP_NAMES or name.startswith(".") or Path(name).suffix.lower() in _SKIP_SUFFIXES:
                continue
            files.append(Path(root) / name)
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())


def _kind(rel: str, transformer_dir: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    parent = rel[: -len(name)].rstrip("/")
    if Path(name).suffix.lower() in _WEIGHT_SUFFIXES or name.endswith(".index.json"):
        return "weights"
    if name in _TOKENIZER_NAMES or name.startswith("vocab") or name.endswith((".tiktoken", ".spm")):
        return "tokenizer"
    if name == "config.json" and parent == transformer_dir:
        return "config"
    return "modules"  # sentence-transformers modules, pooling configs, remote code, generation config


def _combined(pairs: list[tuple[str, str]]) -> str | None:
    if not pairs:
        return None
    digest = hashlib.sha256()
    for rel, value in pairs:
        digest.update(f"{rel}\0{value}\n".encode())
    return digest.hexdigest()


def folder_evidence(folder: Path) -> dict[str, Any]:
    """Hashes of a model folder by kind: ``config``, ``tokenizer``, ``weights``, ``modules`` and ``all``."""
    folder = Path(folder)
    transformer_dir = _transformer_dir(folder)
    files = model_files(folder)
    hashes = hash_files(files)
    by_kind: dict[str, list[tuple[str, str]]] = {"config": [], "tokenizer": [], "weights": [], "modules": []}
    everything: list[tuple[str, str]] = []
    for path in files:
        rel = path.relative_to(folder).as_posix()
        by_kind[_kind(rel, transformer_dir)].append((rel, hashes[path]))
        everything.append((rel, hashes[path]))
    evidence: dict[str, Any] = {f"{kind}_hash": _combined(pairs) for kind, pairs in by_kind.items()}
    evidence["all_hash"] = _combined(everything)
    evidence["files"] = len(everything)
    evidence["weight_files"] = [rel for rel, _ in by_kind["weights"]]
    return evidence


def content_revision(folder: Path) -> str:
    """A short content identity of a folder (no commit to name it): the combined hash of its model files."""
    return (folder_evidence(folder)["all_hash"] or "empty")[:16]


# -- facts read from config files -------------------------------------------------------------
def read_json(path: Path) -> dict[str, Any]:
    try:
        data = parse_json(Path(path).read_text(encoding="utf-8"), path=Path(path))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _transformer_dir(folder: Path) -> str:
    """Relative folder of a sentence-transformers model's Transformer module ("" for plain HF folders)."""
    modules = folder / "modules.json"
    if modules.is_file():
        try:
            entries = parse_json(modules.read_text(encoding="utf-8"), path=modules)
        except (OSError, ValueError):
            entries = []
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and str(entry.get("type", "")).endswith("Transformer"):
                return str(entry.get("path", "")).strip("/")
    return ""


def _positions(config: Mapping[str, Any]) -> int | None:
    """Position-table size of a config (or of its text_config, for multimodal wrappers like Qwen3.5)."""
    for source in (config, config.get("text_config") or {}):
        if not isinstance(source, Mapping):
            continue
        for attr in ("max_position_embeddings", "n_positions"):
            value = source.get(attr)
            if isinstance(value, int) and value > 0:
                if source.get("model_type", config.get("model_type", "")) in _OFFSET_POSITIONS:
                    value -= (source.get("pad_token_id") or 0) + 1
                return value
    return None


def _tokenizer_limit(folder: Path) -> int | None:
    value = read_json(folder / "tokenizer_config.json").get("model_max_length")
    return int(value) if isinstance(value, (int, float)) and 0 < value < _UNBOUNDED else None


def token_limit_from_files(folder: Path) -> int | None:
    """What ``model_token_limit(tokenizer, config)`` returns once loaded: min(tokenizer limit, positions)."""
    candidates = [v for v in (_tokenizer_limit(folder), _positions(read_json(folder / "config.json"))) if v is not None]
    return min(candidates) if candidates else None


def sentence_transformer_limit_from_files(folder: Path) -> int | None:
    """The ``max_seq_length`` sentence-transformers will use, read from the module's files.

    ``sentence_bert_config.json``'s ``max_seq_length`` when set; else the tokenizer's ``model_max_length``
    capped by the config's ``max_position_embeddings`` (what sentence-transformers does on load).
    """
    module = folder / _transformer_dir(folder)
    asked = read_json(module / "sentence_bert_config.json").get("max_seq_length")
    if isinstance(asked, int) and asked > 0:
        return asked
    config = read_json(module / "config.json")
    positions = None
    for source in (config, config.get("text_config") or {}):
        if not isinstance(source, Mapping):
            continue
        value = source.get("max_position_embeddings", source.get("n_positions"))
        if isinstance(value, int) and value != -1:
            positions = value
            break
    candidates = [v for v in (_tokenizer_limit(module), positions) if v is not None]
    return min(candidates) if candidates else None
