"""Causal-LM helpers shared by the likelihood metric, perplexity and the local LLM judge.

The one delicate part is alignment: prompt and continuation are tokenised *separately* and their ids
concatenated, so the continuation's tokens are identical under every prompt (needed to compare
per-token probabilities across the three instructions of the likelihood metric) and the prompt's
tokens are never scored. Batches are right-padded and sorted by length.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CausalLM", "load_causal_lm", "ScoredTokens"]


@dataclass
class ScoredTokens:
    """Log-probabilities of one continuation's tokens (``target_ids``) given its prompt."""

    target_ids: list[int]
    logprobs: np.ndarray  # (len(target_ids),)


class CausalLM:
    """A transformers causal LM and its tokenizer, with prompt formatting and continuation scoring."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        batch_size: int = 8,
        use_chat_template: bool | None = None,
        device: str = "cpu",
        path: str = "",
    ) -> None:
        self.model, self.tokenizer = model.eval(), tokenizer
        self.batch_size, self.device, self.path = batch_size, device, path
        has_template = bool(getattr(tokenizer, "chat_template", None))
        self.use_chat_template = has_template if use_chat_template is None else (use_chat_template and has_template)

    # -- prompts ---------------------------------------------------------------------------------
    def format_prompt(self, instruction: str, system: str | None = None) -> str:
        """The text the model sees before its answer: the chat template (system turn first when given) with a
        generation prompt, or the plain system prompt + blank line + instruction + newline."""
        if self.use_chat_template:
            messages = ([{"role": "system", "content": system}] if system else []) + [
                {"role": "user", "content": instruction}
            ]
            return str(self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        return (system + "\n\n" if system else "") + instruction + "\n"

    def prompt_ids(self, instruction: str, system: str | None = None) -> list[int]:
        text = self.format_prompt(instruction, system)
        # a chat template writes its own BOS; a plain prompt gets the tokenizer's special tokens (BOS if any)
        ids = list(self.tokenizer(text, add_special_tokens=not self.use_chat_template)["input_ids"])
        bos = getattr(self.tokenizer, "bos_token_id", None)
        if not ids and bos is not None:
            ids = [bos]
        return ids

    def continuation_ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    # -- scoring ---------------------------------------------------------------------------------
    def score_ids(self, prompts: Sequence[list[int]], targets: Sequence[list[int]]) -> list[np.ndarray]:
        """Log p(target token | prompt, earlier target tokens) for every target token, batched.

        A prompt must hold at least one token (the first target token needs a context).
        """
        import torch

        if len(prompts) != len(targets):
            raise ValueError("score_ids: prompts and targets must be aligned")
        results: list[np.ndarray] = [np.zeros(0)] * len(prompts)
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]) + len(targets[i]))
        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else pad
        for start in range(0, len(order), self.batch_size):
            chunk = [i for i in order[start : start + self.batch_size]]
            todo = [i for i in chunk if targets[i]]
            for i in chunk:
                if not prompts[i]:
                    raise ValueError(f"score_ids: prompt {i} is empty; give at least one context token (e.g. BOS)")
            if not todo:
                continue
            seqs = [list(prompts[i]) + list(targets[i]) for i in todo]
            width = max(map(len, seqs))
            ids = torch.full((len(seqs), width), pad, dtype=torch.long)
            mask = torch.zeros((len(seqs), width), dtype=torch.long)
            for row, seq in enumerate(seqs):
                ids[row, : len(seq)] = torch.tensor(seq)
                mask[row, : len(seq)] = 1
            with torch.no_grad():
                logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device)).logits.float()
            logp = torch.log_softmax(logits, dim=-1)
            for row, i in enumerate(todo):
                p, t = len(prompts[i]), len(targets[i])
                positions = torch.arange(p - 1, p + t - 1)
                tgt = torch.tensor(targets[i])
                results[i] = logp[row, positions, tgt].cpu().numpy().astype(np.float64)
        return results

    def score_continuations(
        self, instructions: Sequence[str], continuations: Sequence[str], system: str | None = None
    ) -> list[ScoredTokens]:
        """Score each continuation's tokens after its formatted instruction (prompt tokens unscored)."""
        p_ids = [self.prompt_ids(x, system) for x in instructions]
        c_ids = [self.continuation_ids(x) for x in continuations]
        logps = self.score_ids(p_ids, c_ids)
        return [ScoredTokens(c, lp) for c, lp in zip(c_ids, logps)]

    def info(self) -> dict[str, Any]:
        return {"model": self.path or type(self.model).__name__, "chat_template": self.use_chat_template}


def load_causal_lm(
    path: Any,
    *,
    batch_size: int = 8,
    use_chat_template: bool | None = None,
    device: str = "cpu",
    dtype: str | None = None,
) -> CausalLM:
    """Load a local causal LM folder (or wrap an already built ``CausalLM``); never downloads."""
    if isinstance(path, CausalLM):
        return path
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .checkpoints import resolve_checkpoint

    folder = resolve_checkpoint(path, "causal LM")  # a local folder, or a hub id in the local cache; never downloads
    kwargs: dict[str, Any] = {"local_files_only": True}
    if dtype:
        import torch

        kwargs["dtype"] = getattr(torch, dtype)
    from steb_core import refusing_unsafe_weights

    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    with refusing_unsafe_weights(folder, "causal LM"):
        model: Any = AutoModelForCausalLM.from_pretrained(folder, **kwargs)
        model = model.to(device)
    return CausalLM(
        model, tokenizer, batch_size=batch_size, use_chat_template=use_chat_template, device=device, path=str(path)
    )
