"""Lexical content-preservation metrics: BLEU and chrF (sacrebleu), ROUGE (rouge-score), METEOR (nltk).

Each compares an output with its source (``against='source'``, self-BLEU style: how much content
survived the rewrite) or with its human references (``against='reference'``). All use the libraries'
own implementations so that figures match the published tools.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Sequence

import numpy as np

from .result import ScoreResult, check_aligned, comparison_texts

__all__ = ["BleuScorer", "ChrfScorer", "RougeScorer", "MeteorScorer", "wordnet_available", "stat_matrix", "corpus_score_from_stats"]


def _corpus_streams(compare: list[list[str]]) -> list[list[str]] | None:
    """sacrebleu's reference streams (one list per reference position), or None when counts differ."""
    counts = {len(c) for c in compare}
    if len(counts) != 1:
        return None
    k = counts.pop()
    return [[c[j] for c in compare] for j in range(k)]


class _SacrebleuScorer:
    name = "sacrebleu"

    def __init__(self, against: str = "reference") -> None:
        self.against = against

    def _metric(self, sentence: bool) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def score(self, sources: Sequence[str], outputs: Sequence[str], references: Sequence[Any] | None = None, target_style: Any = None) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        sent = self._metric(sentence=True)
        scores = np.fromiter((sent.sentence_score(o, c).score for o, c in zip(outputs, compare)), dtype=np.float64, count=len(outputs))
        streams = _corpus_streams(compare)
        corpus, components, details = None, {}, {"against": self.against, "signature": str(sent.get_signature())}
        if streams and outputs:
            metric = self._metric(sentence=False)
            corpus = float(metric.corpus_score(list(outputs), streams).score)
            # per-output sufficient statistics (n-gram matches and totals, lengths): any subset's corpus score is
            # the score of its summed statistics, e.g. one system's corpus BLEU in the meta-evaluation
            stats = np.asarray(metric._extract_corpus_statistics(list(outputs), streams), dtype=np.float64)
            components = {f"stat:{j}": stats[:, j] for j in range(stats.shape[1])}
            details["corpus_aggregate"] = {"metric": self.name, **self._options()}
        return ScoreResult(self.name, scores, corpus=corpus, components=components, details=details)

    def _options(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError


class BleuScorer(_SacrebleuScorer):
    """Sentence BLEU with smoothing (default sacrebleu 'exp', effective order) plus corpus BLEU, 0-100."""

    name = "bleu"

    def __init__(self, against: str = "reference", smooth_method: str = "exp", smooth_value: float | None = None, tokenize: str | None = None, lowercase: bool = False) -> None:
        super().__init__(against)
        self.smooth_method, self.smooth_value, self.tokenize, self.lowercase = smooth_method, smooth_value, tokenize, lowercase

    def _options(self) -> dict[str, Any]:
        return {"smooth_method": self.smooth_method, "smooth_value": self.smooth_value, "tokenize": self.tokenize, "lowercase": self.lowercase}

    def _metric(self, sentence: bool) -> Any:
        from sacrebleu.metrics import BLEU

        return BLEU(
            lowercase=self.lowercase, tokenize=self.tokenize, smooth_method=self.smooth_method,
            smooth_value=self.smooth_value, effective_order=sentence,
        )


class ChrfScorer(_SacrebleuScorer):
    """chrF (character n-gram F-score; ``word_order=2`` gives chrF++), 0-100, sentence and corpus level."""

    name = "chrf"

    def __init__(self, against: str = "reference", char_order: int = 6, word_order: int = 0, beta: int = 2, lowercase: bool = False) -> None:
        super().__init__(against)
        self.char_order, self.word_order, self.beta, self.lowercase = char_order, word_order, beta, lowercase

    def _options(self) -> dict[str, Any]:
        return {"char_order": self.char_order, "word_order": self.word_order, "beta": self.beta, "lowercase": self.lowercase}

    def _metric(self, sentence: bool) -> Any:
        from sacrebleu.metrics import CHRF

        return CHRF(char_order=self.char_order, word_order=self.word_order, beta=self.beta, lowercase=self.lowercase)


class RougeScorer:
    """ROUGE F-measure (rouge-score, Porter stemming); the chosen variant is ``scores``, all three in ``components``.

    With several references the best-matching one counts (rouge-score's ``score_multi``). No corpus
    score: ROUGE's corpus figure in the literature is the mean of sentence scores.
    """

    VARIANTS = ("rouge1", "rouge2", "rougeL")

    def __init__(self, variant: str = "rougeL", against: str = "reference", use_stemmer: bool = True) -> None:
        if variant not in self.VARIANTS:
            raise ValueError(f"ROUGE variant must be one of {self.VARIANTS}, not {variant!r}")
        self.variant, self.against, self.use_stemmer = variant, against, use_stemmer
        self.name = variant

    def score(self, sources: Sequence[str], outputs: Sequence[str], references: Sequence[Any] | None = None, target_style: Any = None) -> ScoreResult:
        from rouge_score import rouge_scorer

        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        scorer = rouge_scorer.RougeScorer(list(self.VARIANTS), use_stemmer=self.use_stemmer)
        table = {v: np.empty(len(outputs)) for v in self.VARIANTS}
        for i, (out, refs) in enumerate(zip(outputs, compare)):
            got = scorer.score_multi(refs, out) if len(refs) > 1 else scorer.score(refs[0], out)
            for v in self.VARIANTS:
                table[v][i] = got[v].fmeasure
        return ScoreResult(self.name, table[self.variant], components=table, details={"against": self.against, "stemmer": self.use_stemmer})


def stat_matrix(result: ScoreResult) -> np.ndarray | None:
    """The (items, k) sufficient statistics a BLEU/chrF result carries in its ``stat:j`` components, or None."""
    keys = sorted((k for k in result.components if k.startswith("stat:")), key=lambda k: int(k[5:]))
    if not keys or "corpus_aggregate" not in result.details:
        return None
    return np.stack([result.components[k] for k in keys], axis=1)


def corpus_score_from_stats(aggregate: dict[str, Any], stats: np.ndarray) -> float:
    """Corpus BLEU or chrF (sacrebleu, 0-100) of summed sufficient statistics ``stats`` (shape (k,))."""
    metric = _corpus_metric(json.dumps(aggregate, sort_keys=True))
    return float(metric._compute_score_from_stats([int(round(x)) for x in np.asarray(stats).tolist()]).score)


@functools.lru_cache(maxsize=32)
def _corpus_metric(aggregate_json: str) -> Any:
    options = json.loads(aggregate_json)
    kind = options.pop("metric")
    if kind == "bleu":
        return BleuScorer(**options)._metric(sentence=False)
    if kind == "chrf":
        return ChrfScorer(**options)._metric(sentence=False)
    raise ValueError(f"no corpus aggregate for metric {kind!r}")


def wordnet_available() -> bool:
    """True when nltk's WordNet data is installed (METEOR's synonym stage needs it; it cannot be downloaded here)."""
    try:
        from nltk.corpus import wordnet

        wordnet.synsets("test")
        return True
    except LookupError:
        return False


class _NoSynonyms:
    """A stand-in WordNet with no synsets: METEOR then matches exact words and Porter stems only."""

    @staticmethod
    def synsets(_word: str, *args: Any, **kwargs: Any) -> list[Any]:
        return []


class MeteorScorer:
    """METEOR (nltk) over whitespace tokens, 0-1.

    ``synonyms=True`` (the standard metric) needs nltk's WordNet data; without it a clear error says
    how to install it or to pass ``synonyms=False`` (exact + stem matching only, recorded in details).
    """

    name = "meteor"

    def __init__(self, against: str = "reference", synonyms: bool = True, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> None:
        self.against, self.synonyms = against, synonyms
        self.params = {"alpha": alpha, "beta": beta, "gamma": gamma}

    def score(self, sources: Sequence[str], outputs: Sequence[str], references: Sequence[Any] | None = None, target_style: Any = None) -> ScoreResult:
        from nltk.translate.meteor_score import meteor_score

        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        if self.synonyms and not wordnet_available():
            raise RuntimeError(
                "METEOR with synonyms needs nltk's WordNet data, which is not installed: run "
                "`python -m nltk.downloader wordnet` on a machine with network access (or set NLTK_DATA), "
                "or build the scorer with synonyms=False (exact and stem matches only)"
            )
        extra = {} if self.synonyms else {"wordnet": _NoSynonyms()}
        scores = np.fromiter(
            (meteor_score([r.split() for r in refs], out.split(), **extra, **self.params) for out, refs in zip(outputs, compare)),
            dtype=np.float64, count=len(outputs),
        )
        return ScoreResult(self.name, scores, details={"against": self.against, "synonyms": self.synonyms, **self.params})
