"""The ``tfidf-ngrams`` encoders: TF-IDF character, token and POS-tag n-grams, fitted once and frozen.

A *vectoriser* is a folder with ``manifest.json`` and one gzip-compressed JSON file per block (portable,
no pickle): the block's kind and n-gram range, its vocabulary in column order and the IDF weights.
Blocks (fitted with scikit-learn's ``CountVectorizer`` and ``TfidfTransformer``):

- ``char_3_5``: character 3-5-grams of the raw text, case kept (capitalisation is style);
- ``token_1_2`` / ``token_1_3``: lower-cased word tokens (``\\w+('\\w+)*``) and single punctuation marks;
- ``pos_1_2`` / ``pos_1_3``: n-grams of spaCy universal POS tags (whitespace tokens dropped).

Weights: ``tf = 1 + log(count)`` (sublinear, so long texts are not dominated by frequent n-grams) times
the smoothed IDF ``ln((1 + N) / (1 + df)) + 1`` of the fitting corpus; each block is L2-normalised on its
own and the blocks are concatenated (an all-zero block, e.g. POS of an empty text, stays zero).

Fitting: ``steb fit-tfidf --corpus FILES --out DIR`` (text/JSONL) or ``steb fit-tfidf --parquet SHARDS
--token-budget N --out DIR`` (parquet shards such as FineWeb's ``sample/10BT``, streamed, see
:mod:`.parquet_corpus`: the STEB paper fitted on FineWeb sample-10BT), or :func:`fit_vectoriser`; load
with the encoder option ``vectoriser=DIR``. The default vectoriser shipped in ``resources/tfidf-default`` was fitted by
``python -m steb_models_stylometry.build_resources`` on :func:`steb_models_stylometry.corpus.reference_corpus`
(seeded generated texts + Python standard-library docstrings): small and download-free, but far from the
paper's 10B-token web sample, so fit your own on a large general corpus for serious comparisons.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from .base import PACKAGE_VERSION, RESOURCES, StylometryEncoder, file_digest

__all__ = [
    "BLOCKS",
    "VARIANTS",
    "DEFAULT_VECTORISER",
    "TfidfBlock",
    "TfidfVectoriser",
    "TfidfNgramsEncoder",
    "fit_vectoriser",
]

FORMAT = "steb-tfidf/1"
DEFAULT_VECTORISER = RESOURCES / "tfidf-default"
TOKEN_PATTERN = r"\w+(?:'\w+)*|[^\w\s]"

#: block name -> (kind, n-gram range, default max_features)
BLOCKS: dict[str, tuple[str, tuple[int, int], int]] = {
    "char_3_5": ("char", (3, 5), 10000),
    "token_1_2": ("token", (1, 2), 5000),
    "token_1_3": ("token", (1, 3), 7500),
    "pos_1_2": ("pos", (1, 2), 1000),
    "pos_1_3": ("pos", (1, 3), 3000),
}

#: encoder name -> (blocks, description)
VARIANTS: dict[str, tuple[tuple[str, ...], str]] = {
    "tfidf-ngrams": (("char_3_5", "token_1_2", "pos_1_2"), "character 3-5-grams + token 1-2-grams + POS 1-2-grams (STEB's best)"),
    "tfidf-ngrams-13": (("char_3_5", "token_1_3", "pos_1_3"), "character 3-5-grams + token 1-3-grams + POS 1-3-grams"),
    "tfidf-ngrams-nopos": (("char_3_5", "token_1_2"), "character 3-5-grams + token 1-2-grams (no spaCy needed)"),
    "tfidf-ngrams-nopos-13": (("char_3_5", "token_1_3"), "character 3-5-grams + token 1-3-grams (no spaCy needed)"),
    "tfidf-char": (("char_3_5",), "character 3-5-grams only"),
}


_WHITESPACE = re.compile(r"\s\s+")


def analyzer(kind: str, ngram_range: tuple[int, int]) -> Callable[[str], list[str]]:
    """The function that turns one document into its list of n-grams, for fitting and transforming alike."""
    lo, hi = ngram_range
    if kind == "char":

        def char_grams(doc: str) -> list[str]:
            # whitespace runs count as one space (as in scikit-learn's char analyzer)
            doc = _WHITESPACE.sub(" ", doc)
            size = len(doc)
            return [doc[i : i + n] for n in range(lo, hi + 1) for i in range(size - n + 1)]

        return char_grams
    from sklearn.feature_extraction.text import CountVectorizer

    if kind == "token":
        return CountVectorizer(lowercase=True, token_pattern=TOKEN_PATTERN, ngram_range=(lo, hi)).build_analyzer()
    if kind == "pos":
        return CountVectorizer(lowercase=False, token_pattern=r"\S+", ngram_range=(lo, hi)).build_analyzer()
    raise ValueError(f"unknown block kind '{kind}'")


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
        return out


class TfidfBlock:
    """One fitted block: a frozen vocabulary and its IDF weights."""

    def __init__(self, name: str, kind: str, ngram_range: tuple[int, int], vocabulary: list[str], idf: np.ndarray) -> None:
        if len(vocabulary) != len(idf):
            raise ValueError(f"block {name}: {len(vocabulary)} terms but {len(idf)} IDF weights")
        self.name, self.kind, self.ngram_range = name, kind, tuple(ngram_range)
        self.vocabulary = list(vocabulary)
        self.idf = np.asarray(idf, dtype=np.float32)
        self._index = {t: i for i, t in enumerate(self.vocabulary)}
        self._analyze = analyzer(kind, self.ngram_range)
        self._hash_table: tuple[np.ndarray, np.ndarray] | None = None

    def __getstate__(self) -> dict[str, Any]:
        # the analyzer is a closure: rebuild it (and the index) in a worker process instead of pickling it
        return {k: v for k, v in self.__dict__.items() if k not in ("_index", "_analyze", "_hash_table")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._index = {t: i for i, t in enumerate(self.vocabulary)}
        self._analyze = analyzer(self.kind, self.ngram_range)
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
            self._hash_table = _HashTable(np.array([_gram_hashes(t, len(t))[0] for t in self.vocabulary], dtype=np.uint64))
        table = self._hash_table
        lo, hi = self.ngram_range
        indptr = np.zeros(len(docs) + 1, dtype=np.int64)
        indices: list[np.ndarray] = []
        values: list[np.ndarray] = []
        for row, doc in enumerate(docs):
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
            "vocabulary": self.vocabulary,
            "idf": [round(float(v), 6) for v in self.idf],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "") -> "TfidfBlock":
        if data.get("format") != FORMAT:
            raise ValueError(f"{where}: not a {FORMAT} block (format {data.get('format')!r})")
        return cls(data["name"], data["kind"], tuple(data["ngram_range"]), data["vocabulary"], np.asarray(data["idf"]))


class TfidfVectoriser:
    """A fitted vectoriser folder: several blocks plus where they came from."""

    def __init__(self, blocks: dict[str, TfidfBlock], corpus: str = "", n_docs: int = 0) -> None:
        self.blocks, self.corpus, self.n_docs = blocks, corpus, n_docs

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
        manifest = {"format": FORMAT, "blocks": files, "corpus": self.corpus, "n_docs": self.n_docs, "created_by": f"steb-models-stylometry {PACKAGE_VERSION}"}
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        return out

    @classmethod
    def load(cls, path: str | Path, blocks: Iterable[str] | None = None) -> "TfidfVectoriser":
        path = Path(path)
        manifest_path = path / "manifest.json"
        if not manifest_path.is_file():
            raise FileNotFoundError(f"{path} is not a fitted TF-IDF vectoriser (no manifest.json); fit one with `steb fit-tfidf`")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        wanted = list(blocks) if blocks is not None else list(manifest["blocks"])
        missing = [b for b in wanted if b not in manifest["blocks"]]
        if missing:
            raise ValueError(f"{path}: vectoriser has no block(s) {missing}; it has {list(manifest['blocks'])}")
        loaded = {}
        for name in wanted:
            file = path / manifest["blocks"][name]
            loaded[name] = TfidfBlock.from_json(json.loads(gzip.decompress(file.read_bytes())), str(file))
        return cls(loaded, manifest.get("corpus", ""), manifest.get("n_docs", 0))


def fit_vectoriser(
    texts: Sequence[str],
    blocks: Iterable[str] = tuple(BLOCKS),
    *,
    max_features: dict[str, int] | None = None,
    corpus: str = "",
    spacy_model: str | None = None,
    n_process: int = 1,
) -> TfidfVectoriser:
    """Fit the named blocks on ``texts`` (terms kept: seen in >= 2 texts, the ``max_features`` most frequent)."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    texts = list(texts)
    blocks = list(blocks)
    unknown = [b for b in blocks if b not in BLOCKS]
    if unknown:
        raise ValueError(f"unknown TF-IDF block(s) {unknown}; known: {list(BLOCKS)}")
    pos_docs = pos_strings(texts, spacy_model, n_process) if any(BLOCKS[b][0] == "pos" for b in blocks) else None
    fitted = {}
    for name in blocks:
        kind, ngram_range, default_max = BLOCKS[name]
        limit = (max_features or {}).get(name, default_max)
        docs = pos_docs if kind == "pos" else texts
        vec = CountVectorizer(analyzer=analyzer(kind, ngram_range), min_df=2, max_features=limit, dtype=np.float32)
        counts = vec.fit_transform(docs)
        idf = TfidfTransformer(smooth_idf=True).fit(counts).idf_
        vocab = sorted(vec.vocabulary_, key=vec.vocabulary_.get)
        fitted[name] = TfidfBlock(name, kind, ngram_range, vocab, idf)
    return TfidfVectoriser(fitted, corpus=corpus, n_docs=len(texts))


