"""Where judge prompts are answered: a local causal LM (transformers) or an OpenAI-compatible endpoint.

A backend returns ``n`` sampled completions per prompt. The HTTP backend talks to any server that
implements ``POST {url}/chat/completions`` (vLLM, llama.cpp, TGI, ...) given by the user; there is no
default remote service. It uses only the standard library.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

from steb_core import DataValidationError, parse_json

from ..lm import CausalLM, load_causal_lm
from .prompts import JudgePrompt

__all__ = [
    "Backend",
    "LocalBackend",
    "HTTPBackend",
    "CachedBackend",
    "JudgeEndpointError",
    "JudgeEndpointTimeout",
    "make_backend",
]


class Backend(Protocol):
    def complete(
        self, prompts: Sequence[str | JudgePrompt], n: int, temperature: float, seed: int, max_tokens: int
    ) -> list[list[str]]: ...

    def info(self) -> dict[str, Any]: ...


class LocalBackend:
    """Sampling from a local causal LM, with its chat template when it has one; prompts batched, left-padded."""

    def __init__(self, model: Any, batch_size: int = 4, device: str = "cpu") -> None:
        self.lm: CausalLM = load_causal_lm(model, batch_size=batch_size, device=device)

    def complete(
        self, prompts: Sequence[str | JudgePrompt], n: int, temperature: float, seed: int, max_tokens: int
    ) -> list[list[str]]:
        import torch

        tok, model = self.lm.tokenizer, self.lm.model
        pad = tok.pad_token_id if tok.pad_token_id is not None else (tok.eos_token_id or 0)
        out: list[list[str]] = []
        torch.manual_seed(seed)
        for start in range(0, len(prompts), self.lm.batch_size):
            ids = [
                self.lm.prompt_ids(p) if isinstance(p, str) else self.lm.prompt_ids(p.user, p.system)
                for p in prompts[start : start + self.lm.batch_size]
            ]
            width = max(map(len, ids))
            batch = torch.tensor([[pad] * (width - len(x)) + x for x in ids])
            mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in ids])
            sample = temperature > 0
            gen = model.generate(
                input_ids=batch.to(self.lm.device),
                attention_mask=mask.to(self.lm.device),
                do_sample=sample,
                temperature=temperature if sample else None,
                top_k=0 if sample else None,
                num_return_sequences=n,
                max_new_tokens=max_tokens,
                pad_token_id=pad,
            )
            texts = tok.batch_decode(gen[:, width:], skip_special_tokens=True)
            out.extend(texts[i * n : (i + 1) * n] for i in range(len(ids)))
        return out

    def info(self) -> dict[str, Any]:
        return {"backend": "local", **self.lm.info()}


class JudgeEndpointError(RuntimeError):
    """The judge endpoint failed: unreachable, an HTTP error, a refused redirect or a bad answer."""


class JudgeEndpointTimeout(JudgeEndpointError):
    """The judge endpoint did not deliver a whole answer before the request's deadline."""


_DEFAULT_PORTS = {"http": 80, "https": 443}
#: default cap on one HTTP answer of a judge endpoint (``max_response_bytes=`` raises it)
MAX_RESPONSE_BYTES = 16 << 20
_REDIRECTS = (301, 302, 303, 307, 308)


def _origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the scheme's default port filled in: two URLs share an origin when these are equal."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)


