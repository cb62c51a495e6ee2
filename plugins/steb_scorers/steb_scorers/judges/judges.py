"""LLM judges as scorers: style detection and pairwise style ranking (AB comparison or rubric scoring).

The protocol follows the study of LLM judges for personalised writing style (see the protocol notes):

- every query is sampled ``n_samples`` times (default 30) at temperature 0.7 and collapsed by majority vote;
- detection asks whether ``text`` shows style ``style`` in one of four answer formats (binary, probability,
  Likert-3, Likert-10); every parsed answer is binarised before the vote;
- pairwise *AB comparison* asks which of two responses is better, in both orders (position-bias control:
  when the two orders disagree the sample is a tie), then votes over samples;
- pairwise *rubric scoring* scores each response on its own; the scores are averaged over samples, the
  higher mean wins and equal means are a tie;
- each pairwise method exists for the style-targeted and the helpfulness-targeted task;
- self-consistency is Randolph's free-marginal kappa over the repeated samples; parse failures are
  counted and reported, never mapped to a label.

Prompt name, version, text and system prompt, and the sampling parameters are recorded in the result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from steb_core import Scorer

from ..result import ScoreResult, check_aligned, comparison_texts, per_item_styles
from .agreement import count_table, majority, randolph_kappa
from .backends import make_backend
from .prompts import BINARISE, CATEGORIES, PARSERS, get_prompt

__all__ = [
    "StyleDetectionJudge",
    "PairwiseStyleJudge",
    "PairwiseOutcome",
    "human_pairwise_label",
    "human_pairwise_majority",
    "DEFAULT_SAMPLES",
    "DEFAULT_TEMPERATURE",
]

#: the study's sampling: 30 samples per query at temperature 0.7, collapsed by majority vote
DEFAULT_SAMPLES = 30
DEFAULT_TEMPERATURE = 0.7


def _consistency(rows: list[list[int]], n_categories: int) -> dict[str, Any]:
    """Randolph's kappa over items whose samples all parsed (the statistic needs equal counts)."""
    full = [r for r in rows if r]
    size = max((len(r) for r in full), default=0)
    complete = [r for r in full if len(r) == size]
    value = randolph_kappa(count_table(complete, n_categories)) if complete and size > 1 else None
    return {
        "randolph_kappa": value,
        "items": len(complete),
        "items_excluded_for_parse_failures": len(rows) - len(complete),
    }


class _Judge(Scorer):
    def __init__(
        self,
        prompt: Any,
        backend: Any,
        url: str | None,
        model: Any,
        n_samples: int,
        temperature: float,
        seed: int,
        max_tokens: int | None,
        prompts_file: str | None,
        backend_options: dict[str, Any] | None,
        cache: str | None,
    ) -> None:
        if int(n_samples) < 1:
            raise ValueError("n_samples must be at least 1")
        self.prompt = get_prompt(prompt, prompts_file)
        self.backend = make_backend(backend, url=url, model=model, cache=cache, **dict(backend_options or {}))
        # the answer budget fits the prompt's format (the additive rubric's 100-word justification needs far more than
        # "yes")
        budget = self.prompt.answer_tokens if max_tokens is None else int(max_tokens)
        self.n_samples, self.temperature, self.seed, self.max_tokens = (
            int(n_samples),
            float(temperature),
            int(seed),
            budget,
        )

    def _sampling(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt.record(),
            "n_samples": self.n_samples,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            **self.backend.info(),
        }


