"""`verishop serve --workers 2`: a supervisor and two real worker processes. Episodes are placed
on the least-loaded worker and their MCP URLs name it; the control API, /health and
--max-episodes span the workers; a worker killed with SIGKILL is replaced and only its episodes
close (server_crashed); SIGTERM closes everything (server_stopped); a killed supervisor leaves
no worker behind."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from servers import Process, free_port, started

from verishop.mcp_server.http.front import worker_url
from verishop.verifier.runner import Verifier

DEADLINE_S = 60.0
POLL_S = 0.05
PROCESS_EXIT_S = 30.0
RPC_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-11-25"}


def serve_workers(catalog_path: Path, root: Path, *extra: str) -> Iterator[Process]:
    return started(["serve", "--transport", "http", "--workers", "2", "--catalog", str(catalog_path),
                    "--runs-dir", str(root / "runs"), *extra], root / "server.log",
                   {"VERISHOP_HOME": str(root / "home")})


def wait_for(what: str, check: Callable[[], object], deadline_s: float = DEADLINE_S) -> object:
    """Poll `check` until it returns something truthy, at most `deadline_s`."""
    deadline = time.monotonic() + deadline_s
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {deadline_s:.0f}s: {what}")
        time.sleep(POLL_S)
    return value


def port(url: str) -> int:
    return urlsplit(url).port


def health(http: httpx2.Client) -> dict:
    r = http.get("/health")
    assert r.status_code == 200, r.text
    return r.json()


def create(http: httpx2.Client, seed: int) -> dict:
    r = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": seed})
    assert r.status_code == 201, r.text
    return r.json()


def call_tool(url: str, name: str, arguments: dict) -> dict:
    """One stateless JSON-RPC tools/call: its result, or an `{"error": ...}` the tool answered."""
    r = httpx2.post(url, headers=RPC_HEADERS, timeout=30.0, json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
    assert r.status_code == 200, r.text
    data = next(json.loads(line[5:]) for line in r.text.splitlines() if line.startswith("data:"))["result"]
    return {"error": data["content"][0]["text"]} if data["isError"] else data["structuredContent"]


def last_event(run_dir: str) -> dict:
    return json.loads((Path(run_dir) / "transcript.jsonl").read_text().splitlines()[-1])


def exited(pid: int) -> bool:
    """Gone, or a zombie nobody reaped yet (it serves nothing)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.fixture(scope="module")
def two_workers(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Process]:
    with serve_workers(catalog_path, tmp_path_factory.mktemp("workers")) as server:
        yield server


def test_episodes_are_placed_on_the_least_loaded_worker_and_served_at_its_own_port(two_workers: Process) -> None:
    with httpx2.Client(base_url=two_workers.base, timeout=30.0) as http:
        before = health(http)
        assert before["status"] == "ok" and len(before["workers"]) == 2
        assert [w["open_episodes"] for w in before["workers"]] == [1, 0]  # worker 0 holds the default episode
        episodes = [create(http, seed) for seed in range(5)]
        worker_ports = [w["port"] for w in before["workers"]]
        placed = [worker_ports.index(port(ep["mcp_url"])) for ep in episodes]
        # 1 + 2 on worker 0 (the default episode counts), 3 on worker 1
        assert sorted(placed) == [0, 0, 1, 1, 1], placed
        assert port(two_workers.base) not in worker_ports
        for ep in episodes:
            assert port(ep["sse_url"]) == port(ep["mcp_url"]) and ep["mcp_url"].startswith("http://127.0.0.1:")
            found = call_tool(ep["mcp_url"], "search_catalog", {"category_id": "headphones", "limit": 3})
            assert len(found["results"]) == 3, found
            shown = http.get(f"/episodes/{ep['episode_id']}").json()
            assert (shown["status"], shown["mcp_url"], shown["turns_used"]) == ("open", ep["mcp_url"], 0)

        after = health(http)
        assert after["open_episodes"] == 6 and [w["open_episodes"] for w in after["workers"]] == [3, 3]
        assert after["max_episodes"] == sum(w["max_episodes"] for w in after["workers"])

        closed = http.delete(f"/episodes/{episodes[0]['episode_id']}").json()
        assert (closed["status"], closed["close_reason"]) == ("closed", "closed_by_client")
        assert "closed" in call_tool(episodes[0]["mcp_url"], "view_cart", {})["error"]
        assert http.get("/episodes/ep_" + "0" * 24).status_code == 404
        assert http.get("/curriculum").json()["windows"]


