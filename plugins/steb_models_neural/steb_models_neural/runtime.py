"""Device and dtype resolution: the options users pass as strings, turned into torch objects.

Validation of the *names* (``check_device``, ``dtype_label``) needs no torch, so an encoder can check its
options when it is built and import torch only when it first runs (a warm run never imports it).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .errors import EncoderOptionError

__all__ = [
    "DEVICES",
    "DTYPES",
    "AUTOCAST_DTYPES",
    "check_device",
    "dtype_label",
    "autocast_label",
    "autocast_context",
    "resolve_device",
    "resolve_dtype",
    "parse_bool",
    "parse_int",
]

DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("float32", "float16", "bfloat16")
_DTYPE_ALIASES = {"fp32": "float32", "fp16": "float16", "half": "float16", "bf16": "bfloat16"}


def check_device(device: str | None) -> str:
    """The device option, lower-cased, if it names a known kind of device (availability is checked on load)."""
    name = (str(device) if device is not None else "auto").lower() or "auto"
    if name.split(":", 1)[0] not in DEVICES:
        raise EncoderOptionError(f"unknown device '{device}'; choose one of {', '.join(DEVICES)} (cuda:N allowed)")
    return name


def dtype_label(dtype: Any) -> str:
    """Canonical dtype name ("float32", ...) of a string or torch dtype, without importing torch."""
    if dtype is not None and not isinstance(dtype, str):
        name = str(dtype).removeprefix("torch.")
        if name not in DTYPES:
            raise EncoderOptionError(f"unsupported dtype {dtype}; choose one of {', '.join(DTYPES)}")
        return name
    name = (dtype or "float32").lower()
    name = _DTYPE_ALIASES.get(name, name)
    if name not in DTYPES:
        raise EncoderOptionError(f"unknown dtype '{dtype}'; choose one of {', '.join(DTYPES)}")
    return name


#: reduced precisions ``autocast=`` accepts (float32 weights, matrix products in this type)
AUTOCAST_DTYPES = ("float16", "bfloat16")


def autocast_label(value: Any) -> str | None:
    """Canonical name of the ``autocast`` option (None: off), without importing torch."""
    if value is None or (
        isinstance(value, str) and value.strip().lower() in ("", "none", "off", "false", "float32", "fp32")
    ):
        return None
    name = dtype_label(value)
    if name not in AUTOCAST_DTYPES:  # pragma: no cover - dtype_label already refuses the rest
        raise EncoderOptionError(f"autocast={value!r}: choose float16 or bfloat16")
    return name


@contextmanager
def autocast_context(device: Any, autocast: str | None) -> Iterator[None]:
    """Run the body under ``torch.autocast`` in ``autocast`` precision on ``device`` (off: no-op).

    torch does not run every precision on every device (it disables autocast with a warning when
    the device type does not support the type, e.g. float16 on older CPU builds); steb refuses that
    instead, because the vectors would silently be float32 ones under a reduced-precision identity.
    """
    if autocast is None:
        yield
        return
    import torch

    kind = torch.device(device).type
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        context = torch.autocast(device_type=kind, dtype=getattr(torch, autocast))
        context.__enter__()
    disabled = [w for w in caught if "autocast" in str(w.message).lower()]
    if disabled or not torch.is_autocast_enabled(kind):
        context.__exit__(None, None, None)
        said = f" (torch: {disabled[0].message})" if disabled else ""
        raise EncoderOptionError(
            f"autocast={autocast} is not supported on device '{device}' by this torch build{said}; "
            f"use autocast=bfloat16, dtype=..., or run without autocast"
        )
    try:
        yield
    finally:
        context.__exit__(None, None, None)


def resolve_device(device: str | None) -> Any:
    """``auto`` picks CUDA, then Apple MPS, then CPU; an explicit device that is absent is an error."""
    import torch

    name = check_device(device)
    base = name.split(":", 1)[0]
    if base == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if base == "cuda" and not torch.cuda.is_available():
        raise EncoderOptionError("device 'cuda' was asked for but torch sees no CUDA GPU; use device=cpu or auto")
    if base == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise EncoderOptionError("device 'mps' was asked for but Apple MPS is not available; use device=cpu or auto")
    return torch.device(name)


def resolve_dtype(dtype: Any) -> Any:
    """The torch dtype of a dtype option (imports torch)."""
    import torch

    return getattr(torch, dtype_label(dtype))


def parse_bool(value: object, option: str) -> bool:
    """Options arrive as strings from the CLI (``-O trust_remote_code=true``)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise EncoderOptionError(f"option {option}={value!r} is not a boolean (use true/false)")


def parse_int(value: Any, option: str, *, minimum: int = 1) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise EncoderOptionError(f"option {option}={value!r} is not an integer") from None
    if number < minimum:
        raise EncoderOptionError(f"option {option}={number} must be at least {minimum}")
    return number
