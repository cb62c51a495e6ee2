"""Where a vector task's heavy arithmetic runs: numpy on the CPU, or torch on the encoder's device.

Issue 28 §3: when the encoder runs on a GPU, the score blocks of retrieval and all-to-all, the
probing solver's matrix products and order alignment's cosines run there too, instead of leaving
the GPU idle while the CPU works. On a CPU the numpy kernels stay the default (they are tuned for
it: see ``bench/tasks``).

The choice, per task run (first that is set):

1. the run option ``tasks.device`` (``steb run --task-option tasks.device=...``), else
2. the environment variable ``STEB_TASK_DEVICE``, else
3. ``auto``.

Values: ``numpy`` (the CPU numpy kernels), ``auto`` (torch on the encoder's device when that is a
CUDA GPU, :attr:`steb_core.TaskContext.device`, else numpy), or a torch device name (``cpu``, ``cuda``,
``cuda:1``) to run the torch kernels there whatever the encoder; ``cpu`` is how the tests compare the
torch kernels with the numpy ones on a machine without a GPU. Apple's ``mps`` has no float64, which
the tie rules below need: ``auto`` keeps numpy for an encoder there, and asking for it is refused.

What stays the same (the tolerance each torch kernel is held to is stated in its module):

- retrieval ranks: identical rules (float64 keys on the 2**-20 grid, float32 screen with a
  rigorous error band, float64 recheck of the band), so the counts equal the numpy path's except
  when a float64 cosine lies within a few ulps (~1e-16) of a grid-cell edge, the same caveat as
  between two CPUs;
- all-to-all: float64 cosines and the same keys, same caveat;
- order alignment: float64 cosines, equal to numpy's within a few ulps; the decision rule and its
  exact arithmetic run on the CPU as before;
- probing: the float32 products run on the device; the L-BFGS iterations see other roundings,
  so solutions agree within the solver's tolerance (max |gradient| <= 1e-4), not bitwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._context import TaskContext, task_option

__all__ = ["kernel_device", "ENV_VAR", "torch_precision"]

ENV_VAR = "STEB_TASK_DEVICE"
_AUTO = "auto"
_NUMPY = "numpy"


def _choice(ctx: TaskContext | None) -> str:
    value = task_option(ctx.options, "tasks", "device", None) if ctx is not None else None
    if value in (None, ""):
        value = os.environ.get(ENV_VAR, "") or _AUTO
    return str(value).strip().lower()


def kernel_device(ctx: TaskContext | None) -> Any | None:
    """The torch device the task's kernels run on, or None for the numpy path (module docstring)."""
    choice = _choice(ctx)
    if choice == _NUMPY:
        return None
    if choice == _AUTO:
        encoder_device = getattr(ctx, "device", None) if ctx is not None else None
        if not encoder_device or str(encoder_device).split(":", 1)[0] != "cuda":
            return None
        choice = str(encoder_device)
    try:
        import torch
    except ImportError:
        raise ValueError(
            f"task device '{choice}' needs torch, which is not installed; use tasks.device=numpy"
        ) from None
    try:
        device = torch.device(choice)
    except RuntimeError as exc:
        raise ValueError(
            f"task device '{choice}' (option tasks.device or ${ENV_VAR}) is not a torch device; "
            f"expected numpy, auto, cpu, cuda or cuda:N ({exc})"
        ) from None
    if device.type == "mps":
        raise ValueError(
            f"task device '{choice}': MPS has no float64, which the tasks' tie rules need; use tasks.device=numpy"
        )
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"task device '{choice}' was asked for but torch sees no CUDA GPU; use tasks.device=numpy or auto"
        )
    return device


@contextmanager
def torch_precision() -> Iterator[None]:
    """float32 products in full float32 (no TF32 / bf16 shortcuts) for the body, restored after.

    The retrieval screen's error band assumes float32 arithmetic; TF32 would break it.
    """
    import torch

    saved = torch.get_float32_matmul_precision()
    saved_cudnn = torch.backends.cudnn.allow_tf32
    torch.set_float32_matmul_precision("highest")
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(saved)
        torch.backends.cudnn.allow_tf32 = saved_cudnn