async def test_the_default_episode_is_served_at_mcp_and_sse_through_the_supervisor(two_workers: Process) -> None:
    with anyio.fail_after(DEADLINE_S):
        async with httpx2.AsyncClient(timeout=30.0) as http_client:
            async with Client(streamable_http_client(f"{two_workers.base}/mcp", http_client=http_client)) as client:
                over_http = (await client.call_tool("get_conversation", {})).structured_content
        async with Client(sse_client(f"{two_workers.base}/sse")) as client:
            over_sse = (await client.call_tool("get_conversation", {})).structured_content
    assert over_http["status"] == "open" and over_http["messages"] == over_sse["messages"]


@pytest.mark.parametrize("template, base, expected", [
    (None, "http://127.0.0.1:8000", "http://127.0.0.1:41001"),
    (None, "https://shop.example.org/verishop", "https://shop.example.org:41001"),
    (None, "http://[::1]:8000", "http://[::1]:41001"),
    ("https://shop.example.org/w{index}/", "http://127.0.0.1:8000", "https://shop.example.org/w1"),
])
def test_a_workers_url_keeps_the_host_the_client_used_and_takes_the_workers_port(
        template: str | None, base: str, expected: str) -> None:
    class Slot:
        index, port = 1, 41001

    assert worker_url(template, base, Slot()) == expected


def test_max_episodes_is_a_total_across_workers(catalog_path: Path, tmp_path: Path) -> None:
    with serve_workers(catalog_path, tmp_path, "--no-default-episode", "--max-episodes", "3") as server:
        with httpx2.Client(base_url=server.base, timeout=30.0) as http:
            ids = [create(http, seed)["episode_id"] for seed in range(3)]
            r = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 9})
            assert r.status_code == 503 and int(r.headers["retry-after"]) > 0, r.text
            assert health(http)["max_episodes"] == 3
            assert http.delete(f"/episodes/{ids[0]}").status_code == 200
            create(http, 9)


def test_the_token_public_url_and_idle_timeout_apply_on_every_worker(catalog_path: Path, tmp_path: Path) -> None:
    token = "t0ken-for-workers"
    with serve_workers(catalog_path, tmp_path, "--no-default-episode", "--public-url",
                       "https://shop.example.org/verishop", "--allowed-hosts", "shop.example.org:80,shop.example.org",
                       "--idle-timeout-s", "1", "--token", token) as server:
        with httpx2.Client(base_url=server.base, timeout=30.0) as http:
            refused = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 1})
            assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer", refused.text
            http.headers["authorization"] = f"Bearer {token}"
            episodes = [create(http, seed) for seed in range(2)]
            worker_ports = {w["port"] for w in health(http)["workers"]}
            assert {port(ep["mcp_url"]) for ep in episodes} == worker_ports
            assert all(ep["mcp_url"].startswith("https://shop.example.org:") for ep in episodes)
            for ep in episodes:
                reason = wait_for(f"{ep['episode_id']} idle-closed", lambda ep=ep: http.get(
                    f"/episodes/{ep['episode_id']}").json().get("close_reason"))
                assert reason == "idle_timeout"
            assert http.get("/curriculum", headers={"authorization": "Bearer wrong"}).status_code == 401


def test_a_killed_worker_is_replaced_and_only_its_episodes_close_as_crashed(catalog_path: Path,
                                                                            tmp_path: Path) -> None:
    with serve_workers(catalog_path, tmp_path, "--no-default-episode") as server:
        with httpx2.Client(base_url=server.base, timeout=30.0) as http:
            episodes = [create(http, seed) for seed in range(4)]
            victim = health(http)["workers"][1]
            doomed = [ep for ep in episodes if port(ep["mcp_url"]) == victim["port"]]
            spared = [ep for ep in episodes if port(ep["mcp_url"]) != victim["port"]]
            assert len(doomed) == len(spared) == 2
            carted = {}  # an answered write in each doomed episode: in the worker's store, not yet in a file
            for ep in doomed:
                found = call_tool(ep["mcp_url"], "search_catalog", {"category_id": "cookware", "in_stock_only": True})
                carted[ep["episode_id"]] = found["results"][0]["product_id"]
                assert call_tool(ep["mcp_url"], "add_to_cart", {"product_id": carted[ep["episode_id"]]})["item_count"] == 1
                assert not (Path(ep["run_dir"]) / "world.db").exists()

            os.kill(victim["pid"], signal.SIGKILL)
            for ep in doomed:
                shown = wait_for(f"{ep['episode_id']} closed", lambda ep=ep: (
                    r := http.get(f"/episodes/{ep['episode_id']}")).status_code == 200 and
                    r.json()["status"] == "closed" and r.json())
                assert shown["close_reason"] == "server_crashed"
                assert last_event(ep["run_dir"])["reason"] == "server_crashed"
                # Recovery wrote its world from the killed worker's store, the answered write in it.
                world = sqlite3.connect(f"file:{Path(ep['run_dir']) / 'world.db'}?mode=ro", uri=True)
                try:
                    assert world.execute("SELECT product_id, quantity FROM cart").fetchall() == \
                        [(carted[ep["episode_id"]], 1)]
                finally:
                    world.close()
                with Verifier() as verifier:
                    assert verifier.score(Path(ep["run_dir"])).verdict == "scored"
            for ep in spared:
                assert http.get(f"/episodes/{ep['episode_id']}").json()["status"] == "open"
                assert "results" in call_tool(ep["mcp_url"], "search_catalog", {"category_id": "cookware"})

            replaced = wait_for("a replacement worker", lambda: (
                w := health(http)["workers"][1])["status"] == "ok" and w["pid"] != victim["pid"] and w)
            assert (replaced["port"], replaced["restarts"], replaced["open_episodes"]) == (victim["port"], 1, 0)
            fresh = create(http, 7)  # 0 open on the replacement, 2 on worker 0
            assert port(fresh["mcp_url"]) == victim["port"]
            assert "results" in call_tool(fresh["mcp_url"], "search_catalog", {"category_id": "cookware"})
            assert "crashed server" in server.log()


