"""The shop's own in-process MCP client: the SDK's `Client`, minus one check it cannot need.

The SDK's `Client.call_tool` validates every successful result's `structured_content` against the
tool's output schema with jsonschema (and lists the tools first, once per client, to learn the
schemas). Against a server in another process that check is the client's only guard, and every
other client keeps it. Against the shop's own server in this process it re-checks what the server
has just guaranteed: a `ShopTool` returns its declared pydantic model (`ShopTool.run` checks the
type, and anything else goes through the SDK's own validating conversion), and the structured
content is that validated model's JSON dump, the very model the output schema was generated from.
In a 1,000-product episode the re-check was the largest single cost after the SDK's plumbing
(jsonschema walking ten product cards is slower than the search that found them).

So `InProcessClient` skips exactly that step, and only for:
- a server built by `create_server` (a `ShopServer`; any other server is refused at construction,
  so it can never be pointed at a URL, a subprocess or somebody else's `MCPServer`);
- tools the server registered as `ShopTool`s when it was built (a tool added later, or replaced,
  is validated as the SDK does).
Everything else is the SDK's own path: the result is still parsed and checked against the MCP
protocol's `CallToolResult` shape, errors come back as `is_error` results, and listing tools,
prompts and resources is untouched. External clients (IDEs, agents over HTTP or stdio) see the
same protocol and the same output schemas as before.
"""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import CallToolRequest, CallToolRequestParams, CallToolResult


class ShopServer(MCPServer):
    """The shop's MCP server (see `verishop.mcp_server.tools.create_server`). It remembers which of
    its tools build their results from their own typed models, for `InProcessClient`."""

    typed_tool_names: frozenset[str] = frozenset()

    def remove_tool(self, name: str) -> None:
        # A tool registered again under this name is somebody else's: validate its results.
        self.typed_tool_names = self.typed_tool_names - {name}
        super().remove_tool(name)


class InProcessClient(Client):
    """`mcp.Client` over a `ShopServer` in this process, without re-validating the results of the
    server's own typed tools against their output schemas (see the module docstring).

        async with InProcessClient(create_server(hub)) as client:
            result = await client.call_tool("search_catalog", {"query": "usb-c charger"})
    """

    def __post_init__(self) -> None:
        if not isinstance(self.server, ShopServer):
            raise TypeError(f"InProcessClient trusts only the shop's own in-process server (built by "
                            f"create_server), not {type(self.server).__name__}: use mcp.Client for any other")
        super().__post_init__()

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        read_timeout_seconds: float | None = None, progress_callback: ProgressFnT | None = None,
                        **options: Any) -> CallToolResult:
        assert isinstance(self.server, ShopServer)  # __post_init__ made sure
        if options or name not in self.server.typed_tool_names:
            return await super().call_tool(name, arguments, read_timeout_seconds, progress_callback, **options)
        request = CallToolRequest(params=CallToolRequestParams(name=name, arguments=arguments))
        # `send_request` is the session's public typed round trip: the result is parsed and checked
        # against the protocol's CallToolResult; only the output-schema re-check is left out.
        return await self.session.send_request(request, CallToolResult, request_read_timeout_seconds=read_timeout_seconds,
                                               progress_callback=progress_callback)
