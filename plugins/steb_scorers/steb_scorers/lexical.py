"""Lexical content-preservation metrics: BLEU and chrF (sacrebleu), ROUGE (rouge-score), METEOR (nltk).

Each compares an output with its source (``against='source'``, self-BLEU style: how much content
survived the rewrite) or with its human references (``against='reference'``). All use the libraries'
own implementations so that figures match the published tools.

Lai et al. (2022) used other variants, each selectable and recorded in the result's details:
- BLEU ``variant='lai2022'``: nltk-tokenised text; sentence BLEU is nltk's ``sentence_bleu`` with
  smoothing method 1 (0-1), and a system's BLEU is multi-bleu.perl's corpus BLEU of its tokenised outputs
  (summed n-gram statistics, no smoothing, 0-100), so the meta-evaluation uses that at system level. Table 3's HIGH
  row comes out so (0.6086 against the source, printed 0.608); against the reference it needs the release's
  ``fr.80.ref0`` file as the reference (0.3650, printed 0.366; the human files' column gives 0.3764). Lowercasing, the
  mean of sentence BLEU, sacrebleu's tokenizer or raw tokens do not give the printed figures (plugins/steb_scorers
  README, Table 3).
- (Pauli et al.) BLEU ``variant='pauli'``: their code calls nltk's ``sentence_bleu([output], source)`` on raw
  strings, so the "tokens" are characters (character 1-4-grams, spaces included), the output is the reference
  and the source (or human reference) the hypothesis, smoothing method 1, 0-1; a system's value is the mean.
- chrF ``system_level='mean'``: a system's chrF is the mean of its sentence chrF (their scripts average
  the per-output column), not sacrebleu's corpus chrF.
- ROUGE ``variant='lai2022'``: the pltrdy ``rouge`` package at version 0.3.2 (``Rouge().get_scores(output, compared)``,
  F of rouge-1/-2/-l) on nltk-tokenised text joined by spaces, no stemming, as their eval_content.py calls it. 0.3.2 is
  the version whose ROUGE-L reproduces the release's per-output ROUGE-L columns (and Table 3's means); 1.0.x's ROUGE-L
  F is the harmonic mean of P and R where 0.3.x weights them with beta = P / R (on the release its sentence ROUGE-L
  differs on about half of the outputs, e.g. HIGH against the source 0.7613 vs the released 0.7583), so the variant
  refuses another version. ``package='rouge'`` runs whichever pltrdy version is installed (recorded). Google's
  ``rouge-score`` (own tokenizer, stemming) stays the default.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from steb_core import Scorer

from .result import ScoreResult, check_aligned, comparison_texts

__all__ = [
    "BleuScorer",
    "ChrfScorer",
    "RougeScorer",
    "MeteorScorer",
    "wordnet_available",
    "stat_matrix",
    "corpus_score_from_stats",
    "nltk_tokenize",
    "nltk_tokenizer_name",
    "pauli_bleu",
]


def _punkt_available() -> bool:
    try:
        import nltk

        nltk.data.find("tokenizers/punkt_tab/english/")
        return True
    except LookupError:
        return False


@functools.lru_cache(maxsize=1)
def nltk_tokenizer_name() -> str:
    """Which tokenizer :func:`nltk_tokenize` uses here (recorded in results: the two differ on sentence-internal
    periods)."""
    return (
        "nltk.word_tokenize (punkt sentence split)"
        if _punkt_available()
        else "nltk.word_tokenize(preserve_line=True) per sentence, sentences split after . ! ? and a space (punkt "
        "data not installed)"
    )


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def nltk_tokenize(text: str) -> list[str]:
    """``nltk.word_tokenize`` as Lai et al. tokenised; without nltk's punkt data, an approximation of it.

    word_tokenize splits sentences with punkt, then runs the Treebank tokenizer on each, so a
    sentence-internal period becomes its own token. punkt's model cannot be downloaded at run time; without
    it sentences are split after ``.``, ``!`` or ``?`` followed by white space (no abbreviation list).
    """
    import nltk

    if _punkt_available():
        return list(nltk.word_tokenize(text))
    return [
        tok
        for sentence in _SENTENCE_END.split(text)
        if sentence
        for tok in nltk.word_tokenize(sentence, preserve_line=True)
    ]


def _corpus_streams(compare: list[list[str]]) -> list[list[str]] | None:
    """sacrebleu's reference streams (one list per reference position), or None when counts differ."""
    counts = {len(c) for c in compare}
    if len(counts) != 1:
        return None
    k = counts.pop()
    return [[c[j] for c in compare] for j in range(k)]


