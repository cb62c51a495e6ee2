"""Local steb plugin for the Ray executor tests: a deterministic encoder that can crash its process.

``ray-test-chargrams`` hashes character bigrams into 64 dimensions (relative frequencies): cheap,
deterministic, and style-sensitive enough that the demo suite's scores are not all trivial.
Test options:

- ``crash_marker`` + ``crash_on_call``: on that encode call *in one process*, if the marker file
  does not exist yet, create it and ``os._exit(1)`` — a worker killed mid-run, once per test.
  ``spare_pid``: never crash in this process (the test's own: the runner probes a local plugin's
  encoder on the driver, two encode calls, to establish its identity).
- ``calls_log``: append one line per finished encode call (pid and batch size), so a test can count
  how often batches were encoded.
- ``attempts_log`` + ``bad_text``: log every call as it starts (pid, size, :func:`batch_id`); a batch holding a text
  that contains
  ``bad_text`` gets a NaN vector for it (an encoder error no retry can change).
"""

from __future__ import annotations

import os
import zlib

import numpy as np

from steb_core import EncoderSpec, hookimpl

DIM = 64


def batch_id(texts: list[str]) -> int:
    """A short fingerprint of a batch's texts, as written to ``attempts_log``."""
    return zlib.crc32("\n".join(texts).encode("utf-8", "surrogatepass"))


class CharGramEncoder:
    name = "ray-test-chargrams"

    def __init__(
        self,
        crash_marker: str | None = None,
        crash_on_call: int = 2,
        calls_log: str | None = None,
        attempts_log: str | None = None,
        bad_text: str | None = None,
        spare_pid: int | None = None,
    ) -> None:
        self.spare_pid = spare_pid
        self.crash_marker = crash_marker
        self.crash_on_call = crash_on_call
        self.calls_log = calls_log
        self.attempts_log = attempts_log
        self.bad_text = bad_text
        self.calls = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.attempts_log:
            with open(self.attempts_log, "a", encoding="utf-8") as handle:
                handle.write(f"{os.getpid()}\t{len(texts)}\t{batch_id(texts)}\n")
        if self.crash_marker and self.calls == self.crash_on_call and os.getpid() != self.spare_pid:
            try:
                fd = os.open(self.crash_marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.close(fd)
                os._exit(1)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for a, b in zip(text, text[1:]):
                out[row, zlib.crc32((a + b).encode("utf-8", "surrogatepass")) % DIM] += 1.0
            total = out[row].sum()
            if total:
                out[row] /= total
            if self.bad_text and self.bad_text in text:
                out[row, 0] = np.nan
        if self.calls_log:
            with open(self.calls_log, "a", encoding="utf-8") as handle:
                handle.write(f"{os.getpid()}\t{len(texts)}\t{batch_id(texts)}\n")
        return out


@hookimpl
def register_encoders(register):
    register(
        EncoderSpec(
            name=CharGramEncoder.name,
            family="test",
            description="hashed character bigrams (Ray executor tests)",
            factory=lambda **options: CharGramEncoder(**options),
        )
    )