class StyleDetectionJudge(_Judge):
    """``scores`` = share of parsed samples judged "style present" (NaN if none parsed); majority in components."""

    name = "judge-style-detection"

    def __init__(
        self,
        prompt: str = "detect-binary",
        backend: Any = None,
        url: str | None = None,
        model: Any = None,
        n_samples: int = DEFAULT_SAMPLES,
        temperature: float = DEFAULT_TEMPERATURE,
        seed: int = 0,
        max_tokens: int | None = None,
        prompts_file: str | None = None,
        backend_options: dict[str, Any] | None = None,
        cache: str | None = None,
    ) -> None:
        super().__init__(
            prompt, backend, url, model, n_samples, temperature, seed, max_tokens, prompts_file, backend_options, cache
        )
        if self.prompt.response not in BINARISE:
            raise ValueError(
                f"prompt '{self.prompt.name}' answers '{self.prompt.response}', not a detection format "
                f"({sorted(BINARISE)})"
            )

    def judge(self, texts: Sequence[str], styles: Sequence[str]) -> dict[str, Any]:
        kind = self.prompt.response
        parse, binarise = PARSERS[kind], BINARISE[kind]
        n_cat, to_cat = CATEGORIES[kind]
        answers = self.backend.complete(
            [self.prompt.message(**detection_fields(t, s)) for t, s in zip(texts, styles)],
            self.n_samples,
            self.temperature,
            self.seed,
            self.max_tokens,
        )
        raw = [[parse(a) for a in row] for row in answers]
        failures = sum(v is None for row in raw for v in row)
        binary = [[binarise(v) for v in row if v is not None] for row in raw]
        share = np.array([np.mean(b) if b else np.nan for b in binary])
        vote = np.array([np.nan if (m := majority(b)) is None else float(m) for b in binary])
        freq = Counter(v for row in raw for v in row if v is not None)
        return {
            "share_present": share,
            "majority": vote,
            "answers": answers,
            "raw_labels": raw,
            "parse_failures": failures,
            "self_consistency": _consistency([[to_cat(v) for v in row if v is not None] for row in raw], n_cat),
            "self_consistency_binarised": _consistency(binary, 2),
            "label_frequencies": {str(k): v for k, v in sorted(freq.items(), key=lambda kv: str(kv[0]))},
        }

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        got = self.judge(outputs, styles)
        details = {
            **self._sampling(),
            "parse_failures": got["parse_failures"],
            "n_queries": len(outputs) * self.n_samples,
            "self_consistency": got["self_consistency"],
            "self_consistency_binarised": got["self_consistency_binarised"],
            "label_frequencies": got["label_frequencies"],
            "undecided": int(np.isnan(got["majority"]).sum()),
        }
        return ScoreResult(
            self.name,
            got["share_present"],
            corpus=float(np.nanmean(got["share_present"])) if np.isfinite(got["share_present"]).any() else None,
            components={"majority": got["majority"]},
            details=details,
        )


@dataclass
class PairwiseOutcome:
    """Per pair: final label ("a", "b", "tie", or None when undecidable) and each sample's consolidated label.

    For rubric scoring ``mean_scores`` holds each pair's (mean score of a, mean score of b) over parsed samples.
    """

    labels: list[str | None]
    samples: list[list[str]]
    parse_failures: int
    order_disagreements: int
    self_consistency: dict[str, Any] = field(default_factory=dict)
    label_frequencies: dict[str, int] = field(default_factory=dict)
    method: str = "ab"
    mean_scores: list[tuple[float, float]] | None = None


PAIRWISE_METHODS = ("ab", "rubric")
TARGETS = ("style", "helpfulness")
_METHOD_OF_RESPONSE = {"ab": "ab", "rubric10": "rubric", "rubric5": "rubric"}


def detection_fields(text: str, style: str) -> dict[str, str]:
    """Template values of a detection query under steb's field names and the study's ({style_description},
    {response})."""
    return {"style": style, "text": text, "style_description": style, "response": text}


def ab_fields(a: str, b: str, style: str, task: str) -> dict[str, str]:
    """Template values of an AB query: steb's {a} {b} {style} {task} and the study's {output_a} {output_b}
    {style_description} {user_query}."""
    return {
        "style": style,
        "task": task,
        "a": a,
        "b": b,
        "style_description": style,
        "user_query": task,
        "output_a": a,
        "output_b": b,
    }


def rubric_fields(response: str, style: str, task: str) -> dict[str, str]:
    """Template values of a rubric query (one response), under both sets of names."""
    return {"style": style, "task": task, "response": response, "style_description": style, "user_query": task}


