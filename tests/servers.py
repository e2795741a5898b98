"""Real server subprocesses for the client tests: `verishop serve --transport http` and the
verifier sidecar, each on a free port, healthy (bounded polling) before the test starts."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2

STARTUP_DEADLINE_S = 30.0
POLL_INTERVAL_S = 0.05


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(args: list[str], log_path: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start `python -m verishop ARGS --port P`, wait for /health, yield its base URL, stop it."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "verishop", *args, "--port", str(port)],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE_S
        with httpx2.Client(base_url=base, timeout=2.0) as http:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{args[0]} exited with {proc.returncode}:\n{log_path.read_text()}")
                try:
                    if http.get("/health").status_code == 200:
                        break
                except httpx2.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{args[0]} not healthy after {STARTUP_DEADLINE_S}s:\n{log_path.read_text()}")
                time.sleep(POLL_INTERVAL_S)
        yield base
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def shop_server(catalog_path: Path, root: Path) -> contextlib.AbstractContextManager[str]:
    return running(["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
                    "--runs-dir", str(root / "runs")], root / "server.log", {"VERISHOP_HOME": str(root / "home")})


def verifier_sidecar(catalog_path: Path, root: Path) -> contextlib.AbstractContextManager[str]:
    (root / "runs").mkdir(parents=True, exist_ok=True)
    return running(["verifier", "serve", "--runs-dir", str(root / "runs"), "--catalog", str(catalog_path)],
                   root / "verifier.log", {"VERISHOP_HOME": str(root / "home")})