def _episodes_then_signal(server, episodes: int, signum: int) -> tuple[list[dict], list[int]]:
    """Open `episodes` episodes, send the supervisor `signum` and wait for it to exit; returns
    the episodes and the worker pids."""
    with httpx2.Client(base_url=server.base, timeout=30.0) as http:
        opened = [create(http, seed) for seed in range(episodes)]
        pids = [w["pid"] for w in health(http)["workers"]]
    server.proc.send_signal(signum)
    server.proc.wait(timeout=PROCESS_EXIT_S)
    return opened, pids


def test_sigterm_closes_every_workers_episodes_as_server_stopped(catalog_path: Path, tmp_path: Path) -> None:
    with serve_workers(catalog_path, tmp_path, "--no-default-episode") as server:
        episodes, pids = _episodes_then_signal(server, 4, signal.SIGTERM)
    assert all(exited(pid) for pid in pids)
    assert {last_event(ep["run_dir"])["reason"] for ep in episodes} == {"server_stopped"}


def test_workers_stop_when_the_supervisor_is_killed(catalog_path: Path, tmp_path: Path) -> None:
    with serve_workers(catalog_path, tmp_path, "--no-default-episode") as server:
        episodes, pids = _episodes_then_signal(server, 2, signal.SIGKILL)
        for pid in pids:
            wait_for(f"worker {pid} gone", lambda pid=pid: exited(pid), PROCESS_EXIT_S)
    assert {last_event(ep["run_dir"])["reason"] for ep in episodes} == {"server_stopped"}


@pytest.mark.parametrize("args, complaint", [
    (["--workers", "0"], "--workers"),
    (["--workers", "2", "--worker-url", "http://shop.lan:9000"], "{port} or {index}"),
    (["--transport", "stdio", "--workers", "2"], "--transport http or sse"),
])
def test_bad_worker_options_are_refused(catalog_path: Path, tmp_path: Path, args: list[str], complaint: str) -> None:
    out = subprocess.run([sys.executable, "-m", "verishop", "serve", "--transport", "http", "--port", str(free_port()),
                          "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs"), *args],
                         capture_output=True, text=True, timeout=DEADLINE_S, stdin=subprocess.DEVNULL,
                         env={**os.environ, "VERISHOP_HOME": str(tmp_path)})
    assert out.returncode == 2 and complaint in out.stderr, out.stderr


async def test_the_relay_resends_on_a_fresh_connection_when_the_worker_closed_an_idle_one() -> None:
    """A worker's keep-alive ends (or a replacement took the port): the reused connection fails
    before any answer, and the request goes again on a new one. Chunked answers are read whole."""
    import asyncio

    from verishop.mcp_server.http.relay import Relay

    answers = [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
               b"HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"]
    connections = 0

    async def one_answer_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answers[connections - 1])
        await writer.drain()
        writer.close()  # as an idle keep-alive connection is closed: the client learns only on reuse

    server = await asyncio.start_server(one_answer_then_close, "127.0.0.1", 0)
    relay = Relay("127.0.0.1", server.sockets[0].getsockname()[1])
    try:
        with anyio.fail_after(DEADLINE_S):
            first = await relay.request("GET", "/health")
            second = await relay.request("POST", "/episodes", [(b"content-type", b"application/json")], b"{}")
    finally:
        relay.close()
        server.close()
    assert (first.status, first.body) == (200, b"ok")
    assert (second.status, second.body, connections) == (201, b"abcde", 2)
