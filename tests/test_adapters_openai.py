"""Every shop tool converts under the OpenAI Agents SDK's strict schemas (opt-in: `make test-adapters`).

The SDK's package (`openai-agents`) imports as `agents`, the name of our own package, so it lives
in a venv of its own (`.venv-openai-agents`, made by `make test-adapters`, without verishop in
it) and runs `tests/openai_strict_probe.py` in a subprocess whose working directory is outside
the repository: nothing of ours is importable there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx2
import pytest
from servers import shop_server

pytestmark = pytest.mark.adapters
REPO = Path(__file__).resolve().parents[1]
SDK_PYTHON = Path(os.environ.get("OPENAI_AGENTS_PYTHON", REPO / ".venv-openai-agents" / "bin" / "python"))
TOOLS = 16


def test_all_sixteen_tools_convert_to_strict_function_tools(catalog_path, tmp_path):
    if not SDK_PYTHON.exists():
        pytest.fail(f"{SDK_PYTHON} is missing: `make test-adapters` creates it")
    with shop_server(catalog_path, tmp_path) as base:
        episode = httpx2.post(f"{base}/episodes", json={"env": "pd", "difficulty": 0, "seed": 1}).json()
        done = subprocess.run([str(SDK_PYTHON), str(REPO / "tests" / "openai_strict_probe.py"), episode["mcp_url"]],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert done.returncode == 0, done.stderr
    tools = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(tools) == TOOLS
    assert [t["name"] for t in tools if not t["strict"] or t["error"]] == []
    for tool in tools:
        assert not any(line.startswith(" ") for line in tool["description"].splitlines()), tool["name"]
    search = next(t for t in tools if t["name"] == "search_catalog")["schema"]
    items = search["properties"]["attributes"]["anyOf"][0]["items"]
    assert items["additionalProperties"] is False and sorted(items["required"]) == ["name", "value"]
