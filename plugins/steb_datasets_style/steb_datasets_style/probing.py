"""Probing datasets: texts from a corpus with per-text linguistic features (LFTK), binned later by the task.

STEB probes 46 LFTK features on samples of Amazon, blog, Reddit and Stack Exchange texts. The features
come from a registered feature extractor (``lftk-probing``, provided by steb-models-stylometry) and are
expensive (a spaCy parse per text), so they are cached on disk keyed by the text's hash and the
extractor's identity (name, options, class, feature names, version): a re-run or a larger sample only
computes what is new. Binning into quantile labels is the probing task's job, not the loader's, so the
records carry raw values.

Cache location: ``$STEB_CACHE_DIR/features/`` when set, else ``<dataset folder>/.steb-cache/features/``.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from steb_core import DataValidationError, DatasetBundle, DatasetSpec, FeatureText, LoadContext, atomic_write_bytes, get_feature_extractor, seeded_rng
from steb_core.generic import read_table

from .common import option
from .readers import blog_posts
from .retrieval import ACCESS, LUAR_PAIRS, luar_dir
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


class FeatureCache:
    """Feature rows keyed by text hash, in one ``.npz`` per extractor identity, written atomically."""

    def __init__(self, path: Path, feature_names: Sequence[str]) -> None:
        self.path = path
        self.feature_names = list(feature_names)
        self.rows: dict[str, np.ndarray] = {}
        if path.is_file():
            try:
                with np.load(path, allow_pickle=False) as data:
                    keys, values, names = data["keys"], data["values"], [str(n) for n in data["names"]]
                if names == self.feature_names and values.shape == (len(keys), len(names)):
                    self.rows = {str(k): values[i] for i, k in enumerate(keys)}
            except (OSError, ValueError, KeyError):
                self.rows = {}  # a damaged cache is rebuilt, never trusted

    def features(self, texts: Sequence[str], extract: Callable[[list[str]], Any], batch_size: int = 256) -> tuple[np.ndarray, int]:
        """Rows for ``texts`` (computing and saving the missing ones) and how many were computed."""
        keys = [text_key(t) for t in texts]
        missing = sorted({k: i for i, k in enumerate(keys) if k not in self.rows}.values())
        for start in range(0, len(missing), batch_size):
            idx = missing[start: start + batch_size]
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
        keys = list(self.rows)
        np.savez(buf, keys=np.array(keys, dtype=str), values=np.stack([self.rows[k] for k in keys]),
                 names=np.array(self.feature_names, dtype=str))
        atomic_write_bytes(self.path, buf.getvalue())


def cache_dir(root: Path) -> Path:
    env = os.environ.get("STEB_CACHE_DIR")
    return Path(env) / "features" if env else root / ".steb-cache" / "features"


# --------------------------------------------------------------------------------------------
# text sources
# --------------------------------------------------------------------------------------------
def luar_texts(field: str = "syms") -> Callable[[LoadContext, str, int], tuple[list[str], Path]]:
    """Texts of a LUAR-layout folder: every ``*.jsonl`` file's ``syms`` lists, flattened, de-duplicated."""

    def read(ctx: LoadContext, obtain: str, family: str) -> tuple[list[str], Path]:
        root = luar_dir(ctx, obtain, family)
        # a LUAR folder also holds train.jsonl / validation.jsonl (other authors): read the evaluation pair when present
        pair = next(([root / q, root / t] for q, t in LUAR_PAIRS if (root / q).is_file() and (root / t).is_file()), None)
        files = pair or sorted(root.glob("*.jsonl"))
        if not files:
            raise DataValidationError(f"no .jsonl file here. Obtain it: {obtain}", path=root)
        seen: dict[str, None] = {}
        name = option(ctx, "text_field", field)
        for f in files:
            for where, row in read_table(f, "jsonl"):
                value = row.get(name)
                if value is None:
                    raise DataValidationError("is missing", path=f, record=where, field=name, expected="a text or a list of texts")
                for i, t in enumerate(value if isinstance(value, list) else [value]):
                    if not isinstance(t, str):
                        raise DataValidationError(f"holds {type(t).__name__}", path=f, record=where, field=f"{name}[{i}]", expected="text")
                    if t.strip():
                        seen.setdefault(t)
        return list(seen), root

    return read


