"""Probing datasets: texts from a corpus with per-text linguistic features (LFTK), binned later by the task.

STEB probes 46 LFTK features on samples of Amazon, blog, Reddit and Stack Exchange texts. The features
come from a registered feature extractor (``lftk-probing``, provided by steb-models-stylometry) and are
expensive (a spaCy parse per text), so they are cached on disk keyed by the text's hash and the
extractor's identity (name, options, class, feature names, version): a re-run or a larger sample only
computes what is new. Binning into quantile labels is the probing task's job, not the loader's, so the
records carry raw values.

Texts come, in this order of preference, from (1) the STEB authors' redistributed probing texts
(``probing/<corpus>.jsonl`` of github.com/rrivera1849/STEB download_datasets.sh: one JSON object per
line with ``text`` and, per feature f, the paper's bin ``label_f`` and split ``split_f``), in
ROOT/probing/ or the dataset's folder. Their bins and splits are used as released (option
``probing_labels=released``, the default): the reference's ``probing_record_handler``
(``steb/loaders/probing.py``, index file 62253283422) reads ``label_*`` / ``split_*`` by feature name,
every line is one item (a line repeating another's text, labels and splits is kept once), and no
feature is recomputed; the release's bins came from unseeded draws, so only they reproduce the
authors' numbers. ``probing_labels=recompute`` reads only ``text`` and recomputes the features, which
the task then bins and splits by steb's rule; (2) the raw release the paper names: for probing_reddit the
test split of the Hugging Face dataset AnnaWegmann/StyleEmbeddingData (Wegmann et al. 2022), its
``Anchor (A)`` column; for probing_blog the Blog Authorship Corpus as Kaggle's rtatman/blog-authorship-corpus
``blogtext.csv`` (its ``text`` column), else the original ``blogs/*.xml``; for Amazon and Stack Exchange
the retrieval releases. From a raw release, texts are stripped and those under ``min_tokens`` tokens
(default 32, as the paper's probing script keeps spaCy docs of at least 32 tokens; here counted as word
and punctuation runs, an approximation of spaCy's tokeniser) are dropped before the seeded sample.

Cache location: ``$STEB_CACHE_DIR/features/`` when set, else ``~/.cache/steb/features/`` (beside steb's
embedding cache; ``$XDG_CACHE_HOME`` is honoured), never the data folder: steb writes only to its output
and cache folders. Each file holds the rows of one extractor identity with a digest binding its keys,
feature names and values; a file whose digest is missing or does not match is set aside (``.bad``), its
features are recomputed, and ``bundle.info["feature_cache_problem"]`` plus a warning say so.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from steb_core import (
    DatasetBundle,
    DatasetNotFoundError,
    DatasetSpec,
    DataValidationError,
    FeatureText,
    LoadContext,
    atomic_write_bytes,
    default_cache_dir,
    get_feature_extractor,
    located,
    read_table,
    seeded_rng,
    shard_digest,
)

from . import readers as R
from .releases import CITATIONS, SOURCES, licence_of
from .retrieval import ACCESS, LUAR_PAIRS, luar_dir, read_steb_release, steb_release_dir
from .suite import suite_fields

DEFAULT_EXTRACTOR = "lftk-probing"


# --------------------------------------------------------------------------------------------
# feature cache
# --------------------------------------------------------------------------------------------
def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def extractor_identity(name: str, options: dict[str, Any], extractor: Any) -> str:
    """A short hash of everything that changes an extractor's numbers."""
    ident = {
        "name": name,
        "options": options,
        "class": f"{type(extractor).__module__}.{type(extractor).__qualname__}",
        "features": list(extractor.feature_names),
        "version": str(getattr(extractor, "version", "")),
    }
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _rows_digest(keys: np.ndarray, values: np.ndarray, names: np.ndarray) -> str:
    """The digest binding a feature cache's keys to its rows and feature names, in order: the embedding cache's
    :func:`steb_core.shard_digest` (rows rotated against their keys would give every text another text's
    features and pass every other check)."""
    return shard_digest(keys, {"values": values, "names": names})


