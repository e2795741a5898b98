"""Real server subprocesses for the tests: `verishop serve --transport http` and the
verifier sidecar, each on a free port, healthy (bounded polling) before the test starts."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2

STARTUP_DEADLINE_S = 30.0
POLL_INTERVAL_S = 0.05


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Process:
    """A running `verishop` subprocess: its base URL, its handle and its log."""

    base: str
    proc: subprocess.Popen
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def started(args: list[str], log_path: Path, env: dict[str, str] | None = None, *, cwd: Path | None = None,
            preexec_fn: Callable[[], None] | None = None,
            deadline_s: float = STARTUP_DEADLINE_S) -> Iterator[Process]:
    """Start `python -m verishop ARGS --port P` on a free port, wait (bounded) until /health
    answers, yield it, and stop it on exit (SIGTERM, then SIGKILL)."""
    port = free_port()
    if args[:1] == ["serve"] and "--workers" not in args:
        # One process unless a test asks for workers: it starts in a second (a supervisor and a
        # worker per core take several), and tests that look at the server's pid mean that process.
        args = [*args, "--workers", "1"]
    # a token in the developer's shell must not leak into servers that the test did not give one
    inherited = {k: v for k, v in os.environ.items() if k != "VERISHOP_TOKEN"}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "verishop", *args, "--port", str(port)],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                                env={**inherited, **(env or {})}, preexec_fn=preexec_fn)
    server = Process(f"http://127.0.0.1:{port}", proc, log_path)
    try:
        deadline = time.monotonic() + deadline_s
        with httpx2.Client(base_url=server.base, timeout=2.0) as http:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{args[0]} exited with {proc.returncode}:\n{server.log()}")
                with contextlib.suppress(httpx2.TransportError):
                    if http.get("/health").status_code == 200:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{args[0]} not healthy after {deadline_s}s:\n{server.log()}")
                time.sleep(POLL_INTERVAL_S)
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@contextlib.contextmanager
def running(args: list[str], log_path: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """`started`, yielding only the base URL."""
    with started(args, log_path, env) as server:
        yield server.base


def shop_server(catalog_path: Path, root: Path) -> contextlib.AbstractContextManager[str]:
    return running(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                    "--runs-dir", str(root / "runs")], root / "server.log", {"VERISHOP_HOME": str(root / "home")})


def verifier_sidecar(catalog_path: Path, root: Path) -> contextlib.AbstractContextManager[str]:
    (root / "runs").mkdir(parents=True, exist_ok=True)
    return running(["verifier", "serve", "--runs-dir", str(root / "runs"), "--catalog", str(catalog_path)],
                   root / "verifier.log", {"VERISHOP_HOME": str(root / "home")})
