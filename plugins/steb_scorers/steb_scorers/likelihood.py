"""Pauli et al.'s style-conditional likelihood metric, and perplexity, from one causal LM.

For each item the output's tokens are scored under three instructions that embed the source X:
style rewrite, paraphrase and repeat. Per output token t with probabilities p_style, p_para, p_rep:

- content preservation C = mean_t log(max(p_style, p_para, p_rep)) — an output that keeps the
  content is likely under *some* content-preserving instruction;
- style change S = mean_t (p_style - max(p_para, p_rep)) — how much more the requested style
  explains the output than merely keeping it.

Only output tokens are averaged (n = output length); instruction and source are context.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .lm import CausalLM, load_causal_lm
from .result import ScoreResult, check_aligned, per_item_styles

__all__ = ["INSTRUCTIONS", "PAULI_CONFIGS", "LikelihoodScorer", "PerplexityScorer"]

#: The three instructions (version 1; Pauli et al. 2025, Sec. 5 and App. D.1); {style} is the target style, {source} the input.
INSTRUCTIONS: Mapping[str, str] = {
    "style": "Rewrite the following sentence to be {style}: {source}",
    "paraphrase": "Paraphrase the following sentence: {source}",
    "repeat": "Repeat the following sentence: {source}",
}
INSTRUCTIONS_VERSION = "1"

#: The paper's models as named configurations (``config=NAME``); the weights resolve from a local folder or
#: the local Hugging Face cache, never downloaded. Pass ``system_prompt=`` for the paper's system turn.
PAULI_CONFIGS: Mapping[str, Mapping[str, Any]] = {
    "pauli-llama-3.2-3b": {"model": "meta-llama/Llama-3.2-3B-Instruct", "use_chat_template": True},
    "pauli-llama-3.1-8b": {"model": "meta-llama/Llama-3.1-8B-Instruct", "use_chat_template": True},
}


class LikelihoodScorer:
    """C (content, ``component='content'``) or S (style change, ``component='style'``) as ``scores``; both in components."""

    def __init__(self, model: Any = None, component: str = "content", batch_size: int = 8, use_chat_template: bool | None = None, device: str = "cpu",
                 instructions: Mapping[str, str] | None = None, system_prompt: str | None = None, use: Sequence[str] = ("style", "paraphrase", "repeat"),
                 config: str | None = None, dtype: str | None = None) -> None:
        if config is not None:
            if config not in PAULI_CONFIGS:
                raise ValueError(f"unknown likelihood configuration {config!r}; known: {sorted(PAULI_CONFIGS)}")
            preset = PAULI_CONFIGS[config]
            model = preset["model"] if model is None else model
            use_chat_template = preset.get("use_chat_template") if use_chat_template is None else use_chat_template
        if model is None:
            raise ValueError("the likelihood metric needs model=PATH to a local causal LM folder (transformers format), or config=NAME "
                             f"({', '.join(sorted(PAULI_CONFIGS))})")
        if component not in ("content", "style"):
            raise ValueError(f"component must be 'content' or 'style', not {component!r}")
        self.instructions = dict(instructions or INSTRUCTIONS)
        self.use = tuple(use)
        unknown = [k for k in self.use if k not in self.instructions]
        if unknown or not self.use:
            raise ValueError(f"use= must name instructions among {sorted(self.instructions)}; got {list(self.use)}")
        if component == "style" and ("style" not in self.use or len(self.use) < 2):
            raise ValueError("the style component S needs the 'style' instruction and at least one content-preserving one in use=")
        self.lm: CausalLM = load_causal_lm(model, batch_size=batch_size, use_chat_template=use_chat_template, device=device, dtype=dtype)
        self.component, self.config, self.system_prompt = component, config, system_prompt
        self.name = f"likelihood-{component}"

    def token_logprobs(self, sources: Sequence[str], outputs: Sequence[str], styles: Sequence[str]) -> dict[str, list[np.ndarray]]:
        """Per-token log-probabilities of each output under each instruction in use (batched together)."""
        kinds = list(self.use)
        prompts = [self.instructions[k].format(style=st, source=src) for k in kinds for src, st in zip(sources, styles)]
        scored = self.lm.score_continuations(prompts, list(outputs) * len(kinds), system=self.system_prompt)
        n = len(outputs)
        return {k: [s.logprobs for s in scored[j * n: (j + 1) * n]] for j, k in enumerate(kinds)}

    def score(self, sources: Sequence[str], outputs: Sequence[str], references: Any = None, target_style: str | Sequence[str] | None = None) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        lp = self.token_logprobs(sources, outputs, styles)
        content = np.full(len(outputs), np.nan)
        style = np.full(len(outputs), np.nan)
        keep = [k for k in self.use if k != "style"]
        for i in range(len(outputs)):
            if lp[self.use[0]][i].size == 0:
                continue  # an empty output has no tokens: both scores undefined
            content[i] = float(np.mean(np.maximum.reduce([lp[k][i] for k in self.use])))
            if "style" in self.use and keep:
                style[i] = float(np.mean(np.exp(lp["style"][i]) - np.exp(np.maximum.reduce([lp[k][i] for k in keep]))))
        main = content if self.component == "content" else style
        return ScoreResult(
            self.name, main, components={"C": content, "S": style},
            details={**self.lm.info(), "instructions": {k: self.instructions[k] for k in self.use}, "instructions_version": INSTRUCTIONS_VERSION,
                     "system_prompt": self.system_prompt, "config": self.config},
        )


class PerplexityScorer:
    """Fluency as perplexity of the output under a causal LM (lower is better).

    The output is scored after the tokenizer's BOS token (or EOS, GPT-2 style) so that every output
    token is predicted; ``style_models`` optionally maps a target style to its own LM (e.g. a formal
    and an informal LM), falling back to ``model``.
    """

    name = "perplexity"

    def __init__(self, model: Any = None, style_models: Mapping[str, Any] | None = None, batch_size: int = 8, device: str = "cpu") -> None:
        if model is None and not style_models:
            raise ValueError("perplexity needs model=PATH (a local causal LM folder) or style_models={style: PATH}")
        self.default = load_causal_lm(model, batch_size=batch_size, use_chat_template=False, device=device) if model is not None else None
        self.by_style = {k: load_causal_lm(v, batch_size=batch_size, use_chat_template=False, device=device) for k, v in (style_models or {}).items()}

    @staticmethod
    def _context(lm: CausalLM) -> list[int]:
        tok = lm.tokenizer
        for attr in ("bos_token_id", "eos_token_id"):
            value = getattr(tok, attr, None)
            if value is not None:
                return [int(value)]
        raise ValueError("perplexity: the tokenizer has neither a BOS nor an EOS token to start the context")

    def score(self, sources: Sequence[str], outputs: Sequence[str], references: Any = None, target_style: str | Sequence[str] | None = None) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs)) if self.by_style else [""] * len(outputs)
        scores = np.full(len(outputs), np.nan)
        total_lp, total_n = 0.0, 0
        groups: dict[int, tuple[CausalLM, list[int]]] = {}
        for i, st in enumerate(styles):
            lm = self.by_style.get(st, self.default)
            if lm is None:
                raise ValueError(f"perplexity: no LM for target style {st!r} and no default model")
            groups.setdefault(id(lm), (lm, []))[1].append(i)
        for lm, idx in groups.values():
            ctx = self._context(lm)
            targets = [lm.continuation_ids(outputs[i]) for i in idx]
            for i, lp in zip(idx, lm.score_ids([ctx] * len(idx), targets)):
                if lp.size:
                    scores[i] = float(np.exp(-lp.mean()))
                    total_lp += float(lp.sum())
                    total_n += lp.size
        corpus = float(np.exp(-total_lp / total_n)) if total_n else None
        return ScoreResult(self.name, scores, corpus=corpus, higher_is_better=False,
                           details={"models": {k or "default": v.path for k, v in ({"": self.default} if self.default else {}).items()} | {k: v.path for k, v in self.by_style.items()}})
