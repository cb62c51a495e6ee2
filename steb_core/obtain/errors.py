"""The one error class of ``steb data get``: a fetch that failed, naming the URL or file at fault."""

from __future__ import annotations

from .._errors import StebError

__all__ = ["FetchError"]


class FetchError(StebError):
    """A download, clone, checksum or unpack step failed; the message names the URL or file and why.

    ``transient`` is True for failures a later try may not repeat (a server error, a timeout), so a
    caller can tell "try again later" from "the release is not what the spec says".
    """

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.retryable = transient
