"""Stops that stop (issue 37, breaks 10 and 11), on real `verishop serve --transport http`
subprocesses: a request whose body has not arrived does not hold a stop (it held one for 30 s,
the supervisor's kill deadline); the world store is removed on SIGTERM as on SIGINT; recovery
removes the `.ep_*.creating` folder a creation killed half-way leaves; the supervisor waits for
its workers longer than a worker waits for a body."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
from pathlib import Path

import httpx2
import pytest
from servers import started

from verishop.mcp_server.http.limits import BODY_DEADLINE_S
from verishop.mcp_server.http.workers import WORKER_STOP_DEADLINE_S

# Well under the 30 s body deadline: a stop that waited for the body would miss it.
STOP_DEADLINE_S = 12.0


def serve_args(catalog_path: Path, tmp_path: Path, workers: str) -> list[str]:
    return ["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path),
            "--runs-dir", str(tmp_path / "runs"), "--workers", workers]


def closing_reason(runs: Path, episode_id: str) -> str | None:
    last = json.loads((runs / episode_id / "transcript.jsonl").read_text().splitlines()[-1])
    return last.get("reason") if last["event"] == "episode_closed" else None


def half_sent_request(url: str) -> socket.socket:
    """A connection that has sent a POST's head and 10 of its 1,000 body bytes, and stops there."""
    parsed = httpx2.URL(url)
    conn = socket.create_connection((parsed.host, parsed.port), timeout=10)
    conn.sendall(f"POST {parsed.raw_path.decode()} HTTP/1.1\r\nHost: {parsed.host}:{parsed.port}\r\n"
                 f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                 f"Content-Length: 1000\r\n\r\n".encode() + b'{"jsonrpc"')
    return conn


def stop_and_wait(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> float:
    proc.send_signal(sig)
    try:
        proc.wait(timeout=STOP_DEADLINE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
        pytest.fail(f"the server did not stop within {STOP_DEADLINE_S}s of the signal")
    return proc.returncode


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_request_whose_body_has_not_arrived_does_not_hold_a_stop(catalog_path: Path, tmp_path: Path,
                                                                    workers: str) -> None:
    runs = tmp_path / "runs"
    with started(serve_args(catalog_path, tmp_path, workers), tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            created = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 1})
            assert created.status_code == 201, created.text
            episode_id, mcp_url = created.json()["episode_id"], created.json()["mcp_url"]
            slow = [half_sent_request(mcp_url), half_sent_request(f"{server.base}/episodes")]
            # A whole request on a fresh connection is answered: the half-sent ones have been read.
            assert http.get("/health").status_code == 200
            assert httpx2.get(mcp_url.rsplit("/mcp", 1)[0].replace(f"/episodes/{episode_id}", "/health"),
                              timeout=10).status_code == 200
        try:
            stop_and_wait(server.proc)
        finally:
            for conn in slow:
                conn.close()
    assert closing_reason(runs, episode_id) == "server_stopped", server.log()[-2000:]
    assert not list(runs.glob(".worlds-*")), sorted(p.name for p in runs.iterdir())


def test_the_world_store_is_removed_on_sigterm_as_on_sigint(catalog_path: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with started(serve_args(catalog_path, tmp_path, "1"), tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            created = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 2})
            assert created.status_code == 201, created.text
            episode_id = created.json()["episode_id"]
        assert list(runs.glob(".worlds-*.db")), "the open episode's world is in the store"
        stop_and_wait(server.proc, signal.SIGTERM)
    assert closing_reason(runs, episode_id) == "server_stopped", server.log()[-2000:]
    assert not list(runs.glob(".worlds-*")), sorted(p.name for p in runs.iterdir())


def test_recovery_removes_the_creating_folder_a_killed_creation_left_and_spares_a_live_one(
        catalog_path: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    dead = runs / f".ep_{'a' * 24}.creating"
    dead.mkdir()
    with_file = runs / f".ep_{'b' * 24}.creating"
    with_file.mkdir()
    (with_file / "scenario.json").write_text("{}")
    live = runs / f".ep_{'c' * 24}.creating"
    live.mkdir()
    lookalike = runs / ".not_an_episode.creating"
    lookalike.mkdir()
    held = os.open(live, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a live server creating it holds this lock
    try:
        with started(serve_args(catalog_path, tmp_path, "1"), tmp_path / "server.log",
                     {"VERISHOP_HOME": str(tmp_path / "home")}):
            assert not dead.exists() and not with_file.exists()
            assert live.is_dir() and lookalike.is_dir()
    finally:
        os.close(held)


def test_the_supervisor_waits_for_its_workers_longer_than_a_worker_waits_for_a_body() -> None:
    assert WORKER_STOP_DEADLINE_S > BODY_DEADLINE_S + 5