class FeatureCache:
    """Feature rows keyed by text hash, in one ``.npz`` per extractor identity, written atomically and verified.

    Read back only when its digest matches its keys, names and values (see :func:`_rows_digest`); otherwise
    the file is set aside, :attr:`problem` says why, and every row is computed again.
    """

    def __init__(self, path: Path, feature_names: Sequence[str]) -> None:
        self.path = path
        self.feature_names = list(feature_names)
        self.rows: dict[str, np.ndarray] = {}
        self.problem: str | None = None
        if path.is_file():
            try:
                self.rows = self._read()
            except (OSError, ValueError, KeyError) as exc:  # a damaged or edited cache is rebuilt, never trusted
                self.problem = f"feature cache {path} is not usable ({exc}); set aside as .bad and recomputed"
                try:
                    path.replace(path.with_name(path.name + ".bad"))
                except OSError:
                    pass

    def _read(self) -> dict[str, np.ndarray]:
        try:
            data = np.load(self.path, allow_pickle=False)
        except ValueError as exc:  # not an .npz (numpy then talks about pickles)
            raise ValueError(f"it cannot be read as an .npz of arrays: {exc}") from None
        with data:
            keys, values, names = data["keys"], data["values"], data["names"]
            stored = str(data["digest"]) if "digest" in data.files else None
        if stored is None:
            raise ValueError("it has no digest binding its rows to its keys")
        if stored != _rows_digest(keys, values, names):
            raise ValueError("its rows do not match its keys (digest differs: rows reordered or edited)")
        if [str(n) for n in names] != self.feature_names:
            raise ValueError("its feature names are not the extractor's")
        distinct = keys.ndim == 1 and len(set(keys.tolist())) == len(keys)
        if values.dtype != np.float64 or values.shape != (len(keys), len(names)) or not distinct:
            raise ValueError(f"values of shape {values.shape} ({values.dtype}) do not fit {len(keys)} distinct keys")
        return {str(k): values[i] for i, k in enumerate(keys)}

    def features(
        self, texts: Sequence[str], extract: Callable[[list[str]], Any], batch_size: int = 256
    ) -> tuple[np.ndarray, int]:
        """Rows for ``texts`` (computing and saving the missing ones) and how many were computed."""
        keys = [text_key(t) for t in texts]
        missing = sorted({k: i for i, k in enumerate(keys) if k not in self.rows}.values())
        for start in range(0, len(missing), batch_size):
            idx = missing[start : start + batch_size]
            values = np.asarray(extract([texts[i] for i in idx]), dtype=np.float64)
            if values.shape != (len(idx), len(self.feature_names)):
                raise DataValidationError(
                    f"feature extractor returned shape {values.shape} for {len(idx)} texts",
                    expected=f"({len(idx)}, {len(self.feature_names)})",
                )
            for i, row in zip(idx, values):
                self.rows[keys[i]] = row
            self.save()
        matrix = np.stack([self.rows[k] for k in keys]) if keys else np.zeros((0, len(self.feature_names)))
        return matrix, len(missing)

    def save(self) -> None:
        buf = io.BytesIO()
        keys = np.array(list(self.rows), dtype=str)
        values = np.stack([self.rows[k] for k in keys.tolist()]).astype(np.float64)
        names = np.array(self.feature_names, dtype=str)
        np.savez(buf, keys=keys, values=values, names=names, digest=np.asarray(_rows_digest(keys, values, names)))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, buf.getvalue())


def cache_dir() -> Path:
    """``$STEB_CACHE_DIR/features``, else ``features/`` beside steb's default embedding cache (``~/.cache/steb/``).

    Why not the dataset's folder, as before: steb must not write into the data it reads (a read-only or shared
    release, and a cache there was read back unverified: rows rotated in it changed a probing score silently).
    """
    env = os.environ.get("STEB_CACHE_DIR")
    return Path(env) / "features" if env else default_cache_dir().parent / "features"


# --------------------------------------------------------------------------------------------
# text sources
# --------------------------------------------------------------------------------------------
#: the paper's probing script keeps texts of at least this many (spaCy) tokens
MIN_TOKENS = 32
_TOKEN = re.compile(r"\w+|[^\w\s]")

