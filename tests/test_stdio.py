"""`verishop serve --transport stdio` as a real subprocess, driven by the MCP SDK's `Client`.

One server process is one episode: the tests check the tool listing, a few calls, both
protocol eras, and the files the episode leaves behind once the client disconnects.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

EXPECTED_TOOLS = {"search_catalog", "add_to_cart", "initiate_return", "check_order"}
UNKNOWN_PRODUCT = "P99999999"


def server_params(catalog_path: Path, tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "verishop", "serve", "--transport", "stdio", "--env", "pd", "--difficulty", "2",
              "--seed", "5", "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs")],
        env={"VERISHOP_HOME": str(tmp_path / "home")},
        cwd=str(tmp_path),
    )


def only_run_dir(tmp_path: Path) -> Path:
    dirs = [d for d in (tmp_path / "runs").iterdir() if d.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def read_events(run_dir: Path) -> list[dict]:
    lines = (run_dir / "transcript.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def assert_closed_run_dir(tmp_path: Path) -> list[dict]:
    """The run directory a finished stdio episode leaves: scenario, world and a closed transcript."""
    run_dir = only_run_dir(tmp_path)
    for name in ("scenario.json", "world.db", "transcript.jsonl"):
        assert (run_dir / name).is_file(), f"{name} missing from {sorted(p.name for p in run_dir.iterdir())}"
    events = read_events(run_dir)
    assert events[0]["event"] == "episode_opened"
    assert events[-1]["event"] == "episode_closed", events[-1]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    return events


async def test_stdio_tools_calls_and_run_dir(catalog_path: Path, tmp_path: Path) -> None:
    with anyio.fail_after(60):
        async with Client(server_params(catalog_path, tmp_path)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert len(tools) >= 14, sorted(tools)
            assert EXPECTED_TOOLS <= set(tools)
            for name, tool in tools.items():
                assert tool.input_schema and tool.input_schema.get("type") == "object", name
                assert tool.output_schema, f"{name} has no output schema"
                assert tool.annotations is not None, f"{name} has no annotations"
                assert tool.description, name
            assert tools["search_catalog"].annotations.read_only_hint is True
            assert tools["add_to_cart"].annotations.read_only_hint is False
            assert tools["initiate_return"].annotations.destructive_hint is True
            assert "product_id" in tools["add_to_cart"].input_schema["properties"]
            assert "product_id" in tools["add_to_cart"].input_schema.get("required", [])

            # The opening message: the same one the scenario file holds.
            scenario = json.loads((only_run_dir(tmp_path) / "scenario.json").read_text())
            opening = scenario["opening_message"]
            conv = await client.call_tool("get_conversation", {})
            assert not conv.is_error, conv.content
            assert conv.structured_content["messages"][0] == {"role": "customer", "text": opening}
            assert conv.structured_content["status"] == "open"
            assert conv.structured_content["turns_used"] == 0

            found = await client.call_tool("search_catalog", {"query": "", "category_id": "chargers",
                                                              "in_stock_only": True, "limit": 5})
            assert not found.is_error, found.content
            results = found.structured_content["results"]
            assert results and all(r["category_id"] == "chargers" and r["in_stock"] for r in results)
            product_id = results[0]["product_id"]

            added = await client.call_tool("add_to_cart", {"product_id": product_id, "quantity": 2})
            assert not added.is_error, added.content
            cart = added.structured_content
            assert [(line["product_id"], line["quantity"]) for line in cart["lines"]] == [(product_id, 2)]
            assert cart["item_count"] == 2
            assert cart["subtotal_usd"] == pytest.approx(2 * results[0]["price_usd"])

            bad = await client.call_tool("add_to_cart", {"product_id": UNKNOWN_PRODUCT})
            assert bad.is_error
            text = bad.content[0].text
            assert f"no product with ID {UNKNOWN_PRODUCT!r}" in text, text
            assert "search_catalog" in text, text  # tells the agent where IDs come from

            after = await client.call_tool("view_cart", {})
            assert [(line["product_id"], line["quantity"]) for line in after.structured_content["lines"]] \
                == [(product_id, 2)]

    events = assert_closed_run_dir(tmp_path)
    calls = [e for e in events if e["event"] == "tool_call"]
    assert [c["tool"] for c in calls] == ["get_conversation", "search_catalog", "add_to_cart", "add_to_cart",
                                          "view_cart"]
    assert "error" in calls[3] and "result" not in calls[3]
    assert calls[2]["result"]["lines"][0]["product_id"] == product_id
    assert events[-1]["reason"] == "client_disconnected"


async def test_stdio_legacy_handshake(catalog_path: Path, tmp_path: Path) -> None:
    with anyio.fail_after(60):
        async with Client(server_params(catalog_path, tmp_path), mode="legacy") as client:
            assert client.protocol_version != "2026-07-28"
            assert client.protocol_version.startswith("20")
            tools = {t.name for t in (await client.list_tools()).tools}
            assert len(tools) >= 14 and EXPECTED_TOOLS <= tools
            conv = await client.call_tool("get_conversation", {})
            assert not conv.is_error, conv.content
            assert conv.structured_content["messages"][0]["role"] == "customer"
            date = await client.call_tool("get_current_date", {})
            assert not date.is_error and date.structured_content["today"]
            bad = await client.call_tool("get_product", {"product_id": UNKNOWN_PRODUCT})
            assert bad.is_error and UNKNOWN_PRODUCT in bad.content[0].text

    events = assert_closed_run_dir(tmp_path)
    assert [e["tool"] for e in events if e["event"] == "tool_call"] == \
        ["get_conversation", "get_current_date", "get_product"]
