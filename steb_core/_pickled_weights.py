"""Pickled weights that torch refuses to load: an error that names the file and says why, never "weights_only=False".

steb and its plugins load model weights with ``torch.load(weights_only=True)`` (directly, or inside
transformers' and sentence-transformers' ``from_pretrained``), so a ``pytorch_model.bin`` or ``.ckpt`` that
pickles code (``os.system``, a nested ``torch.load``) is refused before anything in it runs. torch's own
message for that names no file, is a page long, and suggests re-running with ``weights_only=False`` -- the
one thing a user must not do with a file from an untrusted source. :func:`refusing_unsafe_weights` turns it
into one :class:`~steb_core._errors.DataValidationError` naming the file, what it would have imported and what
to use instead; :func:`unsafe_pickle_reason` extracts the "what" (the COMET reader words its own message).
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ._errors import DataValidationError

__all__ = ["unsafe_pickle_reason", "refusing_unsafe_weights", "find_refused_file"]

_GLOBAL = re.compile(r"GLOBAL ([\w.]+)")
_OPERAND = re.compile(r"Unsupported operand (\d+)")
#: pickled weight files a model folder (or a sentence-transformers module folder in it) may hold
_PICKLED = ("*.bin", "*.pt", "*.pth", "*.ckpt")


def unsafe_pickle_reason(exc: BaseException) -> str | None:
    """What torch's weights-only reader refused in ``exc`` ("the global posix.system", "pickle opcode 149 ..."),
    or None when ``exc`` is not such a refusal."""
    if not isinstance(exc, pickle.UnpicklingError):
        return None
    text = str(exc)
    found = _GLOBAL.search(text)
    if found:
        return f"the global {found.group(1)}"
    found = _OPERAND.search(text)
    if found:
        return (
            f"pickle opcode {found.group(1)}, which torch's weights-only reader does not accept "
            "(torch.save's defaults never write it)"
        )
    tail = [line.strip() for line in text.split("WeightsUnpickler error:")[-1].splitlines() if line.strip()]
    if tail and "Weights only load failed" not in tail[0]:
        return tail[0]
    return "an object that is not a tensor or a plain container"


def find_refused_file(folder: str | Path) -> Path | None:
    """The first pickled weight file in ``folder`` (or one level below) that torch's weights-only reader refuses.

    Used after ``from_pretrained`` failed, since torch's error does not say which file it was reading. Each
    candidate is opened memory-mapped, so a large checkpoint costs little; None when none is refused.
    """
    import torch  # only when a load already failed

    base = Path(folder)
    found = [p for pattern in _PICKLED for p in [*base.glob(pattern), *base.glob(f"*/{pattern}")]]
    candidates = sorted({p for p in found if p.is_file()})
    for path in candidates:
        try:
            torch.load(str(path), map_location="cpu", weights_only=True, mmap=True)
        except pickle.UnpicklingError:
            return path
        except Exception:  # noqa: BLE001 - not a torch zip file (mmap needs one), truncated, ...: try without mmap
            try:
                torch.load(str(path), map_location="cpu", weights_only=True)
            except pickle.UnpicklingError:
                return path
            except Exception:  # noqa: BLE001
                continue
    return None


@contextmanager
def refusing_unsafe_weights(folder: str | Path, what: str, *, file: str | Path | None = None) -> Iterator[None]:
    """Re-raise torch's weights-only refusal inside the block as an error naming the file and the reason.

    ``what`` names the model in the message (an encoder or scorer name); ``file`` is the file being read
    when the caller knows it (a direct ``torch.load``), else it is found in ``folder`` (:func:`find_refused_file`).
    """
    try:
        yield
    except pickle.UnpicklingError as exc:
        reason = unsafe_pickle_reason(exc)
        path = Path(file) if file is not None else find_refused_file(folder)
        where = path if path is not None else Path(folder)
        raise DataValidationError(
            f"holds weights of {what} that were refused: the file is a pickle that would import {reason} when loaded, "
            "which weights (tensors) never need; nothing from it was run",
            path=where,
            expected="tensors only: use the model's .safetensors weights, or, if you trust where the file came from, "
            "re-save its state dict with torch.save(model.state_dict(), ...)",
        ) from None
