"""Pauli et al.'s style-conditional likelihood metric, and perplexity, from one causal LM.

For each item the output's tokens are scored under three instructions that embed the source X:
style rewrite, paraphrase and repeat. Per scored token t with probabilities p_style, p_para, p_rep:

- content preservation C = mean_t log(max(p_style, p_para, p_rep)) — an output that keeps the
  content is likely under *some* content-preserving instruction;
- style change S = mean_t (p_style - max(p_para, p_rep)) — how much more the requested style
  explains the output than merely keeping it.

Instruction and source are context, never scored.

Source of the defaults: the authors' code release, github.com/AmaliePauli/style_transfer_evaluation
(commit 1ec3ad9372da39ef8cdf4052285865442ba07ebb, ``LogProp.py`` and ``run_logprob_on_data.py``,
CC BY 4.0), for Pauli, Augenstein & Assent, "Mind the Style Gap: Meta-Evaluation of Style and
Attribute Transfer Metrics" (Findings of EMNLP 2025, arXiv 2502.15022, Sec. 5 and App. D.1). What
that code does, and steb by default:

- system prompt :data:`PAULI_SYSTEM_PROMPT`, always sent; the three instructions :data:`INSTRUCTIONS`;
- the prompt is the hand-written Llama-3 header format :data:`PAULI_LLAMA3_TEMPLATE` (no blank line
  after a header, no "Cutting Knowledge Date" preamble: *not* the tokenizer's chat template), used by
  the ``pauli-llama-*`` configurations (``prompt_format='pauli-llama3'``);
- the rewrite is followed by the end-of-turn token ``<|eot_id|>`` and the scored window is the
  code's ``logits[start:-1]`` against ``ids[start+1:]`` (``start`` = prompt length): the rewrite's
  tokens from the *second* on, plus the end-of-turn token — as many tokens as the rewrite has, but
  shifted by one (``window='pauli'``, the default). ``window='output'`` scores exactly the rewrite's
  tokens instead (every one, no end token);
- target styles ``layman``, ``expert``, ``simplicity`` are written as the code writes them into the
  instruction (:data:`PAULI_STYLE_NAMES`);
- the paper's models in bfloat16 (the code loads the weights in float16, casts the model to bfloat16 and takes
  the softmax in bfloat16; steb takes it in float32 over the same logits).

The paper's appendix text itself could not be read offline; these are the released code's strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from steb_core import Scorer

from .lm import CausalLM, load_causal_lm
from .result import ScoreResult, check_aligned, per_item_styles

__all__ = [
    "INSTRUCTIONS",
    "PAULI_CONFIGS",
    "PAULI_LLAMA3_TEMPLATE",
    "PAULI_SYSTEM_PROMPT",
    "PAULI_STYLE_NAMES",
    "LikelihoodScorer",
    "PerplexityScorer",
]

#: Where the defaults below come from (repository, commit, files).
PAULI_SOURCE = (
    "github.com/AmaliePauli/style_transfer_evaluation@1ec3ad9372da39ef8cdf4052285865442ba07ebb "
    "(LogProp.py, run_logprob_on_data.py; CC BY 4.0)"
)

#: The three instructions, verbatim from the authors' code; {style} is the target style, {source} the input.
INSTRUCTIONS: Mapping[str, str] = {
    "style": "Rewrite the following sentence to be {style}: {source}",
    "paraphrase": "Paraphrase the following sentence: {source}",
    "repeat": "Repeat the following sentence: {source}",
}
INSTRUCTIONS_VERSION = "1"

#: The system prompt, verbatim from the authors' code (sent with every instruction).
PAULI_SYSTEM_PROMPT = (
    "You can repeat sentences, paraphrase sentences or rewrite sentences to change the style or certain attribute of "
    "the text while preserving non-related content and context. Your answers contain just the rewrite."
)

#: The authors' prompt string (Llama 3 special tokens, no whitespace around the turns), with a system turn.
PAULI_LLAMA3_TEMPLATE = (
    "<|begin_of_text|><|start_header_id|>system<|end_header_id|>{system}<|eot_id|>"
    "<|start_header_id|>user<|end_header_id|>{instruction}<|eot_id|><|start_header_id|>assistant<|end_header_id|>"
)
#: The same without a system turn (only when ``system_prompt`` is switched off).
PAULI_LLAMA3_TEMPLATE_NO_SYSTEM = (
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>{instruction}<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>"
)
PAULI_LLAMA3_SPECIAL_TOKENS = ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")
PAULI_END_TOKEN = "<|eot_id|>"

#: Target-style labels the authors' script rewrites before filling the style instruction.
PAULI_STYLE_NAMES: Mapping[str, str] = {
    "layman": "understandable for layman",
    "expert": "addressed to an expert",
    "simplicity": "simplified",
}

#: The paper's models as named configurations (``config=NAME``); the weights resolve from a local folder or
#: the local Hugging Face cache, never downloaded. Both use the authors' prompt string and bfloat16.
PAULI_CONFIGS: Mapping[str, Mapping[str, Any]] = {
    "pauli-llama-3.2-3b": {
        "model": "meta-llama/Llama-3.2-3B-Instruct",
        "prompt_format": "pauli-llama3",
        "dtype": "bfloat16",
    },
    "pauli-llama-3.1-8b": {
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "prompt_format": "pauli-llama3",
        "dtype": "bfloat16",
    },
}

PROMPT_FORMATS = ("chat", "plain", "pauli-llama3")
WINDOWS = ("pauli", "output")


class LikelihoodScorer(Scorer):
    """C (content, ``component='content'``) or S (style change, ``component='style'``) as ``scores``; both in
    components.

    ``prompt_format``: ``pauli-llama3`` (the authors' literal prompt string; needs the Llama 3 special
    tokens), ``chat`` (the tokenizer's chat template), ``plain`` (system + blank line + instruction +
    newline); by default the configuration's, else ``chat`` when the tokenizer has a template (or as
    ``use_chat_template`` says). ``system_prompt``: the authors' by default; ``None`` or ``""`` sends
    none. ``window``: ``pauli`` (the authors' scored tokens, see the module docstring) or ``output``.
    ``end_token``: the token appended for ``window='pauli'`` (default ``<|eot_id|>`` for
    ``pauli-llama3``, else the tokenizer's EOS). ``style_names``: target-style rewrites (default
    :data:`PAULI_STYLE_NAMES`; ``{}`` for none).
    """

    def __init__(
        self,
        model: Any = None,
        component: str = "content",
        batch_size: int = 8,
        use_chat_template: bool | None = None,
        device: str = "cpu",
        instructions: Mapping[str, str] | None = None,
        system_prompt: str | None = PAULI_SYSTEM_PROMPT,
        use: Sequence[str] = ("style", "paraphrase", "repeat"),
        config: str | None = None,
        dtype: str | None = None,
        prompt_format: str | None = None,
        window: str = "pauli",
        end_token: str | None = None,
        style_names: Mapping[str, str] | None = None,
    ) -> None:
        if config is not None:
            if config not in PAULI_CONFIGS:
                raise ValueError(f"unknown likelihood configuration {config!r}; known: {sorted(PAULI_CONFIGS)}")
            preset = PAULI_CONFIGS[config]
            model = preset["model"] if model is None else model
            prompt_format = preset.get("prompt_format") if prompt_format is None else prompt_format
            dtype = preset.get("dtype") if dtype is None else dtype
        if model is None:
            raise ValueError(
                "the likelihood metric needs model=PATH to a local causal LM folder (transformers format), or "
                "config=NAME "
                f"({', '.join(sorted(PAULI_CONFIGS))})"
            )
        if component not in ("content", "style"):
            raise ValueError(f"component must be 'content' or 'style', not {component!r}")
        if prompt_format is not None and prompt_format not in PROMPT_FORMATS:
            raise ValueError(f"prompt_format must be one of {list(PROMPT_FORMATS)}, not {prompt_format!r}")
        if window not in WINDOWS:
            raise ValueError(f"window must be one of {list(WINDOWS)}, not {window!r}")
        self.instructions = dict(instructions or INSTRUCTIONS)
        self.use = tuple(use)
        unknown = [k for k in self.use if k not in self.instructions]
        if unknown or not self.use:
            raise ValueError(f"use= must name instructions among {sorted(self.instructions)}; got {list(self.use)}")
        if component == "style" and ("style" not in self.use or len(self.use) < 2):
            raise ValueError(
                "the style component S needs the 'style' instruction and at least one content-preserving one in use="
            )
        if prompt_format == "chat":
            use_chat_template = True
        elif prompt_format in ("plain", "pauli-llama3"):
            use_chat_template = False
        self.lm: CausalLM = load_causal_lm(
            model, batch_size=batch_size, use_chat_template=use_chat_template, device=device, dtype=dtype
        )
        if prompt_format == "chat" and not self.lm.use_chat_template:
            raise ValueError("prompt_format='chat' but the tokenizer has no chat template")
        self.prompt_format = prompt_format or ("chat" if self.lm.use_chat_template else "plain")
        self.component, self.config, self.window = component, config, window
        self.system_prompt = system_prompt or None
        self.style_names = dict(PAULI_STYLE_NAMES if style_names is None else style_names)
        if self.prompt_format == "pauli-llama3":
            self._check_special_tokens()
        self.end_token: str | None
        self.end_id: int | None
        self.end_token, self.end_id = self._end_token(end_token) if window == "pauli" else (None, None)
        self.name = f"likelihood-{component}"

    # -- prompts -----------------------------------------------------------------------------------
    def _single_id(self, token: str) -> int | None:
        ids = list(self.lm.tokenizer(token, add_special_tokens=False)["input_ids"])
        return ids[0] if len(ids) == 1 and ids[0] != getattr(self.lm.tokenizer, "unk_token_id", None) else None

    def _check_special_tokens(self) -> None:
        missing = [t for t in PAULI_LLAMA3_SPECIAL_TOKENS if self._single_id(t) is None]
        if missing:
            raise ValueError(
                f"prompt_format='pauli-llama3' needs a Llama 3 tokenizer; this one does not have {missing} as single "
                "tokens"
            )

    def _end_token(self, end_token: str | None) -> tuple[str, int]:
        tok = self.lm.tokenizer
        if end_token is None:
            end_token = PAULI_END_TOKEN if self.prompt_format == "pauli-llama3" else getattr(tok, "eos_token", None)
        if end_token is None:
            raise ValueError(
                "window='pauli' appends an end-of-turn token, but the tokenizer has no EOS token: pass end_token= or "
                "window='output'"
            )
        end_id = self._single_id(end_token)
        if end_id is None:
            raise ValueError(f"end_token {end_token!r} is not a single token of this tokenizer")
        return end_token, end_id

    def prompt_text(self, instruction: str) -> str:
        """The text before the answer for one filled-in instruction, as the model sees it."""
        if self.prompt_format == "pauli-llama3":
            template = PAULI_LLAMA3_TEMPLATE if self.system_prompt else PAULI_LLAMA3_TEMPLATE_NO_SYSTEM
            return template.format(system=self.system_prompt, instruction=instruction)
        return self.lm.format_prompt(instruction, self.system_prompt)

    def prompt_ids(self, instruction: str) -> list[int]:
        if self.prompt_format == "pauli-llama3":  # the string carries its own <|begin_of_text|>
            return list(self.lm.tokenizer(self.prompt_text(instruction), add_special_tokens=False)["input_ids"])
        return self.lm.prompt_ids(instruction, self.system_prompt)

    def target_ids(self, output: str) -> list[int]:
        """The continuation fed after the prompt: the output's tokens, then the end token under ``window='pauli'``."""
        ids = self.lm.continuation_ids(output)
        if self.window == "pauli" and self.end_id is not None:  # (window 'pauli' always has one)
            return ids + [self.end_id]
        return ids

    # -- scoring -----------------------------------------------------------------------------------
    def token_logprobs(
        self, sources: Sequence[str], outputs: Sequence[str], styles: Sequence[str]
    ) -> dict[str, list[np.ndarray]]:
        """Log-probabilities of the scored tokens of each output under each instruction in use (batched together)."""
        kinds = list(self.use)
        styles = [self.style_names.get(st, st) for st in styles]
        prompts = [
            self.prompt_ids(self.instructions[k].format(style=st, source=src))
            for k in kinds
            for src, st in zip(sources, styles)
        ]
        targets = [self.target_ids(o) for o in outputs]
        logps = self.lm.score_ids(prompts, targets * len(kinds))
        if self.window == "pauli":
            # the code's logits[start:-1] vs ids[start+1:]: the first output token's probability is not used, the end
            # token's is
            logps = [lp[1:] for lp in logps]
        n = len(outputs)
        return {k: logps[j * n : (j + 1) * n] for j, k in enumerate(kinds)}

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
        check_aligned(self.name, sources, outputs)
        styles = per_item_styles(self.name, target_style, len(outputs))
        lp = self.token_logprobs(sources, outputs, styles)
        content = np.full(len(outputs), np.nan)
        style = np.full(len(outputs), np.nan)
        keep = [k for k in self.use if k != "style"]
        for i in range(len(outputs)):
            if lp[self.use[0]][i].size == 0:
                continue  # an empty output: nothing scored, both scores undefined
            content[i] = float(np.mean(np.maximum.reduce([lp[k][i] for k in self.use])))
            if "style" in self.use and keep:
                style[i] = float(np.mean(np.exp(lp["style"][i]) - np.exp(np.maximum.reduce([lp[k][i] for k in keep]))))
        main = content if self.component == "content" else style
        return ScoreResult(
            self.name,
            main,
            components={"C": content, "S": style},
            details={
                **self.lm.info(),
                "instructions": {k: self.instructions[k] for k in self.use},
                "instructions_version": INSTRUCTIONS_VERSION,
                "system_prompt": self.system_prompt,
                "config": self.config,
                "prompt_format": self.prompt_format,
                "window": self.window,
                "end_token": self.end_token,
                "style_names": self.style_names,
                "source": PAULI_SOURCE,
            },
        )


class PerplexityScorer(Scorer):
    """Fluency as perplexity of the output under a causal LM (lower is better).

    The output is scored after the tokenizer's BOS token (or EOS, GPT-2 style) so that every output
    token is predicted; ``style_models`` optionally maps a target style to its own LM (e.g. a formal
    and an informal LM), falling back to ``model``.
    """

    name = "perplexity"

    def __init__(
        self, model: Any = None, style_models: Mapping[str, Any] | None = None, batch_size: int = 8, device: str = "cpu"
    ) -> None:
        if model is None and not style_models:
            raise ValueError("perplexity needs model=PATH (a local causal LM folder) or style_models={style: PATH}")
        self.default = (
            load_causal_lm(model, batch_size=batch_size, use_chat_template=False, device=device)
            if model is not None
            else None
        )
        self.by_style = {
            k: load_causal_lm(v, batch_size=batch_size, use_chat_template=False, device=device)
            for k, v in (style_models or {}).items()
        }

    @staticmethod
    def _context(lm: CausalLM) -> list[int]:
        tok = lm.tokenizer
        for attr in ("bos_token_id", "eos_token_id"):
            value = getattr(tok, attr, None)
            if value is not None:
                return [int(value)]
        raise ValueError("perplexity: the tokenizer has neither a BOS nor an EOS token to start the context")

    def score(
        self,
        sources: Sequence[str],
        outputs: Sequence[str],
        references: Any = None,
        target_style: str | Sequence[str] | None = None,
    ) -> ScoreResult:
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
        return ScoreResult(
            self.name,
            scores,
            corpus=corpus,
            higher_is_better=False,
            details={
                "models": {k or "default": v.path for k, v in ({"": self.default} if self.default else {}).items()}
                | {k: v.path for k, v in self.by_style.items()}
            },
        )