#: the STEB authors' redistributed probing files, by corpus (raw_datasets/probing/<name>.jsonl)
STEB_PROBING_FILES = {
    "amazon": "amazon.jsonl",
    "blogs": "blog.jsonl",
    "reddit": "reddit.jsonl",
    "stackexchange_retrieval": "stackexchange.jsonl",
}

#: the test split of AnnaWegmann/StyleEmbeddingData (conversation topic control), whose anchors the paper probes
STYLE_EMBEDDING_TEST = "test-45000__subreddits-100-2018_tasks-300000__topic-variable-conversation.tsv"
STYLE_EMBEDDING_COLUMN = "Anchor (A)"


def n_tokens(text: str) -> int:
    """Word and punctuation runs: close to spaCy's token count for the length filter, without a parser."""
    return len(_TOKEN.findall(text))


def _raw_texts(ctx: LoadContext, values: Any, path: Path, info: dict[str, Any]) -> list[str]:
    """Stripped, de-duplicated texts of at least ``min_tokens`` tokens (the paper's filter), counted in ``info``."""
    minimum = ctx.integer("min_tokens", MIN_TOKENS)
    seen: dict[str, None] = {}
    short = 0
    for t in values:
        t = t.strip()
        if not t:
            continue
        if n_tokens(t) < minimum:
            short += 1
            continue
        seen.setdefault(t)
    info.update({"min_tokens": minimum, "dropped_short": short})
    return list(seen)


def steb_probing_file(ctx: LoadContext, family: str) -> Path | None:
    """The STEB authors' probing file for ``family`` in ROOT/probing/ or the dataset's folder, if present."""
    if ctx.data_dir is None:
        return None
    name = STEB_PROBING_FILES.get(family)
    if name is None:
        return None
    for cand in (ctx.data_dir / name, ctx.data_dir.parent / "probing" / name):
        if cand.is_file():
            return cand
    return None


def steb_probing_records(path: Path) -> tuple[list[FeatureText], dict[str, Any]] | None:
    """A STEB probing file's lines with their released bins and splits, or None when it carries none.

    Feature names are the line's ``label_<f>`` keys in order (each needs its ``split_<f>``); older files
    with positional ``label`` / ``split`` lists give ``task_0``, ``task_1``, ... as the older reference did.
    """
    records: list[FeatureText] = []
    seen: set[str] = set()
    stats = {"lines": 0, "duplicates": 0, "empty_texts": 0}
    for where, row in read_table(path, "jsonl"):
        stats["lines"] += 1
        value = row.get("text")
        if not isinstance(value, str):
            raise DataValidationError(
                "is missing or not a text", path=path, record=where, field="text", expected="the probed text"
            )
        names = [k[len("label_") :] for k in row if k.startswith("label_")]
        if names:
            for n in names:
                if f"split_{n}" not in row:
                    raise DataValidationError(
                        "is missing",
                        path=path,
                        record=where,
                        field=f"split_{n}",
                        expected=f"a split (train/val/test or null) beside label_{n}",
                    )
            bins = {n: row[f"label_{n}"] for n in names}
            splits = {n: row[f"split_{n}"] for n in names}
        elif isinstance(row.get("label"), list) and isinstance(row.get("split"), list):
            bins = {f"task_{i}": v for i, v in enumerate(row["label"])}
            splits = {f"task_{i}": v for i, v in enumerate(row["split"])}
        elif records:
            raise DataValidationError(
                "has no label_<feature> fields while earlier lines do",
                path=path,
                record=where,
                field="label_*",
                expected="the released bins on every line",
            )
        else:
            return None
        if not value.strip():
            stats["empty_texts"] += 1
            continue
        key = json.dumps([value, bins, splits], sort_keys=False)
        if key in seen:  # the reference keys a line by md5(text) + labels + splits and keeps the first
            stats["duplicates"] += 1
            continue
        seen.add(key)
        with located(path, where):
            records.append(FeatureText(text=value, features={}, id=text_key(value)[:16], bins=bins, splits=splits))
    return records, stats