class PairwiseStyleJudge(_Judge):
    """Pairwise ranking by AB comparison (both orders) or rubric scoring, for the style- or helpfulness-targeted task.

    ``prompt`` defaults to ``pairwise-ab-{target}`` (method ``ab``) or ``rubric-{target}`` (method ``rubric``);
    a prompt's response kind fixes the method. As a scorer it ranks each output against its source (or
    reference) with the task "rewrite the source to be <target style>": 1 win, 0.5 tie, 0 loss.
    """

    name = "judge-pairwise-style"
    LABELS = ("a", "b", "tie")

    def __init__(
        self,
        prompt: str | None = None,
        against: str = "source",
        backend: Any = None,
        url: str | None = None,
        model: Any = None,
        n_samples: int = DEFAULT_SAMPLES,
        temperature: float = DEFAULT_TEMPERATURE,
        seed: int = 0,
        max_tokens: int | None = None,
        prompts_file: str | None = None,
        backend_options: dict[str, Any] | None = None,
        cache: str | None = None,
        method: str = "ab",
        target: str = "style",
    ) -> None:
        if method not in PAIRWISE_METHODS:
            raise ValueError(f"method must be one of {PAIRWISE_METHODS}, not {method!r}")
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}, not {target!r}")
        prompt = prompt or (f"pairwise-ab-{target}" if method == "ab" else f"rubric-{target}")
        super().__init__(
            prompt, backend, url, model, n_samples, temperature, seed, max_tokens, prompts_file, backend_options, cache
        )
        if self.prompt.response not in _METHOD_OF_RESPONSE:
            raise ValueError(
                f"prompt '{self.prompt.name}' answers '{self.prompt.response}': a pairwise judge needs an 'ab', "
                "'rubric10' or 'rubric5' prompt"
            )
        self.method = _METHOD_OF_RESPONSE[self.prompt.response]
        self.target = self.prompt.target or target
        self.against = against

    # -- AB comparison ------------------------------------------------------------------------------
    def _compare_ab(
        self, texts_a: Sequence[str], texts_b: Sequence[str], styles: Sequence[str], tasks: Sequence[str]
    ) -> PairwiseOutcome:
        n = len(texts_a)
        prompts = [self.prompt.message(**ab_fields(a, b, s, t)) for a, b, s, t in zip(texts_a, texts_b, styles, tasks)]
        prompts += [self.prompt.message(**ab_fields(b, a, s, t)) for a, b, s, t in zip(texts_a, texts_b, styles, tasks)]
        answers = self.backend.complete(prompts, self.n_samples, self.temperature, self.seed, self.max_tokens)
        parse = PARSERS["ab"]
        failures = disagreements = 0
        samples: list[list[str]] = []
        for i in range(n):
            row = []
            for fwd, rev in zip(answers[i], answers[n + i]):
                x, y = parse(fwd), parse(rev)
                failures += (x is None) + (y is None)
                if x is None or y is None:
                    continue
                y = {"a": "b", "b": "a", "tie": "tie"}[
                    y
                ]  # the reversed order shows b first; a "tie" answer stays a tie
                disagreements += x != y
                row.append(x if x == y else "tie")
            samples.append(row)
        labels = [majority(row, tie="tie") if row else None for row in samples]
        return self._outcome(labels, samples, failures, disagreements, "ab", None)

    # -- rubric scoring -----------------------------------------------------------------------------
    def _compare_rubric(
        self, texts_a: Sequence[str], texts_b: Sequence[str], styles: Sequence[str], tasks: Sequence[str]
    ) -> PairwiseOutcome:
        n = len(texts_a)
        prompts = [self.prompt.message(**rubric_fields(a, s, t)) for a, s, t in zip(texts_a, styles, tasks)]
        prompts += [self.prompt.message(**rubric_fields(b, s, t)) for b, s, t in zip(texts_b, styles, tasks)]
        answers = self.backend.complete(prompts, self.n_samples, self.temperature, self.seed, self.max_tokens)
        parse = PARSERS[self.prompt.response]
        failures = 0
        labels: list[str | None] = []
        samples: list[list[str]] = []
        means: list[tuple[float, float]] = []
        for i in range(n):
            sa, sb = [parse(x) for x in answers[i]], [parse(x) for x in answers[n + i]]
            failures += sum(v is None for v in sa) + sum(v is None for v in sb)
            # per sample (for self-consistency): the sample-k scores of a and b compared
            samples.append(
                ["a" if x > y else "b" if y > x else "tie" for x, y in zip(sa, sb) if x is not None and y is not None]
            )
            pa, pb = [v for v in sa if v is not None], [v for v in sb if v is not None]
            if not pa or not pb:
                labels.append(None)
                means.append((float(np.mean(pa)) if pa else float("nan"), float(np.mean(pb)) if pb else float("nan")))
                continue
            ma, mb = float(np.mean(pa)), float(np.mean(pb))
            means.append((ma, mb))
            # means of integer scores: compare exactly as fractions so that equal means are a tie on every CPU
            fa, fb = Fraction(sum(pa), len(pa)), Fraction(sum(pb), len(pb))
            labels.append("a" if fa > fb else "b" if fb > fa else "tie")
        return self._outcome(labels, samples, failures, 0, "rubric", means)

    def _outcome(
        self,
        labels: list[str | None],
        samples: list[list[str]],
        failures: int,
        disagreements: int,
        method: str,
        means: list[tuple[float, float]] | None,
    ) -> PairwiseOutcome:
        freq = Counter(lab for lab in labels if lab is not None)
        return PairwiseOutcome(
            labels,
            samples,
            failures,
            disagreements,
            _consistency([[self.LABELS.index(v) for v in row] for row in samples], 3),
            {k: freq.get(k, 0) for k in self.LABELS},
            method,
            means,
        )

    def compare(
        self, texts_a: Sequence[str], texts_b: Sequence[str], styles: Sequence[str], tasks: Sequence[str] | None = None
    ) -> PairwiseOutcome:
        """Judge each pair (a, b); ``styles`` the requested style or persona, ``tasks`` the request both responses
        answer."""
        if not len(texts_a) == len(texts_b) == len(styles):
            raise ValueError(
                f"{self.name}: {len(texts_a)} a-texts, {len(texts_b)} b-texts and {len(styles)} styles must be aligned"
            )
        tasks = list(tasks) if tasks is not None else [""] * len(texts_a)
        if len(tasks) != len(texts_a):
            raise ValueError(f"{self.name}: {len(tasks)} tasks for {len(texts_a)} pairs")
        fn = self._compare_ab if self.method == "ab" else self._compare_rubric
        return fn(list(texts_a), list(texts_b), list(styles), tasks)

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        styles = per_item_styles(self.name, target_style, len(outputs))
        others = [c[0] for c in comparison_texts(self.name, self.against, sources, references, len(outputs))]
        tasks = [f"Rewrite the following text to be {st}: {src}" for src, st in zip(sources, styles)]
        got = self.compare(outputs, others, styles, tasks)
        value = {"a": 1.0, "tie": 0.5, "b": 0.0, None: np.nan}
        scores = np.array([value[lab] for lab in got.labels])
        per_query = 2 * len(outputs) * self.n_samples
        details = {
            **self._sampling(),
            "method": self.method,
            "target": self.target,
            "against": self.against,
            "parse_failures": got.parse_failures,
            "n_queries": per_query,
            "order_disagreements": got.order_disagreements,
            "self_consistency": got.self_consistency,
            "label_frequencies": got.label_frequencies,
        }
        components = (
            {
                "mean_score_output": np.array([m[0] for m in got.mean_scores]),
                "mean_score_other": np.array([m[1] for m in got.mean_scores]),
            }
            if got.mean_scores
            else {}
        )
        return ScoreResult(
            self.name,
            scores,
            corpus=float(np.nanmean(scores)) if np.isfinite(scores).any() else None,
            components=components,
            details=details,
        )


