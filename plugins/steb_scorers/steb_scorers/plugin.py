"""steb hook implementations: the scorers, the human-judgement sets and the ``steb meta-eval`` command.

Factories import their module lazily so that listing scorers never imports torch or transformers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from steb_core import Scorer, ScorerSpec, hookimpl


def _lazy(module: str, attr: str, **fixed: Any) -> Callable[..., Scorer]:
    def factory(**options: Any) -> Scorer:
        import importlib

        cls = getattr(importlib.import_module(f"steb_scorers.{module}"), attr)
        scorer: Scorer = cls(**{**fixed, **options})
        return scorer

    factory.__name__ = f"{attr}_factory"
    factory.__doc__ = f"Build steb_scorers.{module}.{attr} with the given options."
    return factory


_AGAINST = "option against=reference|source"

SCORERS = (
    ScorerSpec(
        "bleu",
        "sentence BLEU (sacrebleu, exp smoothing) + corpus BLEU, 0-100; variant=lai2022|pauli (Pauli et al.: "
        f"character BLEU, 0-1); {_AGAINST}",
        _lazy("lexical", "BleuScorer"),
        "content",
        True,
        "sacrebleu",
    ),
    ScorerSpec(
        "chrf",
        f"chrF (sacrebleu; word_order=2 for chrF++), sentence + corpus, 0-100; {_AGAINST}",
        _lazy("lexical", "ChrfScorer"),
        "content",
        True,
        "sacrebleu",
    ),
    ScorerSpec(
        "rouge1",
        f"ROUGE-1 F (rouge-score, stemmed; variant=lai2022: pltrdy rouge 0.3.2 on nltk tokens); {_AGAINST}",
        _lazy("lexical", "RougeScorer", measure="rouge1"),
        "content",
        True,
        "rouge-score (variant=lai2022: rouge==0.3.2)",
    ),
    ScorerSpec(
        "rouge2",
        f"ROUGE-2 F (rouge-score, stemmed; variant=lai2022: pltrdy rouge 0.3.2 on nltk tokens); {_AGAINST}",
        _lazy("lexical", "RougeScorer", measure="rouge2"),
        "content",
        True,
        "rouge-score (variant=lai2022: rouge==0.3.2)",
    ),
    ScorerSpec(
        "rougeL",
        f"ROUGE-L F (rouge-score, stemmed; variant=lai2022: pltrdy rouge 0.3.2 on nltk tokens); {_AGAINST}",
        _lazy("lexical", "RougeScorer", measure="rougeL"),
        "content",
        True,
        "rouge-score (variant=lai2022: rouge==0.3.2)",
    ),
    ScorerSpec(
        "meteor",
        f"METEOR (nltk); {_AGAINST}; synonyms=false runs without WordNet (exact + stem matches)",
        _lazy("lexical", "MeteorScorer"),
        "content",
        True,
        "nltk with WordNet data (python -m nltk.downloader wordnet) unless synonyms=false",
    ),
    ScorerSpec(
        "bertscore",
        "BERTScore F1 (bert-score) from a local model: model=PATH num_layers=L, rescaled when a baseline is known; "
        f"{_AGAINST}",
        _lazy("bertscore", "BertScoreScorer"),
        "content",
        True,
        "bert-score, transformers, a local model folder",
    ),
    ScorerSpec(
        "embedding-cosine",
        f"cosine of output and source/reference embeddings from any steb encoder (encoder=NAME); {_AGAINST}",
        _lazy("embedding", "EmbeddingCosineScorer"),
        "content",
        True,
        "a steb encoder",
    ),
    ScorerSpec(
        "likelihood-content",
        "Pauli et al. content C: mean log max(p_style, p_paraphrase, p_repeat) of output tokens under a causal LM, "
        "the authors' system prompt and instructions (model=PATH or config=pauli-llama-3.2-3b|pauli-llama-3.1-8b; "
        "prompt_format=pauli-llama3|chat|plain, window=pauli|output, system_prompt=)",
        _lazy("likelihood", "LikelihoodScorer", component="content"),
        "content",
        True,
        "transformers, a local causal LM folder",
    ),
    ScorerSpec(
        "likelihood-style",
        "Pauli et al. style change S: mean (p_style - max(p_paraphrase, p_repeat)) of output tokens under a causal LM "
        "(model=PATH or config=...; options as likelihood-content)",
        _lazy("likelihood", "LikelihoodScorer", component="style"),
        "style",
        True,
        "transformers, a local causal LM folder",
    ),
    ScorerSpec(
        "style-classifier",
        "P(target style) from logistic regression over a steb encoder's embeddings (encoder=NAME, "
        "train={style: file or texts})",
        _lazy("style", "EncoderStyleClassifier"),
        "style",
        True,
        "a steb encoder, labelled training texts",
    ),
    ScorerSpec(
        "style-transformer",
        "P(target style) from a fine-tuned transformers sequence classifier (model=PATH; id2label names the styles)",
        _lazy("style", "TransformersStyleClassifier"),
        "style",
        True,
        "transformers, a local classifier folder",
    ),
    ScorerSpec(
        "perplexity",
        "perplexity of the output under a causal LM (model=PATH, or style_models={style: PATH}); lower is better",
        _lazy("likelihood", "PerplexityScorer"),
        "fluency",
        False,
        "transformers, a local causal LM folder",
    ),
    ScorerSpec(
        "overall-hm",
        "harmonic mean of normalised aspect scores (components={label: scorer}, ranges={label: [lo, hi]})",
        _lazy("overall", "OverallScorer", method="harmonic"),
        "overall",
        True,
    ),
    ScorerSpec(
        "overall-gm",
        "geometric mean of normalised aspect scores (components={label: scorer}, ranges={label: [lo, hi]})",
        _lazy("overall", "OverallScorer", method="geometric"),
        "overall",
        True,
    ),
    ScorerSpec(
        "wmd",
        "Word Mover's Distance (pot) over the user's word vectors (embeddings=PATH, word2vec text); lower is better; "
        f"{_AGAINST} (default source)",
        _lazy("learned", "WMDScorer"),
        "content",
        False,
        "pot, a word-vector file",
    ),
    ScorerSpec(
        "bleurt",
        "BLEURT: regression head on (reference, candidate); Elron conversions and the bleurt-pytorch BLEURT-20 "
        f"format (model=bleurt-base-128|BLEURT-20|PATH|hub id in the local cache); {_AGAINST}",
        _lazy("learned", "BleurtScorer"),
        "content",
        True,
        "transformers, a local or cached BLEURT checkpoint",
    ),
    ScorerSpec(
        "comet",
        "COMET regression estimator re-implemented on transformers (model=wmt22-comet-da|PATH|hub id in the local "
        f"cache; encoder=PATH; empty_source=true is COMET-w); {_AGAINST}",
        _lazy("learned", "CometScorer"),
        "content",
        True,
        "torch, transformers, pyyaml, a local or cached COMET checkpoint and its encoder's config and tokenizer",
    ),
    ScorerSpec(
        "style-regression",
        "style strength from a sequence-regression model (model=PATH, num_labels=1), negated for targets in "
        "negative_styles (default informal)",
        _lazy("learned", "RegressionStyleScorer"),
        "style",
        True,
        "transformers, a local regression checkpoint",
    ),
    ScorerSpec(
        "precomputed",
        "scores read from tab-separated files (files=GLOB, column=N), matched by (source, output); e.g. a paper's "
        "released metric scores",
        _lazy("precomputed", "PrecomputedScorer"),
        "content",
        True,
        "the score files",
    ),
    ScorerSpec(
        "judge-style-detection",
        "LLM judge: share of samples saying the output shows the target style "
        "(prompt=detect-binary|-probability|-likert3|-likert10; "
        "30 samples at T=0.7 by default; url=... or model=PATH; cache=FILE.jsonl makes runs resumable)",
        _lazy("judges.judges", "StyleDetectionJudge"),
        "judge",
        True,
        "an OpenAI-compatible endpoint URL or a local causal LM folder",
    ),
    ScorerSpec(
        "judge-pairwise-style",
        "LLM judge: AB comparison of output vs source (or reference), both orders, disagreement = tie "
        "(target=style|helpfulness); "
        "1 win, 0.5 tie, 0 loss; 30 samples at T=0.7, majority vote",
        _lazy("judges.judges", "PairwiseStyleJudge"),
        "judge",
        True,
        "an OpenAI-compatible endpoint URL or a local causal LM folder",
    ),
    ScorerSpec(
        "judge-pairwise-rubric",
        "LLM judge: rubric scores (1-10) of output and source (or reference), mean over samples, higher wins, equal = "
        "tie "
        "(target=style|helpfulness); 1 win, 0.5 tie, 0 loss",
        _lazy("judges.judges", "PairwiseStyleJudge", method="rubric"),
        "judge",
        True,
        "an OpenAI-compatible endpoint URL or a local causal LM folder",
    ),
    ScorerSpec(
        "llm-rater-content",
        "Pauli et al.'s prompted evaluator: the meaning rating (1-5) of a JSON answer with meaning and style, failed "
        "parses filled with the mean (greedy, 20 tokens; pauli_clone=PATH reads their prompt; url=... or model=PATH)",
        _lazy("judges.meaning_style", "MeaningStyleRater", dimension="meaning"),
        "content",
        True,
        "an OpenAI-compatible endpoint URL or a local causal LM folder",
    ),
    ScorerSpec(
        "llm-rater-style",
        "Pauli et al.'s prompted evaluator: the style rating (1-5) of the same JSON answer (options as "
        "llm-rater-content; cache=FILE.jsonl shares the answers between the two)",
        _lazy("judges.meaning_style", "MeaningStyleRater", dimension="style"),
        "style",
        True,
        "an OpenAI-compatible endpoint URL or a local causal LM folder",
    ),
)


@hookimpl
def register_scorers(register: Callable[[Any], None]) -> None:
    for spec in SCORERS:
        register(spec)


@hookimpl
def register_judgement_sets(register: Callable[[Any], None]) -> None:
    from .judgement_sets import JUDGEMENT_SETS

    for spec in JUDGEMENT_SETS:
        register(spec)


@hookimpl
def register_commands(cli: Any) -> None:
    from .metaeval.cli import add_command

    add_command(cli)
