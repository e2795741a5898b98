"""A server killed with SIGKILL mid-episode loses nothing it already answered: the transcript
is valid JSON Lines holding every answered call in order, and once recovery has run (the next
server's start, or the supervisor replacing a worker) world.db, written from the killed
process's world store, opens read-only with the cart as the agent last saw it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import sqlite3
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from servers import started

from verishop.mcp_server.episodes.lifecycle import is_episode_id
from verishop.mcp_server.episodes.recovery import recover
from verishop.scenarios.catalog.reader import CatalogReader


async def test_sigkill_keeps_transcript_and_world(catalog_path: Path, tmp_path: Path) -> None:
    answered: list[tuple[str, dict]] = []
    with started(["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir",
                  str(tmp_path / "runs"), "--no-default-episode"], tmp_path / "server.log",
                 {"VERISHOP_HOME": str(tmp_path / "home")}, cwd=tmp_path) as server:
        base, proc = server.base, server.proc
        async with httpx2.AsyncClient(base_url=base, timeout=30.0) as http:
            r = await http.post("/episodes", json={"env": "pd", "difficulty": 3, "seed": 11})
        assert r.status_code == 201, r.text
        ep = r.json()
        run_dir = Path(ep["run_dir"])

        with anyio.fail_after(60):
            async with httpx2.AsyncClient(timeout=30.0) as http_client:
                async with Client(streamable_http_client(ep["mcp_url"], http_client=http_client)) as client:
                    async def call(tool: str, arguments: dict) -> dict | None:
                        result = await client.call_tool(tool, arguments)
                        answered.append((tool, arguments))
                        return None if result.is_error else result.structured_content

                    await call("get_conversation", {})
                    found = await call("search_catalog", {"category_id": "headphones", "in_stock_only": True,
                                                          "limit": 10})
                    with CatalogReader(catalog_path) as catalog:  # three units of the first are carted
                        first, second = [p["product_id"] for p in found["results"]
                                         if catalog.product(p["product_id"]).stock >= 3][:2]
                    await call("add_to_cart", {"product_id": first, "quantity": 2})
                    assert await call("add_to_cart", {"product_id": "P00000000"}) is None  # answered, as an error
                    await call("add_to_cart", {"product_id": second})
                    await call("update_cart_item", {"product_id": first, "quantity": 3})
                    cart = await call("view_cart", {})
        assert [(line["product_id"], line["quantity"]) for line in cart["lines"]] == [(first, 3), (second, 1)]
        proc.send_signal(signal.SIGKILL)  # no shutdown: what was answered must already be on disk
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    # The transcript: every line complete JSON, seq strictly increasing, every answered call present in order.
    raw = (run_dir / "transcript.jsonl").read_bytes()
    assert raw.endswith(b"\n")
    events = [json.loads(line) for line in raw.decode().splitlines()]
    assert events[0]["event"] == "episode_opened" and events[0]["episode_id"] == ep["episode_id"]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(events) + 1))
    assert not any(e["event"] == "episode_closed" for e in events), "the server was killed, not closed"
    calls = [e for e in events if e["event"] == "tool_call"]
    assert [c["tool"] for c in calls] == [tool for tool, _ in answered]
    for recorded, (tool, arguments) in zip(calls, answered):
        for key, value in arguments.items():
            assert recorded["arguments"][key] == value, (tool, key)
    assert "error" in calls[3] and "P00000000" in calls[3]["error"]
    assert calls[-1]["result"]["lines"] == cart["lines"]

    # An open episode's world is in its process's store until it closes; recovery writes it.
    assert not (run_dir / "world.db").exists()
    assert recover(run_dir.parent, is_episode_id).crashed == [ep["episode_id"]]
    assert not [p.name for p in run_dir.parent.iterdir() if p.name.startswith(".worlds-")], "the store is removed"

    # The world, read-only, as a verifier would open it after the crash.
    db = sqlite3.connect(f"file:{run_dir / 'world.db'}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA quick_check").fetchone() == ("ok",)
        rows = db.execute("SELECT product_id, quantity FROM cart ORDER BY added_seq").fetchall()
        assert rows == [(first, 3), (second, 1)]
        with pytest.raises(sqlite3.OperationalError):
            db.execute("DELETE FROM cart")
    finally:
        db.close()


def _serve_args(catalog_path: Path, runs: Path) -> list[str]:
    return ["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(runs),
            "--no-default-episode"]


def _events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "transcript.jsonl").read_text().splitlines()]


async def test_a_restart_closes_what_a_killed_server_left_open(catalog_path: Path, tmp_path: Path) -> None:
    """kill -9, then a new server on the same runs dir: the orphaned episode is closed with
    reason server_crashed (GET, DELETE and its MCP URL answer 'closed', not 404), its world is
    one self-contained file, and an episode whose creation was interrupted is closed and named.
    An episode of another live server on the same runs dir is left alone."""
    runs = tmp_path / "runs"
    env = {"VERISHOP_HOME": str(tmp_path / "home")}
    with started(_serve_args(catalog_path, runs), tmp_path / "live.log", env) as live:
        async with httpx2.AsyncClient(base_url=live.base, timeout=30.0) as http:
            alive = (await http.post("/episodes", json={"env": "pd", "difficulty": 2, "seed": 1})).json()

        with started(_serve_args(catalog_path, runs), tmp_path / "first.log", env) as first:
            async with httpx2.AsyncClient(base_url=first.base, timeout=30.0) as http:
                ep = (await http.post("/episodes", json={"env": "cart", "difficulty": 3, "seed": 2})).json()
            with anyio.fail_after(60):
                async with httpx2.AsyncClient(timeout=30.0) as mcp_http:
                    async with Client(streamable_http_client(ep["mcp_url"], http_client=mcp_http)) as client:
                        found = await client.call_tool("search_catalog", {"category_id": "cookware",
                                                                          "in_stock_only": True})
                        product = found.structured_content["results"][0]["product_id"]
                        assert not (await client.call_tool("add_to_cart", {"product_id": product})).is_error
            first.proc.send_signal(signal.SIGKILL)
            first.proc.wait(timeout=10)
        run_dir = Path(ep["run_dir"])
        # The killed server's world store holds the world; the live server's store is its own.
        assert not (run_dir / "world.db").exists() and _events(run_dir)[-1]["event"] != "episode_closed"

        # A creation killed before the transcript existed: a folder with a scenario and half a world.
        interrupted = runs / ("ep_" + "ab" * 12)
        interrupted.mkdir()
        (interrupted / "scenario.json").write_text((run_dir / "scenario.json").read_text())
        (interrupted / "world.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)

        with started(_serve_args(catalog_path, runs), tmp_path / "second.log", env) as second:
            assert "crashed server" in second.log() and interrupted.name in second.log()
            closing = _events(run_dir)[-1]
            assert (closing["event"], closing["reason"]) == ("episode_closed", "server_crashed")
            assert [e["seq"] for e in _events(run_dir)] == list(range(1, len(_events(run_dir)) + 1))
            assert not (run_dir / "world.db-wal").exists()
            assert _events(interrupted) == [{"seq": 1, "event": "episode_closed", "elapsed_ms": 0,
                                             "reason": "creation_interrupted", "turns": 0}]
            async with httpx2.AsyncClient(base_url=second.base, timeout=30.0) as http:
                for method in ("GET", "DELETE"):
                    r = await http.request(method, f"/episodes/{ep['episode_id']}")
                    assert r.status_code == 200 and r.json()["close_reason"] == "server_crashed", r.text
            with anyio.fail_after(60):
                async with httpx2.AsyncClient(timeout=30.0) as mcp_http:
                    url = f"{second.base}/episodes/{ep['episode_id']}/mcp"
                    async with Client(streamable_http_client(url, http_client=mcp_http)) as client:
                        r = await client.call_tool("view_cart", {})
                        assert r.is_error and "closed" in r.content[0].text

        # The live server's episode was not touched, and it still serves it.
        assert all(e["event"] != "episode_closed" for e in _events(Path(alive["run_dir"])))
        async with httpx2.AsyncClient(base_url=live.base, timeout=30.0) as http:
            assert (await http.get(f"/episodes/{alive['episode_id']}")).json()["status"] == "open"

    db = sqlite3.connect(f"file:{run_dir / 'world.db'}?mode=ro", uri=True)
    try:
        assert db.execute("SELECT product_id, quantity FROM cart").fetchall() == [(product, 1)]
    finally:
        db.close()

    # The verifier now scores it (before: episode_not_closed, forever).
    subprocess.run([sys.executable, "-m", "verishop", "verify", "--json", "--catalog", str(catalog_path),
                    str(run_dir)], capture_output=True, timeout=120, env={**os.environ, **env})
    reward = json.loads((run_dir / "reward.json").read_text())
    assert reward["verdict"] == "scored", reward


async def _kill_mid_cart(catalog_path: Path, root: Path) -> tuple[int, int]:
    """Fire eight add_to_cart calls at one episode and kill -9 the server as the first answer
    arrives. Returns (units in world.db's cart, successful add_to_cart events in the transcript)."""
    rpc_headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
                   "mcp-protocol-version": "2025-11-25"}
    with started(_serve_args(catalog_path, root / "runs"), root / "server.log",
                 {"VERISHOP_HOME": str(root / "home")}) as server:
        async with httpx2.AsyncClient(base_url=server.base, timeout=30.0) as http:
            ep = (await http.post("/episodes", json={"env": "cart", "difficulty": 0, "seed": 1})).json()
            found = await http.post(ep["mcp_url"], headers=rpc_headers, json={
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "search_catalog", "arguments": {"category_id": "cookware", "in_stock_only": True}}})
            data = next(json.loads(line[5:]) for line in found.text.splitlines() if line.startswith("data:"))
            product = data["result"]["structuredContent"]["results"][0]["product_id"]
            first_answer = anyio.Event()

            async def add(i: int) -> None:
                body = {"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                        "params": {"name": "add_to_cart", "arguments": {"product_id": product}}}
                try:
                    await http.post(ep["mcp_url"], headers=rpc_headers, json=body)
                    first_answer.set()
                except httpx2.TransportError:
                    pass  # the server is gone

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    for i in range(8):
                        tg.start_soon(add, i)
                    await first_answer.wait()
                    server.proc.send_signal(signal.SIGKILL)
                    server.proc.wait(timeout=10)
    run_dir = Path(ep["run_dir"])
    recover(run_dir.parent, is_episode_id)  # what the next server does at start
    events = [json.loads(line) for line in (run_dir / "transcript.jsonl").read_text().splitlines()]
    added = sum(1 for e in events if e["event"] == "tool_call" and e["tool"] == "add_to_cart" and "error" not in e)
    db = sqlite3.connect(f"file:{run_dir / 'world.db'}?mode=ro", uri=True)
    try:
        units = db.execute("SELECT coalesce(sum(quantity), 0) FROM cart").fetchone()[0]
    finally:
        db.close()
    return units, added


@pytest.mark.parametrize("round_", range(2))
async def test_a_kill_never_leaves_a_write_in_the_world_that_the_transcript_lacks(catalog_path: Path, tmp_path: Path,
                                                                                 round_: int) -> None:
    units, added = await _kill_mid_cart(catalog_path, tmp_path)
    assert added - 1 <= units <= added, (units, added)


@pytest.mark.slow
async def test_many_kills_never_leave_a_write_the_transcript_lacks(catalog_path: Path, tmp_path: Path) -> None:
    for round_ in range(40):
        (tmp_path / str(round_)).mkdir()
        units, added = await _kill_mid_cart(catalog_path, tmp_path / str(round_))
        assert added - 1 <= units <= added, (round_, units, added)
