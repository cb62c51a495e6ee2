"""The ``tfidf-ngrams`` encoders: TF-IDF character, token and POS-tag n-grams, fitted once and frozen.

A *vectoriser* is a folder with ``manifest.json`` and one gzip-compressed JSON file per block (portable,
no pickle): the block's kind, n-gram range and settings, its vocabulary in column order and the IDF
weights. Every block is weighted ``tf * idf`` with the smoothed IDF ``ln((1 + N) / (1 + df)) + 1`` of the
fitting corpus and L2-normalised on its own; the blocks are concatenated (an all-zero block, e.g. POS
of an empty text, stays zero). Fitting uses scikit-learn's ``CountVectorizer`` and ``TfidfTransformer``.

Settings (``settings=``; stored per block in the vectoriser files, so a folder always transforms the
way it was fitted):

- ``steb`` (default): the settings of STEB's reference code, ``TFIDFNGModel._fit_vectorizers`` and
  ``_prepare_representations`` in ``steb/models/tfidf_ngram_model.py`` of github.com/rrivera1849/STEB
  (Apache-2.0), read at commit 33b60df1ab34548409ff3052f51fe1c2ff84cbc1. Three scikit-learn
  ``TfidfVectorizer`` with ``max_features=2000``, ``min_df=1``, ``lowercase=True``, ``norm="l2"`` and
  otherwise defaults (plain term frequency, smoothed IDF): characters (``analyzer="char"``) of the raw
  text, so character n-grams are lower-cased; words (default ``token_pattern`` ``(?u)\\b\\w\\w+\\b``) of
  the lower-cased spaCy token texts joined by spaces, so one-character tokens and punctuation drop out
  and n-grams span over them; words of the spaCy ``pos_`` tags of *all* tokens joined by spaces,
  lower-cased, so whitespace tokens count as ``space`` and the one-letter ``X`` drops out.
- ``steb-0.1``: steb's earlier settings (the encoder ``tfidf-ngrams-steb01``): 10,000 character /
  5,000 (7,500 for 1-3) token / 1,000 (3,000) POS terms, each seen in at least 2 documents; character
  n-grams keep case; tokens are ``\\w+('\\w+)*`` words and single punctuation marks of the lower-cased
  raw text; POS tags keep case and whitespace tokens are dropped; ``tf = 1 + ln(count)`` (sublinear).
  Vectoriser files of the older format ``steb-tfidf/1`` carry no settings and are read as ``steb-0.1``.

Blocks: ``char_3_5``, ``token_1_2`` / ``token_1_3``, ``pos_1_2`` / ``pos_1_3``. Under ``steb`` the
token blocks need spaCy's tokenizer too (not its tagger), so only ``tfidf-char`` runs without spaCy.

Fitting: ``steb fit-tfidf --corpus FILES --out DIR`` (text/JSONL) or ``steb fit-tfidf --parquet SHARDS
--token-budget N --out DIR`` (parquet shards such as FineWeb's ``sample/10BT``, streamed, see
:mod:`.parquet_corpus`: the STEB paper fitted on FineWeb sample-10BT), ``--settings steb-0.1`` for the
earlier settings, or :func:`fit_vectoriser`; load with the encoder option ``vectoriser=DIR``. The
vectorisers shipped in ``resources/tfidf-default`` (``steb``) and ``resources/tfidf-steb01``
(``steb-0.1``) were fitted by ``python -m steb_models_stylometry.build_resources`` on
:func:`steb_models_stylometry.corpus.reference_corpus` (seeded generated texts + Python standard-library
docstrings): small and download-free, but far from the paper's 10B-token web sample, so fit your own
on a large general corpus for serious comparisons.

Known differences from the reference code: texts over 100,000 characters are tagged by spaCy in
pieces cut at whitespace (the reference cuts texts over 200,000 characters at fixed character
offsets); NER is not run (it changes neither tokens nor tags). The parser is run for the ``steb`` POS
blocks, as in the reference: en_core_web_sm's ``attribute_ruler`` sets a few POS tags from its
dependency labels (in "I a ! ?" the "a" is PRON with the parser, DET without), so leaving it out would
change the vectors; ``steb-0.1`` never ran it.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from steb_core import DataValidationError, open_gzip, parse_json

from .base import PACKAGE_VERSION, RESOURCES, StylometryEncoder, file_digest

if TYPE_CHECKING:
    from .spacy_pipeline import SpacyPipeline

__all__ = [
    "BLOCKS",
    "VARIANTS",
    "SETTINGS",
    "DEFAULT_SETTINGS",
    "DEFAULT_VECTORISER",
    "SHIPPED_VECTORISERS",
    "BlockSettings",
    "TfidfBlock",
    "TfidfVectoriser",
    "TfidfNgramsEncoder",
    "block_settings",
    "fit_vectoriser",
    "spacy_inputs",
    "variant_needs_spacy",
]

FORMAT = "steb-tfidf/2"
_FORMAT_V1 = "steb-tfidf/1"  # steb 0.1: no settings in the files, always the steb-0.1 settings

#: settings profiles; the first is the default
SETTINGS = ("steb", "steb-0.1")
DEFAULT_SETTINGS = "steb"
DEFAULT_VECTORISER = RESOURCES / "tfidf-default"
SHIPPED_VECTORISERS: dict[str, Path] = {"steb": DEFAULT_VECTORISER, "steb-0.1": RESOURCES / "tfidf-steb01"}

#: scikit-learn's default ``token_pattern``: words of 2+ word characters
SKLEARN_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
#: steb-0.1's token pattern: words with inner apostrophes, and single punctuation marks
TOKEN_PATTERN = r"\w+(?:'\w+)*|[^\w\s]"
_TAG_PATTERN = r"\S+"
#: the only token patterns a vectoriser file may name (a pattern from a file is never compiled unchecked)
TOKEN_PATTERNS = (SKLEARN_TOKEN_PATTERN, TOKEN_PATTERN, _TAG_PATTERN)

#: what a block reads: the raw text, or strings made from the spaCy tokens of the text
SOURCES = ("text", "spacy-tokens", "spacy-pos", "spacy-pos-nospace")
_POS_SOURCES = ("spacy-pos", "spacy-pos-nospace")

#: block name -> (kind, n-gram range)
BLOCKS: dict[str, tuple[str, tuple[int, int]]] = {
    "char_3_5": ("char", (3, 5)),
    "token_1_2": ("token", (1, 2)),
    "token_1_3": ("token", (1, 3)),
    "pos_1_2": ("pos", (1, 2)),
    "pos_1_3": ("pos", (1, 3)),
}

#: encoder name -> (blocks, description)
VARIANTS: dict[str, tuple[tuple[str, ...], str]] = {
    "tfidf-ngrams": (
        ("char_3_5", "token_1_2", "pos_1_2"),
        "character 3-5-grams + token 1-2-grams + POS 1-2-grams (STEB's best), STEB's vectoriser settings",
    ),
    "tfidf-ngrams-13": (("char_3_5", "token_1_3", "pos_1_3"), "character 3-5-grams + token 1-3-grams + POS 1-3-grams"),
    "tfidf-ngrams-nopos": (
        ("char_3_5", "token_1_2"),
        "character 3-5-grams + token 1-2-grams (spaCy tokenizer only, no tagger)",
    ),
    "tfidf-ngrams-nopos-13": (
        ("char_3_5", "token_1_3"),
        "character 3-5-grams + token 1-3-grams (spaCy tokenizer only, no tagger)",
    ),
    "tfidf-char": (("char_3_5",), "character 3-5-grams only"),
    "tfidf-ngrams-steb01": (
        ("char_3_5", "token_1_2", "pos_1_2"),
        "character 3-5-grams + token 1-2-grams + POS 1-2-grams with steb 0.1's settings (10,000/5,000/1,000 terms in "
        "2+ documents, case kept, sublinear tf)",
    ),
}
#: encoder name -> settings it stands for (others: ``DEFAULT_SETTINGS`` unless ``settings=`` says otherwise)
VARIANT_SETTINGS: dict[str, str] = {"tfidf-ngrams-steb01": "steb-0.1"}


@dataclass(frozen=True)
class BlockSettings:
    """How one block turns a text into terms and weights (stored in the block's file)."""

    source: str  # one of SOURCES
    lowercase: bool
    token_pattern: str | None  # word-level blocks: one of TOKEN_PATTERNS; character blocks: None
    sublinear_tf: bool  # tf = 1 + ln(count) instead of the count
    min_df: int  # fitting: a term must occur in this many documents
    max_features: int  # fitting: the most frequent terms kept
    profile: str = ""  # the settings profile these came from (informative)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any, where: str) -> BlockSettings:
        """Validated settings: unknown sources or patterns, wrong types or missing fields are errors."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: 'settings' must be an object, got {type(data).__name__}")
        types: dict[str, type | tuple[type, ...]] = {
            "source": str,
            "lowercase": bool,
            "token_pattern": (str, type(None)),
            "sublinear_tf": bool,
            "min_df": int,
            "max_features": int,
            "profile": str,
        }
        missing = [k for k in types if k not in data and k != "profile"]
        if missing:
            raise ValueError(f"{where}: settings lack {missing}")
        extra = sorted(set(data) - set(types))
        if extra:
            raise ValueError(f"{where}: unknown settings {extra}")
        for key, expected in types.items():
            if key in data and (
                not isinstance(data[key], expected) or (expected is int and isinstance(data[key], bool))
            ):
                raise ValueError(f"{where}: settings field {key!r} has {data[key]!r}, expected {expected}")
        if data["source"] not in SOURCES:
            raise ValueError(f"{where}: settings source {data['source']!r} is not one of {list(SOURCES)}")
        if data["token_pattern"] is not None and data["token_pattern"] not in TOKEN_PATTERNS:
            raise ValueError(f"{where}: token_pattern {data['token_pattern']!r} is not one of {list(TOKEN_PATTERNS)}")
        return cls(**{k: data[k] for k in types if k in data})


_STEB01_MAX = {"char_3_5": 10000, "token_1_2": 5000, "token_1_3": 7500, "pos_1_2": 1000, "pos_1_3": 3000}


def block_settings(profile: str, block: str) -> BlockSettings:
    """The settings of ``block`` under the settings profile ``profile`` (see the module docstring)."""
    if profile not in SETTINGS:
        raise ValueError(f"unknown TF-IDF settings {profile!r}; known: {list(SETTINGS)}")
    if block not in BLOCKS:
        raise ValueError(f"unknown TF-IDF block {block!r}; known: {list(BLOCKS)}")
    kind = BLOCKS[block][0]
    if profile == "steb":
        source = {"char": "text", "token": "spacy-tokens", "pos": "spacy-pos"}[kind]
        pattern = None if kind == "char" else SKLEARN_TOKEN_PATTERN
        return BlockSettings(source, True, pattern, False, 1, 2000, profile)
    if kind == "char":
        return BlockSettings("text", False, None, True, 2, _STEB01_MAX[block], profile)
    if kind == "token":
        return BlockSettings("text", True, TOKEN_PATTERN, True, 2, _STEB01_MAX[block], profile)
    return BlockSettings("spacy-pos-nospace", False, _TAG_PATTERN, True, 2, _STEB01_MAX[block], profile)


def variant_needs_spacy(name: str, settings: str | None = None) -> bool:
    """Whether the encoder ``name`` (with its default or the given settings) runs spaCy."""
    profile = settings or VARIANT_SETTINGS.get(name, DEFAULT_SETTINGS)
    return any(block_settings(profile, b).source != "text" for b in VARIANTS[name][0])


_WHITESPACE = re.compile(r"\s\s+")


def analyzer(kind: str, ngram_range: tuple[int, int], settings: BlockSettings) -> Callable[[str], list[str]]:
    """The function that turns one document (of the block's source) into its n-grams, for fitting and transforming
    alike."""
    lo, hi = ngram_range
    if kind == "char":
        lower = settings.lowercase

        def char_grams(doc: str) -> list[str]:
            if lower:
                doc = doc.lower()
            # whitespace runs count as one space (as in scikit-learn's char analyzer)
            doc = _WHITESPACE.sub(" ", doc)
            size = len(doc)
            return [doc[i : i + n] for n in range(lo, hi + 1) for i in range(size - n + 1)]

        return char_grams
    if kind not in ("token", "pos"):
        raise ValueError(f"unknown block kind '{kind}'")
    if settings.token_pattern is None:
        raise ValueError(f"a {kind} block needs a token_pattern")
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(
        lowercase=settings.lowercase, token_pattern=settings.token_pattern, ngram_range=(lo, hi)
    )
    analyze: Callable[[str], list[str]] = vectorizer.build_analyzer()
    return analyze


_HASH_MULT = np.uint64(0x100000001B3)  # FNV-style odd multiplier; arithmetic wraps modulo 2**64


def _gram_hashes(text: str, n: int) -> np.ndarray:
    """64-bit polynomial hashes of every length-``n`` substring of ``text`` (seeded with ``n``)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    count = len(codes) - n + 1
    if count <= 0:
        return np.zeros(0, dtype=np.uint64)
    h = np.full(count, n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(n):
            h = h * _HASH_MULT + codes[k : k + count]
    return h


_SLOT_BITS = 21


class _HashTable:
    """Vocabulary hashes -> column index: a direct-address table on the low bits, binary search for shared slots."""

    def __init__(self, hashes: np.ndarray) -> None:
        self.hashes = hashes
        self.mask = np.uint64((1 << _SLOT_BITS) - 1)
        slots = (hashes & self.mask).astype(np.int64)
        self.slots = np.full(1 << _SLOT_BITS, -1, dtype=np.int32)  # -1 empty, -2 shared, else the column
        uniq, first, counts = np.unique(slots, return_index=True, return_counts=True)
        self.slots[uniq] = np.where(counts == 1, first, -2).astype(np.int32)
        self.order = np.argsort(hashes)
        self.sorted = hashes[self.order]

    def lookup(self, h: np.ndarray) -> np.ndarray:
        """Column of every hash that is a vocabulary term's hash (others are dropped)."""
        cand = self.slots[(h & self.mask).astype(np.int64)]
        direct = cand >= 0
        out = cand[direct][self.hashes[cand[direct]] == h[direct]].astype(np.int64)
        shared = cand == -2
        if shared.any():
            hs = h[shared]
            pos = np.minimum(np.searchsorted(self.sorted, hs), len(self.sorted) - 1)
            out = np.concatenate([out, self.order[pos[self.sorted[pos] == hs]]])
        return np.asarray(out)


class TfidfBlock:
    """One fitted block: its settings, a frozen vocabulary and its IDF weights."""

    def __init__(
        self,
        name: str,
        kind: str,
        ngram_range: tuple[int, int],
        vocabulary: list[str],
        idf: np.ndarray,
        settings: BlockSettings,
    ) -> None:
        if len(vocabulary) != len(idf):
            raise ValueError(f"block {name}: {len(vocabulary)} terms but {len(idf)} IDF weights")
        if kind not in ("char", "token", "pos"):
            raise ValueError(f"block {name}: unknown kind {kind!r}")
        lo, hi = ngram_range
        self.name, self.kind, self.ngram_range = name, kind, (lo, hi)
        self.settings = settings
        self.vocabulary = list(vocabulary)
        self.idf = np.asarray(idf, dtype=np.float32)
        self._index = {t: i for i, t in enumerate(self.vocabulary)}
        self._analyze = analyzer(kind, self.ngram_range, settings)
        self._hash_table: _HashTable | None = None

    @property
    def source(self) -> str:
        return self.settings.source

    def __getstate__(self) -> dict[str, Any]:
        # the analyzer is a closure: rebuild it (and the index) in a worker process instead of pickling it
        return {k: v for k, v in self.__dict__.items() if k not in ("_index", "_analyze", "_hash_table")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._index = {t: i for i, t in enumerate(self.vocabulary)}
        self._analyze = analyzer(self.kind, self.ngram_range, self.settings)
        self._hash_table = None

    def counts(self, docs: Sequence[str]) -> sp.csr_matrix:
        """Raw n-gram counts over the frozen vocabulary (unknown n-grams are ignored)."""
        if self.kind == "char":
            return self._char_counts(docs)
        return self._generic_counts(docs)

    def _char_counts(self, docs: Sequence[str]) -> sp.csr_matrix:
        """Character n-gram counts, vectorised with numpy.

        Every n-gram is hashed to 64 bits; the low ``_SLOT_BITS`` bits index a direct-address table
        holding the vocabulary term with that slot (or a marker for slots shared by several terms,
        which fall back to a binary search), and the full 64-bit hash must then match the term's. A
        false match needs a 64-bit collision with a vocabulary term (about 1e-12 per text). Several
        times faster than slicing and looking up n-gram strings one by one.
        """
        if self._hash_table is None:
            self._hash_table = _HashTable(
                np.array([_gram_hashes(t, len(t))[0] for t in self.vocabulary], dtype=np.uint64)
            )
        table = self._hash_table
        lo, hi = self.ngram_range
        lower = self.settings.lowercase
        indptr = np.zeros(len(docs) + 1, dtype=np.int64)
        indices: list[np.ndarray] = []
        values: list[np.ndarray] = []
        for row, doc in enumerate(docs):
            if lower:
                doc = doc.lower()
            doc = _WHITESPACE.sub(" ", doc)
            hashes = [_gram_hashes(doc, n) for n in range(lo, min(hi, len(doc)) + 1)]
            ids = table.lookup(np.concatenate(hashes)) if hashes else np.zeros(0, np.int64)
            uniq, cnt = np.unique(ids, return_counts=True)
            indices.append(uniq)
            values.append(cnt)
            indptr[row + 1] = indptr[row] + len(uniq)
        data = np.concatenate(values).astype(np.float32) if values else np.zeros(0, np.float32)
        idx = np.concatenate(indices) if indices else np.zeros(0, np.int64)
        return sp.csr_matrix((data, idx, indptr), shape=(len(docs), len(self.vocabulary)))

    def _generic_counts(self, docs: Sequence[str]) -> sp.csr_matrix:
        """Counts via the analyzer's n-gram strings.

        Faster than ``CountVectorizer.transform`` with a fixed vocabulary, which raises and catches a
        KeyError for every out-of-vocabulary n-gram: here the look-ups run in ``map(dict.get, ...)``.
        """
        get = self._index.get
        indptr = np.zeros(len(docs) + 1, dtype=np.int64)
        indices: list[np.ndarray] = []
        values: list[np.ndarray] = []
        for row, doc in enumerate(docs):
            ids = np.array([i for i in map(get, self._analyze(doc)) if i is not None], dtype=np.int64)
            uniq, cnt = np.unique(ids, return_counts=True)
            indices.append(uniq)
            values.append(cnt)
            indptr[row + 1] = indptr[row] + len(uniq)
        cat = np.concatenate
        data = cat(values).astype(np.float32) if values else np.zeros(0, np.float32)
        idx = cat(indices) if indices else np.zeros(0, np.int64)
        return sp.csr_matrix((data, idx, indptr), shape=(len(docs), len(self.vocabulary)))

    def transform(self, docs: Sequence[str]) -> sp.csr_matrix:
        """TF-IDF rows, L2-normalised (zero rows stay zero; no texts gives a 0-row matrix)."""
        counts = self.counts(docs)
        if self.settings.sublinear_tf:
            counts.data = 1.0 + np.log(counts.data)
        counts.data *= self.idf[counts.indices]
        norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1), dtype=np.float64).ravel())
        norms[norms == 0] = 1.0
        counts.data /= np.repeat(norms, np.diff(counts.indptr)).astype(np.float32)
        return counts

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "name": self.name,
            "kind": self.kind,
            "ngram_range": list(self.ngram_range),
            "settings": self.settings.to_json(),
            "vocabulary": self.vocabulary,
            "idf": [round(float(v), 6) for v in self.idf],
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "") -> TfidfBlock:
        """A block from its JSON object; ``steb-tfidf/1`` blocks get the ``steb-0.1`` settings they were fitted with."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: a TF-IDF block must be a JSON object")
        fmt = data.get("format")
        if fmt not in (FORMAT, _FORMAT_V1):
            raise ValueError(f"{where}: not a {FORMAT} block (format {fmt!r})")
        missing = [
            k
            for k in ("name", "kind", "ngram_range", "vocabulary", "idf") + (("settings",) if fmt == FORMAT else ())
            if k not in data
        ]
        if missing:
            raise ValueError(f"{where}: block lacks {missing}")
        name = data["name"]
        if not isinstance(name, str):
            raise ValueError(f"{where}: 'name' must be a string")
        if fmt == _FORMAT_V1:
            if name not in BLOCKS:
                raise ValueError(f"{where}: {_FORMAT_V1} block with unknown name {name!r}")
            settings = block_settings("steb-0.1", name)
        else:
            settings = BlockSettings.from_json(data["settings"], where)
        vocabulary = data["vocabulary"]
        if not isinstance(vocabulary, list) or not all(isinstance(t, str) for t in vocabulary):
            raise ValueError(f"{where}: 'vocabulary' must be a list of strings")
        rng = data["ngram_range"]
        if not (
            isinstance(rng, list)
            and len(rng) == 2
            and all(isinstance(v, int) and v >= 1 for v in rng)
            and rng[0] <= rng[1]
        ):
            raise ValueError(f"{where}: 'ngram_range' must be [low, high] with 1 <= low <= high, got {rng!r}")
        try:
            idf = np.asarray(data["idf"], dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{where}: 'idf' must be a list of numbers ({err})") from None
        if idf.ndim != 1 or not np.isfinite(idf).all():
            raise ValueError(f"{where}: 'idf' must be a flat list of finite numbers")
        return cls(name, data["kind"], tuple(rng), vocabulary, idf, settings)


def _plain_file_name(name: Any, where: str) -> str:
    """A manifest's block file name: a file inside the vectoriser folder, never a path out of it."""
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(f"{where}: block file {name!r} must be a plain file name inside the vectoriser folder")
    return name


