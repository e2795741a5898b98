"""The OpenAI Agents SDK against the real shop (opt-in: `make test-adapters`, which installs
`openai-agents` into the project's venv: it imports as `agents`, and ours only as `verishop`).

Every shop tool converts under the SDK's strict schemas, and examples/agents_sdk_agent.py, an SDK
agent with a scripted model, plays `verishop eval` episodes that the verifier scores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from servers import shop_server

pytestmark = pytest.mark.adapters
REPO = Path(__file__).resolve().parents[1]
TOOLS = 30  # the shop's tools (docs/tools.md); it said 16 until the order and checkout tools came


async def _converted_tools(url: str) -> list[tuple[object, object, str | None]]:
    """(the MCP tool, the SDK's function tool, why strict conversion failed or None) per tool."""
    from agents.mcp import MCPServerStreamableHttp, MCPUtil
    from agents.strict_schema import ensure_strict_json_schema

    async with MCPServerStreamableHttp(params={"url": url}) as server:
        converted = []
        for tool in await server.list_tools():
            function_tool = MCPUtil.to_function_tool(tool, server, convert_schemas_to_strict=True)
            try:  # the SDK logs and falls back to non-strict; say why
                ensure_strict_json_schema(json.loads(json.dumps(tool.input_schema)), _reject_open_objects=True)
                error = None
            except Exception as exc:  # noqa: BLE001 - reported, not handled
                error = str(exc)
            converted.append((tool, function_tool, error))
        return converted


async def test_every_tool_converts_to_a_strict_function_tool(catalog_path, tmp_path):
    import verishop

    import agents  # the SDK's, installed by `make test-adapters`

    assert hasattr(agents, "Runner") and verishop.__version__, "both packages import side by side"
    with shop_server(catalog_path, tmp_path) as base:
        async with httpx2.AsyncClient() as http:
            episode = (await http.post(f"{base}/episodes", json={"env": "pd", "difficulty": 0, "seed": 1})).json()
        tools = await _converted_tools(episode["mcp_url"])
    assert len(tools) == TOOLS
    assert [f.name for _, f, error in tools if not f.strict_json_schema or error] == []
    for _, function_tool, _ in tools:
        assert not any(line.startswith(" ") for line in function_tool.description.splitlines()), function_tool.name
    search = next(f for _, f, _ in tools if f.name == "search_catalog").params_json_schema
    items = search["properties"]["attributes"]["anyOf"][0]["items"]
    assert items["additionalProperties"] is False and sorted(items["required"]) == ["name", "value"]


def test_the_agents_sdk_example_plays_scored_episodes_in_eval(catalog_path, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "verishop", "eval", "--agent", f"{REPO / 'examples' / 'agents_sdk_agent.py'}:agent",
         "--env", "pd,cart", "--difficulty", "0-4", "--episodes", "3", "--json", "--catalog", str(catalog_path),
         "--runs-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, timeout=600, env={**os.environ, "VERISHOP_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["agent"] == "agents_sdk_agent.agent" and summary["failures"] == []
    for row in (r for r in summary["rows"] if r["difficulty"] == "all"):
        assert (row["episodes"], row["scored"]) == (3, 3), row
    pd = next(r for r in summary["rows"] if r["env_id"].startswith("pd") and r["difficulty"] == "all")
    assert pd["r_hall"] == 1.0, "the scripted model recommends only what the SDK's search call returned"
    calls = [json.loads(line) for d in Path(summary["run_dir"]).iterdir() if d.is_dir() and not d.name.startswith(".")
             for line in (d / "transcript.jsonl").read_text().splitlines()]
    assert {c.get("tool") for c in calls if c.get("event") == "tool_call"} >= {"search_catalog", "respond_to_customer"}