def steb_probing_texts(path: Path) -> list[str]:
    """The ``text`` of every line of a STEB probing file, de-duplicated (its bins are not read)."""
    seen: dict[str, None] = {}
    for where, row in read_table(path, "jsonl"):
        value = row.get("text")
        if not isinstance(value, str):
            raise DataValidationError(
                "is missing or not a text", path=path, record=where, field="text", expected="the probed text"
            )
        if value.strip():
            seen.setdefault(value)
    return list(seen)


def style_embedding_texts(ctx: LoadContext, obtain: str, info: dict[str, Any]) -> tuple[list[str], Path]:
    """probing_reddit from its raw release: the anchors of AnnaWegmann/StyleEmbeddingData's test split."""
    candidates = [ctx.data_dir, ctx.data_dir.parent / "StyleEmbeddingData"] if ctx.data_dir is not None else []
    for root in candidates:
        path = root / ctx.option("path", STYLE_EMBEDDING_TEST)
        if path.is_file():
            column = ctx.option("text_field", STYLE_EMBEDDING_COLUMN)
            values = []
            for where, row in read_table(path, "tsv"):
                if column not in row:
                    raise DataValidationError(
                        "is missing",
                        path=path,
                        record=where,
                        field=column,
                        expected="the StyleEmbeddingData columns (Anchor (A), Utterance 1 (U1), ...)",
                    )
                if isinstance(row[column], str):
                    values.append(row[column])
            info.update({"source": "AnnaWegmann/StyleEmbeddingData", "file": str(path), "column": column})
            return _raw_texts(ctx, values, path, info), root
    raise DatasetNotFoundError(
        f"dataset '{ctx.dataset}': no {STYLE_EMBEDDING_TEST} in "
        f"{' or '.join(str(c) for c in candidates) or '$STEB_DATA_DIR/probing_reddit'}. Obtain it: {obtain}"
    )


def kaggle_blog_texts(ctx: LoadContext, info: dict[str, Any]) -> tuple[list[str], Path] | None:
    """probing_blog from Kaggle's blogtext.csv (columns id, gender, age, topic, sign, date, text), if present."""
    if ctx.data_dir is None:
        return None
    for root in (ctx.data_dir, ctx.data_dir.parent / "blogs"):
        path = root / "blogtext.csv"
        if path.is_file():
            values = []
            for where, row in read_table(path, "csv"):
                if "text" not in row:
                    raise DataValidationError(
                        "is missing",
                        path=path,
                        record=where,
                        field="text",
                        expected="Kaggle blogtext.csv columns id, gender, age, topic, sign, date, text",
                    )
                values.append(row["text"] or "")
            info.update({"source": "Kaggle rtatman/blog-authorship-corpus", "file": str(path)})
            return _raw_texts(ctx, values, path, info), root
    return None


def luar_texts(field: str = "syms") -> Callable[..., tuple[list[str], Path]]:
    """Texts of a retrieval folder: the STEB release's collections, else every LUAR ``*.jsonl`` file's ``syms`` lists,
    flattened and de-duplicated."""

    def read(ctx: LoadContext, obtain: str, family: str, info: dict[str, Any] | None = None) -> tuple[list[str], Path]:
        release = steb_release_dir(ctx) or steb_release_dir(_as_dataset(ctx, family))
        if release is not None:
            rs, _ = read_steb_release(release)
            if info is not None:
                info["source"] = "STEB retrieval release"
            return list(dict.fromkeys(t for t in rs.texts() if t.strip())), release
        root = luar_dir(ctx, obtain, family)
        # a LUAR folder also holds train.jsonl / validation.jsonl (other authors): read the evaluation pair when present
        pair = next(
            ([root / q, root / t] for q, t in LUAR_PAIRS if (root / q).is_file() and (root / t).is_file()), None
        )
        files = pair or sorted(root.glob("*.jsonl"))
        if not files:
            raise DataValidationError(f"no .jsonl file here. Obtain it: {obtain}", path=root)
        seen: dict[str, None] = {}
        name = ctx.option("text_field", field)
        for f in files:
            for where, row in read_table(f, "jsonl"):
                value = row.get(name)
                if value is None:
                    raise DataValidationError(
                        "is missing", path=f, record=where, field=name, expected="a text or a list of texts"
                    )
                for i, t in enumerate(value if isinstance(value, list) else [value]):
                    if not isinstance(t, str):
                        raise DataValidationError(
                            f"holds {type(t).__name__}", path=f, record=where, field=f"{name}[{i}]", expected="text"
                        )
                    if t.strip():
                        seen.setdefault(t)
        return list(seen), root

    return read


