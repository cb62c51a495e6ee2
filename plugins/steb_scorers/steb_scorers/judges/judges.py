"""LLM judges as scorers: style detection and pairwise (A/B) style ranking.

Detection asks whether ``text`` shows style ``style`` with one of four answer formats, samples each
query ``n_samples`` times, binarises every parsed answer and takes the majority. Pairwise ranking
asks which of two texts better matches the style, in both orders (a position-bias control: if the
orders disagree the sample is a tie), then takes the majority over samples. Prompt name, version and
text, sampling parameters, parse failures and self-consistency are recorded in the result.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..result import ScoreResult, check_aligned, comparison_texts, per_item_styles
from .agreement import count_table, majority, randolph_kappa
from .backends import make_backend
from .prompts import BINARISE, CATEGORIES, PARSERS, get_prompt

__all__ = ["StyleDetectionJudge", "PairwiseStyleJudge", "PairwiseOutcome"]


def _consistency(rows: list[list[int]], n_categories: int) -> dict[str, Any]:
    """Randolph's kappa over items whose samples all parsed (the statistic needs equal counts)."""
    full = [r for r in rows if r]
    size = max((len(r) for r in full), default=0)
    complete = [r for r in full if len(r) == size]
    value = randolph_kappa(count_table(complete, n_categories)) if complete and size > 1 else None
    return {"randolph_kappa": value, "items": len(complete), "items_excluded_for_parse_failures": len(rows) - len(complete)}


class _Judge:
    def __init__(self, prompt: str, backend: Any, url: str | None, model: Any, n_samples: int, temperature: float, seed: int,
                 max_tokens: int, prompts_file: str | None, backend_options: dict[str, Any] | None) -> None:
        if n_samples < 1:
            raise ValueError("n_samples must be at least 1")
        self.prompt = get_prompt(prompt, prompts_file)
        self.backend = make_backend(backend, url=url, model=model, **dict(backend_options or {}))
        self.n_samples, self.temperature, self.seed, self.max_tokens = n_samples, temperature, seed, max_tokens

    def _sampling(self) -> dict[str, Any]:
        return {"prompt": self.prompt.record(), "n_samples": self.n_samples, "temperature": self.temperature,
                "seed": self.seed, "max_tokens": self.max_tokens, **self.backend.info()}


class StyleDetectionJudge(_Judge):
    """``scores`` = share of parsed samples judged "style present" (NaN if none parsed); majority in components."""

    name = "judge-style-detection"

    def __init__(self, prompt: str = "detect-binary", backend: Any = None, url: str | None = None, model: Any = None, n_samples: int = 5,
                 temperature: float = 0.7, seed: int = 0, max_tokens: int = 16, prompts_file: str | None = None, backend_options: dict[str, Any] | None = None) -> None:
        super().__init__(prompt, backend, url, model, n_samples, temperature, seed, max_tokens, prompts_file, backend_options)
        if self.prompt.response not in BINARISE:
            raise ValueError(f"prompt '{self.prompt.name}' answers '{self.prompt.response}', not a detection format ({sorted(BINARISE)})")

    def judge(self, texts: Sequence[str], styles: Sequence[str]) -> dict[str, Any]:
        kind = self.prompt.response
        parse, binarise = PARSERS[kind], BINARISE[kind]
        n_cat, to_cat = CATEGORIES[kind]
        answers = self.backend.complete([self.prompt.render(style=s, text=t) for t, s in zip(texts, styles)], self.n_samples, self.temperature, self.seed, self.max_tokens)
        raw = [[parse(a) for a in row] for row in answers]
        failures = sum(v is None for row in raw for v in row)
        binary = [[binarise(v) for v in row if v is not None] for row in raw]
        share = np.array([np.mean(b) if b else np.nan for b in binary])
        vote = np.array([np.nan if (m := majority(b)) is None else float(m) for b in binary])
        freq = Counter(v for row in raw for v in row if v is not None)
        return {
            "share_present": share, "majority": vote, "answers": answers, "raw_labels": raw, "parse_failures": failures,
            "self_consistency": _consistency([[to_cat(v) for v in row if v is not None] for row in raw], n_cat),
            "self_consistency_binarised": _consistency(binary, 2),
            "label_frequencies": {str(k): v for k, v in sorted(freq.items(), key=lambda kv: str(kv[0]))},
        }

    def score(self, sources: Sequence[str], outputs: Sequence[str], references: Any = None, target_style: str | Sequence[str] | None = None) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        got = self.judge(outputs, styles)
        details = {**self._sampling(), "parse_failures": got["parse_failures"], "n_queries": len(outputs) * self.n_samples,
                   "self_consistency": got["self_consistency"], "self_consistency_binarised": got["self_consistency_binarised"],
                   "label_frequencies": got["label_frequencies"], "undecided": int(np.isnan(got["majority"]).sum())}
        return ScoreResult(self.name, got["share_present"], corpus=float(np.nanmean(got["share_present"])) if np.isfinite(got["share_present"]).any() else None,
                           components={"majority": got["majority"]}, details=details)


