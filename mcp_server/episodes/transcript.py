"""The append-only transcript (`transcript.jsonl`): one JSON event per line, flushed per
event, so a killed server loses nothing it already answered. Every line is strict JSON (RFC
8259): a non-finite number, which Python would write as a bare `NaN` or `Infinity` token that
other readers reject, is written as a string instead.

With a seal key (`scenarios/seal.py`) each line also carries its link of the keyed digest chain:
one HMAC over the line being written, so the hot path never re-reads the file."""

from __future__ import annotations

import errno
import json
import math
import os
import time
from pathlib import Path
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

from verishop.scenarios.seal import SealChain, SealKey

TRANSCRIPT_VERSION = 1


class Transcript:
    def __init__(self, path: Path, seal_key: SealKey | None = None):
        self.path = path
        self._chain = SealChain(seal_key) if seal_key is not None else None
        # O_APPEND: each event is one write() at the end of the file, even if reopened.
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._seq = 0
        self._started = time.perf_counter()

    def write(self, event: str, **fields: Any) -> int:
        """Append one event; returns its sequence number."""
        if self._fd < 0:
            raise RuntimeError(f"transcript {self.path} is closed")
        self._seq += 1
        record = {"seq": self._seq, "event": event,
                  "elapsed_ms": round((time.perf_counter() - self._started) * 1000, 3), **fields}
        line = strict_json_bytes(record)
        previous = self._chain.previous if self._chain is not None else ""
        if self._chain is not None:
            line = self._chain.seal_bytes(line)
        data = line + b"\n"
        written = os.write(self._fd, data)
        if written != len(data):  # a full disk: take the partial line back, never leave half an event
            os.ftruncate(self._fd, os.fstat(self._fd).st_size - written)
            self._seq -= 1
            if self._chain is not None:
                self._chain.previous = previous
            raise OSError(errno.ENOSPC, f"no space left for {self.path.name}: event {event!r} not written")
        return self._seq

    def mark(self) -> tuple[int, int, str]:
        """Where the transcript ends now: `rewind` to it drops every event written since."""
        return os.fstat(self._fd).st_size, self._seq, self._chain.previous if self._chain is not None else ""

    def rewind(self, mark: tuple[int, int, str]) -> None:
        """Drop the events written since `mark` (truncating needs no free space, so it works on
        a full disk: a write whose COMMIT failed is taken back, then recorded as failed)."""
        size, self._seq, previous = mark
        os.ftruncate(self._fd, size)
        if self._chain is not None:
            self._chain.previous = previous

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


# The standard library's encoder, built once (dumps builds one per call): for what pydantic-core's cannot write.
_STRICT = json.JSONEncoder(default=str, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def strict_json_bytes(value: Any) -> bytes:
    """One compact line of strict JSON (RFC 8259), in UTF-8: a non-finite number, which Python
    would write as a bare `NaN` or `Infinity` token that other readers reject, is written as the
    string "NaN", "Infinity" or "-Infinity". A value of a type JSON lacks is written as pydantic-core
    writes it (a date in ISO 8601, a tuple or a set as a list), else as its `str`.

    Written by pydantic-core's encoder, three times as fast as the standard library's on a search
    result; what it cannot write goes to the standard library's, which raises the error that says why."""
    try:
        return to_json(value, fallback=str, inf_nan_mode="strings")
    except PydanticSerializationError:  # rare: a string that is no text (a lone surrogate), a loop
        try:
            line = _STRICT.encode(value)
        except ValueError:
            line = _STRICT.encode(_finite(value))
        return line.encode()


def strict_json(value: Any) -> str:
    """`strict_json_bytes`, as text."""
    return strict_json_bytes(value).decode()


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
