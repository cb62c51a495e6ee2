"""The encoders this plugin registers: four generic families and ready configurations of STEB's models.

Named configurations are data (a table below), so ``steb list encoders`` and documentation come from
one place. Every named model needs its weights locally; the factories fail with instructions otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Mapping

from steb_core import EncoderSpec

from .packaged import MINILM_NAME, MINILM_PACKAGE, minilm_encoder

__all__ = ["NamedModel", "NAMED_MODELS", "GENERIC_FAMILIES", "encoder_specs"]

_COMMON_OPTIONS = {
    "device": "auto (default), cpu, cuda, cuda:N or mps",
    "dtype": "float32 (default), float16 or bfloat16",
    "batch_size": "texts per forward pass (default 32; episode encoders: collections, default 8)",
    "max_length": "token limit including special tokens (default: the model's)",
    "revision": "hub revision (branch, tag or commit) to take from the local cache; the commit is recorded",
    "trust_remote_code": "false (default); true runs the model's own Python code (needed by LUAR)",
}
_MODEL_OPTION = {"model": "hub id (looked up in the local cache only) or path to a model folder"}


def _sentence_transformers(**options: Any):
    from .sentence import SentenceTransformerEncoder

    return SentenceTransformerEncoder(**options)


def _masked_lm(**options: Any):
    from .transformer import TransformerEncoder

    return TransformerEncoder(pooling="mean", family="masked-lm", **options)


def _causal_lm(**options: Any):
    from .transformer import TransformerEncoder

    return TransformerEncoder(pooling="last", family="causal-lm", **options)


def _episode(**options: Any):
    from .episode import EpisodeEncoder

    return EpisodeEncoder(**options)


@dataclass(frozen=True)
class GenericFamily:
    name: str
    description: str
    factory: Callable[..., Any]
    extra_options: Mapping[str, str] = field(default_factory=dict)


GENERIC_FAMILIES = (
    GenericFamily(
        "sentence-transformers",
        "any sentence-transformers model (model=HUB_ID or folder), embedded with the model's own pooling",
        _sentence_transformers,
        {"prompt": "text prepended to every input (E5: 'query: ')", "normalize": "L2-normalise vectors (default false)"},
    ),
    GenericFamily(
        "masked-lm",
        "any masked LM (BERT, RoBERTa, DeBERTa, ModernBERT...): attention-mask-weighted mean of the last layer",
        _masked_lm,
    ),
    GenericFamily(
        "causal-lm",
        "any causal LM (GPT-2, OPT, Qwen...): last layer's state at the last non-padding token",
        _causal_lm,
        {"padding_side": "left or right (default: the tokenizer's); results are the same either way"},
    ),
    GenericFamily(
        "episode",
        "multi-text (LUAR-style) encoder: one vector per collection of texts, used directly by retrieval",
        _episode,
    ),
)


@dataclass(frozen=True)
class NamedModel:
    """A ready configuration: a registered name bound to a family, a hub id and default options."""

    name: str
    family: str
    hub_id: str
    description: str
    max_length: int | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)


NAMED_MODELS = (
    # style embeddings
    NamedModel("styledistance", "sentence-transformers", "StyleDistance/styledistance", "StyleDistance (Patel et al., 2025): content-independent style embedding trained on synthetic parallel data", 512),
    NamedModel("mstyledistance", "sentence-transformers", "StyleDistance/mstyledistance", "mStyleDistance: multilingual StyleDistance", 512),
    NamedModel("cisr", "sentence-transformers", "AnnaWegmann/Style-Embedding", "CISR (Wegmann et al., 2022): content-independent style representation", 512),
    # semantic sentence embeddings
    NamedModel("all-mpnet-base-v2", "sentence-transformers", "sentence-transformers/all-mpnet-base-v2", "semantic baseline: all-mpnet-base-v2", 384),
    NamedModel("e5-large-v2", "sentence-transformers", "intfloat/e5-large-v2", "E5 large v2 (inputs prefixed 'query: ')", 512, {"prompt": "query: "}),
    NamedModel("multilingual-e5-large", "sentence-transformers", "intfloat/multilingual-e5-large", "multilingual E5 large (inputs prefixed 'query: ')", 512, {"prompt": "query: "}),
    NamedModel("bge-large-en-v1.5", "sentence-transformers", "BAAI/bge-large-en-v1.5", "BGE large English v1.5", 512),
    NamedModel("bge-m3", "sentence-transformers", "BAAI/bge-m3", "BGE-M3 (multilingual, dense vectors)", 8192),
    # masked LMs
    NamedModel("bert-base-cased", "masked-lm", "google-bert/bert-base-cased", "BERT base cased, mean-pooled", 512),
    NamedModel("roberta-base", "masked-lm", "FacebookAI/roberta-base", "RoBERTa base, mean-pooled", 512),
    NamedModel("roberta-large", "masked-lm", "FacebookAI/roberta-large", "RoBERTa large, mean-pooled", 512),
    NamedModel("xlm-roberta-large", "masked-lm", "FacebookAI/xlm-roberta-large", "XLM-RoBERTa large (multilingual), mean-pooled", 512),
    NamedModel("deberta-v3-base", "masked-lm", "microsoft/deberta-v3-base", "DeBERTa-v3 base, mean-pooled", 512),
    NamedModel("deberta-v3-large", "masked-lm", "microsoft/deberta-v3-large", "DeBERTa-v3 large, mean-pooled", 512),
    NamedModel("modernbert-base", "masked-lm", "answerdotai/ModernBERT-base", "ModernBERT base, mean-pooled", 8192),
    NamedModel("modernbert-large", "masked-lm", "answerdotai/ModernBERT-large", "ModernBERT large, mean-pooled", 8192),
    # causal LMs
    NamedModel("gpt2", "causal-lm", "openai-community/gpt2", "GPT-2 small, last-token state", 1024),
    NamedModel("gpt2-large", "causal-lm", "openai-community/gpt2-large", "GPT-2 large, last-token state", 1024),
    NamedModel("opt-350m", "causal-lm", "facebook/opt-350m", "OPT 350M, last-token state", 2048),
    NamedModel("opt-1.3b", "causal-lm", "facebook/opt-1.3b", "OPT 1.3B, last-token state", 2048),
    NamedModel("qwen2.5-0.5b", "causal-lm", "Qwen/Qwen2.5-0.5B", "Qwen2.5 0.5B, last-token state (max_length capped at 2048 by default)", 2048, {"max_length": 2048}),
    NamedModel("qwen2.5-1.5b", "causal-lm", "Qwen/Qwen2.5-1.5B", "Qwen2.5 1.5B, last-token state (max_length capped at 2048 by default)", 2048, {"max_length": 2048}),
    # multi-text authorship encoders
    NamedModel("luar-mud", "episode", "rrivera1849/LUAR-MUD", "LUAR trained on Reddit (MUD): one vector per collection; needs trust_remote_code=true", 512),
    NamedModel("luar-crud", "episode", "rrivera1849/LUAR-CRUD", "LUAR trained on Reddit (CRUD): one vector per collection; needs trust_remote_code=true", 512),
)

_FACTORIES = {family.name: family.factory for family in GENERIC_FAMILIES}
_EXTRA = {family.name: family.extra_options for family in GENERIC_FAMILIES}


def _named_factory(named: NamedModel, **options: Any):
    """Build a named model; the user's options override the configuration's defaults."""
    merged = {**named.defaults, **options}
    merged.setdefault("model", named.hub_id)
    merged.setdefault("name", named.name)
    return _FACTORIES[named.family](**merged)


def encoder_specs() -> list[EncoderSpec]:
    """Every spec this plugin registers (no model is loaded here)."""
    specs = [
        EncoderSpec(
            name=family.name,
            description=family.description,
            factory=family.factory,
            family=family.name,
            requires="model weights on this machine (hub cache or folder)",
            options_help={**_MODEL_OPTION, **_COMMON_OPTIONS, **family.extra_options},
        )
        for family in GENERIC_FAMILIES
    ]
    specs.append(
        EncoderSpec(
            name=MINILM_NAME,
            description="all-MiniLM-L6-v2 (sentence-transformers/all-MiniLM-L6-v2) shipped by a PyPI package: works offline",
            factory=minilm_encoder,
            family="sentence-transformers",
            max_length=256,
            requires=f"pip install {MINILM_PACKAGE}",
            options_help={k: v for k, v in {**_COMMON_OPTIONS, **_EXTRA["sentence-transformers"]}.items() if k not in ("revision", "trust_remote_code")},
        )
    )
    for named in NAMED_MODELS:
        specs.append(
            EncoderSpec(
                name=named.name,
                description=f"{named.description} [{named.hub_id}]",
                factory=partial(_named_factory, named),
                family=named.family,
                max_length=named.max_length,
                requires=f"weights of {named.hub_id} in the local Hugging Face cache: `hf download {named.hub_id}`",
                options_help={**_MODEL_OPTION, **_COMMON_OPTIONS, **_EXTRA[named.family]},
            )
        )
    return specs