class TfidfVectoriser:
    """A fitted vectoriser folder: several blocks, their settings profile and where they came from."""

    def __init__(
        self, blocks: dict[str, TfidfBlock], corpus: str = "", n_docs: int = 0, settings: str = DEFAULT_SETTINGS
    ) -> None:
        self.blocks, self.corpus, self.n_docs, self.settings = blocks, corpus, n_docs, settings

    def save(self, out: str | Path) -> Path:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = {}
        for name, block in self.blocks.items():
            fname = f"{name}.json.gz"
            payload = json.dumps(block.to_json(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            # mtime=0 keeps the archive byte-identical across re-fits of the same corpus
            (out / fname).write_bytes(gzip.compress(payload, compresslevel=9, mtime=0))
            files[name] = fname
        manifest = {
            "format": FORMAT,
            "settings": self.settings,
            "blocks": files,
            "corpus": self.corpus,
            "n_docs": self.n_docs,
            "created_by": f"steb-models-stylometry {PACKAGE_VERSION}",
        }
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        return out

    @classmethod
    def load(cls, path: str | Path, blocks: Iterable[str] | None = None) -> TfidfVectoriser:
        path = Path(path)
        manifest_path = path / "manifest.json"
        if not manifest_path.is_file():
            raise FileNotFoundError(
                f"{path} is not a fitted TF-IDF vectoriser (no manifest.json); fit one with `steb fit-tfidf`"
            )
        manifest = parse_json(manifest_path.read_text(encoding="utf-8"), path=manifest_path)
        if (
            not isinstance(manifest, dict)
            or manifest.get("format") not in (FORMAT, _FORMAT_V1)
            or not isinstance(manifest.get("blocks"), dict)
        ):
            raise ValueError(
                f"{manifest_path}: not a {FORMAT} manifest (expected an object with 'format' and 'blocks')"
            )
        settings = manifest.get("settings") if manifest["format"] == FORMAT else "steb-0.1"
        if settings not in SETTINGS:
            raise ValueError(f"{manifest_path}: unknown settings {settings!r}; known: {list(SETTINGS)}")
        wanted = list(blocks) if blocks is not None else list(manifest["blocks"])
        missing = [b for b in wanted if b not in manifest["blocks"]]
        if missing:
            raise ValueError(f"{path}: vectoriser has no block(s) {missing}; it has {list(manifest['blocks'])}")
        loaded = {}
        for name in wanted:
            file = path / _plain_file_name(manifest["blocks"][name], str(manifest_path))
            try:
                with open_gzip(file) as handle:  # refused past the decompression cap (a gzip bomb), before it is read
                    data = parse_json(handle.read().decode("utf-8"), path=file)
            except DataValidationError as err:  # over the decompression cap, bad JSON, a key given twice: names it
                raise err from None
            except (OSError, EOFError, ValueError) as err:  # e.g. not UTF-8
                raise DataValidationError(f"is not a gzip-compressed JSON TF-IDF block ({err})", path=file) from None
            loaded[name] = TfidfBlock.from_json(data, str(file))
        return cls(loaded, manifest.get("corpus", ""), manifest.get("n_docs", 0), settings)


def spacy_inputs(texts: Sequence[str], sources: Iterable[str], pipeline: SpacyPipeline | None) -> dict[str, list[str]]:
    """Each text as the strings the spaCy-based ``sources`` read, made in one pass over ``pipeline``.

    ``spacy-tokens``: the lower-cased texts of all tokens, joined by spaces; ``spacy-pos``: the ``pos_``
    tags of all tokens (whitespace tokens are ``SPACE``); ``spacy-pos-nospace``: the tags of the
    non-whitespace tokens. A long text that spaCy sees in pieces is joined over its pieces.
    """
    want = [s for s in dict.fromkeys(sources) if s != "text"]
    unknown = [s for s in want if s not in SOURCES]
    if unknown:
        raise ValueError(f"unknown sources {unknown}; known: {list(SOURCES)}")
    parts: dict[str, list[list[str]]] = {s: [[] for _ in texts] for s in want}
    if want:
        tokens, pos, pos_nospace = (parts.get(s) for s in ("spacy-tokens", "spacy-pos", "spacy-pos-nospace"))
        if pipeline is None:
            raise ValueError(f"sources {want} need a spaCy pipeline")
        for row, doc in pipeline.iter_docs(texts):
            if tokens is not None:
                tokens[row].extend(t.text.lower() for t in doc)
            if pos is not None:
                pos[row].extend(t.pos_ for t in doc)
            if pos_nospace is not None:
                pos_nospace[row].extend(t.pos_ for t in doc if not t.is_space)
    return {s: [" ".join(p) for p in rows] for s, rows in parts.items()}


def _pipeline_for(
    sources: Iterable[str], spacy_model: str | None, batch_size: int, n_process: int
) -> SpacyPipeline | None:
    """The spaCy pipeline the sources need: tagger (and parser for ``spacy-pos``), the tokenizer alone for tokens,
    none for raw text."""
    sources = set(sources)
    if sources <= {"text"}:
        return None
    from .spacy_pipeline import SpacyPipeline

    if "spacy-pos" in sources:
        needs: tuple[str, ...] = ("pos", "deps")  # as the reference: its parser's labels change a few POS tags
    elif "spacy-pos-nospace" in sources:
        needs = ("pos",)
    else:
        needs = ()
    return SpacyPipeline(spacy_model, needs=needs, batch_size=batch_size, n_process=n_process)


def _block_inputs(texts: list[str], sources: Iterable[str], pipeline: SpacyPipeline | None) -> dict[str, list[str]]:
    inputs = spacy_inputs(texts, sources, pipeline) if pipeline is not None else {}
    inputs["text"] = texts
    return inputs


def fit_vectoriser(
    texts: Sequence[str],
    blocks: Iterable[str] = tuple(BLOCKS),
    *,
    settings: str = DEFAULT_SETTINGS,
    max_features: dict[str, int] | None = None,
    corpus: str = "",
    spacy_model: str | None = None,
    n_process: int = 1,
) -> TfidfVectoriser:
    """Fit the named blocks on ``texts`` with the ``settings`` profile (``max_features`` overrides its vocabulary
    sizes)."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    texts = list(texts)
    blocks = list(blocks)
    unknown = [b for b in blocks if b not in BLOCKS]
    if unknown:
        raise ValueError(f"unknown TF-IDF block(s) {unknown}; known: {list(BLOCKS)}")
    chosen = {}
    for name in blocks:
        s = block_settings(settings, name)
        limit = (max_features or {}).get(name)
        chosen[name] = dataclasses.replace(s, max_features=int(limit)) if limit else s
    sources = {s.source for s in chosen.values()}
    inputs = _block_inputs(texts, sources, _pipeline_for(sources, spacy_model, 256, n_process))
    fitted = {}
    for name, s in chosen.items():
        kind, ngram_range = BLOCKS[name]
        # integer counts: the max_features ranking sums them exactly however large the corpus
        vec = CountVectorizer(
            analyzer=analyzer(kind, ngram_range, s), min_df=s.min_df, max_features=s.max_features, dtype=np.int32
        )
        counts = vec.fit_transform(inputs[s.source])
        idf = TfidfTransformer(smooth_idf=True).fit(counts).idf_
        vocab = sorted(vec.vocabulary_, key=vec.vocabulary_.get)
        fitted[name] = TfidfBlock(name, kind, ngram_range, vocab, idf, s)
    return TfidfVectoriser(fitted, corpus=corpus, n_docs=len(texts), settings=settings)


_MIN_PARALLEL = 1000  # below this many texts, starting worker processes costs more than it saves


def _transform_blocks(blocks: list[TfidfBlock], inputs: dict[str, list[str]]) -> dict[str, sp.csr_matrix]:
    return {b.name: b.transform(inputs[b.source]) for b in blocks}


def _flag(value: Any) -> bool:
    """A boolean option that may arrive as a string from the command line (``-O dense=true``)."""
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"expected a boolean, got {value!r}")
    return bool(value)


class TfidfNgramsEncoder(StylometryEncoder):
    """Concatenated, block-wise L2-normalised TF-IDF n-gram vectors from a frozen vectoriser.

    ``settings`` picks the shipped vectoriser (``steb``: STEB's reference settings, the default;
    ``steb-0.1``: steb's earlier ones); with ``vectoriser=DIR`` the settings come from the folder, and a
    ``settings`` option (or a variant name such as ``tfidf-ngrams-steb01``) that disagrees is an error.

    :meth:`encode` returns a ``scipy.sparse.csr_matrix`` of float32 (canonical: sorted column indices, no
    explicit zeros) and the encoder advertises ``sparse_output = True`` so that callers which accept
    sparse matrices keep them sparse (the vectors have thousands of columns, a few hundred non-zero).
    ``dense=True`` (option ``-O dense=true``) makes :meth:`encode` return the dense float32 array instead,
    with exactly the same values; ``sparse_output`` is then False. The cache fingerprint does not depend
    on this choice, since the values do not; it does depend on the settings and the vectoriser files.
    """

    def __init__(
        self,
        name: str = "tfidf-ngrams",
        blocks: Sequence[str] | None = None,
        vectoriser: str | Path | None = None,
        settings: str | None = None,
        spacy_model: str | None = None,
        batch_size: int = 256,
        n_process: int = 1,
        n_jobs: int = 1,
        dense: bool | str = False,
    ) -> None:
        if settings is not None and settings not in SETTINGS:
            raise ValueError(f"unknown TF-IDF settings {settings!r}; known: {list(SETTINGS)}")
        self.name = name
        self.dense = _flag(dense)
        self.n_jobs = max(1, int(n_jobs))
        self.block_names = tuple(blocks) if blocks else VARIANTS.get(name, VARIANTS["tfidf-ngrams"])[0]
        expected = settings or VARIANT_SETTINGS.get(name)
        if vectoriser:
            self.vectoriser_path = Path(vectoriser)
        else:
            self.vectoriser_path = SHIPPED_VECTORISERS[expected or DEFAULT_SETTINGS]
        self.vectoriser = TfidfVectoriser.load(self.vectoriser_path, self.block_names)
        if expected and self.vectoriser.settings != expected:
            raise ValueError(
                f"{self.vectoriser_path}: vectoriser was fitted with settings {self.vectoriser.settings!r}, but "
                f"{name} asks for {expected!r}; fit one with `steb fit-tfidf --settings {expected}`"
            )
        blocks_ = list(self.vectoriser.blocks.values())
        self.sources = tuple(dict.fromkeys(b.source for b in blocks_))
        self.needs_pos = any(s in _POS_SOURCES for s in self.sources)
        self.pipeline = _pipeline_for(self.sources, spacy_model, batch_size, n_process)
        self.dim = sum(len(b.vocabulary) for b in blocks_)

    def config(self) -> dict[str, Any]:
        digests = {n: file_digest(self.vectoriser_path / f"{n}.json.gz")[:16] for n in self.block_names}
        return {
            "blocks": list(self.block_names),
            "settings": self.vectoriser.settings,
            "block_settings": {n: b.settings.to_json() for n, b in self.vectoriser.blocks.items()},
            "vectoriser": digests,
            "corpus": self.vectoriser.corpus,
            "dim": self.dim,
            "spacy": self.pipeline.describe() if self.pipeline else None,
        }

    def inputs(self, texts: Sequence[str]) -> dict[str, list[str]]:
        """What each block reads, by source: the texts themselves and the spaCy-made strings."""
        return _block_inputs(list(texts), self.sources, self.pipeline)

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Sparse float32 (n, dim) TF-IDF matrix."""
        texts = list(texts)
        inputs = self.inputs(texts)
        blocks = list(self.vectoriser.blocks.values())
        if self.n_jobs > 1 and len(texts) >= _MIN_PARALLEL:
            parts = self._parallel_transform(blocks, inputs, len(texts))
        else:
            parts = _transform_blocks(blocks, inputs)
        return sp.hstack([parts[b.name] for b in blocks], format="csr", dtype=np.float32)

    def _parallel_transform(
        self, blocks: list[TfidfBlock], inputs: dict[str, list[str]], n: int
    ) -> dict[str, sp.csr_matrix]:
        """The n-gram counting over ``n_jobs`` worker processes (it is pure Python, so threads would not help)."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        size = -(-n // self.n_jobs)
        chunks = [{s: docs[i : i + size] for s, docs in inputs.items()} for i in range(0, n, size)]
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        with ProcessPoolExecutor(self.n_jobs, mp_context=multiprocessing.get_context(method)) as pool:
            parts = list(pool.map(_transform_blocks, [blocks] * len(chunks), chunks))
        return {b.name: sp.vstack([p[b.name] for p in parts], format="csr") for b in blocks}

    @property
    def sparse_output(self) -> bool:
        """True: :meth:`encode` returns a CSR matrix (False with ``dense=True``)."""
        return not self.dense

    def encode(self, texts: list[str]) -> sp.csr_matrix | np.ndarray:
        """Float32 (n, dim) vectors: a canonical CSR matrix, or a dense array with ``dense=True``."""
        mat = self.transform(texts)
        if self.dense:
            return mat.toarray()
        mat.sum_duplicates()  # also sorts the column indices
        mat.eliminate_zeros()
        return mat

    def cosine(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        """Row-wise cosine without densifying (zero vectors give 0)."""
        a, b = self.transform(texts_a), self.transform(texts_b)
        dots = np.asarray(a.multiply(b).sum(axis=1)).ravel()
        na = np.sqrt(np.asarray(a.multiply(a).sum(axis=1)).ravel())
        nb = np.sqrt(np.asarray(b.multiply(b).sum(axis=1)).ravel())
        den = na * nb
        return np.asarray(np.divide(dots, den, out=np.zeros_like(dots), where=den > 0))
