"""The encoder a run evaluates: built from a name or adapted from an object, identified, and named.

Three steps, in the order :func:`steb_core.evaluate` takes them: :func:`build_encoder` (a registered
name with checked options, a path or hub id a plugin resolves, or an object with ``encode`` or
``similarity``), :func:`identify_encoder` (what the model *is*, :func:`steb_core._encoders.identify`) and
:func:`name_encoder` (its fingerprint, computed once here, and the results folder it claims).
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._encoders import Identity, encoder_scoring, has_similarity, has_vectors, identify
from .._errors import StebError
from .._executors import EncoderRef
from .._file_reads import FileReads, cache_folders, side_file_hashes
from .._naming import UNIDENTIFIED_PREFIX, claim_name, default_name, short_name
from .._plugins import StebPlugins

__all__ = [
    "BuiltEncoder",
    "RunEncoder",
    "build_encoder",
    "check_options_accepted",
    "identify_encoder",
    "add_read_files",
    "name_encoder",
]


@dataclass(frozen=True)
class BuiltEncoder:
    """An encoder object with a rebuildable reference, the name it shows (``""`` when nothing names it),
    its family and the providing plugin's version (None for objects and resolved paths)."""

    obj: Any
    ref: EncoderRef
    shown: str
    family: str
    provider_version: str | None


@dataclass(frozen=True)
class RunEncoder:
    """The encoder as a run uses it: the object, how workers rebuild it, its name in results, its identity
    and the fingerprint every cache and run key of the run is made with."""

    obj: Any
    ref: EncoderRef
    name: str
    family: str
    identity: Identity
    #: the identity's fingerprint; for an unidentified encoder a key no other run can produce (nothing is reused)
    fingerprint: str
    #: what the user gave when the shown name is shorter (a model path: leaderboards show its last component)
    source: str = ""
    vectors_ok: bool = field(init=False)
    own_similarity: bool = field(init=False)
    #: the encoder's declared scoring modes (part of every run key: they change the pair/cluster figures)
    scoring: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vectors_ok", has_vectors(self.obj))
        object.__setattr__(self, "own_similarity", has_similarity(self.obj))
        object.__setattr__(self, "scoring", encoder_scoring(self.obj))


def check_encoder_options(name: str, factory: Any, options: Mapping[str, Any]) -> None:
    """Refuse options the encoder's factory does not take, naming the encoder and what it accepts."""
    check_options_accepted(f"encoder '{name}'", factory, options, see=" (see `steb list encoders`)")


def check_options_accepted(what: str, factory: Any, options: Mapping[str, Any], see: str = "") -> None:
    """Refuse options ``factory`` (an encoder's or executor's) does not take, naming ``what`` and what it accepts,
    before it is called: a TypeError from inside the factory would name neither."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    accepted = [
        n
        for n, p in params.items()
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise StebError(
            f"{what} does not take option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"it accepts: {', '.join(accepted) or 'no options'}{see}"
        )


def build_encoder(
    plugins: StebPlugins, encoder: Any, options: Mapping[str, Any], local_plugins: tuple[str, ...]
) -> BuiltEncoder:
    """The encoder object for ``evaluate``'s ``encoder`` argument (see :class:`BuiltEncoder`)."""
    if isinstance(encoder, str):
        registry = plugins.encoders()
        if encoder not in registry:
            resolved = plugins.pm.hook.resolve_encoder(name=encoder, options=dict(options))
            if resolved is not None:
                # a path shows as its last component (the full path goes in the record); a hub id as is
                ref = EncoderRef(encoder, dict(options), True, local_plugins, resolved)
                return BuiltEncoder(resolved, ref, short_name(encoder), getattr(resolved, "family", "resolved"), None)
        spec = registry.get(encoder)
        check_encoder_options(encoder, spec.factory, options)
        try:
            obj = spec.factory(**dict(options))
        except TypeError as exc:
            bad = re.search(r"unexpected keyword argument '([^']+)'", str(exc))
            accepted = ", ".join(spec.options_help) or "see `steb list encoders`"
            if bad:
                raise StebError(
                    f"encoder '{encoder}' does not take option {bad.group(1)}; it accepts: {accepted}"
                ) from None
            raise StebError(
                f"encoder '{encoder}' could not be built with options {dict(options)}: {exc} "
                f"(accepted options: {accepted})"
            ) from None
        version, _ = plugins.provider_version(registry.provider(encoder))  # a local plugin: its source hash
        return BuiltEncoder(
            obj, EncoderRef(encoder, dict(options), True, local_plugins, obj), encoder, spec.family, version
        )
    if not callable(getattr(encoder, "encode", None)) and not has_similarity(encoder):
        raise StebError(f"{type(encoder).__name__} has neither encode(texts) nor similarity(texts_a, texts_b)")
    encoder = _adapt(encoder)
    name = default_name(encoder) or ""  # "" when nothing names it: evaluate names it by class and identity
    return BuiltEncoder(
        encoder, EncoderRef(name, {}, False, local_plugins, encoder), name, getattr(encoder, "family", "custom"), None
    )


