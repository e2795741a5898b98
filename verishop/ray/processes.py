"""The shop subprocess a server actor runs: its command line, a launch that dies with the actor,
and a bounded wait until it answers.

The command is built in one place, `serve_command`. `verishop serve --workers N` (one worker
process per core by default) is on its way; a server actor is one shop per node next to
trainer processes that want those cores, so it asks for one worker whenever `serve` knows the
option.
"""

from __future__ import annotations

import inspect
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2

from verishop.ray.errors import ServerStartFailed

HEALTH_DEADLINE_S = 60.0
HEALTH_POLL_S = 0.05
STOP_GRACE_S = 10.0
LOG_TAIL_CHARS = 2000
PORT_ATTEMPTS = 3
EXIT_USAGE = 2  # `verishop serve`: a port taken between our probe and its bind, among others

# Run before the real command, in the child: ask the kernel to SIGKILL this process when the
# thread that started it dies (PR_SET_PDEATHSIG = 1), so a killed actor (ray.kill, OOM, a node
# agent restart) never leaves a shop holding its episodes' locks. The flag survives exec. If
# the parent died before prctl ran, getppid() has changed: give up at once.
_DIE_WITH_PARENT = (
    "import ctypes, os, signal, sys; "
    "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL); "
    "os.getppid() == int(sys.argv[1]) or os._exit(1); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def serve_supports_workers() -> bool:
    """Whether this verishop's `serve` has `--workers` (same package, so no subprocess needed)."""
    from verishop.mcp_server.cli import serve

    return "workers" in inspect.signature(serve).parameters


def serve_command(*, catalog: Path, catalog_hash: str, runs_dir: Path, host: str, port: int) -> list[str]:
    """`verishop serve` as a server actor runs it: HTTP, episodes only through the control API
    (the token comes through VERISHOP_TOKEN, never argv, where `ps` would show it), refusing any
    catalog but the cluster's."""
    command = [sys.executable, "-P", "-m", "verishop", "serve", "--transport", "http", "--no-default-episode",
               "--catalog", str(catalog), "--catalog-hash", catalog_hash, "--runs-dir", str(runs_dir),
               "--host", host, "--port", str(port)]
    if serve_supports_workers():
        command += ["--workers", "1"]
    return command


def free_port(host: str) -> int:
    """A port free on `host` now (the server binds it a moment later; `start_shop` retries if lost)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def spawn_bound_to_me(command: list[str], log_path: Path, env: dict[str, str]) -> subprocess.Popen:
    """Start `command` so that it is killed when the calling thread's process dies.

    Call it from a thread that lives as long as the actor (its main thread): the kernel's
    parent-death signal follows the thread that forked, not the process."""
    launcher = [sys.executable, "-P", "-c", _DIE_WITH_PARENT, str(os.getpid()), *command]
    with open(log_path, "ab") as log:
        return subprocess.Popen(launcher, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)


def log_tail(log_path: Path | None) -> str:
    if log_path is None:  # a thread of the actor: its output is in the actor's log
        return "(see the server actor's log in the Ray session's logs)"
    try:
        return log_path.read_text(errors="replace")[-LOG_TAIL_CHARS:]
    except OSError:
        return "(no log)"


def wait_healthy(url: str, proc: subprocess.Popen, log_path: Path | None,
                 deadline_s: float = HEALTH_DEADLINE_S) -> float:
    """Poll `url` until it answers 200, at most `deadline_s`; the seconds it took. Raises
    ServerStartFailed (with the log's tail) if the process exits or the deadline passes."""
    started = time.monotonic()
    with httpx2.Client(timeout=2.0) as http:
        while True:
            if proc.poll() is not None:
                raise ServerStartFailed(f"{url}: the process exited with {proc.returncode}:\n{log_tail(log_path)}")
            try:
                if http.get(url).status_code == 200:
                    return time.monotonic() - started
            except httpx2.TransportError:
                pass
            if time.monotonic() - started > deadline_s:
                raise ServerStartFailed(f"{url}: not healthy after {deadline_s:g} s:\n{log_tail(log_path)}")
            time.sleep(HEALTH_POLL_S)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM (the shop closes its open episodes as server_stopped), then SIGKILL after a grace."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=STOP_GRACE_S)
