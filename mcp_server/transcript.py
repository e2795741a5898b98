"""The append-only transcript (`transcript.jsonl`): one JSON event per line, flushed per
event, so a killed server loses nothing it already answered."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

TRANSCRIPT_VERSION = 1


class Transcript:
    def __init__(self, path: Path):
        self.path = path
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
        line = json.dumps(record, default=str, ensure_ascii=False, separators=(",", ":")) + "\n"
        os.write(self._fd, line.encode())
        return self._seq

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
