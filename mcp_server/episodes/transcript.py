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


# `json.dumps` with these options, built once (dumps builds an encoder per call): the slow path.
_STRICT = json.JSONEncoder(default=str, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def strict_json_bytes(value: Any) -> bytes:
    """One compact line of strict JSON, in UTF-8 (no NaN or Infinity tokens: those become strings).

    Written by pydantic-core's encoder, three times as fast as the standard library's on a search
    result; a value it cannot write, or holding a non-finite number (or those words in a string),
    takes the standard library's path. Either way the line reads back as the same JSON values
    (the two differ only in how they spell some floats: `1e-7` or `1e-07`)."""
    try:
        line = to_json(value, fallback=str, inf_nan_mode="constants")
    except PydanticSerializationError:
        line = b""
    if not line or b"NaN" in line or b"Infinity" in line:  # rare: only then walk the value
        return strict_json(value).encode()
    return line


def strict_json(value: Any) -> str:
    """`strict_json_bytes` as text, by the standard library's encoder."""
    try:
        return _STRICT.encode(value)
    except ValueError:  # a non-finite float somewhere: rare, so only then walk the value
        return _STRICT.encode(_finite(value))


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # 'inf', '-inf', 'nan'
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