class _SacrebleuScorer(Scorer):
    name = "sacrebleu"

    def __init__(self, against: str = "reference") -> None:
        self.against = against
        self.system_level = "corpus"

    def _metric(self, sentence: bool) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _sentence_scores(self, outputs: Sequence[str], compare: list[list[str]]) -> tuple[np.ndarray, dict[str, Any]]:
        sent = self._metric(sentence=True)
        scores = np.fromiter(
            (sent.sentence_score(o, c).score for o, c in zip(outputs, compare)), dtype=np.float64, count=len(outputs)
        )
        return scores, {"signature": str(sent.get_signature())}

    def _corpus_inputs(self, outputs: Sequence[str], compare: list[list[str]]) -> tuple[list[str], list[list[str]]]:
        return list(outputs), compare

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        scores, extra = self._sentence_scores(outputs, compare)
        outputs, compare = self._corpus_inputs(outputs, compare)
        streams = _corpus_streams(compare)
        corpus, components = None, {}
        details = {
            "against": self.against,
            **extra,
            "system_level": "corpus" if self.system_level == "corpus" else "mean of sentence scores",
        }
        if streams and outputs:
            metric = self._metric(sentence=False)
            corpus = float(metric.corpus_score(list(outputs), streams).score)
            # per-output sufficient statistics (n-gram matches and totals, lengths): any subset's corpus score is
            # the score of its summed statistics, e.g. one system's corpus BLEU in the meta-evaluation
            stats = np.asarray(metric._extract_corpus_statistics(list(outputs), streams), dtype=np.float64)
            if (
                self.system_level == "corpus"
            ):  # the meta-evaluation's per-system value is then the corpus score of summed statistics
                components = {f"stat:{j}": stats[:, j] for j in range(stats.shape[1])}
                details["corpus_aggregate"] = {"metric": self.name, **self._options()}
        return ScoreResult(self.name, scores, corpus=corpus, components=components, details=details)

    def _options(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError


class BleuScorer(_SacrebleuScorer):
    """Sentence BLEU with smoothing (default sacrebleu 'exp', effective order) plus corpus BLEU, 0-100.

    ``variant='lai2022'``: Lai et al.'s BLEU (module docstring): nltk tokens, nltk sentence BLEU with
    smoothing method 1 (0-1) per output, multi-bleu corpus BLEU (0-100) per system.
    ``variant='pauli'``: Pauli et al.'s BLEU (module docstring): character n-grams, the output as reference and the
    first comparison text as hypothesis, smoothing method 1 (0-1); system value = mean of sentence scores.
    """

    name = "bleu"
    VARIANTS = ("sacrebleu", "lai2022", "pauli")

    def __init__(
        self,
        against: str = "reference",
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        tokenize: str | None = None,
        lowercase: bool = False,
        variant: str = "sacrebleu",
    ) -> None:
        super().__init__(against)
        if variant not in self.VARIANTS:
            raise ValueError(f"BLEU variant must be one of {self.VARIANTS}, not {variant!r}")
        self.variant = variant
        if (
            variant == "lai2022"
        ):  # multi-bleu.perl on pre-tokenised text: whitespace tokens, no smoothing, case-sensitive
            smooth_method, smooth_value, tokenize, lowercase = "none", None, "none", False
        self.smooth_method, self.smooth_value, self.tokenize, self.lowercase = (
            smooth_method,
            smooth_value,
            tokenize,
            lowercase,
        )
        if variant == "pauli":
            self.system_level = "mean"

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
        if self.variant != "pauli":
            return super().score(sources, outputs, references, target_style)
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        scores = pauli_bleu(outputs, [c[0] for c in compare])
        return ScoreResult(
            self.name,
            scores,
            corpus=float(scores.mean()) if len(scores) else None,
            details={
                "against": self.against,
                "variant": "pauli",
                "system_level": "mean of sentence scores",
                "sentence": "nltk sentence_bleu([output], comparison text) on raw strings: character 1-4-grams, "
                "smoothing method1, 0-1",
                "hypothesis": f"the {self.against} (the first one when there are several)",
                "reference": "the output",
            },
        )

    def _options(self) -> dict[str, Any]:
        return {
            "smooth_method": self.smooth_method,
            "smooth_value": self.smooth_value,
            "tokenize": self.tokenize,
            "lowercase": self.lowercase,
        }

    def _sentence_scores(self, outputs: Sequence[str], compare: list[list[str]]) -> tuple[np.ndarray, dict[str, Any]]:
        if self.variant != "lai2022":
            return super()._sentence_scores(outputs, compare)
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        smooth = SmoothingFunction().method1
        scores = np.fromiter(
            (
                sentence_bleu([nltk_tokenize(r) for r in refs], nltk_tokenize(o), smoothing_function=smooth)
                for o, refs in zip(outputs, compare)
            ),
            dtype=np.float64,
            count=len(outputs),
        )
        return scores, {
            "variant": "lai2022",
            "sentence": "nltk sentence_bleu, smoothing method1, 0-1",
            "corpus": "multi-bleu (summed statistics, no smoothing), 0-100",
            "tokenizer": nltk_tokenizer_name(),
        }

    def _corpus_inputs(self, outputs: Sequence[str], compare: list[list[str]]) -> tuple[list[str], list[list[str]]]:
        if self.variant != "lai2022":
            return list(outputs), compare
        return [" ".join(nltk_tokenize(o)) for o in outputs], [
            [" ".join(nltk_tokenize(r)) for r in refs] for refs in compare
        ]

    def _metric(self, sentence: bool) -> Any:
        from sacrebleu.metrics import BLEU

        return BLEU(
            lowercase=self.lowercase,
            tokenize=self.tokenize,
            smooth_method=self.smooth_method,
            smooth_value=self.smooth_value,
            effective_order=sentence,
            force=self.tokenize == "none",  # pre-tokenised on purpose (multi-bleu)
        )


def pauli_bleu(outputs: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
    """Pauli et al.'s self-BLEU: nltk ``sentence_bleu`` with the output as the one reference and the source (or a human
    reference) as hypothesis, both as character sequences (their code passes strings, which nltk iterates by
    character)."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smooth = SmoothingFunction().method1
    return np.fromiter(
        (sentence_bleu([list(o)], list(h), smoothing_function=smooth) for o, h in zip(outputs, hypotheses)),
        dtype=np.float64,
        count=len(outputs),
    )


class ChrfScorer(_SacrebleuScorer):
    """chrF (character n-gram F-score; ``word_order=2`` gives chrF++), 0-100, sentence and corpus level.

    ``system_level='mean'`` makes a system's chrF the mean of its sentence chrF (Lai et al.); the default
    ``'corpus'`` is sacrebleu's corpus chrF of the system's outputs.
    """

    name = "chrf"

    def __init__(
        self,
        against: str = "reference",
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        system_level: str = "corpus",
    ) -> None:
        super().__init__(against)
        if system_level not in ("corpus", "mean"):
            raise ValueError(f"chrF system_level must be 'corpus' or 'mean', not {system_level!r}")
        self.char_order, self.word_order, self.beta, self.lowercase = char_order, word_order, beta, lowercase
        self.system_level = system_level

    def _options(self) -> dict[str, Any]:
        return {
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": self.beta,
            "lowercase": self.lowercase,
        }

    def _metric(self, sentence: bool) -> Any:
        from sacrebleu.metrics import CHRF

        return CHRF(char_order=self.char_order, word_order=self.word_order, beta=self.beta, lowercase=self.lowercase)


#: the pltrdy ``rouge`` version whose ROUGE-L equals Lai et al.'s released columns (``variant='lai2022'`` needs it)
LAI2022_ROUGE_VERSION = "0.3.2"


def _pltrdy_rouge_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rouge")
    except PackageNotFoundError:
        return None


class RougeScorer(Scorer):
    """ROUGE F-measure (rouge-score, Porter stemming); the chosen measure is ``scores``, all three in ``components``.

    ``measure``: rouge1, rouge2 or rougeL (the scorer names). With several references the best-matching one counts
    (rouge-score's ``score_multi``). No corpus score: ROUGE's corpus figure in the literature is the mean of sentence
    scores. ``variant='lai2022'``: Lai et al.'s ROUGE (module docstring): pltrdy ``rouge`` 0.3.2 on nltk tokens, no
    stemming; ``package='rouge'``: the installed pltrdy package, same tokens (with several references the best F
    counts in both).
    """

    MEASURES = ("rouge1", "rouge2", "rougeL")
    VARIANTS = ("rouge-score", "lai2022")
    PACKAGES = ("rouge-score", "rouge")
    _PLTRDY_KEYS = {"rouge1": "rouge-1", "rouge2": "rouge-2", "rougeL": "rouge-l"}

    def __init__(
        self,
        measure: str = "rougeL",
        against: str = "reference",
        use_stemmer: bool = True,
        package: str = "rouge-score",
        variant: str = "rouge-score",
    ) -> None:
        if measure not in self.MEASURES:
            raise ValueError(f"ROUGE measure must be one of {self.MEASURES}, not {measure!r}")
        if variant not in self.VARIANTS:
            raise ValueError(f"ROUGE variant must be one of {self.VARIANTS}, not {variant!r}")
        if package not in self.PACKAGES:
            raise ValueError(f"ROUGE package must be one of {self.PACKAGES}, not {package!r}")
        if variant == "lai2022":
            package, use_stemmer = "rouge", False
        self.measure, self.against, self.use_stemmer, self.package = measure, against, use_stemmer, package
        self.variant = variant
        self.name = measure

    def _pltrdy(self, outputs: Sequence[str], compare: list[list[str]]) -> ScoreResult:
        try:
            from rouge import Rouge
        except ImportError:
            raise RuntimeError(
                "ROUGE package='rouge' / variant='lai2022' needs the pltrdy `rouge` package "
                f"(pip install rouge=={LAI2022_ROUGE_VERSION}), or use the default rouge-score"
            ) from None
        installed = _pltrdy_rouge_version() or "of unknown version"
        if self.variant == "lai2022" and installed != LAI2022_ROUGE_VERSION:
            raise RuntimeError(
                f"ROUGE variant='lai2022' needs the pltrdy `rouge` package at version {LAI2022_ROUGE_VERSION} (the "
                f"version whose ROUGE-L reproduces Lai et al.'s released scores); {installed} is installed: "
                f"pip install rouge=={LAI2022_ROUGE_VERSION}, or use package=rouge to run the installed version"
            )
        rouge = Rouge()
        table = {v: np.empty(len(outputs)) for v in self.MEASURES}
        for i, (out, refs) in enumerate(zip(outputs, compare)):
            hyp = " ".join(nltk_tokenize(out))
            best = {v: 0.0 for v in self.MEASURES}
            for ref in refs if hyp.strip() else ():  # the package refuses an empty hypothesis: it shares nothing, F = 0
                got = rouge.get_scores(hyp, " ".join(nltk_tokenize(ref)), avg=True)
                for v in self.MEASURES:
                    best[v] = max(best[v], float(got[self._PLTRDY_KEYS[v]]["f"]))
            for v in self.MEASURES:
                table[v][i] = best[v]
        return ScoreResult(
            self.name,
            table[self.measure],
            components=table,
            details={
                "against": self.against,
                "variant": self.variant,
                "package": f"rouge (pltrdy) {installed}",
                "stemmer": False,
                "tokenizer": nltk_tokenizer_name(),
                "system_level": "mean of sentence scores",
            },
        )

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        compare = comparison_texts(self.name, self.against, sources, references, len(outputs))
        if self.package == "rouge":
            return self._pltrdy(outputs, compare)
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(list(self.MEASURES), use_stemmer=self.use_stemmer)
        table = {v: np.empty(len(outputs)) for v in self.MEASURES}
        for i, (out, refs) in enumerate(zip(outputs, compare)):
            got = scorer.score_multi(refs, out) if len(refs) > 1 else scorer.score(refs[0], out)
            for v in self.MEASURES:
                table[v][i] = got[v].fmeasure
        return ScoreResult(
            self.name,
            table[self.measure],
            components=table,
            details={"against": self.against, "package": "rouge-score", "stemmer": self.use_stemmer},
        )


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


class MeteorScorer(Scorer):
    """METEOR (nltk) over whitespace tokens, 0-1.

    ``synonyms=True`` (the standard metric) needs nltk's WordNet data; without it a clear error says
    how to install it or to pass ``synonyms=False`` (exact + stem matching only, recorded in details).
    """

    name = "meteor"

    def __init__(
        self,
        against: str = "reference",
        synonyms: bool = True,
        alpha: float = 0.9,
        beta: float = 3.0,
        gamma: float = 0.5,
    ) -> None:
        self.against, self.synonyms = against, synonyms
        self.params = {"alpha": alpha, "beta": beta, "gamma": gamma}

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Sequence[Any] | None = None,
        target_style: Any = None,
    ) -> ScoreResult:
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
            (
                meteor_score([r.split() for r in refs], out.split(), **extra, **self.params)
                for out, refs in zip(outputs, compare)
            ),
            dtype=np.float64,
            count=len(outputs),
        )
        return ScoreResult(
            self.name, scores, details={"against": self.against, "synonyms": self.synonyms, **self.params}
        )