@dataclass
class PairwiseOutcome:
    """Per pair: final label ("a", "b", "tie", or None when no sample parsed) and each sample's consolidated label."""

    labels: list[str | None]
    samples: list[list[str]]
    parse_failures: int
    order_disagreements: int
    self_consistency: dict[str, Any] = field(default_factory=dict)
    label_frequencies: dict[str, int] = field(default_factory=dict)


class PairwiseStyleJudge(_Judge):
    """A/B style ranking; as a scorer it ranks each output against its source (or reference): 1 win, 0.5 tie, 0 loss."""

    name = "judge-pairwise-style"
    LABELS = ("a", "b", "tie")

    def __init__(self, prompt: str = "pairwise-ab", against: str = "source", backend: Any = None, url: str | None = None, model: Any = None, n_samples: int = 5,
                 temperature: float = 0.7, seed: int = 0, max_tokens: int = 8, prompts_file: str | None = None, backend_options: dict[str, Any] | None = None) -> None:
        super().__init__(prompt, backend, url, model, n_samples, temperature, seed, max_tokens, prompts_file, backend_options)
        if self.prompt.response != "ab":
            raise ValueError(f"prompt '{self.prompt.name}' does not answer A/B")
        self.against = against

    def compare(self, texts_a: Sequence[str], texts_b: Sequence[str], styles: Sequence[str]) -> PairwiseOutcome:
        n = len(texts_a)
        prompts = [self.prompt.render(style=s, a=a, b=b) for a, b, s in zip(texts_a, texts_b, styles)]
        prompts += [self.prompt.render(style=s, a=b, b=a) for a, b, s in zip(texts_a, texts_b, styles)]
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
                y = {"a": "b", "b": "a"}[y]  # the reversed order shows b first
                disagreements += x != y
                row.append(x if x == y else "tie")
            samples.append(row)
        labels = [majority(row, tie="tie") if row else None for row in samples]
        freq = Counter(lab for lab in labels if lab is not None)
        return PairwiseOutcome(labels, samples, failures, disagreements,
                               _consistency([[self.LABELS.index(v) for v in row] for row in samples], 3),
                               {k: freq.get(k, 0) for k in self.LABELS})

    def score(self, sources: Sequence[str], outputs: Sequence[str], references: Any = None, target_style: str | Sequence[str] | None = None) -> ScoreResult:
        check_aligned(self.name, sources, outputs, references if self.against == "reference" else None)
        styles = per_item_styles(self.name, target_style, len(outputs))
        others = [c[0] for c in comparison_texts(self.name, self.against, sources, references, len(outputs))]
        got = self.compare(outputs, others, styles)
        value = {"a": 1.0, "tie": 0.5, "b": 0.0, None: np.nan}
        scores = np.array([value[lab] for lab in got.labels])
        details = {**self._sampling(), "against": self.against, "parse_failures": got.parse_failures, "n_queries": 2 * len(outputs) * self.n_samples,
                   "order_disagreements": got.order_disagreements, "self_consistency": got.self_consistency, "label_frequencies": got.label_frequencies}
        return ScoreResult(self.name, scores, corpus=float(np.nanmean(scores)) if np.isfinite(scores).any() else None, details=details)