def _message_list(prompt: Any) -> list[dict[str, str]]:
    """Chat messages for one prompt: a plain string is the user turn; a ``JudgePrompt`` may add a system turn."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    system, user = getattr(prompt, "system", None), getattr(prompt, "user", None)
    if user is None:
        raise TypeError(f"a judge prompt must be a str or have .system/.user, not {type(prompt).__name__}")
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]


class HTTPBackend:
    """An OpenAI-compatible chat-completions endpoint; asks for ``n`` choices and tops up if fewer come back.

    Safety and liveness (standard library only, ``http.client``):

    - redirects are never followed to another origin (scheme, host, port): the request carries the API
      key and the answer would be taken as the judgement, so a cross-origin 3xx is refused with an error
      naming both URLs; a same-origin redirect is followed (the POST and its body are kept) up to
      ``max_redirects`` times;
    - ``timeout`` is a deadline for the *whole* request (connect, redirects, headers and body): a
      server that drips its answer slowly is cut off when the deadline passes, and the error names the
      endpoint;
    - ``max_response_bytes`` (default 16 MiB, :data:`MAX_RESPONSE_BYTES`) caps the answer: the body is
      read in chunks and the request fails, naming the endpoint and the option, as soon as it passes the
      cap (an endless body once reached 3 GB in 5 s). A chat completion is a few KiB; raise the cap for
      an endpoint that really answers with more.
    """

    def __init__(
        self,
        url: str,
        model: str = "",
        api_key_env: str | None = None,
        timeout: float = 60.0,
        max_requests_per_prompt: int | None = None,
        max_redirects: int = 3,
        max_response_bytes: int = 0,
    ) -> None:
        base = url.rstrip("/")
        self.endpoint = base if base.endswith("/chat/completions") else base + "/chat/completions"
        if urlsplit(self.endpoint).scheme.lower() not in _DEFAULT_PORTS:
            raise ValueError(f"judge endpoint {self.endpoint!r} must be an http:// or https:// URL")
        if not timeout or timeout <= 0:
            raise ValueError(f"judge endpoint timeout must be a positive number of seconds, not {timeout!r}")
        self.model, self.timeout = model, float(timeout)
        self.api_key_env = api_key_env
        self.max_requests = max_requests_per_prompt
        self.max_redirects = max_redirects
        cap = int(max_response_bytes) if max_response_bytes else MAX_RESPONSE_BYTES
        if cap <= 0:
            raise ValueError(
                f"judge endpoint max_response_bytes must be a positive number of bytes, not {max_response_bytes!r}"
            )
        self.max_response_bytes = cap

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key_env and os.environ.get(self.api_key_env):
            headers["Authorization"] = f"Bearer {os.environ[self.api_key_env]}"
        return headers

    def _timeout_error(self) -> JudgeEndpointTimeout:
        return JudgeEndpointTimeout(
            f"judge endpoint {self.endpoint} timed out: no complete answer within the {self.timeout:g} s deadline for "
            "the whole request"
        )

    def _read_capped(self, response: http.client.HTTPResponse) -> bytes:
        """The body, read in chunks, or :class:`JudgeEndpointError` once it passes ``max_response_bytes``."""
        cap = self.max_response_bytes
        declared = response.getheader("Content-Length")
        if declared and declared.strip().isdigit() and int(declared) > cap:
            raise JudgeEndpointError(self._too_large(f"declares {int(declared)} bytes"))
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = response.read(min(1 << 16, cap + 1 - size))
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > cap:
                raise JudgeEndpointError(self._too_large(f"sent more than {cap} bytes"))
            chunks.append(chunk)

    def _too_large(self, what: str) -> str:
        return (
            f"judge endpoint {self.endpoint}: the answer {what}, over the cap of {self.max_response_bytes} bytes; "
            f"raise it with max_response_bytes= if this endpoint really answers with more"
        )

    def _once(self, url: str, data: bytes, headers: dict[str, str], deadline: float) -> tuple[int, str | None, bytes]:
        """One POST to ``url``; (status, Location header, body). Runs in a worker thread so the deadline holds
        however the server paces its bytes."""
        parts = urlsplit(url)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._timeout_error()
        cls = http.client.HTTPSConnection if parts.scheme.lower() == "https" else http.client.HTTPConnection
        if not parts.hostname:
            raise JudgeEndpointError(f"{url}: no host to send the request to")
        conn = cls(parts.hostname, parts.port, timeout=remaining)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                conn.request("POST", target, body=data, headers=headers)
                response = conn.getresponse()
                try:
                    box["ok"] = (response.status, response.getheader("Location"), self._read_capped(response))
                finally:
                    # or the socket stays open (held by the error's traceback) and the server keeps sending
                    response.close()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                box["error"] = exc

        worker = threading.Thread(target=work, name="steb-judge-http", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            conn.close()
            worker.join(1.0)
            raise self._timeout_error()
        conn.close()
        if "error" in box:
            exc = box["error"]
            if isinstance(exc, (socket.timeout, TimeoutError)):
                raise self._timeout_error() from None
            if isinstance(exc, http.client.HTTPException):
                raise JudgeEndpointError(
                    f"judge endpoint {self.endpoint} sent a malformed HTTP answer: {exc!r}"
                ) from None
            if isinstance(exc, OSError):
                raise JudgeEndpointError(f"judge endpoint {self.endpoint} unreachable: {exc}") from None
            raise exc
        answer: tuple[int, str | None, bytes] = box["ok"]
        return answer

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        data, headers = json.dumps(payload).encode(), self._headers()
        url, home = self.endpoint, _origin(self.endpoint)
        for _ in range(self.max_redirects + 1):
            status, location, body = self._once(url, data, headers, deadline)
            if status in _REDIRECTS:
                if not location:
                    raise JudgeEndpointError(
                        f"judge endpoint {self.endpoint} answered HTTP {status} without a Location header"
                    )
                target = urljoin(url, location)
                if _origin(target) != home:
                    why = "it would carry the API key there, and " if "Authorization" in headers else ""
                    raise JudgeEndpointError(
                        f"judge endpoint {self.endpoint} redirected (HTTP {status}) to {target}, a different origin; "
                        f"refusing to follow: {why}an answer from another host is not the judge's. Pass the final URL "
                        "as url="
                    )
                url = target
                continue
            if status >= 400:
                raise JudgeEndpointError(f"judge endpoint {self.endpoint} answered HTTP {status}: {body[:300]!r}")
            try:
                reply: dict[str, Any] = parse_json(body.decode("utf-8"), expected="a chat-completions JSON answer")
                return reply
            except (UnicodeDecodeError, DataValidationError) as exc:
                raise JudgeEndpointError(
                    f"judge endpoint {self.endpoint} answered HTTP {status} with a body that is not JSON ({exc}): "
                    f"{body[:200]!r}"
                ) from None
        raise JudgeEndpointError(f"judge endpoint {self.endpoint}: more than {self.max_redirects} redirects")

    def complete(
        self, prompts: Sequence[Any], n: int, temperature: float, seed: int, max_tokens: int
    ) -> list[list[str]]:
        out = []
        limit = self.max_requests or n
        for p_index, prompt in enumerate(prompts):
            got: list[str] = []
            for attempt in range(limit):
                payload = {
                    "model": self.model,
                    "messages": _message_list(prompt),
                    "n": n - len(got),
                    "temperature": temperature,
                    "seed": seed + attempt,
                    "max_tokens": max_tokens,
                }
                body = self._post(payload)
                try:
                    got.extend(str(c["message"]["content"] or "") for c in body["choices"])
                except (KeyError, TypeError) as exc:
                    raise JudgeEndpointError(
                        f"judge endpoint {self.endpoint}: answer to prompt {p_index} has no choices[].message.content "
                        f"({exc})"
                    ) from None
                if len(got) >= n:
                    break
            if len(got) < n:
                raise JudgeEndpointError(
                    f"judge endpoint {self.endpoint} returned {len(got)} of {n} samples for prompt {p_index} after "
                    f"{limit} requests"
                )
            out.append(got[:n])
        return out

    def info(self) -> dict[str, Any]:
        return {"backend": "http", "endpoint": self.endpoint, "model": self.model}


class CachedBackend:
    """Any backend with an append-only JSONL cache keyed by (query, sample index): a judge run is resumable.

    The key of a query hashes the backend's identity (``info()``), the chat messages (system and user
    turns), temperature, seed and max_tokens. Each sample is stored with its index as soon as its chunk of
    prompts returns (``chunk`` prompts per call, written and fsynced before the next call), so a crash
    loses at most one chunk; a re-run asks the inner backend only for the missing indices. A resumed
    call passes ``seed + first missing index`` so that resumed samples are not replays of the first
    ones. A torn last line (crash mid-write) is ignored.
    """

    def __init__(self, inner: Any, path: str | os.PathLike[str], chunk: int = 8) -> None:
        self.inner, self.path, self.chunk = inner, os.fspath(path), max(1, int(chunk))
        self.samples: dict[str, dict[int, str]] = {}
        self.hits = self.misses = 0
        if os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as fh:
                for number, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    try:
                        rec = parse_json(line)
                        self.samples.setdefault(str(rec["key"]), {})[int(rec["index"])] = str(rec["text"])
                    except (DataValidationError, KeyError, TypeError, ValueError):
                        if line.endswith("\n"):
                            raise ValueError(
                                f"judge cache {self.path}, line {number}: not a cache record (key, index, text)"
                            ) from None
                        # a torn final line from an interrupted write: dropped, its sample is asked again

    def key(self, prompt: Any, temperature: float, seed: int, max_tokens: int) -> str:
        blob = json.dumps(
            {
                "backend": self.inner.info(),
                "messages": _message_list(prompt),
                "temperature": temperature,
                "seed": seed,
                "max_tokens": max_tokens,
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def complete(
        self, prompts: Sequence[Any], n: int, temperature: float, seed: int, max_tokens: int
    ) -> list[list[str]]:
        keys = [self.key(p, temperature, seed, max_tokens) for p in prompts]
        todo: dict[tuple[int, ...], list[int]] = {}
        for i, k in enumerate(keys):
            have = self.samples.get(k, {})
            missing = tuple(j for j in range(n) if j not in have)
            self.hits += n - len(missing)
            if missing:
                todo.setdefault(missing, []).append(i)
        for missing, idx in todo.items():
            for start in range(0, len(idx), self.chunk):
                part = idx[start : start + self.chunk]
                answers = self.inner.complete(
                    [prompts[i] for i in part], len(missing), temperature, seed + missing[0], max_tokens
                )
                with open(self.path, "a", encoding="utf-8") as fh:
                    for i, row in zip(part, answers):
                        for j, text in zip(missing, row):
                            self.samples.setdefault(keys[i], {})[j] = text
                            fh.write(json.dumps({"key": keys[i], "index": j, "text": text}, ensure_ascii=False) + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                self.misses += len(part) * len(missing)
        return [[self.samples[k][j] for j in range(n)] for k in keys]

    def info(self) -> dict[str, Any]:
        return {**self.inner.info(), "cache": self.path}


def make_backend(
    backend: Any = None,
    *,
    url: str | None = None,
    model: Any = None,
    cache: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Backend:
    """A backend object: given as is, or HTTP when ``url`` is set, else local from ``model`` (a folder); wrapped in a
    :class:`CachedBackend` when ``cache`` names a JSONL file."""
    if backend is None:
        if url:
            backend = HTTPBackend(url, model=str(model or ""), **options)
        elif model is None:
            raise ValueError(
                "an LLM judge needs url=... (OpenAI-compatible endpoint) or model=PATH (local causal LM folder)"
            )
        else:
            backend = LocalBackend(model, **options)
    return CachedBackend(backend, cache) if cache else backend
