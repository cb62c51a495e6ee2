"""Errors of the neural plugin that a user can cause (and fix without a debugger)."""

from __future__ import annotations

from steb_core import ModelNotFoundError, StebError

__all__ = ["ModelNotAvailableError", "EncoderOptionError"]


class ModelNotAvailableError(ModelNotFoundError):
    """The weights of a model are not on this machine; the message says how to get them.

    steb downloads weights only when asked (``steb models get``, ``steb run --download``): runs must be
    reproducible offline and must not stall on a network, so the fix is always an explicit download.
    """


class EncoderOptionError(StebError, ValueError):
    """An encoder option has a value the encoder cannot use (unknown device, dtype, ...)."""