def _as_dataset(ctx: LoadContext, family: str) -> LoadContext:
    """The context as the retrieval dataset ``family`` sees it (ROOT/<family>/), to find its STEB release."""
    if ctx.data_dir is None:
        return ctx
    return replace(ctx, dataset=family, data_dir=ctx.data_dir.parent / family)


def blog_texts(
    ctx: LoadContext, obtain: str, family: str, info: dict[str, Any] | None = None
) -> tuple[list[str], Path]:
    found = kaggle_blog_texts(ctx, info if info is not None else {})
    if found is not None:
        return found
    want = ctx.integer("texts", 0) or None
    records, rinfo = R.blog_posts(ctx, obtain, "gender", None if want is None else want // 2 + 1)
    return list(dict.fromkeys(r.text for r in records)), Path(rinfo["root"])


def reddit_texts(
    ctx: LoadContext, obtain: str, family: str, info: dict[str, Any] | None = None
) -> tuple[list[str], Path]:
    """StyleEmbeddingData's anchors (the paper's source), else a LUAR-layout Reddit folder (older steb layout)."""
    info = info if info is not None else {}
    try:
        return style_embedding_texts(ctx, obtain, info)
    except DatasetNotFoundError:
        if ctx.data_dir is None or not any(d.is_dir() for d in (ctx.data_dir, ctx.data_dir.parent / family)):
            raise
    return luar_texts()(ctx, obtain, family, info)


# --------------------------------------------------------------------------------------------
# the loader
# --------------------------------------------------------------------------------------------
def probing_loader(
    source: Callable[..., tuple[list[str], Path]], family: str, n_texts: int, obtain: str
) -> Callable[[LoadContext], DatasetBundle]:
    def load(ctx: LoadContext) -> DatasetBundle:
        n = ctx.integer("texts", n_texts)
        src: dict[str, Any] = {}
        steb_file = steb_probing_file(ctx, family)
        labels = str(ctx.option("probing_labels", "released")).strip().lower()
        if labels not in ("released", "recompute"):
            raise DataValidationError(
                f"option probing_labels={labels!r}", field="probing_labels", expected="released or recompute"
            )
        released = steb_probing_records(steb_file) if steb_file is not None and labels == "released" else None
        if released is not None and steb_file is not None:
            records, stats = released
            if not records:
                raise DataValidationError("holds no text", path=steb_file, expected="the STEB probing release")
            return DatasetBundle(
                feature_texts=records,
                info={
                    "dataset": ctx.dataset,
                    "root": str(steb_file.parent),
                    "source": "STEB probing release",
                    "file": str(steb_file),
                    "probing_labels": "released",
                    "features": list(records[0].bins or {}),
                    "texts": len(records),
                    **stats,
                },
            )
        if steb_file is not None:
            texts, root = steb_probing_texts(steb_file), steb_file.parent
            src = {"source": "STEB probing release", "file": str(steb_file)}
        else:
            texts, root = source(ctx, obtain, family, src)
        available = len(texts)
        if len(texts) > n:
            rng = seeded_rng(ctx.seed, "probing-sample", ctx.dataset)
            texts = [texts[i] for i in sorted(rng.sample(range(len(texts)), n))]
        name = ctx.option("feature_extractor", DEFAULT_EXTRACTOR)
        ex_opts = dict(ctx.option("extractor_options", {}) or {})
        extractor = get_feature_extractor(name, **ex_opts)
        names = [str(f) for f in extractor.feature_names]
        ident = extractor_identity(name, ex_opts, extractor)
        cache = FeatureCache(cache_dir() / f"{name}-{ident}.npz", names)
        if cache.problem:
            warnings.warn(f"dataset '{ctx.dataset}': {cache.problem}", RuntimeWarning, stacklevel=2)
        matrix, computed = cache.features(texts, lambda batch: extractor.extract(batch), ctx.integer("batch_size", 256))
        records, dropped = [], 0
        for text, row in zip(texts, matrix):
            if not all(math.isfinite(v) for v in row):
                dropped += 1  # e.g. a ratio undefined for a one-token text: no bin can hold it
                continue
            records.append(FeatureText(text=text, features=dict(zip(names, map(float, row))), id=text_key(text)[:16]))
        info = {
            "dataset": ctx.dataset,
            "root": str(root),
            "texts_available": available,
            "texts_sampled": len(texts),
            "seed": ctx.seed,
            "feature_extractor": name,
            "extractor_identity": ident,
            "features": names,
            "features_computed": computed,
            "features_cached": len(texts) - computed,
            "dropped_non_finite": dropped,
            "cache": str(cache.path),
            **src,
        }
        if cache.problem:
            info["feature_cache_problem"] = cache.problem
        return DatasetBundle(feature_texts=records, info=info)

    return load


_STEB_PROBING = (
    "the STEB authors' probing/{file} (text field; gdown the file named in github.com/rrivera1849/STEB "
    "download_datasets.sh) in ROOT/probing/, else "
)

PROBING = (
    (
        "probing_amazon",
        "amazon",
        27_584,
        luar_texts(),
        _STEB_PROBING.format(file="amazon.jsonl")
        + "Amazon reviews as for the 'amazon' retrieval dataset (STEB release or LUAR layout)",
    ),
    (
        "probing_blog",
        "blogs",
        39_111,
        blog_texts,
        _STEB_PROBING.format(file="blog.jsonl")
        + "the Blog Authorship Corpus as Kaggle rtatman/blog-authorship-corpus blogtext.csv "
        "(columns id, gender, age, topic, sign, date, text; in ROOT/probing_blog/ or ROOT/blogs/), or the original "
        "blogs/<id>.<gender>.<age>.<industry>.<sign>.xml",
    ),
    (
        "probing_reddit",
        "reddit",
        16_447,
        reddit_texts,
        _STEB_PROBING.format(file="reddit.jsonl")
        + f"the Hugging Face dataset AnnaWegmann/StyleEmbeddingData: {STYLE_EMBEDDING_TEST} "
        f"(tab-separated, column '{STYLE_EMBEDDING_COLUMN}') in ROOT/probing_reddit/ or ROOT/StyleEmbeddingData/ "
        "(huggingface-cli download AnnaWegmann/StyleEmbeddingData "
        + STYLE_EMBEDDING_TEST
        + " --repo-type dataset --local-dir ROOT/StyleEmbeddingData)",
    ),
    (
        "probing_stackexchange",
        "stackexchange_retrieval",
        9_253,
        luar_texts(),
        _STEB_PROBING.format(file="stackexchange.jsonl")
        + "Stack Exchange posts as for 'stackexchange_retrieval' (STEB release or LUAR layout)",
    ),
)


def probing_specs() -> list[DatasetSpec]:
    specs = []
    for name, family, n, source, what in PROBING:
        obtain = f"{what}; features come from the '{DEFAULT_EXTRACTOR}' extractor (steb-models-stylometry)"
        specs.append(
            DatasetSpec(
                name=name,
                description=f"Probing: {n:,} sampled texts with 46 LFTK features each (binned by the probing task).",
                tasks=("probing",),
                loader=probing_loader(source, family, n, obtain),
                categories=("linguistic-feature",),
                obtain=obtain,
                license=licence_of(SOURCES[name]),
                sources=SOURCES[name],
                size=f"{n:,} texts x 46 features" + (f" ({ACCESS[family]})" if family in ACCESS else ""),
                citation=CITATIONS[name],
                extra={"texts": n, "feature_extractor": DEFAULT_EXTRACTOR, "source": family},
                **suite_fields(name, ("probing",)),
            )
        )
    return specs
