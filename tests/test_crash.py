"""A server killed with SIGKILL mid-episode loses nothing it already answered: the transcript
is valid JSON Lines holding every answered call in order, and world.db opens read-only with
the cart as the agent last saw it."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from servers import started


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
                                                          "limit": 5})
                    first, second = (p["product_id"] for p in found["results"][:2])
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
