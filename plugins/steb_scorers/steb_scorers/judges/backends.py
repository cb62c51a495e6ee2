"""Where judge prompts are answered: a local causal LM (transformers) or an OpenAI-compatible endpoint.

A backend returns ``n`` sampled completions per prompt. The HTTP backend talks to any server that
implements ``POST {url}/chat/completions`` (vLLM, llama.cpp, TGI, ...) given by the user; there is no
default remote service. It uses only the standard library.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any, Protocol, Sequence

from ..lm import CausalLM, load_causal_lm

__all__ = ["Backend", "LocalBackend", "HTTPBackend", "make_backend"]


class Backend(Protocol):
    def complete(self, prompts: Sequence[str], n: int, temperature: float, seed: int, max_tokens: int) -> list[list[str]]: ...

    def info(self) -> dict[str, Any]: ...


class LocalBackend:
    """Sampling from a local causal LM, with its chat template when it has one; prompts batched, left-padded."""

    def __init__(self, model: Any, batch_size: int = 4, device: str = "cpu") -> None:
        self.lm: CausalLM = load_causal_lm(model, batch_size=batch_size, device=device)

    def complete(self, prompts: Sequence[str], n: int, temperature: float, seed: int, max_tokens: int) -> list[list[str]]:
        import torch

        tok, model = self.lm.tokenizer, self.lm.model
        pad = tok.pad_token_id if tok.pad_token_id is not None else (tok.eos_token_id or 0)
        out: list[list[str]] = []
        torch.manual_seed(seed)
        for start in range(0, len(prompts), self.lm.batch_size):
            ids = [self.lm.prompt_ids(p) for p in prompts[start: start + self.lm.batch_size]]
            width = max(map(len, ids))
            batch = torch.tensor([[pad] * (width - len(x)) + x for x in ids])
            mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in ids])
            sample = temperature > 0
            gen = model.generate(
                input_ids=batch.to(self.lm.device), attention_mask=mask.to(self.lm.device), do_sample=sample,
                temperature=temperature if sample else None, top_k=0 if sample else None, num_return_sequences=n,
                max_new_tokens=max_tokens, pad_token_id=pad,
            )
            texts = tok.batch_decode(gen[:, width:], skip_special_tokens=True)
            out.extend(texts[i * n: (i + 1) * n] for i in range(len(ids)))
        return out

    def info(self) -> dict[str, Any]:
        return {"backend": "local", **self.lm.info()}


class HTTPBackend:
    """An OpenAI-compatible chat-completions endpoint; asks for ``n`` choices and tops up if fewer come back."""

    def __init__(self, url: str, model: str = "", api_key_env: str | None = None, timeout: float = 60.0, max_requests_per_prompt: int | None = None) -> None:
        base = url.rstrip("/")
        self.endpoint = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model, self.timeout = model, timeout
        self.api_key_env = api_key_env
        self.max_requests = max_requests_per_prompt

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env and os.environ.get(self.api_key_env):
            headers["Authorization"] = f"Bearer {os.environ[self.api_key_env]}"
        request = urllib.request.Request(self.endpoint, data=json.dumps(payload).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"judge endpoint {self.endpoint} answered HTTP {exc.code}: {exc.read()[:300]!r}") from None
        except urllib.error.URLError as exc:
            raise RuntimeError(f"judge endpoint {self.endpoint} unreachable: {exc.reason}") from None

    def complete(self, prompts: Sequence[str], n: int, temperature: float, seed: int, max_tokens: int) -> list[list[str]]:
        out = []
        limit = self.max_requests or n
        for p_index, prompt in enumerate(prompts):
            got: list[str] = []
            for attempt in range(limit):
                payload = {"model": self.model, "messages": [{"role": "user", "content": prompt}], "n": n - len(got),
                           "temperature": temperature, "seed": seed + attempt, "max_tokens": max_tokens}
                body = self._post(payload)
                try:
                    got.extend(str(c["message"]["content"] or "") for c in body["choices"])
                except (KeyError, TypeError) as exc:
                    raise RuntimeError(f"judge endpoint {self.endpoint}: answer to prompt {p_index} has no choices[].message.content ({exc})") from None
                if len(got) >= n:
                    break
            if len(got) < n:
                raise RuntimeError(f"judge endpoint {self.endpoint} returned {len(got)} of {n} samples for prompt {p_index} after {limit} requests")
            out.append(got[:n])
        return out

    def info(self) -> dict[str, Any]:
        return {"backend": "http", "endpoint": self.endpoint, "model": self.model}


def make_backend(backend: Any = None, *, url: str | None = None, model: Any = None, **options: Any) -> Backend:
    """A backend object: given as is, or HTTP when ``url`` is set, else local from ``model`` (a folder)."""
    if backend is not None:
        return backend
    if url:
        return HTTPBackend(url, model=str(model or ""), **options)
    if model is None:
        raise ValueError("an LLM judge needs url=... (OpenAI-compatible endpoint) or model=PATH (local causal LM folder)")
    return LocalBackend(model, **options)
