"""The NeMo Gym side of the pipe to verishop's worker (`python -m verishop.local.worker`: see there
for why it is a second process).

One worker per server process, started on first use with verishop's Python:
`$VERISHOP_PYTHON` (the interpreter of a venv where verishop is installed, e.g. the repository's
`.venv/bin/python`). Requests are answered one at a time, in order.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import threading
from typing import Any

WORKER = ("-m", "verishop.local.worker")  # run by verishop's Python, never imported here


class ShopProcessError(RuntimeError):
    """The worker could not be started, or answered a request with an error."""


class ShopProcess:
    """One verishop worker; `request` is thread-safe (one request at a time, in order)."""

    def __init__(self, python: str | None = None):
        python = python or os.environ.get("VERISHOP_PYTHON")
        if not python:
            raise ShopProcessError("set VERISHOP_PYTHON to the Python of a venv where verishop is installed "
                                   "(e.g. the repository's .venv/bin/python)")
        self._process = subprocess.Popen([python, *WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True, bufsize=1)
        self._lock = threading.Lock()

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        with self._lock:
            if self._process.poll() is not None:
                raise ShopProcessError(f"the verishop worker exited with code {self._process.returncode}")
            self._process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        if not line:
            raise ShopProcessError("the verishop worker closed its pipe (see its stderr)")
        reply = json.loads(line)
        if reply.get("error") and op != "call":  # a tool's error is the episode's business, not a failure
            raise ShopProcessError(reply["error"])
        return reply

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()


_shared: ShopProcess | None = None
_shared_lock = threading.Lock()


def shared(python: str | None = None) -> ShopProcess:
    """This process's worker, started on first use (with `python`, else `$VERISHOP_PYTHON`) and
    stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ShopProcess(python)
            atexit.register(_shared.close)
        return _shared