def pos_strings(texts: Sequence[str], spacy_model: str | None = None, n_process: int = 1, batch_size: int = 256, pipeline=None) -> list[str]:
    """Each text as a space-separated string of its universal POS tags (whitespace tokens dropped)."""
    from .spacy_pipeline import SpacyPipeline

    pipeline = pipeline or SpacyPipeline(spacy_model, needs=("pos",), batch_size=batch_size, n_process=n_process)
    parts: list[list[str]] = [[] for _ in texts]
    for row, doc in pipeline.iter_docs(texts):
        parts[row].extend(t.pos_ for t in doc if not t.is_space)
    return [" ".join(p) for p in parts]


_MIN_PARALLEL = 1000  # below this many texts, starting worker processes costs more than it saves


def _transform_blocks(blocks: list[TfidfBlock], texts: list[str]) -> dict[str, sp.csr_matrix]:
    return {b.name: b.transform(texts) for b in blocks}


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

    :meth:`encode` returns a ``scipy.sparse.csr_matrix`` of float32 (canonical: sorted column indices, no
    explicit zeros) and the encoder advertises ``sparse_output = True`` so that callers which accept
    sparse matrices keep them sparse (the vectors have ~10,000-20,000 columns, a few hundred non-zero).
    ``dense=True`` (option ``-O dense=true``) makes :meth:`encode` return the dense float32 array instead,
    with exactly the same values; ``sparse_output`` is then False. The cache fingerprint does not depend
    on this choice, since the values do not.
    """

    def __init__(
        self,
        name: str = "tfidf-ngrams",
        blocks: Sequence[str] | None = None,
        vectoriser: str | Path | None = None,
        spacy_model: str | None = None,
        batch_size: int = 256,
        n_process: int = 1,
        n_jobs: int = 1,
        dense: bool | str = False,
    ) -> None:
        from .spacy_pipeline import SpacyPipeline

        self.name = name
        self.dense = _flag(dense)
        self.n_jobs = max(1, int(n_jobs))
        self.block_names = tuple(blocks) if blocks else VARIANTS.get(name, VARIANTS["tfidf-ngrams"])[0]
        self.vectoriser_path = Path(vectoriser) if vectoriser else DEFAULT_VECTORISER
        self.vectoriser = TfidfVectoriser.load(self.vectoriser_path, self.block_names)
        self.needs_pos = any(b.kind == "pos" for b in self.vectoriser.blocks.values())
        self.pipeline = SpacyPipeline(spacy_model, needs=("pos",), batch_size=batch_size, n_process=n_process) if self.needs_pos else None
        self.dim = sum(len(b.vocabulary) for b in self.vectoriser.blocks.values())

    def config(self) -> dict[str, Any]:
        digests = {n: file_digest(self.vectoriser_path / f"{n}.json.gz")[:16] for n in self.block_names}
        return {
            "blocks": list(self.block_names),
            "vectoriser": digests,
            "corpus": self.vectoriser.corpus,
            "dim": self.dim,
            "spacy": self.pipeline.describe() if self.pipeline else None,
        }

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Sparse float32 (n, dim) TF-IDF matrix."""
        texts = list(texts)
        pos_docs = pos_strings(texts, pipeline=self.pipeline) if self.needs_pos else None
        blocks = list(self.vectoriser.blocks.values())
        text_blocks = [b for b in blocks if b.kind != "pos"]
        parallel = self._parallel_transform(text_blocks, texts) if self.n_jobs > 1 and len(texts) >= _MIN_PARALLEL else None
        mats = []
        for b in blocks:
            if b.kind == "pos":
                mats.append(b.transform(pos_docs))
            else:
                mats.append(parallel[b.name] if parallel else b.transform(texts))
        return sp.hstack(mats, format="csr", dtype=np.float32)

    def _parallel_transform(self, blocks: list[TfidfBlock], texts: list[str]) -> dict[str, sp.csr_matrix]:
        """The text blocks over ``n_jobs`` worker processes (n-gram counting is pure Python, so threads would not help)."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        size = -(-len(texts) // self.n_jobs)
        chunks = [texts[i : i + size] for i in range(0, len(texts), size)]
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
        return np.divide(dots, den, out=np.zeros_like(dots), where=den > 0)