def blog_texts(ctx: LoadContext, obtain: str, family: str) -> tuple[list[str], Path]:
    want = int(option(ctx, "texts", 0)) or None
    records, info = blog_posts(ctx, obtain, "gender", None if want is None else want // 2 + 1)
    return list(dict.fromkeys(r.text for r in records)), Path(info["root"])


# --------------------------------------------------------------------------------------------
# the loader
# --------------------------------------------------------------------------------------------
def probing_loader(source: Callable[..., tuple[list[str], Path]], family: str, n_texts: int, obtain: str):
    def load(ctx: LoadContext) -> DatasetBundle:
        n = int(option(ctx, "texts", n_texts))
        texts, root = source(ctx, obtain, family)
        available = len(texts)
        if len(texts) > n:
            rng = seeded_rng(ctx.seed, "probing-sample", ctx.dataset)
            texts = [texts[i] for i in sorted(rng.sample(range(len(texts)), n))]
        name = option(ctx, "feature_extractor", DEFAULT_EXTRACTOR)
        ex_opts = dict(option(ctx, "extractor_options", {}) or {})
        extractor = get_feature_extractor(name, **ex_opts)
        names = [str(f) for f in extractor.feature_names]
        ident = extractor_identity(name, ex_opts, extractor)
        cache = FeatureCache(cache_dir(root) / f"{name}-{ident}.npz", names)
        matrix, computed = cache.features(texts, lambda batch: extractor.extract(batch), int(option(ctx, "batch_size", 256)))
        records, dropped = [], 0
        for text, row in zip(texts, matrix):
            if not all(math.isfinite(v) for v in row):
                dropped += 1  # e.g. a ratio undefined for a one-token text: no bin can hold it
                continue
            records.append(FeatureText(text=text, features=dict(zip(names, map(float, row))), id=text_key(text)[:16]))
        info = {
            "dataset": ctx.dataset, "root": str(root), "texts_available": available, "texts_sampled": len(texts), "seed": ctx.seed,
            "feature_extractor": name, "extractor_identity": ident, "features": names, "features_computed": computed,
            "features_cached": len(texts) - computed, "dropped_non_finite": dropped, "cache": str(cache.path),
        }
        return DatasetBundle(feature_texts=records, info=info)

    return load


PROBING = (
    ("probing_amazon", "amazon", 27_584, luar_texts(), "Amazon reviews in the LUAR layout (as for the 'amazon' retrieval dataset)"),
    ("probing_blog", "blogs", 39_111, blog_texts, "Blog Authorship Corpus blogs/<id>.<gender>.<age>.<industry>.<sign>.xml"),
    ("probing_reddit", "reddit", 16_447, luar_texts(), "LUAR's Reddit test split (as for the 'reddit' retrieval dataset)"),
    ("probing_stackexchange", "stackexchange_retrieval", 9_253, luar_texts(), "Stack Exchange posts in the LUAR layout"),
)


def probing_specs() -> list[DatasetSpec]:
    specs = []
    for name, family, n, source, what in PROBING:
        obtain = f"{what}, in ROOT/{name}/ or shared ROOT/{family}/; features come from the '{DEFAULT_EXTRACTOR}' extractor (steb-models-stylometry)"
        specs.append(DatasetSpec(
            name=name, description=f"Probing: {n:,} sampled texts with 46 LFTK features each (binned by the probing task).",
            tasks=("probing",), loader=probing_loader(source, family, n, obtain), categories=("linguistic-feature",),
            obtain=obtain, license="see the source corpus", size=f"{n:,} texts x 46 features" + (f" ({ACCESS[family]})" if family in ACCESS else ""),
            citation="@inproceedings{lee2023lftk, title={LFTK: Handcrafted Features in Computational Linguistics}, author={Lee and Lee}, year={2023}}",
            extra={"texts": n, "feature_extractor": DEFAULT_EXTRACTOR, "source": family},
            **suite_fields(name, ("probing",)),
        ))
    return specs