def _adapt(encoder: Any) -> Any:
    """Objects whose ``encode`` takes another calling convention (MTEB's models) get a thin adapter."""
    from .._adapters import adapt_encoder  # mteb's conventions are looked at only for objects

    return adapt_encoder(encoder)


def identify_encoder(plugins: StebPlugins, built: BuiltEncoder, options: Mapping[str, Any]) -> Identity:
    """What the built encoder is (:func:`steb_core._encoders.identify`): a registered one by its name, options
    and plugin version, probed too when a local plugin provides it; an object by its evidence and a probe."""
    ref = built.ref
    return identify(
        built.obj,
        registered_name=ref.name if ref.registered else None,
        options=options,
        provider_version=built.provider_version,
        probe=_probe_registered(plugins, ref.name, built.obj) if ref.registered else None,
    )


def add_read_files(
    plugins: StebPlugins, built: BuiltEncoder, identity: Identity, reads: FileReads, exclude: tuple[Path, ...] = ()
) -> Identity:
    """``identity`` with the files a local plugin's encoder read while it was built and probed (``reads``) as
    evidence and part of its fingerprint (issue 47): a weights or vocabulary file beside the plugin, edited in
    a way the probe texts do not show, is then another model, never the old one's results. Installed plugins
    and objects are identified as before (their versions and weights say what they are)."""
    registry = plugins.encoders()
    if identity.fingerprint is None or not built.ref.registered or built.ref.name not in registry:
        return identity
    _, local = plugins.provider_version(registry.provider(built.ref.name))
    if not local:
        return identity
    files = side_file_hashes(reads.inputs(), exclude=[*cache_folders(), *map(str, exclude)])
    if not files:
        return identity
    evidence = {**identity.evidence, "read_files": files}
    payload = "\n".join([identity.fingerprint, *(f"{k}\0{v}" for k, v in sorted(files.items()))])
    return Identity(hashlib.sha256(payload.encode("utf-8", "surrogateescape")).hexdigest()[:32], evidence)


def _probe_registered(plugins: StebPlugins, name: str, obj: Any) -> bool | None:
    """True for an encoder registered by a local plugin (``--plugin``): it has no distribution version, so
    besides its source hash it is probed like an unregistered object (its weights may come from
    anywhere the file points to). None (no probe) for installed plugins: a warm run does no model work."""
    registry = plugins.encoders()
    if name not in registry:
        return None
    _, local = plugins.provider_version(registry.provider(name))
    return True if local and has_vectors(obj) else None


def name_encoder(
    built: BuiltEncoder, identity: Identity, name: str | None, output_dir: Path, given: Any
) -> tuple[RunEncoder, list[str]]:
    """The encoder with its fingerprint and the name its results go under, and the notes the user should read.

    ``name`` is ``evaluate``'s (None: the shown name, or the class and identity when nothing names the
    object); a name whose folder holds another identity's results becomes ``NAME@<identity>``
    (:func:`steb_core._naming.claim_name`). ``given`` is ``evaluate``'s ``encoder`` argument: a model
    path longer than the shown name is kept whole as the records' ``source``.
    """
    obj = built.obj
    fingerprint = identity.fingerprint or f"{UNIDENTIFIED_PREFIX}{uuid.uuid4().hex}"
    notes: list[str] = []
    shown = built.shown
    if name is None and not shown:
        shown = f"{type(obj).__name__}-{identity.fingerprint[:8] if identity.fingerprint else 'unidentified'}"
        notes.append(
            f"nothing in the {type(obj).__name__} object names its model; its results are under '{shown}' "
            "(pass name=... to evaluate for a readable name)"
        )
    wanted = str(name).strip() if name is not None else shown
    claimed = claim_name(output_dir, wanted, fingerprint)
    if claimed != wanted:
        notes.append(
            f"results of another model are already under '{wanted}' in {output_dir}; this model's results "
            f"go under '{claimed}' so neither replaces the other (pass name=... to choose a name)"
        )
    ref = built.ref if built.ref.registered else dataclasses.replace(built.ref, name=claimed)  # errors name it so
    if identity.fingerprint is None:
        notes.append(
            f"the identity of encoder '{claimed}' cannot be established: {identity.reason}; "
            "nothing is reused for it (vectors and results are computed fresh)"
        )
    source = given if isinstance(given, str) and given != claimed else ""
    return RunEncoder(obj, ref, claimed, built.family, identity, fingerprint, source), notes