#: the human five-point pairwise scale (a better ... b better), mapped to a / tie / b as the study does
HUMAN_PAIRWISE = {
    "a better": "a",
    "a slightly better": "a",
    "tie": "tie",
    "b slightly better": "b",
    "b better": "b",
    1: "a",
    2: "a",
    3: "tie",
    4: "b",
    5: "b",
}


def human_pairwise_label(value: Any) -> str:
    """One human five-point pairwise rating (a label above, or 1-5 with 1 = a better) as "a", "b" or "tie"."""
    key = value.strip().lower().replace("_", " ").replace("-", " ") if isinstance(value, str) else value
    if isinstance(key, str) and key.isdigit():
        key = int(key)
    if isinstance(key, float) and key.is_integer():
        key = int(key)
    if key not in HUMAN_PAIRWISE:
        raise ValueError(
            f"human pairwise rating {value!r} is not one of the five classes "
            f"(a better, a slightly better, tie, b slightly better, b better; or 1-5)"
        )
    return HUMAN_PAIRWISE[key]


def human_pairwise_majority(ratings: Sequence[Any]) -> str:
    """Majority of several annotators' ratings after mapping to a / tie / b; a tie between the top labels is "tie"."""
    return majority([human_pairwise_label(r) for r in ratings], tie="tie")
