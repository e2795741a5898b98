"""Run by the OpenAI Agents SDK's own venv (its package imports as `agents`, like ours, so this
file imports nothing of verishop): connect to one episode's MCP URL the way the SDK does, convert
every tool with strict schemas on, and print one JSON line per tool.

    .venv-openai-agents/bin/python tests/openai_strict_probe.py http://127.0.0.1:8000/episodes/ep_.../mcp
"""

import asyncio
import json
import sys

from verishop.agents.mcp import MCPServerStreamableHttp, MCPUtil
from verishop.agents.strict_schema import ensure_strict_json_schema


async def main(url: str) -> None:
    server = MCPServerStreamableHttp(params={"url": url})
    await server.connect()
    try:
        for tool in await server.list_tools():
            converted = MCPUtil.to_function_tool(tool, server, convert_schemas_to_strict=True)
            try:  # the SDK logs and falls back to non-strict; say why
                ensure_strict_json_schema(json.loads(json.dumps(tool.input_schema)), _reject_open_objects=True)
                error = None
            except Exception as exc:  # noqa: BLE001 - reported, not handled
                error = str(exc)
            print(json.dumps({"name": converted.name, "strict": converted.strict_json_schema, "error": error,
                              "description": converted.description, "schema": converted.params_json_schema}))
    finally:
        await server.cleanup()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
