"""The default episode (stdio and `/mcp`), for people trying the tools by hand, against real
server subprocesses: a lookup budget that lets a client chain calls, and a fresh episode once
one ends, without restarting the server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters
from servers import started

from verishop.mcp_server.episodes.defaults import IDE_LOOKUPS_PER_TURN

DEADLINE_S = 60


def _data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def _episodes(runs: Path) -> list[dict]:
    """Each episode folder's scenario, oldest first."""
    folders = sorted((d for d in runs.iterdir() if d.name.startswith("ep_")), key=lambda d: d.stat().st_mtime_ns)
    return [json.loads((d / "scenario.json").read_text()) | {"_dir": d} for d in folders]


async def _chain_then_finish(client: Client) -> dict:
    """Three lookups in one turn (difficulty 0 alone allows one), then done."""
    opening = _data(await client.call_tool("get_conversation", {}))
    found = _data(await client.call_tool("search_catalog", {"query": ""}))["results"]
    _data(await client.call_tool("get_product", {"product_id": found[0]["product_id"]}))
    _data(await client.call_tool("compare_products", {"product_ids": [p["product_id"] for p in found[:2]]}))
    reply = _data(await client.call_tool("respond_to_customer", {"message": "These two.", "done": True,
                                                                  "recommended_product_ids": [found[0]["product_id"]]}))
    assert reply["status"] == "closed"
    return opening


async def test_stdio_default_episode_chains_lookups_and_the_next_call_finds_a_fresh_episode(catalog_path, tmp_path):
    runs = tmp_path / "runs"
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "verishop", "serve", "--env", "pd", "--difficulty", "0", "--seed", "4", "--catalog", str(catalog_path),
        "--runs-dir", str(runs)], env={"VERISHOP_HOME": str(tmp_path / "home")}, cwd=str(tmp_path))
    with anyio.fail_after(DEADLINE_S):
        async with Client(params) as client:
            first = await _chain_then_finish(client)
            second = _data(await client.call_tool("get_conversation", {}))
            assert second["status"] == "open" and second["turns_used"] == 0
            assert second["messages"][0] != first["messages"][0]
    played, fresh = _episodes(runs)
    assert (played["seed"], fresh["seed"]) == (4, 5)  # the next seed: a new customer
    assert played["axes"]["tool_calls_per_turn"] == fresh["axes"]["tool_calls_per_turn"] == IDE_LOOKUPS_PER_TURN
    assert '"close_reason":"agent_done"' in (played["_dir"] / "transcript.jsonl").read_text().replace(" ", "")


async def test_http_default_episode_is_replaced_once_it_ends(catalog_path, tmp_path):
    runs = tmp_path / "runs"
    with started(["serve", "--transport", "http", "--catalog", str(catalog_path), "--runs-dir", str(runs),
                  "--seed", "9"], tmp_path / "server.log", {"VERISHOP_HOME": str(tmp_path / "home")}) as server:
        with anyio.fail_after(DEADLINE_S):
            async with Client(f"{server.base}/mcp") as client:
                await _chain_then_finish(client)
            assert len(_episodes(runs)) == 1  # the successor waits for someone to call
            async with Client(f"{server.base}/mcp") as client:  # the next connection
                fresh = _data(await client.call_tool("get_conversation", {}))
    assert fresh["status"] == "open" and fresh["turns_used"] == 0
    assert [e["seed"] for e in _episodes(runs)] == [9, 10]  # and none opened at shutdown
